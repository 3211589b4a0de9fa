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
	if !in.spark() {
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
	return []Finding{{
		Severity: sev,
		Scope:    in.appScope(),
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
		Recommendation: sizing(in, best) + fmt.Sprintf("; it saves about %s per run.", coreHours(saved)),
	}}
}

// sizing advises the executor count (or local threads) of an estimate.
func sizing(in *Input, e perfmodel.Estimate) string {
	if in.local() {
		return fmt.Sprintf("Run with %d local threads (master local[%d])", e.Slots, e.Slots)
	}
	n := max(1, int(e.Executors+0.5))
	if in.databricks() {
		return databricksSizing(in.App.Platform.Cluster, n, e.Slots)
	}
	return fmt.Sprintf("Run with about %d executors of the recorded size (%d task slots): set spark.executor.instances, or spark.dynamicAllocation.maxExecutors, to %d", n, e.Slots, n)
}
