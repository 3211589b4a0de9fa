package diagnose

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// CriticalStageTailParams tune the critical-stage-tail detector.
type CriticalStageTailParams struct {
	// MinSkew is the smallest longest-to-median task time ratio (Sparklens's
	// TaskSkew) that counts as a tail.
	MinSkew float64
	// TailShare grades the tail (longest minus median task time) as a share
	// of the application's wall clock: the time the stage's skew adds to the
	// critical path. Sparklens prints TaskSkew and TaskStageSkew without
	// grading them; these limits are clusterlens's.
	TailShare Limits
}

// DefaultCriticalStageTailParams are the defaults.
var DefaultCriticalStageTailParams = CriticalStageTailParams{MinSkew: 2, TailShare: Limits{0.05, 0.1, 0.2, 0.4}}

func init() {
	mustRegister(Func[CriticalStageTailParams]{
		ID:       "critical-stage-tail",
		Heading:  "Stage on the critical path with a long tail",
		Cite:     "Sparklens, timespan/JobTimeSpan.scala (computeCriticalTimeForJob) and analyzer/StageSkewAnalyzer.scala (TaskSkew, TaskStageSkew)",
		Defaults: DefaultCriticalStageTailParams,
		Fn:       criticalStageTail,
	})
}

// criticalStageTail reports stages on the critical path whose longest task
// runs far beyond the median: the application waits for that one task, and
// no executor count helps. The longest and median task are those of the
// stage's successful attempts (over all its stage attempts): a failed or
// killed attempt is no straggler, and a stage whose every attempt failed is
// the stage-failure heuristic's to report. Sparklens takes every attempt.
func criticalStageTail(in *Input, p CriticalStageTailParams) []Finding {
	if !in.spark() {
		return nil
	}
	e, err := in.Efficiency()
	if err != nil || e.AppMs <= 0 {
		return nil
	}
	var out []Finding
	for _, s := range e.Stages {
		if !s.OnCriticalPath {
			continue
		}
		s.MaxTaskMs, s.MedianTaskMs, s.Tasks = successTimes(in.App, s.ID)
		skew := s.TaskSkew()
		if s.Tasks == 0 || skew < p.MinSkew {
			continue
		}
		tail := s.MaxTaskMs - s.MedianTaskMs
		share := float64(tail) / float64(e.AppMs)
		sev := p.TailShare.Ascending(share)
		if sev == None {
			continue
		}
		out = append(out, Finding{
			Severity: sev,
			Impact:   in.tailImpact(s.ID, nil, int64(DefaultStragglerParams.ThD*float64(s.MedianTaskMs)), fmt.Sprintf("every attempt of the stage cut to %.3gx its median", DefaultStragglerParams.ThD)),
			Scope:    Scope{Kind: ScopeStage, IDs: []string{strconv.Itoa(int(s.ID))}},
			Summary: fmt.Sprintf("Stage %d is on the critical path and its longest task ran %s, %.1fx the median %s: the application waited %s (%s of its time) for the tail.",
				s.ID, dur(s.MaxTaskMs), skew, dur(s.MedianTaskMs), dur(tail), pct(share)),
			Evidence: []Evidence{
				graded("tailShare", share, "share", p.TailShare),
				gate("taskSkew", skew, "ratio", ">=", p.MinSkew),
				fact("tailMs", float64(tail), "ms"),
				fact("maxTaskMs", float64(s.MaxTaskMs), "ms"),
				fact("medianTaskMs", float64(s.MedianTaskMs), "ms"),
				fact("taskStageSkew", s.TaskStageSkew(), "ratio"),
				fact("stageWallMs", float64(s.WallMs), "ms"),
				fact("tasks", float64(s.Tasks), "count"),
			},
			Recommendation: fmt.Sprintf("Even out stage %d's partitions: repartition or salt a skewed key%s; if the slow task's host is slow for other stages too, enable speculative execution or drain the host.", s.ID, aqeAdvice(in)),
		})
	}
	return out
}

// successTimes is the longest and the upper median (Sparklens's
// sorted(n/2)) launch-to-finish time of the successful task attempts of
// every attempt of stage id, and their number (a quickselect, not a sort).
func successTimes(app *model.App, id int32) (maxMs, medianMs int64, n int) {
	var d []int64
	for si, st := range app.Stages {
		if st.ID != id {
			continue
		}
		for _, r := range stageRecords(app, si) {
			d = append(d, r.dur)
		}
	}
	if len(d) == 0 {
		return 0, 0, 0
	}
	return slices.Max(d), stats.Select(d, len(d)/2), len(d)
}
