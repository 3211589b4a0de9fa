package web

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/query"
)

// compareData is the compare page's data: two runs, A before B.
type compareData struct {
	A, B       string // the form's values
	AppA, AppB *model.App
	Totals     []diffRow
	Causes     []diffRow
	Config     []configRow
	Stages     []stageDiff
	OnlyA      []history.Stage
	OnlyB      []history.Stage
	Nodes      []nodeDiff
	Queries    []query.Diff
	// StagesAll counts the matched stages; the page lists the ones whose
	// time changed most.
	StagesAll int
}

// diffRow is one measure in both runs, Kind "ms", "bytes" or "count".
type diffRow struct {
	Name   string
	Kind   string
	A, B   int64
	Change float64 // (B − A) / A; NaN when A is 0
}

// configRow is a Spark property whose value differs.
type configRow struct {
	Key  string
	A, B string
}

// stageDiff is one stage matched across the runs by its signature.
type stageDiff struct {
	A, B    history.Stage
	DeltaMs int64
}

// nodeDiff is a host whose part changed: in one run only, or its tasks'
// time against their stages' medians moved.
type nodeDiff struct {
	Host   string
	TasksA int
	TasksB int
	RatioA float64
	RatioB float64
	Why    string
}

// maxCompareRows is how many stages and nodes the page lists.
const maxCompareRows = 60

// comparePage compares two runs: configuration, sizes, where the time
// went, stages matched by signature, the nodes that changed and the SQL
// queries (query.Compare).
func (u *UI) comparePage(r *http.Request) (*page, error) {
	q := r.URL.Query()
	d := &compareData{A: q.Get("a"), B: q.Get("b")}
	p := &page{Title: "Compare two runs", View: "compare", Content: func(w *htmlw.Writer) { writeCompare(w, d) }, Sub: "A before B: changes are B against A"}
	if d.A == "" || d.B == "" {
		return p, nil
	}
	var err error
	if d.AppA, err = u.attempt(r.Context(), d.A, q.Get("attempt-a")); err != nil {
		return nil, err
	}
	if d.AppB, err = u.attempt(r.Context(), d.B, q.Get("attempt-b")); err != nil {
		return nil, err
	}
	anA, err := u.analyses.get(r.Context(), d.AppA, 0, func() *analyzed { return u.analyze(d.AppA) })
	if err != nil {
		return nil, err
	}
	anB, err := u.analyses.get(r.Context(), d.AppB, 0, func() *analyzed { return u.analyze(d.AppB) })
	if err != nil {
		return nil, err
	}
	runA, runB := history.FromApp(d.AppA, "", false, nil), history.FromApp(d.AppB, "", false, nil)
	ta, tb := runA.Totals, runB.Totals
	for _, m := range []diffRow{
		{"wall clock", "ms", runA.DurationMs, runB.DurationMs, 0}, {"task time", "ms", ta.TaskTimeMs, tb.TaskTimeMs, 0},
		{"CPU time", "ms", ta.CPUTimeMs, tb.CPUTimeMs, 0}, {"GC time", "ms", ta.GCTimeMs, tb.GCTimeMs, 0},
		{"input", "bytes", ta.InputBytes, tb.InputBytes, 0}, {"output", "bytes", ta.OutputBytes, tb.OutputBytes, 0},
		{"shuffle read", "bytes", ta.ShuffleReadBytes, tb.ShuffleReadBytes, 0}, {"shuffle write", "bytes", ta.ShuffleWriteBytes, tb.ShuffleWriteBytes, 0},
		{"spill", "bytes", ta.SpillBytes, tb.SpillBytes, 0}, {"tasks", "count", int64(ta.Tasks), int64(tb.Tasks), 0},
		{"failed tasks", "count", int64(ta.FailedTasks), int64(tb.FailedTasks), 0}, {"stages", "count", int64(ta.Stages), int64(tb.Stages), 0},
		{"executors", "count", int64(runA.Cluster.Executors), int64(runB.Cluster.Executors), 0},
		{"hosts", "count", int64(runA.Cluster.Hosts), int64(runB.Cluster.Hosts), 0},
	} {
		d.Totals = append(d.Totals, withChange(m))
	}
	if da, db := anA.a.Dataflow, anB.a.Dataflow; da != nil && db != nil {
		for c := dataflow.Cause(0); c < dataflow.NumCauses; c++ {
			if da.App.Cause[c] > 0 || db.App.Cause[c] > 0 {
				d.Causes = append(d.Causes, withChange(diffRow{Name: c.String(), Kind: "ms", A: da.App.Cause[c], B: db.App.Cause[c]}))
			}
		}
	}
	d.Config = configDiff(d.AppA.Env.Spark, d.AppB.Env.Spark)
	d.Stages, d.OnlyA, d.OnlyB = matchStages(runA.Stages, runB.Stages)
	d.StagesAll = len(d.Stages)
	slices.SortStableFunc(d.Stages, func(x, y stageDiff) int { return cmp.Compare(abs64(y.DeltaMs), abs64(x.DeltaMs)) })
	d.Stages = d.Stages[:min(len(d.Stages), maxCompareRows)]
	d.OnlyA, d.OnlyB = d.OnlyA[:min(len(d.OnlyA), maxCompareRows)], d.OnlyB[:min(len(d.OnlyB), maxCompareRows)]
	d.Nodes = nodesChanged(runA, runB)
	for _, pr := range query.Pairs(anA.a.Queries, anB.a.Queries) {
		d.Queries = append(d.Queries, query.Compare(d.AppA, anA.a.Queries[pr[0]], d.AppB, anB.a.Queries[pr[1]]))
	}
	p.Title = fmt.Sprintf("%s against %s", d.B, d.A)
	p.Charts = compareCharts(d)
	return p, nil
}

func withChange(m diffRow) diffRow {
	m.Change = math.NaN()
	if m.A != 0 {
		m.Change = float64(m.B-m.A) / float64(m.A)
	}
	return m
}

func abs64(v int64) int64 { return max(v, -v) }

// configDiff lists the Spark properties set differently (or in one run
// only), by key.
func configDiff(a, b [][2]string) []configRow {
	va, vb := map[string]string{}, map[string]string{}
	for _, kv := range a {
		va[kv[0]] = kv[1]
	}
	for _, kv := range b {
		vb[kv[0]] = kv[1]
	}
	var out []configRow
	for k, x := range va {
		if y, ok := vb[k]; !ok || x != y {
			out = append(out, configRow{k, x, vb[k]})
		}
	}
	for k, y := range vb {
		if _, ok := va[k]; !ok {
			out = append(out, configRow{k, "", y})
		}
	}
	slices.SortFunc(out, func(x, y configRow) int { return strings.Compare(x.Key, y.Key) })
	return out
}

// matchStages pairs stage attempts by signature: the k-th of a signature
// in A with the k-th in B (in stage order), as query.Pairs pairs queries.
func matchStages(a, b []history.Stage) (pairs []stageDiff, onlyA, onlyB []history.Stage) {
	type key struct {
		sig string
		k   int
	}
	keyed := func(ss []history.Stage) []key {
		seen := map[string]int{}
		out := make([]key, len(ss))
		for i, s := range ss {
			out[i] = key{s.Signature, seen[s.Signature]}
			seen[s.Signature]++
		}
		return out
	}
	inB := map[key]int{}
	for j, k := range keyed(b) {
		inB[k] = j
	}
	used := make([]bool, len(b))
	for i, k := range keyed(a) {
		j, ok := inB[k]
		if !ok {
			onlyA = append(onlyA, a[i])
			continue
		}
		used[j] = true
		pairs = append(pairs, stageDiff{A: a[i], B: b[j], DeltaMs: b[j].DurationMs - a[i].DurationMs})
	}
	for j, s := range b {
		if !used[j] {
			onlyB = append(onlyB, s)
		}
	}
	return pairs, onlyA, onlyB
}

// nodeChange is how far a host's ratio to the stage medians must move to
// be listed (25%).
const nodeChange = 0.25

// nodesChanged lists the hosts in one run only and those whose tasks'
// time against their stages' medians (history.NodeRunOf) moved by more
// than nodeChange, the largest change first.
func nodesChanged(a, b *history.Run) []nodeDiff {
	hosts := map[string]bool{}
	for _, h := range a.Hosts {
		hosts[h.Host] = true
	}
	for _, h := range b.Hosts {
		hosts[h.Host] = true
	}
	var out []nodeDiff
	for h := range hosts {
		na, nb := history.NodeRunOf(a, h), history.NodeRunOf(b, h)
		n := nodeDiff{Host: h, TasksA: na.Tasks, TasksB: nb.Tasks, RatioA: na.Ratio, RatioB: nb.Ratio}
		switch {
		case na.Tasks == 0:
			n.Why = "B only"
		case nb.Tasks == 0:
			n.Why = "A only"
		case na.Ratio > 0 && nb.Ratio > 0 && math.Abs(nb.Ratio/na.Ratio-1) > nodeChange:
			n.Why = fmt.Sprintf("%+.0f%% against the stage medians", 100*(nb.Ratio/na.Ratio-1))
		default:
			continue
		}
		out = append(out, n)
	}
	score := func(n nodeDiff) float64 {
		if n.RatioA > 0 && n.RatioB > 0 {
			return math.Abs(math.Log(n.RatioB / n.RatioA))
		}
		return math.Inf(1)
	}
	slices.SortFunc(out, func(x, y nodeDiff) int {
		return cmp.Or(cmp.Compare(score(y), score(x)), strings.Compare(x.Host, y.Host))
	})
	return out[:min(len(out), maxCompareRows)]
}

// compareCharts are where the slot time went in each run, by cause, and
// the matched stages' durations in both.
func compareCharts(d *compareData) []chart {
	var out []chart
	if len(d.Causes) > 0 {
		c := chart{ID: "compare-causes", Title: "Slot time by cause (HiTune)", Kind: "bar", YUnit: "ms", Height: 260}
		sa, sb := series{Name: "A " + d.A, Color: "#94a3b8"}, series{Name: "B " + d.B, Color: "#2563eb"}
		for i, r := range d.Causes {
			c.XCats = append(c.XCats, r.Name)
			sa.Data = append(sa.Data, [2]float64{float64(i), float64(r.A)})
			sb.Data = append(sb.Data, [2]float64{float64(i), float64(r.B)})
		}
		c.Series = []series{sa, sb}
		out = append(out, c)
	}
	if len(d.Stages) > 0 {
		c := chart{ID: "compare-stages", Title: "Matched stages whose time changed most", Kind: "bar", YUnit: "ms", Height: 280}
		sa, sb := series{Name: "A", Color: "#94a3b8"}, series{Name: "B", Color: "#2563eb"}
		for i, s := range d.Stages[:min(len(d.Stages), 25)] {
			c.XCats = append(c.XCats, fmt.Sprintf("%d→%d", s.A.ID, s.B.ID))
			sa.Data = append(sa.Data, [2]float64{float64(i), float64(s.A.DurationMs)})
			sb.Data = append(sb.Data, [2]float64{float64(i), float64(s.B.DurationMs)})
		}
		c.Series = []series{sa, sb}
		out = append(out, c)
	}
	return out
}
