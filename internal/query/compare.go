package query

import (
	"fmt"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Diff is what changed between two runs of a query, A before B.
type Diff struct {
	A Ref `json:"a"`
	B Ref `json:"b"`
	// WallMs are both runs' wall-clock times.
	WallMs [2]int64 `json:"wallMs"`
	// SamePlan is true when both plans have the same operators in the same
	// order; PlanChanges lists the operators whose count changed.
	SamePlan    bool     `json:"samePlan"`
	PlanChanges []string `json:"planChanges,omitempty"`
	// Operators pairs the runs' operators: the k-th of a name in A with the
	// k-th of that name in B (an unmatched one has ID -1 on its other side).
	Operators []OperatorDiff `json:"operators"`
	// Configs are the SQL settings (spark.sql.*, the application's and the
	// session's) that differ.
	Configs []ConfigDiff `json:"configs,omitempty"`
}

// Ref names one run of a query.
type Ref struct {
	App         string `json:"app"`
	Attempt     string `json:"attempt,omitempty"`
	Query       int64  `json:"query"`
	Description string `json:"description"`
}

// OperatorDiff is one operator in both runs: ids, rows out, time and bytes.
type OperatorDiff struct {
	Name    string   `json:"name"`
	ID      [2]int32 `json:"id"`
	RowsOut [2]int64 `json:"rowsOut"`
	TimeMs  [2]int64 `json:"timeMs"`
	Bytes   [2]int64 `json:"bytes"`
}

// ConfigDiff is a setting with its value in each run ("" when unset).
type ConfigDiff struct {
	Key string    `json:"key"`
	Val [2]string `json:"values"`
}

// Compare compares query qa of application a with query qb of b: plan
// shape, rows, time and bytes per operator, and the SQL settings.
func Compare(a *model.App, qa Query, b *model.App, qb Query) Diff {
	d := Diff{A: Ref{a.ID, a.AttemptID, qa.ID, qa.Description}, B: Ref{b.ID, b.AttemptID, qb.ID, qb.Description}, WallMs: [2]int64{qa.WallMs, qb.WallMs}}
	d.SamePlan, d.PlanChanges = ComparePlans(Names(qa.Operators), Names(qb.Operators))
	// The k-th operator of each name in A pairs with the k-th in B.
	usedB := make([]bool, len(qb.Operators))
	nth := func(ops []Operator, name string, k int) int {
		for i, op := range ops {
			if op.Name == name {
				if k == 0 {
					return i
				}
				k--
			}
		}
		return -1
	}
	seenA := map[string]int{}
	for _, oa := range qa.Operators {
		k := seenA[oa.Name]
		seenA[oa.Name]++
		od := OperatorDiff{Name: oa.Name, ID: [2]int32{oa.ID, -1}, RowsOut: [2]int64{oa.RowsOut, 0},
			TimeMs: [2]int64{oa.TimeMs, 0}, Bytes: [2]int64{oa.Bytes, 0}}
		if j := nth(qb.Operators, oa.Name, k); j >= 0 {
			ob := qb.Operators[j]
			usedB[j] = true
			od.ID[1], od.RowsOut[1], od.TimeMs[1], od.Bytes[1] = ob.ID, ob.RowsOut, ob.TimeMs, ob.Bytes
		}
		d.Operators = append(d.Operators, od)
	}
	for j, ob := range qb.Operators {
		if !usedB[j] {
			d.Operators = append(d.Operators, OperatorDiff{Name: ob.Name, ID: [2]int32{-1, ob.ID},
				RowsOut: [2]int64{0, ob.RowsOut}, TimeMs: [2]int64{0, ob.TimeMs}, Bytes: [2]int64{0, ob.Bytes}})
		}
	}
	d.Configs = configDiff(sqlSettings(a, qa), sqlSettings(b, qb))
	return d
}

// Names are the operators' names in plan order: a plan's shape, as the run
// history keeps it.
func Names(ops []Operator) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = op.Name
	}
	return out
}

// ComparePlans compares two plans' shapes (operator names in plan order):
// same when they are equal; changes lists the operators whose count
// differs, in name order ("SortMergeJoin 0→1").
func ComparePlans(a, b []string) (same bool, changes []string) {
	pa, pb := &model.SQLPlan{}, &model.SQLPlan{}
	for _, n := range a {
		pa.Nodes = append(pa.Nodes, model.SQLNode{Name: n})
	}
	for _, n := range b {
		pb.Nodes = append(pb.Nodes, model.SQLNode{Name: n})
	}
	return slices.Equal(a, b), planChanges(pa, pb, true)
}

// sqlSettings are the application's spark.sql.* properties overridden by
// the session's modified settings.
func sqlSettings(app *model.App, q Query) map[string]string {
	m := map[string]string{}
	for _, kv := range app.Env.Spark {
		if len(kv[0]) > 10 && kv[0][:10] == "spark.sql." {
			m[kv[0]] = kv[1]
		}
	}
	for _, kv := range q.Configs {
		m[kv[0]] = kv[1]
	}
	return m
}

func configDiff(a, b map[string]string) []ConfigDiff {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []ConfigDiff
	for _, k := range keys {
		if a[k] != b[k] {
			out = append(out, ConfigDiff{Key: k, Val: [2]string{a[k], b[k]}})
		}
	}
	return out
}

// Match finds the query of qs that is another run of q: the same
// description, else the same id; ok is false when there is none.
func Match(q Query, qs []Query) (Query, bool) {
	for _, c := range qs {
		if c.Description == q.Description && q.Description != "" {
			return c, true
		}
	}
	for _, c := range qs {
		if c.ID == q.ID {
			return c, true
		}
	}
	return Query{}, false
}

// Pairs pairs the queries of two runs of an application: the k-th query
// with a description in as with the k-th with that description in bs
// (an application often runs the same statement several times), and the
// queries without description by id. Each pair holds indexes into as and
// bs; queries of either side without a partner are left out.
func Pairs(as, bs []Query) [][2]int {
	type key struct {
		desc string
		k    int
		id   int64
	}
	keys := func(qs []Query) []key {
		seen := map[string]int{}
		out := make([]key, len(qs))
		for i, q := range qs {
			if q.Description == "" {
				out[i] = key{id: q.ID, k: -1}
				continue
			}
			out[i] = key{desc: q.Description, k: seen[q.Description]}
			seen[q.Description]++
		}
		return out
	}
	kb := map[key]int{}
	for j, k := range keys(bs) {
		kb[k] = j
	}
	var out [][2]int
	for i, k := range keys(as) {
		if j, ok := kb[k]; ok {
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

// CompareRuns compares the SQL queries of a with their runs in b; with
// qa >= 0 only that query, with the query of b numbered qb (qb < 0: its
// match by description, else by id).
func CompareRuns(a, b *model.App, qa, qb int64) ([]Diff, error) {
	as, bs := Analyze(a), Analyze(b)
	if qa < 0 {
		var out []Diff
		for _, p := range Pairs(as, bs) {
			out = append(out, Compare(a, as[p[0]], b, bs[p[1]]))
		}
		return out, nil
	}
	var x, y *Query
	for i := range as {
		if as[i].ID == qa {
			x = &as[i]
		}
	}
	if x == nil {
		return nil, fmt.Errorf("application %s has no SQL execution %d", a.ID, qa)
	}
	if qb >= 0 {
		for i := range bs {
			if bs[i].ID == qb {
				y = &bs[i]
			}
		}
	} else if m, ok := Match(*x, bs); ok {
		y = &m
	}
	if y == nil {
		want := fmt.Sprint(qb)
		if qb < 0 {
			want = "matching " + fmt.Sprint(qa)
		}
		return nil, fmt.Errorf("application %s has no SQL execution %s", b.ID, want)
	}
	return []Diff{Compare(a, *x, b, *y)}, nil
}
