package diagnose

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
)

// TooFewExecutorsParams tune the too-few-executors detector.
type TooFewExecutorsParams struct {
	// Percent is the executor count, as a percentage of the recorded one,
	// whose gain is graded.
	Percent int
	// Gain grades the share of the wall clock saved at Percent. Sparklens
	// prints the what-if table without grading it; these limits are
	// clusterlens's.
	Gain Limits
	// Tolerance picks the suggested count: the fewest executors within this
	// share of the best time of any setting.
	Tolerance float64
}

// DefaultTooFewExecutorsParams are the defaults.
var DefaultTooFewExecutorsParams = TooFewExecutorsParams{Percent: 200, Gain: Limits{0.1, 0.25, 0.4, 0.6}, Tolerance: 0.05}

func init() {
	mustRegister(Func[TooFewExecutorsParams]{
		ID:       "too-few-executors",
		Heading:  "Too few executors",
		Cite:     "Sparklens, analyzer/ExecutorWallclockAnalyzer.scala and scheduler/CompletionEstimator.scala (what-if on executor count)",
		Defaults: DefaultTooFewExecutorsParams,
		Fn:       tooFewExecutors,
	})
}

// tooFewExecutors replays the application with more executors and reports
// when that shortens it markedly.
func tooFewExecutors(in *Input, p TooFewExecutorsParams) []Finding {
	// Local mode runs on the driver's machine (local[*] has every core
	// already): there are no executors to add.
	if !in.spark() || in.deployment().onOneMachine() {
		return nil
	}
	wi, err := in.WhatIf()
	if err != nil {
		return nil
	}
	base, ok1 := wi.At(100)
	more, ok2 := wi.At(p.Percent)
	if !ok1 || !ok2 || base.AppMs <= 0 {
		return nil
	}
	gain := 1 - float64(more.AppMs)/float64(base.AppMs)
	sev := p.Gain.Ascending(gain)
	if sev == None {
		return nil
	}
	fastest := base
	for _, e := range wi.Estimates {
		if e.AppMs < fastest.AppMs {
			fastest = e
		}
	}
	pick := fastest
	for _, e := range wi.Estimates {
		if e.Percent >= 100 && e.Percent < pick.Percent && float64(e.AppMs) <= float64(fastest.AppMs)*(1+p.Tolerance) {
			pick = e
		}
	}
	settings, advice := sizing(in, pick)
	if settings == nil && advice == "" {
		return nil
	}
	// The core time the executors hold over the run: the price of the
	// time gained.
	cpus := int64(1)
	if w, err := in.Workload(); err == nil {
		cpus = int64(max(1, w.TaskCPUs))
	}
	held := func(e perfmodel.Estimate) int64 { return int64(e.Slots) * e.AppMs * cpus }
	im := in.newImpact(base.AppMs-pick.AppMs, 0, MethodReplay, fmt.Sprintf("the what-if replay with %d%% of the executors", pick.Percent))
	im.ModelError = wi.ModelError
	var cut []Evidence
	note := ""
	if j := lastJobCancelled(in.App); j != nil {
		// The run ended when someone cancelled its last job: the replay
		// times the work that ran, not the work the job had to do.
		cut = append(cut, fact("uncertain", 1, "flag"), fact("cancelledJob", float64(j.ID), "id"))
		note = fmt.Sprintf(" Its last job (job %d) was cancelled, so the run's length was someone's choice: the replay times only the work that ran.", j.ID)
	}
	return []Finding{{
		Severity: sev,
		Scope:    in.appScope(),
		Summary: fmt.Sprintf("Replayed with %d%% of its executors (%d slots instead of %d) the application finishes in %s instead of %s, %s sooner; tasks waited for free slots.",
			more.Percent, more.Slots, base.Slots, dur(more.AppMs), dur(base.AppMs), pct(gain)) + note,
		Impact:   im,
		Settings: settings,
		Evidence: append([]Evidence{
			graded("gainShare", gain, "share", p.Gain),
			fact("slotsRecorded", float64(base.Slots), "slots"),
			fact("appMsRecordedSlots", float64(base.AppMs), "ms"),
			fact("appMsMoreExecutors", float64(more.AppMs), "ms"),
			fact("percentSuggested", float64(pick.Percent), "percent"),
			fact("executorsSuggested", pick.Executors, "executors"),
			fact("appMsSuggested", float64(pick.AppMs), "ms"),
			fact("utilizationSuggested", pick.Utilization, "share"),
		}, cut...),
		Recommendation: advice + fmt.Sprintf(" (%d%% of today's): expected about %s faster, %s instead of %s (the replay reproduces the recorded run within %.1f%%), holding %s instead of %s; beyond that the critical path and the driver bound the time.",
			pick.Percent, dur(base.AppMs-pick.AppMs), dur(pick.AppMs), dur(base.AppMs), 100*wi.ModelError,
			coreHours(held(pick)), coreHours(held(base))),
	}}
}

// lastJobCancelled is the application's last job to end when it failed
// because it was cancelled (a user's cancel, the context stopped), else nil.
func lastJobCancelled(app *model.App) *model.Job {
	var last *model.Job
	for _, j := range app.Jobs {
		if j.Completed > 0 && (last == nil || j.Completed > last.Completed) {
			last = j
		}
	}
	if last != nil && last.Status == model.JobFailed && cancelled(last.Failure) {
		return last
	}
	return nil
}
