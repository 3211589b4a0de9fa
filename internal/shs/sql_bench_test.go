package shs

import (
	"fmt"
	"math"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// thousandQueries is an application with 1,000 SQL executions, each a
// 60-operator plan (20 codegen stages of three, 2 metrics an operator) with
// a 12 KB formatted plan text, and 3 jobs.
func thousandQueries() *model.App {
	a := &model.App{ID: "app-1000", Engine: model.Spark, Start: base, End: base + 10_000_000, Complete: true}
	var accum int64
	for q := int64(0); q < 1000; q++ {
		plan := &model.SQLPlan{}
		var text strings.Builder
		text.WriteString("== Physical Plan ==\n")
		for n := int32(0); n < 80; n++ {
			node := model.SQLNode{ID: n, Name: "Operator", Desc: fmt.Sprintf("Operator [c%d#%d]", n, accum), Cluster: -1}
			if n%4 == 0 {
				node.Name, node.IsCluster = fmt.Sprintf("WholeStageCodegen (%d)", n/4+1), true
			} else {
				node.Cluster = n - n%4
			}
			for k := 0; k < 2; k++ {
				node.Metrics = append(node.Metrics, model.SQLPlanMetric{AccumID: accum, Name: "number of output rows", Type: model.SQLMetricType(1 + k*2)})
				x := model.SQLMetricValue{AccumID: accum, Type: model.SQLMetricType(1 + k*2), N: 200, Sum: 123456789, Min: 1000, Med: 600000, Max: 900000, MaxTask: true, MaxStage: 3, MaxTaskID: 77}
				if len(a.SQL) == int(q) {
					a.SQL = append(a.SQL, &model.SQLExecution{ID: q, RootID: q, StreamBatch: -1})
				}
				a.SQL[q].Metrics = append(a.SQL[q].Metrics, x)
				accum++
			}
			if !node.IsCluster && n > 1 {
				plan.Edges = append(plan.Edges, model.SQLEdge{From: n, To: n - 1})
			}
			plan.Nodes = append(plan.Nodes, node)
			fmt.Fprintf(&text, "(%d) Operator [codegen id : %d]\nInput [4]: [customer_id#%d, order_id#%d, amount#%d, ts#%d]\n\n", n, n/4+1, accum, accum+1, accum+2, accum+3)
		}
		x := a.SQL[q]
		x.Description, x.Plan, x.PlanDescription = fmt.Sprintf("select * from t%d", q), plan, model.PackText(text.String())
		x.Start, x.End = base+q*1000, base+q*1000+900
		for j := int32(0); j < 3; j++ {
			id := int32(q)*3 + j
			x.Jobs = append(x.Jobs, id)
			a.Jobs = append(a.Jobs, &model.Job{ID: id, SQLID: q, Status: model.JobSucceeded})
		}
	}
	return a
}

// answerThousand gets /sql for the whole application and writes it as
// serve does, returning the bytes written.
func answerThousand(tb testing.TB, ix *Index, q url.Values) int64 {
	v, err := ix.Get("applications/app-1000/sql", q)
	if err != nil {
		tb.Fatal(err)
	}
	var n countingWriter
	if err := WriteJSON(&n, v); err != nil {
		tb.Fatal(err)
	}
	return int64(n)
}

type countingWriter int64

func (c *countingWriter) Write(b []byte) (int, error) {
	*c += countingWriter(len(b))
	return len(b), nil
}

var allThousand = url.Values{"length": {"1000"}}

// BenchmarkSQLList answers /sql?length=1000 (details and plan texts) for
// 1,000 queries, JSON included.
func BenchmarkSQLList(b *testing.B) {
	ix := NewIndex([]*model.App{thousandQueries()})
	b.SetBytes(answerThousand(b, ix, allThousand))
	b.ReportAllocs()
	cpu := sharedtest.ProcessCPU().Seconds()
	for b.Loop() {
		answerThousand(b, ix, allThousand)
	}
	b.ReportMetric((sharedtest.ProcessCPU().Seconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
}

// TestSQLListUnder100ms holds the target: the /sql answer for an
// application with 1,000 queries, every execution with its nodes, metrics
// and plan text, written out, in under 100 ms of CPU (the best of five,
// with the wall-clock time logged beside it); and the default answer (the
// first 20) in under 5 ms.
func TestSQLListUnder100ms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 1,000 plans")
	}
	ix := NewIndex([]*model.App{thousandQueries()})
	measure := func(q url.Values) (cpu float64, wall time.Duration, size int64) {
		cpu, wall = math.Inf(1), time.Hour
		for range 5 {
			runtime.GC()
			c, start := sharedtest.ProcessCPU().Seconds(), time.Now()
			size = answerThousand(t, ix, q)
			cpu, wall = min(cpu, sharedtest.ProcessCPU().Seconds()-c), min(wall, time.Since(start))
		}
		return cpu, wall, size
	}
	cpu, wall, size := measure(allThousand)
	t.Logf("all 1,000 executions, %d MB of JSON: %.1f CPU-ms, %v wall", size>>20, cpu*1e3, wall)
	if cpu > 0.1 {
		t.Errorf("/sql?length=1000 for 1,000 queries took %.0f CPU-ms, want under 100", cpu*1e3)
	}
	cpu, wall, size = measure(nil)
	t.Logf("the default 20 executions, %d KB of JSON: %.2f CPU-ms, %v wall", size>>10, cpu*1e3, wall)
	if cpu > 0.005 {
		t.Errorf("/sql for 1,000 queries took %.1f CPU-ms, want under 5", cpu*1e3)
	}
}
