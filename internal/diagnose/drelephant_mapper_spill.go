package diagnose

import (
	"fmt"
	"math"

	"github.com/clusterlens/clusterlens/internal/model"
)

// DrElephantMapperSpillParams tune Dr. Elephant's Mapper Spill heuristic
// (mapreduce/heuristics/MapperSpillHeuristic.java); the defaults are the
// class's, which app-conf/HeuristicConf.xml repeats.
type DrElephantMapperSpillParams struct {
	// Spill grades spilled records per map output record (spill_severity),
	// compared, as in Dr. Elephant, after both are scaled by 10000 and the
	// ratio truncated to a whole number (THRESHOLD_SPILL_FACTOR).
	Spill Limits
	// NumTasks grades the number of map tasks (num_tasks_severity); the
	// spill severity is lowered to it.
	NumTasks Limits
}

// DefaultDrElephantMapperSpillParams are MapperSpillHeuristic's defaults.
var DefaultDrElephantMapperSpillParams = DrElephantMapperSpillParams{
	Spill:    Limits{2.01, 2.2, 2.5, 3.0},
	NumTasks: Limits{50, 100, 500, 1000},
}

// drSpillFactor is MapperSpillHeuristic.THRESHOLD_SPILL_FACTOR.
const drSpillFactor = 10000

func init() {
	mustRegister(Func[DrElephantMapperSpillParams]{
		ID:       "drelephant-mapper-spill",
		Heading:  "Mapper spill (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/mapreduce/heuristics/MapperSpillHeuristic.java",
		Defaults: DefaultDrElephantMapperSpillParams,
		Fn:       drMapperSpill,
	})
}

// drMapperSpill is MapperSpillHeuristic.apply (app/com/linkedin/drelephant/mapreduce/heuristics/MapperSpillHeuristic.java): the map tasks' total
// SPILLED_RECORDS over their total MAP_OUTPUT_RECORDS (0 when nothing
// spilled), graded and lowered to the grade of the number of tasks.
func drMapperSpill(in *Input, p DrElephantMapperSpillParams) []Finding {
	app := in.App
	if !mrSucceeded(app) {
		return nil
	}
	tasks := mrTasks(app, model.StageMap)
	var spills, out int64
	for i := range tasks {
		if tasks[i].hasCounters {
			spills += tasks[i].spilled
			out += tasks[i].mapOut
		}
	}
	ratio := 0.0
	if spills != 0 {
		ratio = float64(spills) / float64(out)
	}
	limits := drScaled(p.Spill, drSpillFactor)
	normalized := math.Trunc(ratio * drSpillFactor) // Java's (long) cast; +Inf stays above every limit
	sev := drMin(limits.Ascending(normalized), p.NumTasks.Ascending(float64(len(tasks))))
	if sev == None {
		return nil
	}
	n := int64(len(tasks))
	return []Finding{{
		Severity: sev,
		Scope:    mrStageScope(model.StageMap),
		Summary: fmt.Sprintf("The %d map tasks spilled %.2f records per output record (%d spilled per task for %d output): each record was written to disk more than once while sorting.",
			n, drFinite(ratio), spills/n, out/n),
		Evidence: []Evidence{
			graded("spillRatio", drFinite(ratio), "ratio", p.Spill),
			graded("tasks", float64(n), "count", p.NumTasks),
			fact("spilledRecords", float64(spills), "count"),
			fact("mapOutputRecords", float64(out), "count"),
		},
		Recommendation: "Give the map-side sort more memory so it spills once: raise mapreduce.task.io.sort.mb (with the mapper heap) and mapreduce.map.sort.spill.percent, or shrink the map output (a combiner, compression with mapreduce.map.output.compress).",
	}}
}
