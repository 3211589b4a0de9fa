package diagnose

import "fmt"

// SQLSmallFilesParams tune the sql-small-files detector.
type SQLSmallFilesParams struct {
	// Files grades the files the scan opened; below the first limit there
	// is no finding.
	Files Limits
	// MaxAvgBytes is the largest average file for files to count as small:
	// Spark opens each at spark.sql.files.openCostInBytes (4 MB).
	MaxAvgBytes int64
}

// DefaultSQLSmallFilesParams are the defaults.
var DefaultSQLSmallFilesParams = SQLSmallFilesParams{Files: Limits{200, 1000, 10000, 100000}, MaxAvgBytes: 4 << 20}

func init() {
	mustRegister(Func[SQLSmallFilesParams]{
		ID:       "sql-small-files",
		Heading:  "Scan of many small files",
		Cite:     sqlSource + " (spark.sql.files.openCostInBytes 4 MB, spark.sql.files.maxPartitionBytes)",
		Defaults: DefaultSQLSmallFilesParams,
		Fn:       sqlSmallFiles,
	})
}

// sqlSmallFiles reports scans that read many files averaging under the
// cost Spark charges for opening one.
func sqlSmallFiles(in *Input, p SQLSmallFilesParams) []Finding {
	var out []Finding
	queries := in.Queries()
	for qi := range queries {
		q := &queries[qi]
		for oi := range q.Operators {
			op := &q.Operators[oi]
			if op.Kind != "scan" || p.Files.Ascending(float64(op.Files)) == None {
				continue
			}
			avg := op.Bytes / op.Files
			if avg > p.MaxAvgBytes {
				continue
			}
			out = append(out, Finding{
				Severity: p.Files.Ascending(float64(op.Files)),
				Scope:    operatorScope(q, op),
				Impact:   in.operatorImpact(q, op),
				Summary: fmt.Sprintf("%s: %s read %d files averaging %.0f KiB: opening and listing them costs more than reading them.",
					describe(q), op.Name, op.Files, float64(avg)/1024),
				Evidence: []Evidence{
					graded("filesRead", float64(op.Files), "count", p.Files),
					gate("averageFileBytes", float64(avg), "bytes", "<=", float64(p.MaxAvgBytes)),
					fact("bytesRead", float64(op.Bytes), "bytes"),
				},
				Recommendation: "Compact the table into files of 128 MB or more (OPTIMIZE, or rewrite with fewer output partitions), " +
					"and have its writers coalesce or repartition before writing.",
			})
		}
	}
	return out
}
