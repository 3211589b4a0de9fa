package diagnose

import (
	"fmt"
)

// SQLSkewedJoinParams tune the sql-skewed-join detector.
type SQLSkewedJoinParams struct {
	// Ratio grades the largest task's shuffle read over the median's in the
	// join's stage. Spark's adaptive skew join splits a partition over 5x
	// the median (spark.sql.adaptive.skewJoin.skewedPartitionFactor) and
	// over 256 MB; clusterlens grades from there.
	Ratio Limits
	// MinMaxBytes is the least read of the largest task worth a finding.
	MinMaxBytes int64
	// MinMaxTaskMs is the least time of the slowest task worth a finding.
	MinMaxTaskMs int64
}

// DefaultSQLSkewedJoinParams are the defaults.
var DefaultSQLSkewedJoinParams = SQLSkewedJoinParams{Ratio: Limits{5, 8, 16, 32}, MinMaxBytes: 32 << 20, MinMaxTaskMs: 5_000}

func init() {
	mustRegister(Func[SQLSkewedJoinParams]{
		ID:       "sql-skewed-join",
		Heading:  "Join reading skewed partitions",
		Cite:     sqlSource + " (adaptive skew join: skewedPartitionFactor 5, skewedPartitionThresholdInBytes)",
		Defaults: DefaultSQLSkewedJoinParams,
		Fn:       sqlSkewedJoin,
	})
}

// sqlSkewedJoin reports shuffle joins whose stage's tasks read very
// uneven partitions: the largest task's shuffle read over the median
// task's, from the stage's task metrics.
func sqlSkewedJoin(in *Input, p SQLSkewedJoinParams) []Finding {
	var out []Finding
	queries := in.Queries()
	for qi := range queries {
		q := &queries[qi]
		for oi := range q.Operators {
			op := &q.Operators[oi]
			if op.Kind != "join" || op.Name == "CartesianProduct" || op.Name == "BroadcastNestedLoopJoin" || op.Stage < 0 {
				continue
			}
			durs, reads := stageTasks(in.App, op.Stage)
			if len(reads) < 2 {
				continue
			}
			maxRead, medRead := maxMedian(reads)
			maxMs, medMs := maxMedian(durs)
			ratio := float64(maxRead) / float64(max(medRead, 1))
			sev := p.Ratio.Ascending(ratio)
			if sev == None || maxRead < p.MinMaxBytes || maxMs < p.MinMaxTaskMs {
				continue
			}
			out = append(out, Finding{
				Severity: sev,
				Scope:    operatorScope(q, op),
				Summary: fmt.Sprintf("%s: %s (stage %d) read %s in its largest task, %.1fx the median %s; that task ran %s against a median %s.",
					describe(q), op.Name, op.Stage, mib(maxRead), ratio, mib(medRead), msText(maxMs), msText(medMs)),
				Evidence: []Evidence{
					graded("maxOverMedianRead", ratio, "ratio", p.Ratio),
					gate("maxTaskReadBytes", float64(maxRead), "bytes", ">=", float64(p.MinMaxBytes)),
					gate("maxTaskMs", float64(maxMs), "ms", ">=", float64(p.MinMaxTaskMs)),
					fact("medianTaskReadBytes", float64(medRead), "bytes"),
					fact("medianTaskMs", float64(medMs), "ms"),
					fact("stage", float64(op.Stage), "id"),
				},
				Recommendation: "Let adaptive execution split the skewed partitions (spark.sql.adaptive.enabled and spark.sql.adaptive.skewJoin.enabled, " +
					"lowering spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes if needed), or salt the hot join keys.",
			})
		}
	}
	return out
}

// msText prints milliseconds as seconds.
func msText(ms int64) string { return fmt.Sprintf("%.1f s", float64(ms)/1000) }
