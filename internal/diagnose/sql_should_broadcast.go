package diagnose

import "fmt"

// SQLShouldBroadcastParams tune the sql-should-broadcast detector.
type SQLShouldBroadcastParams struct {
	// MaxSmallBytes is the largest side Spark could broadcast instead of
	// shuffling: a few times spark.sql.autoBroadcastJoinThreshold (10 MB).
	MaxSmallBytes int64
	// MinRatio is how many times larger the other side must be.
	MinRatio float64
	// Spared grades the large side's shuffle, what broadcasting the small
	// side spares (with its sort).
	Spared Limits
}

// DefaultSQLShouldBroadcastParams are the defaults.
var DefaultSQLShouldBroadcastParams = SQLShouldBroadcastParams{MaxSmallBytes: 32 << 20, MinRatio: 10, Spared: Limits{0, 256 << 20, 10 << 30, 100 << 30}}

func init() {
	mustRegister(Func[SQLShouldBroadcastParams]{
		ID:       "sql-should-broadcast",
		Heading:  "Shuffle join of a small table",
		Cite:     sqlSource + " (spark.sql.autoBroadcastJoinThreshold, 10 MB; join hints)",
		Defaults: DefaultSQLShouldBroadcastParams,
		Fn:       sqlShouldBroadcast,
	})
}

// sqlShouldBroadcast reports sort-merge and shuffled hash joins one of
// whose sides shuffled little: broadcasting it would save shuffling and
// sorting the other side.
func sqlShouldBroadcast(in *Input, p SQLShouldBroadcastParams) []Finding {
	var out []Finding
	queries := in.Queries()
	for qi := range queries {
		q := &queries[qi]
		x := newOpIndex(q)
		for oi := range q.Operators {
			op := &q.Operators[oi]
			if op.Name != "SortMergeJoin" && op.Name != "ShuffledHashJoin" {
				continue
			}
			sides := x.inputExchanges(op)
			if len(sides) != 2 || sides[0].Kind != "exchange" || sides[1].Kind != "exchange" {
				continue
			}
			small, large := sides[0], sides[1]
			if small.Bytes > large.Bytes {
				small, large = large, small
			}
			if small.Bytes <= 0 || small.Bytes > p.MaxSmallBytes || float64(large.Bytes) < p.MinRatio*float64(small.Bytes) {
				continue
			}
			out = append(out, Finding{
				Severity: max(Low, p.Spared.Ascending(float64(large.Bytes))),
				Scope:    operatorScope(q, op),
				Impact:   in.operatorImpact(q, op),
				Summary: fmt.Sprintf("%s: %s shuffled both sides though one is %s (the other %s): broadcasting the small side avoids shuffling and sorting the large one.",
					describe(q), op.Name, mib(small.Bytes), mib(large.Bytes)),
				Evidence: []Evidence{
					gate("smallSideBytes", float64(small.Bytes), "bytes", "<=", float64(p.MaxSmallBytes)),
					gate("largeOverSmall", float64(large.Bytes)/float64(small.Bytes), "ratio", ">=", p.MinRatio),
					graded("largeSideBytes", float64(large.Bytes), "bytes", p.Spared),
				},
				Recommendation: fmt.Sprintf("Broadcast the small side: a BROADCAST hint, or spark.sql.autoBroadcastJoinThreshold above %s.", mib(small.Bytes*2)),
			})
		}
	}
	return out
}
