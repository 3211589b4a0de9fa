package diagnose

import "fmt"

// SQLBroadcastLargeParams tune the sql-broadcast-too-large detector.
type SQLBroadcastLargeParams struct {
	// Bytes grades a broadcast's size. Spark refuses broadcasts over 8 GB
	// and builds each on the driver and copies it to every executor;
	// clusterlens grades from 256 MB.
	Bytes Limits
}

// DefaultSQLBroadcastLargeParams are the defaults.
var DefaultSQLBroadcastLargeParams = SQLBroadcastLargeParams{Bytes: Limits{256 << 20, 512 << 20, 1 << 30, 4 << 30}}

func init() {
	mustRegister(Func[SQLBroadcastLargeParams]{
		ID:       "sql-broadcast-too-large",
		Heading:  "Broadcast of a large table",
		Cite:     sqlSource + " (BroadcastExchangeExec: data size, time to build, time to broadcast; 8 GB limit)",
		Defaults: DefaultSQLBroadcastLargeParams,
		Fn:       sqlBroadcastLarge,
	})
}

// sqlBroadcastLarge reports broadcast exchanges of large relations, which
// the driver collects and every executor holds in memory.
func sqlBroadcastLarge(in *Input, p SQLBroadcastLargeParams) []Finding {
	var out []Finding
	queries := in.Queries()
	for qi := range queries {
		q := &queries[qi]
		for oi := range q.Operators {
			op := &q.Operators[oi]
			if op.Kind != "broadcast" {
				continue
			}
			sev := p.Bytes.Ascending(float64(op.Bytes))
			if sev == None {
				continue
			}
			out = append(out, Finding{
				Severity: sev,
				Scope:    operatorScope(q, op),
				Impact:   in.operatorImpact(q, op),
				Summary: fmt.Sprintf("%s: a broadcast of %s (%s spent collecting, building and sending it) is held by the driver and every executor.",
					describe(q), mib(op.Bytes), msText(op.TimeMs)),
				Evidence: []Evidence{
					graded("broadcastBytes", float64(op.Bytes), "bytes", p.Bytes),
					fact("broadcastMs", float64(op.TimeMs), "ms"),
					fact("rows", float64(op.RowsOut), "count"),
				},
				Recommendation: "Join it by shuffle instead: lower spark.sql.autoBroadcastJoinThreshold below its size, drop the BROADCAST hint, " +
					"or filter and project the broadcast side first.",
			})
		}
	}
	return out
}
