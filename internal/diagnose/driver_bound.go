package diagnose

import (
	"fmt"
	"strings"

	"github.com/clusterlens/clusterlens/internal/perfmodel"
)

// DriverBoundParams tune the driver-bound and idle-session detectors.
type DriverBoundParams struct {
	// Share grades the driver's share of the wall clock (time with no stage
	// running, think time of interactive sessions left out): the rule's
	// grade, shown as RuleSeverity. Sparklens prints the split without
	// grading it; these limits are clusterlens's.
	Share Limits
	// MinDriverMs is the driver time below which nothing is reported.
	MinDriverMs int64
	// MinIdleCoreMs is the executor core time an interactive session must
	// hold idle between commands to be reported (idle-session).
	MinIdleCoreMs int64
}

// DefaultDriverBoundParams are the defaults.
var DefaultDriverBoundParams = DriverBoundParams{Share: Limits{0.25, 0.5, 0.75, 0.9}, MinDriverMs: 60_000, MinIdleCoreMs: 900_000}

func init() {
	mustRegister(Func[DriverBoundParams]{
		ID:       "driver-bound",
		Heading:  "Driver-bound application",
		Cite:     "Sparklens, analyzer/EfficiencyStatisticsAnalyzer.scala (Time spent in Driver vs Executors; OneCoreComputeHours wasted by driver)",
		Defaults: DefaultDriverBoundParams,
		Fn:       driverBound,
	})
	mustRegister(Func[DriverBoundParams]{
		ID:       "idle-session",
		Heading:  "Executors held while an interactive session waited",
		Cite:     "clusterlens, docs/FINDINGS.md §Driver time: Sparklens's driver-only time (EfficiencyStatisticsAnalyzer.scala) of an interactive session, its think time apart",
		Defaults: DefaultDriverBoundParams,
		Fn:       idleSession,
	})
}

// driverTime splits the driver-only gaps (perfmodel.DriverGaps) into the
// driver's work and, in an interactive session, the time it waited for
// the next command: every gap outside a job (before the first, between
// jobs, after the last) is a person thinking there; only the gaps inside a
// job are the driver's.
type driverTime struct {
	workMs, workCoreMs   int64
	thinkMs, thinkCoreMs int64
	gaps                 int
	longest              perfmodel.Gap
	byKind               [4]int64
}

func (in *Input) driverTime() (driverTime, bool) {
	w, err := in.Workload()
	if err != nil {
		return driverTime{}, false
	}
	interactive := in.interactive()
	var d driverTime
	for _, g := range perfmodel.DriverGaps(w) {
		ms, core := g.To-g.From, perfmodel.CoreMsIn(w, g.From, g.To)
		if interactive && g.Kind != perfmodel.GapInJob {
			d.thinkMs += ms
			d.thinkCoreMs += core
			continue
		}
		d.workMs += ms
		d.workCoreMs += core
		d.gaps++
		d.byKind[g.Kind] += ms
		if ms > d.longest.To-d.longest.From {
			d.longest = g
		}
	}
	return d, true
}

var gapWhere = [...]string{"before the first stage", "between jobs", "between the stages of a job", "after the last stage"}

// driverBound reports an application whose executors spend much of the wall
// clock waiting for the driver: no executor count can make that time shorter.
func driverBound(in *Input, p DriverBoundParams) []Finding {
	if !in.spark() {
		return nil
	}
	e, err := in.Efficiency()
	d, ok := in.driverTime()
	if err != nil || !ok || d.workMs < p.MinDriverMs || e.AppMs <= 0 {
		return nil
	}
	share := float64(d.workMs) / float64(e.AppMs)
	sev := p.Share.Ascending(share)
	if sev == None {
		return nil
	}
	dep := in.deployment()
	core := d.workCoreMs
	if dep.onOneMachine() {
		core = 0 // the driver's own threads: idle, they cost nothing
	}
	var where []string
	for k, ms := range d.byKind {
		if ms > 0 {
			where = append(where, fmt.Sprintf("%s %s", dur(ms), gapWhere[k]))
		}
	}
	think := ""
	if d.thinkMs > 0 {
		think = fmt.Sprintf(" (the %s this interactive session waited between commands is left out)", dur(d.thinkMs))
	}
	f := Finding{
		Severity: sev,
		Scope:    in.appScope(),
		Summary: fmt.Sprintf("No stage ran for %s of the application's %s (%s)%s: the driver worked alone in %d gaps, %s; the longest %s %s.",
			dur(d.workMs), dur(e.AppMs), pct(share), think, d.gaps, strings.Join(where, ", "), dur(d.longest.To-d.longest.From), gapWhere[d.longest.Kind]),
		Impact: in.measured(d.workMs, core, "the time no stage ran, with the executor cores idle meanwhile"),
		Evidence: []Evidence{
			graded("driverShare", share, "share", p.Share),
			gate("driverMs", float64(d.workMs), "ms", ">=", float64(p.MinDriverMs)),
			fact("startMs", float64(d.byKind[perfmodel.GapStart]), "ms"),
			fact("betweenJobsMs", float64(d.byKind[perfmodel.GapBetweenJobs]), "ms"),
			fact("inJobMs", float64(d.byKind[perfmodel.GapInJob]), "ms"),
			fact("endMs", float64(d.byKind[perfmodel.GapEnd]), "ms"),
			fact("thinkMs", float64(d.thinkMs), "ms"),
			fact("executorMs", float64(e.ExecutorMs), "ms"),
			fact("appMs", float64(e.AppMs), "ms"),
			fact("driverGaps", float64(d.gaps), "count"),
			fact("longestDriverGapMs", float64(d.longest.To-d.longest.From), "ms"),
			fact("driverCoreMsWasted", float64(core), "core-ms"),
			fact("criticalPathAppMs", float64(e.CriticalPathAppMs), "ms"),
		},
	}
	var advice []string
	switch d.longest.Kind {
	case perfmodel.GapStart:
		a := "Most of it came before the first stage: start-up, dependency resolution and the first query plan"
		if executorsCameDuring(in, d.longest) {
			a += ", and the wait for the executors to register (spark.scheduler.maxRegisteredResourcesWaitingTime)"
		}
		advice = append(advice, a+"; list input files in parallel (or compact small files) and keep heavy set-up off the driver")
	case perfmodel.GapEnd:
		advice = append(advice, "Most of it came after the last stage: results collected and written by the driver, or a context stopped late; write from the executors (DataFrame writers) instead of collect() and stop the session when done")
	default:
		advice = append(advice, "Move driver-side work between actions to the executors: avoid collect()/toPandas() of large results, cache plans that are rebuilt, and run independent actions concurrently")
	}
	b := &settingsBuilder{in: in}
	if !dep.onOneMachine() && dep != DeployDatabricks && !in.boolConf("spark.dynamicAllocation.enabled", false) && core > 0 {
		b.want("spark.dynamicAllocation.enabled", "true")
		advice = append(advice, fmt.Sprintf("while the driver works, dynamic allocation (spark.dynamicAllocation.enabled=true) releases the idle executors: up to %s", coreHours(core)))
	}
	f.Settings = b.out
	f.Recommendation = strings.Join(advice, "; ") + fmt.Sprintf(". Executors cannot shorten it (even infinite executors leave %s).", dur(e.CriticalPathAppMs))
	return []Finding{f}
}

// idleSession reports an interactive session on a cluster that held its
// executors while it waited for commands: a cost in core time, not in
// wall time.
func idleSession(in *Input, p DriverBoundParams) []Finding {
	if !in.spark() || !in.interactive() {
		return nil
	}
	dep := in.deployment()
	d, ok := in.driverTime()
	if !ok || dep.onOneMachine() || d.thinkCoreMs < p.MinIdleCoreMs {
		return nil
	}
	b := &settingsBuilder{in: in}
	var rec string
	switch {
	case dep == DeployDatabricks:
		rec = "Enable the cluster's autoscaling and its auto-termination, so that idle workers go while the notebook waits."
	case !in.boolConf("spark.dynamicAllocation.enabled", false):
		b.want("spark.dynamicAllocation.enabled", "true")
		if dep.onYARN() && !in.boolConf("spark.shuffle.service.enabled", false) {
			b.want("spark.shuffle.service.enabled", "true")
		} else if !dep.onYARN() {
			b.want("spark.dynamicAllocation.shuffleTracking.enabled", "true")
		}
		rec = "Let the session give its executors back while it waits: enable dynamic allocation (executors idle for spark.dynamicAllocation.executorIdleTimeout, 60 s by default, are released)."
	default:
		b.want("spark.dynamicAllocation.executorIdleTimeout", "30s")
		if v, ok := in.conf("spark.dynamicAllocation.minExecutors"); ok && strings.TrimSpace(v) != "0" {
			b.want("spark.dynamicAllocation.minExecutors", "0")
		}
		rec = "Dynamic allocation is on, yet executors stayed through the waits: release idle ones sooner and keep no minimum."
	}
	f := Finding{
		Severity: Low,
		Scope:    in.appScope(),
		Summary: fmt.Sprintf("This interactive session waited %s between commands (no job running) while its executors held %s idle; that is a person thinking, not the driver working.",
			dur(d.thinkMs), coreHours(d.thinkCoreMs)),
		Impact: in.measured(0, d.thinkCoreMs, "the executors' core time while no job ran between commands"),
		Evidence: []Evidence{
			gate("idleCoreMs", float64(d.thinkCoreMs), "core-ms", ">=", float64(p.MinIdleCoreMs)),
			fact("thinkMs", float64(d.thinkMs), "ms"),
			fact("appMs", float64(in.wallMs()), "ms"),
		},
		Recommendation: rec,
		Settings:       b.out,
	}
	return []Finding{f}
}

// executorsCameDuring reports whether executors registered during a gap:
// the driver may then have waited for them before its first action.
func executorsCameDuring(in *Input, g perfmodel.Gap) bool {
	for _, e := range in.App.Executors {
		if e.ID != "driver" && e.Added > g.From && e.Added <= g.To {
			return true
		}
	}
	return false
}
