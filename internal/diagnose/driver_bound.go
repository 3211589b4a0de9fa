package diagnose

import "fmt"

// DriverBoundParams tune the driver-bound detector.
type DriverBoundParams struct {
	// Share grades the driver's share of the wall clock (time with no stage
	// running). Sparklens prints the split without grading it; these limits
	// are clusterlens's.
	Share Limits
	// MinDriverMs is the driver time below which nothing is reported.
	MinDriverMs int64
}

// DefaultDriverBoundParams are the defaults.
var DefaultDriverBoundParams = DriverBoundParams{Share: Limits{0.25, 0.5, 0.75, 0.9}, MinDriverMs: 60_000}

func init() {
	mustRegister(Func[DriverBoundParams]{
		ID:       "driver-bound",
		Heading:  "Driver-bound application",
		Cite:     "Sparklens, analyzer/EfficiencyStatisticsAnalyzer.scala (Time spent in Driver vs Executors; OneCoreComputeHours wasted by driver)",
		Defaults: DefaultDriverBoundParams,
		Fn:       driverBound,
	})
}

// driverBound reports an application whose executors spend much of the wall
// clock waiting for the driver: no executor count can make that time shorter.
func driverBound(in *Input, p DriverBoundParams) []Finding {
	if !in.spark() {
		return nil
	}
	e, err := in.Efficiency()
	if err != nil || e.DriverMs < p.MinDriverMs {
		return nil
	}
	share := e.DriverShare()
	sev := p.Share.Ascending(share)
	if sev == None {
		return nil
	}
	return []Finding{{
		Severity: sev,
		Scope:    in.appScope(),
		Summary: fmt.Sprintf("No stage ran for %s of the application's %s (%s): the driver worked alone in %d gaps, the longest %s, leaving %s of executor capacity idle.",
			dur(e.DriverMs), dur(e.AppMs), pct(share), e.Gaps, dur(e.LongestGapMs), coreHours(e.DriverCoreMsWasted)),
		Evidence: []Evidence{
			graded("driverShare", share, "share", p.Share),
			gate("driverMs", float64(e.DriverMs), "ms", ">=", float64(p.MinDriverMs)),
			fact("executorMs", float64(e.ExecutorMs), "ms"),
			fact("appMs", float64(e.AppMs), "ms"),
			fact("longestDriverGapMs", float64(e.LongestGapMs), "ms"),
			fact("driverGaps", float64(e.Gaps), "count"),
			fact("driverCoreMsWasted", float64(e.DriverCoreMsWasted), "core-ms"),
			fact("criticalPathAppMs", float64(e.CriticalPathAppMs), "ms"),
		},
		Recommendation: fmt.Sprintf("Executors cannot shorten the %s the driver works alone (even infinite executors leave %s). "+
			"Move driver-side work to the executors: avoid collect()/toPandas() of large results, list and open many small files in parallel "+
			"(or compact them), cache plans that are rebuilt, and run independent actions concurrently; while the driver works, "+
			"dynamic allocation (spark.dynamicAllocation.enabled) releases the idle executors.", dur(e.DriverMs), dur(e.CriticalPathAppMs)),
	}}
}
