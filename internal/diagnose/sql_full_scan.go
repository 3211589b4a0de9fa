package diagnose

import (
	"fmt"
	"strings"
)

// SQLFullScanParams tune the sql-full-scan detector.
type SQLFullScanParams struct {
	// MaxKept is the largest share of the scan's rows the filter above it
	// keeps for the read to count as wasted.
	MaxKept float64
	// Bytes grades the scan's read; below the first limit there is no
	// finding.
	Bytes Limits
}

// DefaultSQLFullScanParams are the defaults.
var DefaultSQLFullScanParams = SQLFullScanParams{MaxKept: 0.1, Bytes: Limits{256 << 20, 1 << 30, 10 << 30, 100 << 30}}

func init() {
	mustRegister(Func[SQLFullScanParams]{
		ID:       "sql-full-scan",
		Heading:  "Scan that reads everything to keep little",
		Cite:     sqlSource + " (FileSourceScanExec: PartitionFilters, PushedFilters, number of files read)",
		Defaults: DefaultSQLFullScanParams,
		Fn:       sqlFullScan,
	})
}

// sqlFullScan reports file scans that no partition filter pruned and whose
// rows a filter above then mostly dropped.
func sqlFullScan(in *Input, p SQLFullScanParams) []Finding {
	var out []Finding
	queries := in.Queries()
	for qi := range queries {
		q := &queries[qi]
		x := newOpIndex(q)
		for oi := range q.Operators {
			op := &q.Operators[oi]
			if op.Kind != "scan" || op.RowsOut <= 0 || p.Bytes.Ascending(float64(op.Bytes)) == None || partitionPruned(op.Desc) {
				continue
			}
			parent, ok := x.get(x.parent[op.ID])
			if !ok || parent.Kind != "filter" {
				continue
			}
			kept := float64(parent.RowsOut) / float64(op.RowsOut)
			if kept > p.MaxKept {
				continue
			}
			out = append(out, Finding{
				Severity: p.Bytes.Ascending(float64(op.Bytes)),
				Scope:    operatorScope(q, op),
				Impact:   in.operatorImpact(q, op),
				Summary: fmt.Sprintf("%s: %s read %s (%d files) with no partition filter, and the filter above kept %.1f%% of its %d rows.",
					describe(q), op.Name, mib(op.Bytes), op.Files, 100*kept, op.RowsOut),
				Evidence: []Evidence{
					gate("keptShare", kept, "share", "<=", p.MaxKept),
					graded("bytesRead", float64(op.Bytes), "bytes", p.Bytes),
					fact("filesRead", float64(op.Files), "count"),
					fact("rowsRead", float64(op.RowsOut), "count"),
				},
				Recommendation: "Filter on the table's partition columns (or partition it by what queries filter on) so that Spark prunes files, " +
					"and keep the filter's predicates pushable to the source (PushedFilters).",
			})
		}
	}
	return out
}

// partitionPruned reports whether a scan's description shows a partition
// filter (or dynamic pruning) restricting what it reads.
func partitionPruned(desc string) bool {
	_, after, ok := strings.Cut(desc, "PartitionFilters: ")
	if !ok {
		return false
	}
	return !strings.HasPrefix(after, "[]")
}
