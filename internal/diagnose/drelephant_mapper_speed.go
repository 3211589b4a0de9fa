package diagnose

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/model"
)

// DrElephantMapperSpeedParams tune Dr. Elephant's Mapper Speed heuristic
// (mapreduce/heuristics/MapperSpeedHeuristic.java); the defaults are the
// class's, which app-conf/HeuristicConf.xml repeats.
type DrElephantMapperSpeedParams struct {
	// DiskSpeed grades the median task read speed as fractions of
	// DiskReadSpeed, smaller being worse (disk_speed_severity).
	DiskSpeed Limits
	// DiskReadSpeed in bytes per second (HDFSContext.DISK_READ_SPEED,
	// 100 MiB/s).
	DiskReadSpeed int64
	// RuntimeMinutes grades the median task run time in minutes
	// (runtime_severity_in_min); the speed severity is lowered to it.
	RuntimeMinutes Limits
}

// DefaultDrElephantMapperSpeedParams are MapperSpeedHeuristic's defaults.
var DefaultDrElephantMapperSpeedParams = DrElephantMapperSpeedParams{
	DiskSpeed:      Limits{1.0 / 2, 1.0 / 4, 1.0 / 8, 1.0 / 32},
	DiskReadSpeed:  100 * drMiB,
	RuntimeMinutes: Limits{5, 10, 15, 30},
}

func init() {
	mustRegister(Func[DrElephantMapperSpeedParams]{
		ID:       "drelephant-mapper-speed",
		Heading:  "Mapper speed (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/mapreduce/heuristics/MapperSpeedHeuristic.java",
		Defaults: DefaultDrElephantMapperSpeedParams,
		Fn:       drMapperSpeed,
	})
}

// drMapperSpeed is MapperSpeedHeuristic.apply (app/com/linkedin/drelephant/mapreduce/heuristics/MapperSpeedHeuristic.java): the median of the map tasks'
// read speeds (1000 × input bytes / run time ms, in whole bytes per second)
// graded against fractions of the disk speed, lowered to the grade of the
// median run time. A task that ran 0 ms, where Dr. Elephant divides by zero,
// is left out.
func drMapperSpeed(in *Input, p DrElephantMapperSpeedParams) []Finding {
	app := in.App
	if !mrSucceeded(app) {
		return nil
	}
	tasks := mrTasks(app, model.StageMap)
	var sizes, speeds, run []int64
	var total int64
	for i := range tasks {
		t := &tasks[i]
		if !t.hasTime || !t.hasCounters || t.totalMs <= 0 {
			continue
		}
		sizes = append(sizes, t.hdfsRead)
		total += t.hdfsRead
		run = append(run, t.totalMs)
		speeds = append(speeds, 1000*t.hdfsRead/t.totalMs)
	}
	medSpeed, ok := drMedian(speeds)
	if !ok {
		return nil
	}
	medSize, _ := drMedian(sizes)
	medRun, _ := drMedian(run)
	speed := drScaled(p.DiskSpeed, float64(p.DiskReadSpeed))
	runtime := drScaled(p.RuntimeMinutes, drMinuteMs)
	sev := drMin(speed.Descending(float64(medSpeed)), runtime.Ascending(float64(medRun)))
	if sev == None {
		return nil
	}
	return []Finding{{
		Severity: sev,
		Scope:    mrStageScope(model.StageMap),
		Summary: fmt.Sprintf("The median map task read %s/s (%s in %s), slow for tasks that long: the mappers are CPU-bound or wait on something other than their input.",
			drBytes(medSpeed), drBytes(medSize), dur(medRun)),
		Evidence: []Evidence{
			drGradedDown("medianSpeedBytesPerSec", float64(medSpeed), "bytes/s", speed),
			graded("medianRuntimeMs", float64(medRun), "ms", runtime),
			fact("medianInputBytes", float64(medSize), "bytes"),
			fact("totalInputBytes", float64(total), "bytes"),
			fact("tasks", float64(len(tasks)), "count"),
		},
		Recommendation: "Find what slows the mappers beyond their input: expensive per-record work, many small records, or external calls; profile a map task and optimize the map function.",
	}}
}
