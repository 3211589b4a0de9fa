package diagnose

import "fmt"

// SQLCartesianParams tune the sql-cartesian detector.
type SQLCartesianParams struct {
	// Blowup is how many times its input rows a join must output to be
	// graded severe rather than moderate (clusterlens's).
	Blowup float64
}

// DefaultSQLCartesianParams are the defaults.
var DefaultSQLCartesianParams = SQLCartesianParams{Blowup: 10}

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
			sev := Moderate
			if float64(op.RowsOut) > p.Blowup*float64(max(op.RowsIn, 1)) {
				sev = Severe
			}
			out = append(out, Finding{
				Severity: sev,
				Scope:    operatorScope(q, op),
				Summary: fmt.Sprintf("%s: %s pairs every row of one side with every row of the other: %d rows in, %d out.",
					describe(q), op.Name, op.RowsIn, op.RowsOut),
				Evidence: []Evidence{fact("rowsIn", float64(op.RowsIn), "count"), fact("rowsOut", float64(op.RowsOut), "count")},
				Recommendation: "Give the join an equality condition on keys (a missing ON clause, or a condition Spark cannot use as a key), " +
					"or filter both sides first; spark.sql.crossJoin.enabled only silences the check.",
			})
		}
	}
	return out
}
