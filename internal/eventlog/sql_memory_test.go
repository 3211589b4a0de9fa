package eventlog

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestSQLBytesPerExecution measures what the SQL executions of a read log
// keep in memory (plans, metric values, packed plan text): an application
// of 2,000 queries of 20 operators, 40 metrics and a 12 KB plan
// description each, 16 tasks per stage. The heap is measured with and
// without app.SQL once the log is read.
func TestSQLBytesPerExecution(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large log")
	}
	const queries = 2000
	app := sqlBenchApp(queries, 16)
	for i, x := range app.SQL {
		var b strings.Builder
		b.WriteString("== Physical Plan ==\nAdaptiveSparkPlan isFinalPlan=true\n")
		for n, node := range x.Plan.Nodes {
			fmt.Fprintf(&b, "+- %s (%d)\n", node.Name, n)
		}
		for b.Len() < 12<<10 {
			fmt.Fprintf(&b, "(%d) Scan parquet spark_catalog.db.table_%d\nOutput [3]: [a#%d, b#%d, c#%d]\nBatched: true\nLocation: InMemoryFileIndex [s3://bucket/warehouse/db.db/table_%d]\nReadSchema: struct<a:bigint,b:string,c:double>\n\n",
				b.Len()%97, i%50, b.Len(), b.Len()+1, b.Len()+2, i%50)
		}
		x.PlanDescription = model.PackText(b.String())
		x.Details = model.PackText("org.apache.spark.sql.Dataset.collect(Dataset.scala:3575)\nsun.reflect.NativeMethodAccessorImpl.invoke0(Native Method)")
	}
	var buf bytes.Buffer
	if err := Write(&buf, app); err != nil {
		t.Fatal(err)
	}
	logBytes := buf.Len()
	app = nil
	read, err := Read("mem", &buf)
	if err != nil {
		t.Fatal(err)
	}
	buf = bytes.Buffer{}
	var with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&with)
	ops, text := 0, 0
	for _, x := range read.SQL {
		ops += len(x.Plan.Nodes)
		text += x.PlanDescription.Size()
	}
	if len(read.SQL) != queries {
		t.Fatalf("%d executions read, want %d", len(read.SQL), queries)
	}
	read.SQL = nil
	runtime.GC()
	runtime.ReadMemStats(&without)
	runtime.KeepAlive(read)
	per := float64(with.HeapAlloc-without.HeapAlloc) / queries
	t.Logf("log %d MB; %d executions, %d operators: %.0f bytes of live heap per execution (%.0f per operator), of which the 12 KB plan text packed: %d",
		logBytes>>20, queries, ops, per, per/float64(ops/queries), text/queries)
	if per > 16<<10 {
		t.Errorf("%.0f bytes per execution, want at most 16 KiB", per)
	}
}
