package diagnose

import (
	"fmt"
	"strings"

	"github.com/clusterlens/clusterlens/internal/query"
)

// SQLAdaptiveParams tune the sql-adaptive detector.
type SQLAdaptiveParams struct {
	// Share grades the re-planned query's share of the application's
	// wall time. The finding reports what adaptive execution did rather
	// than a problem, so by default it is low whatever the share (a share
	// is at most 1); lower the upper limits to rank long queries higher.
	Share Limits
}

// DefaultSQLAdaptiveParams keep every sql-adaptive finding low.
var DefaultSQLAdaptiveParams = SQLAdaptiveParams{Share: Limits{0, 2, 2, 2}}

func init() {
	mustRegister(Func[SQLAdaptiveParams]{
		ID:       "sql-adaptive",
		Heading:  "What adaptive execution changed",
		Cite:     sqlSource + " (adaptive query execution: SparkListenerSQLAdaptiveExecutionUpdate)",
		Defaults: DefaultSQLAdaptiveParams,
		Fn:       sqlAdaptive,
	})
}

// sqlAdaptive reports, for each query adaptive execution re-planned, how
// the final plan's joins, exchanges and shuffle reads differ from the
// first plan's, and what that did: sort-merge joins turned into broadcast
// joins (their sorts and one shuffle skipped), shuffle partitions
// coalesced, skewed partitions split. A low finding, to read beside the
// others: when a query stays skewed or slow, it says whether AQE already
// tried.
func sqlAdaptive(in *Input, p SQLAdaptiveParams) []Finding {
	var out []Finding
	queries := in.Queries()
	for qi := range queries {
		q := &queries[qi]
		if q.Adaptive == nil || len(q.Adaptive.Changes) == 0 {
			continue
		}
		var did []string
		var coalesced, skewed, local int
		for i := range q.Operators {
			op := &q.Operators[i]
			if !query.IsShuffleRead(op.Name) {
				continue
			}
			if strings.Contains(op.Desc, "coalesced") {
				coalesced++
			}
			if strings.Contains(op.Desc, "skewed") {
				skewed++
			}
			if strings.Contains(op.Desc, "local") {
				local++
			}
		}
		var smjBefore, smjAfter int
		for _, c := range q.Adaptive.Changes {
			var name string
			var b, a int
			if _, err := fmt.Sscanf(strings.Replace(c, "→", " ", 1), "%s %d %d", &name, &b, &a); err == nil && name == "SortMergeJoin" {
				smjBefore, smjAfter = b, a
			}
		}
		if smjAfter < smjBefore {
			did = append(did, fmt.Sprintf("turned %d sort-merge join(s) into broadcast or hash joins, skipping their sorts", smjBefore-smjAfter))
		}
		if coalesced > 0 {
			did = append(did, fmt.Sprintf("coalesced small shuffle partitions at %d read(s)", coalesced))
		}
		if skewed > 0 {
			did = append(did, fmt.Sprintf("split skewed partitions at %d read(s)", skewed))
		}
		if local > 0 {
			did = append(did, fmt.Sprintf("read %d shuffle(s) locally", local))
		}
		if len(did) == 0 {
			did = append(did, "changed no join strategy or partitioning")
		}
		out = append(out, Finding{
			Severity: max(Low, p.Share.Ascending(q.Share)),
			Scope:    queryScope(q),
			Summary: fmt.Sprintf("%s: adaptive execution re-planned it %d time(s) and %s (operators: %s).",
				describe(q), q.Adaptive.Updates, strings.Join(did, "; "), strings.Join(q.Adaptive.Changes, ", ")),
			Evidence: []Evidence{
				graded("share", q.Share, "share", p.Share),
				fact("updates", float64(q.Adaptive.Updates), "count"),
				fact("joinsConverted", float64(max(0, smjBefore-smjAfter)), "count"),
				fact("coalescedReads", float64(coalesced), "count"),
				fact("skewSplitReads", float64(skewed), "count"),
				fact("wallMs", float64(q.WallMs), "ms"),
			},
			Recommendation: "Nothing to undo: these are adaptive execution's own decisions (spark.sql.adaptive.enabled). " +
				"If the query's other findings show skew or small partitions it did not fix, tune " +
				"spark.sql.adaptive.skewJoin.skewedPartitionFactor / skewedPartitionThresholdInBytes and " +
				"spark.sql.adaptive.advisoryPartitionSizeInBytes; joins it could not broadcast are bounded by " +
				"spark.sql.adaptive.autoBroadcastJoinThreshold.",
		})
	}
	return out
}
