package diagnose

import "fmt"

// SQLIdleCoresParams tune the sql-idle-cores detector.
type SQLIdleCoresParams struct {
	// WaitingIdle grades the share of the query's slot time that slots
	// sat idle while its tasks waited to launch (query.Query.WaitingIdle).
	WaitingIdle Limits
	// MinWallMs is the least query time worth a finding.
	MinWallMs int64
}

// DefaultSQLIdleCoresParams are the defaults (clusterlens's; HiTune §7.1
// calls the pattern "few tasks per heartbeat" without a threshold).
var DefaultSQLIdleCoresParams = SQLIdleCoresParams{WaitingIdle: Limits{0.2, 0.3, 0.5, 0.7}, MinWallMs: 30_000}

func init() {
	mustRegister(Func[SQLIdleCoresParams]{
		ID:       "sql-idle-cores",
		Heading:  "Cores idle while a query ran",
		Cite:     sqlSource + "; idle slots while tasks wait, HiTune (Dai et al., ATC'11) §7.1",
		Defaults: DefaultSQLIdleCoresParams,
		Fn:       sqlIdleCores,
	})
}

// sqlIdleCores reports queries during which the application's cores sat
// idle while the query's tasks waited to be launched: a scheduler that
// launches slowly, or too few executors. (A stage's tail, when a few
// skewed or slow tasks run and none waits, is not counted: sql-skewed-join
// and the straggler detectors speak of it.)
func sqlIdleCores(in *Input, p SQLIdleCoresParams) []Finding {
	var out []Finding
	queries := in.Queries()
	for qi := range queries {
		q := &queries[qi]
		if q.WallMs < p.MinWallMs || q.Slots == 0 || q.TaskMs == 0 {
			continue
		}
		sev := p.WaitingIdle.Ascending(q.WaitingIdle)
		if sev == None {
			continue
		}
		out = append(out, Finding{
			Severity: sev,
			Scope:    queryScope(q),
			Summary: fmt.Sprintf("%s ran %s on %d cores; for %.0f%% of that slot time cores were idle while its tasks waited to launch (its tasks used %.0f%% of the cores).",
				describe(q), msText(q.WallMs), q.Slots, 100*q.WaitingIdle, 100*q.Utilization),
			Evidence: []Evidence{
				graded("waitingIdleShare", q.WaitingIdle, "share", p.WaitingIdle),
				gate("wallMs", float64(q.WallMs), "ms", ">=", float64(p.MinWallMs)),
				fact("utilization", q.Utilization, "share"),
				fact("slots", float64(q.Slots), "slots"),
				fact("taskMs", float64(q.TaskMs), "ms"),
			},
			Recommendation: "Look at what launches the query's tasks slowly: the scheduler (spark.locality.wait, which delays tasks that wait for a local slot; " +
				"a busy driver), or executors that are slow to come (dynamic allocation's spark.dynamicAllocation.schedulerBacklogTimeout).",
		})
	}
	return out
}
