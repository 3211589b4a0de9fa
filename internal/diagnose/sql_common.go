package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/query"
)

// sqlSource is what the sql-* detectors follow: the operators and metrics
// of Spark's SQL tab (SQLAppStatusListener, SQLMetrics) and the rules of
// Spark's SQL performance tuning guide (docs/sql-performance-tuning.md).
const sqlSource = "Spark SQL's plan metrics (SQLAppStatusListener.scala, SQLMetrics.scala) and docs/sql-performance-tuning.md"

// operatorScope names operator op of query q.
func operatorScope(q *query.Query, op *query.Operator) Scope {
	return Scope{Kind: ScopeQuery, IDs: []string{fmt.Sprintf("%d/%d", q.ID, op.ID)}}
}

// queryScope names query q.
func queryScope(q *query.Query) Scope {
	return Scope{Kind: ScopeQuery, IDs: []string{fmt.Sprint(q.ID)}}
}

// opIndex finds operators by plan id and their parents.
type opIndex struct {
	ops    []query.Operator
	byID   map[int32]int
	parent map[int32]int32
}

func newOpIndex(q *query.Query) *opIndex {
	x := &opIndex{ops: q.Operators, byID: map[int32]int{}, parent: map[int32]int32{}}
	for i, op := range q.Operators {
		x.byID[op.ID] = i
		for _, c := range op.Children {
			x.parent[c] = op.ID
		}
	}
	return x
}

func (x *opIndex) get(id int32) (*query.Operator, bool) {
	i, ok := x.byID[id]
	if !ok {
		return nil, false
	}
	return &x.ops[i], true
}

// inputExchanges are the shuffle exchanges feeding op, one per child,
// found through sorts and projections.
func (x *opIndex) inputExchanges(op *query.Operator) []*query.Operator {
	var out []*query.Operator
	for _, c := range op.Children {
		for id := c; ; {
			child, ok := x.get(id)
			if !ok {
				break
			}
			if child.Kind == "exchange" || child.Kind == "broadcast" {
				out = append(out, child)
				break
			}
			if len(child.Children) != 1 || child.Kind != "sort" && child.Kind != "project" && child.Name != "AQEShuffleRead" && child.Name != "CustomShuffleReader" {
				break
			}
			id = child.Children[0]
		}
	}
	return out
}

// stageTasks returns the last attempt of stage id with its successful
// tasks' durations and shuffle read bytes.
func stageTasks(app *model.App, id int32) (durations, reads []int64) {
	var st *model.Stage
	for _, s := range app.Stages {
		if s.ID == id && (st == nil || s.Attempt > st.Attempt) {
			st = s
		}
	}
	if st == nil {
		return nil, nil
	}
	var m model.TaskMetrics
	for i := range st.Tasks {
		t := &st.Tasks[i]
		if t.Status != model.TaskSuccess || !t.HasMetrics {
			continue
		}
		st.TaskMetrics(i, &m)
		durations = append(durations, t.Duration())
		reads = append(reads, m[model.ShuffleRemoteBytesRead]+m[model.ShuffleLocalBytesRead])
	}
	return durations, reads
}

// maxMedian returns the largest and the median of vs (reordered).
func maxMedian(vs []int64) (int64, int64) {
	if len(vs) == 0 {
		return 0, 0
	}
	slices.Sort(vs)
	return vs[len(vs)-1], vs[len(vs)/2]
}

// describe shortens a query's description for a summary.
func describe(q *query.Query) string {
	d := strings.Join(strings.Fields(q.Description), " ")
	if len(d) > 60 {
		d = d[:57] + "..."
	}
	if d == "" {
		return fmt.Sprintf("query %d", q.ID)
	}
	return fmt.Sprintf("query %d (%s)", q.ID, d)
}

// mib prints bytes in MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// operatorImpact estimates what a SQL operator cost: its time metrics
// (summed over its tasks) as core time, and that time spread over the
// query's slots as wall time, at most the query's; nil when the operator
// reports no time.
func (in *Input) operatorImpact(q *query.Query, op *query.Operator) *Impact {
	if op.TimeMs <= 0 {
		return nil
	}
	wall := min(op.TimeMs/int64(max(1, q.Slots)), q.WallMs)
	return in.newImpact(wall, op.TimeMs, MethodEstimate, op.Name+"'s time metrics, spread over the query's slots")
}
