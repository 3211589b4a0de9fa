package diagnose

import "fmt"

// SQLCartesianParams tune the sql-cartesian detector.
type SQLCartesianParams struct {
	// Blowup grades the join's output rows over its input rows. Every such
	// join is at least moderate; by default one that outputs 10 times its
	// input is severe, 1,000 times critical (clusterlens's).
	Blowup Limits
	// MinRowsOut is the fewest rows a keyless join must produce to be
	// reported: a cartesian product of two small sides is harmless
	// (clusterlens's).
	MinRowsOut int64
}

// DefaultSQLCartesianParams are the defaults.
var DefaultSQLCartesianParams = SQLCartesianParams{Blowup: Limits{0, 0, 10, 1000}, MinRowsOut: 100_000}

func init() {
	mustRegister(Func[SQLCartesianParams]{
		ID:       "sql-cartesian",
		Heading:  "Join without a key (cartesian or nested loop)",
		Cite:     sqlSource + " (CartesianProductExec, BroadcastNestedLoopJoinExec)",
		Defaults: DefaultSQLCartesianParams,
		Fn:       sqlCartesian,
	})
}

// sqlCartesian reports joins that compare every row with every row: a
// cartesian product, or a nested-loop join (a join condition without
// equality).
func sqlCartesian(in *Input, p SQLCartesianParams) []Finding {
	var out []Finding
	queries := in.Queries()
	for qi := range queries {
		q := &queries[qi]
		for oi := range q.Operators {
			op := &q.Operators[oi]
			if op.Name != "CartesianProduct" && op.Name != "BroadcastNestedLoopJoin" {
				continue
			}
			blowup := float64(op.RowsOut) / float64(max(op.RowsIn, 1))
			sev := p.Blowup.Ascending(blowup)
			if sev == None || op.RowsOut < p.MinRowsOut {
				continue
			}
			out = append(out, Finding{
				Severity: sev,
				Scope:    operatorScope(q, op),
				Summary: fmt.Sprintf("%s: %s pairs every row of one side with every row of the other: %d rows in, %d out.",
					describe(q), op.Name, op.RowsIn, op.RowsOut),
				Impact:   in.operatorImpact(q, op),
				Evidence: []Evidence{graded("rowsOutOverIn", blowup, "ratio", p.Blowup), fact("rowsIn", float64(op.RowsIn), "count"), gate("rowsOut", float64(op.RowsOut), "count", ">=", float64(p.MinRowsOut))},
				Recommendation: "Give the join an equality condition on keys (a missing ON clause, or a condition Spark cannot use as a key), " +
					"or filter both sides first; spark.sql.crossJoin.enabled only silences the check.",
			})
		}
	}
	return out
}
