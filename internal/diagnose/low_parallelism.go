package diagnose

import (
	"fmt"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
)

// LowParallelismParams tune the low-parallelism detector.
type LowParallelismParams struct {
	// MaxRatio is the largest tasks-per-slot ratio (Sparklens's PRatio) that
	// counts as too few tasks.
	MaxRatio float64
	// IdleShare grades the core time the stage left idle as a share of the
	// application's available core time. Sparklens prints PRatio and the
	// per-stage wasted core-hours without grading them; these limits are
	// clusterlens's.
	IdleShare Limits
	// PartitionsPerSlot is the suggested tasks per slot.
	PartitionsPerSlot int
	// MinCoreMsIdle is the least idle core time (core-milliseconds) worth a
	// finding; clusterlens's gate against reporting trivia.
	MinCoreMsIdle int64
}

// DefaultLowParallelismParams are the defaults.
var DefaultLowParallelismParams = LowParallelismParams{MaxRatio: 1, IdleShare: Limits{0.05, 0.1, 0.2, 0.4}, PartitionsPerSlot: 3, MinCoreMsIdle: 900_000}

func init() {
	mustRegister(Func[LowParallelismParams]{
		ID:       "low-parallelism",
		Heading:  "Stage with fewer tasks than slots",
		Cite:     "Sparklens, analyzer/StageSkewAnalyzer.scala (PRatio; per-stage OneCoreComputeHours available, used, wasted)",
		Defaults: DefaultLowParallelismParams,
		Fn:       lowParallelism,
	})
}

// lowParallelism reports stages that had fewer tasks than the executors had
// slots, so cores sat idle for the whole stage. A stage's tasks are its
// partitions, the "Number of Tasks" Spark declared when it was submitted
// (the largest over its attempts, since a retry declares only the missing
// partitions), not the task attempts the log recorded: failed attempts
// and retries do not add parallelism, and a stage cancelled early ran fewer
// attempts than it had partitions. Without a declared count (MapReduce
// phases) the recorded attempts count, as in Sparklens's PRatio.
func lowParallelism(in *Input, p LowParallelismParams) []Finding {
	if !in.spark() {
		return nil
	}
	e, err := in.Efficiency()
	if err != nil || e.CoreMsAvailable <= 0 {
		return nil
	}
	data := map[int32]*stageData{}
	for _, d := range stagesData(in.App) {
		data[d.id] = d
	}
	var out []Finding
	for _, s := range e.Stages {
		if n := partitions(in.App, s.ID); n > 0 {
			s.Tasks = n
			s.ParallelismRatio = float64(n) / float64(max(1, e.Cores.Slots))
		}
		if s.ParallelismRatio > p.MaxRatio {
			continue
		}
		share := float64(s.CoreMsWasted) / float64(e.CoreMsAvailable)
		sev := p.IdleShare.Ascending(share)
		if sev == None || s.CoreMsWasted < p.MinCoreMsIdle {
			continue
		}
		// Not applicable when the stage's time was not its tasks': a stage
		// that waited (for slots, for the scheduler) before a short task
		// has no parallelism to gain.
		if s.WallMs <= 0 || float64(s.MaxTaskMs) < 0.5*float64(s.WallMs) {
			continue
		}
		k := max(1, e.Cores.Slots/max(1, s.Tasks))
		if k < 2 {
			continue
		}
		want := p.PartitionsPerSlot * e.Cores.Slots
		si := in.wlStage(s.ID)
		im := in.replayedStage(si, perfmodel.Edit{Duration: func(stage, _ int, d int64) int64 {
			if stage != si {
				return d
			}
			return (d + int64(k) - 1) / int64(k)
		}}, fmt.Sprintf("the stage's %d tasks split %d ways over its %d idle slots", s.Tasks, k, e.Cores.Slots), in.limits())
		b := &settingsBuilder{in: in}
		rec := fmt.Sprintf("Give stage %d about %d partitions: ", s.ID, want)
		if d := data[s.ID]; d != nil {
			rec = partitionAdvice(in, b, d, want)
		} else {
			rec += fmt.Sprintf("repartition(%d).", want)
		}
		out = append(out, Finding{
			Severity: sev,
			Scope:    Scope{Kind: ScopeStage, IDs: []string{strconv.Itoa(int(s.ID))}},
			Summary: fmt.Sprintf("Stage %d ran %d tasks on %d slots (%.2f per slot) and left %s idle, %s of the application's core time.",
				s.ID, s.Tasks, e.Cores.Slots, s.ParallelismRatio, coreHours(s.CoreMsWasted), pct(share)),
			Impact: im,
			Evidence: []Evidence{
				graded("idleShare", share, "share", p.IdleShare),
				gate("parallelismRatio", s.ParallelismRatio, "ratio", "<=", p.MaxRatio),
				fact("tasks", float64(s.Tasks), "count"),
				fact("slots", float64(e.Cores.Slots), "slots"),
				gate("coreMsWasted", float64(s.CoreMsWasted), "core-ms", ">=", float64(p.MinCoreMsIdle)),
				fact("stageWallMs", float64(s.WallMs), "ms"),
				fact("maxTaskMs", float64(s.MaxTaskMs), "ms"),
			},
			Recommendation: rec,
			Settings:       b.out,
		})
	}
	return out
}

// partitions is the most tasks any attempt of stage id declared at
// submission, 0 when none did.
func partitions(app *model.App, id int32) int {
	n := 0
	for _, st := range app.Stages {
		if st.ID == id {
			n = max(n, int(st.NumTasks))
		}
	}
	return n
}
