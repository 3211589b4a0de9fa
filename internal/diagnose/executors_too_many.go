package diagnose

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/perfmodel"
)

// TooManyExecutorsParams tune the too-many-executors detector.
type TooManyExecutorsParams struct {
	// Tolerance is how much longer (a share of the time at 100%) the
	// application may take with fewer executors.
	Tolerance float64
	// Removable grades the share of executors that can go within Tolerance.
	// Sparklens prints the what-if table without grading it; these limits
	// are clusterlens's.
	Removable Limits
	// MinSlots is the fewest task slots worth cutting.
	MinSlots int
	// MinCoreMsSaved is the least core time per run (core-milliseconds) worth
	// a finding; clusterlens's gate against reporting trivia.
	MinCoreMsSaved int64
}

// DefaultTooManyExecutorsParams are the defaults.
var DefaultTooManyExecutorsParams = TooManyExecutorsParams{Tolerance: 0.1, Removable: Limits{0.2, 0.4, 0.6, 0.8}, MinSlots: 2, MinCoreMsSaved: 3_600_000}

func init() {
	mustRegister(Func[TooManyExecutorsParams]{
		ID:       "too-many-executors",
		Heading:  "More executors than the application can use",
		Cite:     "Sparklens, analyzer/ExecutorWallclockAnalyzer.scala and scheduler/CompletionEstimator.scala (what-if on executor count)",
		Defaults: DefaultTooManyExecutorsParams,
		Fn:       tooManyExecutors,
	})
}

// tooManyExecutors replays the application with fewer executors and reports
// the smallest count that finishes within the tolerance of the recorded count.
func tooManyExecutors(in *Input, p TooManyExecutorsParams) []Finding {
	// In local mode the slots are the driver's own threads: idle, they
	// cost nothing.
	if !in.spark() || in.deployment().onOneMachine() {
		return nil
	}
	wi, err := in.WhatIf()
	if err != nil {
		return nil
	}
	base, ok := wi.At(100)
	if !ok || base.Slots < p.MinSlots || base.AppMs <= 0 {
		return nil
	}
	best := base
	for _, e := range wi.Estimates {
		if e.Percent < best.Percent && float64(e.AppMs) <= float64(base.AppMs)*(1+p.Tolerance) {
			best = e
		}
	}
	removable := 1 - float64(best.Slots)/float64(base.Slots)
	sev := p.Removable.Ascending(removable)
	saved := int64(base.Slots)*base.AppMs - int64(best.Slots)*best.AppMs
	if sev == None || saved < p.MinCoreMsSaved {
		return nil
	}
	slower := float64(best.AppMs)/float64(base.AppMs) - 1
	settings, advice := sizing(in, best)
	if settings == nil && advice == "" {
		return nil
	}
	im := in.newImpact(0, saved, MethodReplay, fmt.Sprintf("the what-if replay with %d%% of the executors, against the slots held", best.Percent))
	im.ModelError = wi.ModelError
	return []Finding{{
		Severity: sev,
		Scope:    in.appScope(),
		Impact:   im,
		Settings: settings,
		Summary: fmt.Sprintf("Replayed with %d%% of its executors (%d task slots instead of %d) the application finishes in %s instead of %s (%+.1f%%): %s of the slots are not needed.",
			best.Percent, best.Slots, base.Slots, dur(best.AppMs), dur(base.AppMs), 100*slower, pct(removable)),
		Evidence: []Evidence{
			graded("removableShare", removable, "share", p.Removable),
			gate("slowdown", slower, "share", "<=", p.Tolerance),
			fact("slotsRecorded", float64(base.Slots), "slots"),
			fact("slotsSuggested", float64(best.Slots), "slots"),
			fact("executorsSuggested", best.Executors, "executors"),
			fact("appMsRecordedSlots", float64(base.AppMs), "ms"),
			fact("appMsSuggested", float64(best.AppMs), "ms"),
			fact("utilizationRecordedSlots", base.Utilization, "share"),
			fact("utilizationSuggested", best.Utilization, "share"),
			gate("coreMsSaved", float64(saved), "core-ms", ">=", float64(p.MinCoreMsSaved)),
		},
		Recommendation: advice + fmt.Sprintf(": expected to save about %s per run for %s more wall time (the replay reproduces the recorded run within %.1f%%).",
			coreHours(saved), dur(max(0, best.AppMs-base.AppMs)), 100*wi.ModelError),
	}}
}

// sizing advises the executor count of an estimate as settings of the
// run's deployment, leaving out what the run already has; nil settings and
// no advice when there is nothing to change (the count is the run's).
func sizing(in *Input, e perfmodel.Estimate) ([]Setting, string) {
	n := max(1, int(e.Executors+0.5))
	c, _ := in.Efficiency()
	b := &settingsBuilder{in: in}
	if c != nil && n == c.Cores.MaxExecutors {
		// The count stays: change the cores instead, when fewer will do.
		if e.Slots >= c.Cores.Slots || in.databricks() {
			return nil, ""
		}
		cpus := max(1, c.Cores.MaxConcurrent/max(1, c.Cores.Slots))
		if in.deployment() == DeployStandalone {
			v := fmt.Sprint(e.Slots * cpus)
			if !b.want("spark.cores.max", v) {
				return nil, ""
			}
			return b.out, fmt.Sprintf("Give the application %d cores (%d task slots) instead of %d: set spark.cores.max=%s (now %s)", e.Slots*cpus, e.Slots, c.Cores.MaxConcurrent, v, in.setNow("spark.cores.max"))
		}
		per := max(1, (e.Slots*cpus+n-1)/n)
		if per >= c.Cores.PerExecutor || !b.want("spark.executor.cores", fmt.Sprint(per)) {
			return nil, ""
		}
		return b.out, fmt.Sprintf("Keep %d executor(s) with %d cores each instead of %d: set spark.executor.cores=%d (now %s)", n, per, c.Cores.PerExecutor, per, in.setNow("spark.executor.cores"))
	}
	if in.databricks() {
		return nil, databricksSizing(in.App.Platform.Cluster, n, e.Slots)
	}
	key := "spark.executor.instances"
	if in.boolConf("spark.dynamicAllocation.enabled", false) {
		key = "spark.dynamicAllocation.maxExecutors"
	}
	if !b.want(key, fmt.Sprint(n)) {
		return nil, ""
	}
	return b.out, fmt.Sprintf("Run with about %d executors of the recorded size (%d task slots): set %s=%d (now %s)", n, e.Slots, key, n, in.setNow(key))
}
