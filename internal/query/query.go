// Package query analyzes an application's SQL (DataFrame) queries from the
// executions the decoder read: per query its wall time and share of the
// application, its jobs and stages, the operators that took the time, rows
// in and out of each operator, skew and spill; and compares two runs of a
// query (Compare). The diagnose package's sql-* detectors and the reports
// build on it.
package query

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Query is one SQL execution analyzed.
type Query struct {
	ID          int64  `json:"id"`
	Description string `json:"description"`
	// Status is "running", "completed" or "failed".
	Status string `json:"status"`
	Start  int64  `json:"startMs"`
	// WallMs is the execution's wall-clock time (to the log's end while
	// running); Share is its part of the application's.
	WallMs int64   `json:"wallMs"`
	Share  float64 `json:"share"`
	Jobs   []int32 `json:"jobs"`
	// Stages are the stage ids its jobs ran (skipped stages left out).
	Stages []int32 `json:"stages"`
	// TaskMs is the time its tasks ran (every attempt); Slots the executor
	// cores alive at its midpoint; Utilization TaskMs over WallMs × Slots.
	TaskMs int64 `json:"taskMs"`
	Slots  int   `json:"slots"`
	// SlotsFromTasks is set when no executor announced its cores and Slots
	// is the most of the query's tasks seen running at once.
	SlotsFromTasks bool    `json:"slotsFromTasks,omitempty"`
	Utilization    float64 `json:"utilization"`
	// WaitingIdle is the share of the query's slot time (WallMs × Slots)
	// that slots sat idle while some of its stages' tasks waited to be
	// launched: time a scheduler or a lack of executors lost, as opposed to
	// a stage's tail, when nothing waits.
	WaitingIdle float64 `json:"waitingIdle"`
	// Operators are the plan's operators (WholeStageCodegen stages left
	// out), in plan order.
	Operators []Operator `json:"operators"`
	// Adaptive is what adaptive query execution changed, nil when it did not.
	Adaptive *Adaptive `json:"adaptive,omitempty"`
	// Configs are the SQL settings the session changed (Spark 3.4+).
	Configs [][2]string `json:"configs,omitempty"`
}

// Operator is one plan operator with what its metrics say.
type Operator struct {
	ID int32 `json:"id"`
	// Name is Spark's operator name, with Photon's mapped to Spark's
	// (PhotonGroupingAgg is HashAggregate); Kind its family: scan, filter,
	// project, aggregate, join, exchange, broadcast, sort, window, limit,
	// write or other.
	Name string `json:"name"`
	Kind string `json:"kind"`
	Desc string `json:"desc"`
	// Children are the operators feeding this one.
	Children []int32 `json:"children,omitempty"`
	// RowsOut is its "number of output rows"; RowsIn its children's.
	RowsOut int64 `json:"rowsOut"`
	RowsIn  int64 `json:"rowsIn"`
	// TimeMs adds its time metrics (build, sort, scan, shuffle write, ...),
	// over every task; for an operator a codegen stage fused, the stage's
	// "duration" is on the stage, so Time is its own timers only.
	TimeMs int64 `json:"timeMs"`
	// Bytes is the largest of its size metrics (data read, written or
	// shuffled); Files its "number of files read"; Spill its spill size.
	Bytes int64 `json:"bytes"`
	Files int64 `json:"files,omitempty"`
	Spill int64 `json:"spill,omitempty"`
	// Skew is the largest max/median ratio of its per-task size or time
	// metrics (0 with fewer than two tasks), SkewMetric that metric.
	Skew       float64 `json:"skew,omitempty"`
	SkewMetric string  `json:"skewMetric,omitempty"`
	// Stage is the stage whose task reported its largest value, -1 when
	// none did (a driver-side operator).
	Stage int32 `json:"stage"`
	// Codegen is the WholeStageCodegen stage that fused it, 0 for none.
	Codegen int64 `json:"codegen,omitempty"`
}

// Adaptive is the difference between the plan at the start and the final
// adaptive one.
type Adaptive struct {
	Updates int32 `json:"updates"`
	// Changes are operator families whose count changed, like
	// "SortMergeJoin 2→1" or "BroadcastHashJoin 0→1".
	Changes []string `json:"changes"`
}

// Analyze analyzes every SQL execution of app the log announced (a
// SQLExecutionStart), by id.
func Analyze(app *model.App) []Query {
	jobs := map[int32]*model.Job{}
	for _, j := range app.Jobs {
		jobs[j.ID] = j
	}
	stages := map[int32][]*model.Stage{}
	for _, st := range app.Stages {
		stages[st.ID] = append(stages[st.ID], st)
	}
	appWall := app.Duration()
	out := make([]Query, 0, len(app.SQL))
	for _, x := range app.SQL {
		// Only executions the log announced: a job that names an execution
		// id with no SQLExecutionStart in the log (Spark 1.x, a log cut
		// short) makes a record for the History Server's sake, but no query
		// with a plan, a start or a wall time to analyze.
		if x.Start == 0 && x.Plan == nil {
			continue
		}
		out = append(out, analyze(app, x, jobs, stages, appWall))
	}
	slices.SortFunc(out, func(a, b Query) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func analyze(app *model.App, x *model.SQLExecution, jobs map[int32]*model.Job, stages map[int32][]*model.Stage, appWall int64) Query {
	q := Query{ID: x.ID, Description: x.Description, Start: x.Start, Jobs: x.Jobs, Configs: x.ModifiedConfigs, Stages: []int32{}}
	end := x.End
	switch {
	case x.End == 0:
		q.Status, end = "running", app.End
	case x.HasError && x.Error != "":
		q.Status = "failed"
	default:
		q.Status = "completed"
		for _, id := range x.Jobs {
			if j := jobs[id]; j != nil && j.Status == model.JobFailed && !x.HasError {
				q.Status = "failed"
			}
		}
	}
	if x.Start > 0 && end >= x.Start {
		q.WallMs = end - x.Start
	}
	if appWall > 0 {
		q.Share = float64(q.WallMs) / float64(appWall)
	}
	seen := map[int32]bool{}
	for _, id := range x.Jobs {
		j := jobs[id]
		if j == nil {
			continue
		}
		for _, sid := range j.StageIDs {
			if seen[sid] {
				continue
			}
			for _, st := range stages[sid] {
				if st.Status == model.StageSkipped || st.Status == model.StagePending {
					continue
				}
				if !seen[sid] {
					seen[sid] = true
					q.Stages = append(q.Stages, sid)
				}
				for i := range st.Tasks {
					q.TaskMs += st.Tasks[i].Duration()
				}
			}
		}
	}
	slices.Sort(q.Stages)
	mid := x.Start + q.WallMs/2
	var driverCores int
	for _, e := range app.Executors {
		if e.Added <= mid && (e.Removed == 0 || e.Removed > mid) {
			if e.ID == "driver" {
				driverCores += int(e.Cores)
			} else {
				q.Slots += int(e.Cores)
			}
		}
	}
	var sts []*model.Stage
	for _, id := range q.Stages {
		sts = append(sts, stages[id]...)
	}
	if q.Slots == 0 {
		// Local mode: the driver runs the tasks; when no executor
		// announced its cores, the most tasks seen running at once.
		q.Slots = driverCores
		if q.Slots == 0 {
			q.Slots, q.SlotsFromTasks = maxRunning(sts), true
		}
	}
	if q.WallMs > 0 && q.Slots > 0 {
		q.Utilization = float64(q.TaskMs) / float64(q.WallMs*int64(q.Slots))
		q.WaitingIdle = float64(waitingIdle(sts, q.Slots)) / float64(q.WallMs*int64(q.Slots))
	}
	if x.Plan != nil {
		q.Operators = operators(x)
	}
	if x.InitialPlan != nil && x.Plan != nil {
		q.Adaptive = &Adaptive{Updates: x.AdaptiveUpdates, Changes: planChanges(x.InitialPlan, x.Plan, false)}
	}
	return q
}

// operators reads the plan's operators and their metrics.
func operators(x *model.SQLExecution) []Operator {
	p := x.Plan
	children := map[int32][]int32{}
	for _, e := range p.Edges {
		children[e.To] = append(children[e.To], e.From)
	}
	// A fused operator without a task-level metric of its own ran in the
	// stage its codegen stage's duration names.
	clusterStage := map[int32]int32{}
	for _, n := range p.Nodes {
		if !n.IsCluster {
			continue
		}
		for _, m := range n.Metrics {
			if v, ok := x.Metric(m.AccumID); ok && v.MaxTask {
				clusterStage[n.ID] = v.MaxStage
			}
		}
	}
	byID := map[int32]int{}
	var ops []Operator
	for _, n := range p.Nodes {
		if n.IsCluster {
			continue
		}
		name := Normalize(n.Name)
		op := Operator{ID: n.ID, Name: name, Kind: Kind(name), Desc: n.Desc, Children: children[n.ID], Stage: -1}
		if c := n.Cluster; c >= 0 && int(c) < len(p.Nodes) {
			op.Codegen = codegenStage(p.Nodes[c].Name)
		}
		for _, m := range n.Metrics {
			v, ok := x.Metric(m.AccumID)
			if !ok {
				continue
			}
			readMetric(&op, strings.TrimSpace(m.Name), v)
		}
		if st, ok := clusterStage[n.Cluster]; ok && op.Stage < 0 {
			op.Stage = st
		}
		byID[n.ID] = len(ops)
		ops = append(ops, op)
	}
	for i := range ops {
		for _, c := range ops[i].Children {
			if k, ok := byID[c]; ok {
				ops[i].RowsIn += ops[k].RowsOut
			}
		}
	}
	return ops
}

// readMetric folds one metric value into its operator.
func readMetric(op *Operator, name string, v model.SQLMetricValue) {
	lower := strings.ToLower(name)
	switch {
	case lower == "number of output rows" || lower == "output rows" || lower == "num output rows" || lower == "rows output":
		op.RowsOut += v.Sum
	case lower == "number of files read" || lower == "num files read" || lower == "files read":
		op.Files += v.Sum
	case strings.Contains(lower, "spill"):
		if v.Type == model.MetricSize {
			op.Spill += v.Sum
		}
	}
	switch v.Type {
	case model.MetricTiming:
		op.TimeMs += v.Sum
	case model.MetricNsTiming:
		op.TimeMs += v.Sum / 1_000_000
	case model.MetricSize:
		if !strings.Contains(lower, "spill") && !strings.Contains(lower, "memory") {
			op.Bytes = max(op.Bytes, v.Sum)
		}
	}
	if v.MaxTask && op.Stage < 0 {
		op.Stage = v.MaxStage
	}
	if (v.Type == model.MetricSize || v.Type == model.MetricTiming || v.Type == model.MetricNsTiming) && v.N >= 2 && v.Med > 0 {
		if r := float64(v.Max) / float64(v.Med); r > op.Skew {
			op.Skew, op.SkewMetric = r, name
		}
	}
}

// codegenStage parses "WholeStageCodegen (N)".
func codegenStage(name string) int64 {
	var n int64
	_, after, ok := strings.Cut(name, "(")
	if !ok {
		return 0
	}
	for _, c := range after {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// photonNames map Photon's operators to the Spark operators they replace
// (Databricks Photon plans name them Photon<Op>).
var photonNames = map[string]string{
	"PhotonGroupingAgg":             "HashAggregate",
	"PhotonGroupingAggWithRollup":   "HashAggregate",
	"PhotonAgg":                     "HashAggregate",
	"PhotonShuffleExchangeSink":     "Exchange",
	"PhotonShuffleExchangeSource":   "Exchange",
	"PhotonBroadcastExchange":       "BroadcastExchange",
	"PhotonBroadcastHashJoin":       "BroadcastHashJoin",
	"PhotonShuffledHashJoin":        "ShuffledHashJoin",
	"PhotonSortMergeJoin":           "SortMergeJoin",
	"PhotonBroadcastNestedLoopJoin": "BroadcastNestedLoopJoin",
	"PhotonProject":                 "Project",
	"PhotonFilter":                  "Filter",
	"PhotonSort":                    "Sort",
	"PhotonTopK":                    "TakeOrderedAndProject",
	"PhotonWindow":                  "Window",
	"PhotonUnion":                   "Union",
	"PhotonExpand":                  "Expand",
	"PhotonLocalLimit":              "LocalLimit",
	"PhotonGlobalLimit":             "GlobalLimit",
}

// Normalize maps an operator name to Spark's: Photon's and the RAPIDS
// accelerator's (Gpu<Op>) to the operator they replace; scans keep their
// format and table ("Scan parquet db.t").
func Normalize(name string) string {
	name = strings.TrimSpace(name)
	if n, ok := photonNames[name]; ok {
		return n
	}
	if rest, ok := strings.CutPrefix(name, "PhotonScan"); ok {
		return "Scan" + rest
	}
	if rest, ok := strings.CutPrefix(name, "Gpu"); ok && rest != "" {
		return rest
	}
	return name
}

// Kind is an operator's family.
func Kind(name string) string {
	switch {
	case strings.HasPrefix(name, "Scan") || strings.HasSuffix(name, "Scan") || strings.HasPrefix(name, "BatchScan") ||
		strings.Contains(name, "TableScan") || strings.HasPrefix(name, "MicroBatchScan"):
		return "scan"
	case strings.HasPrefix(name, "BroadcastExchange"):
		return "broadcast"
	case strings.Contains(name, "Exchange"):
		return "exchange"
	case strings.Contains(name, "Join") || name == "CartesianProduct":
		return "join"
	case strings.Contains(name, "Aggregate"):
		return "aggregate"
	case name == "Filter":
		return "filter"
	case name == "Project":
		return "project"
	case strings.HasPrefix(name, "Sort") || name == "TakeOrderedAndProject":
		return "sort"
	case strings.HasPrefix(name, "Window"):
		return "window"
	case strings.Contains(name, "Limit"):
		return "limit"
	case strings.HasPrefix(name, "Execute") || strings.Contains(name, "Write") || strings.HasPrefix(name, "Insert"):
		return "write"
	}
	return "other"
}

// planChanges lists the joins, exchanges, sorts and shuffle reads whose
// count differs between two plans, in name order: what adaptive
// execution decides (join strategy, partition coalescing and splitting);
// other operators move with subqueries and reuse and say little.
// With all, every operator counts (comparing two runs' plans).
func planChanges(before, after *model.SQLPlan, all bool) []string {
	count := func(p *model.SQLPlan) map[string]int {
		c := map[string]int{}
		for _, n := range p.Nodes {
			name := Normalize(n.Name)
			if n.IsCluster {
				continue
			}
			switch Kind(name) {
			case "join", "exchange", "broadcast", "sort":
			default:
				if !all && !IsShuffleRead(name) {
					continue
				}
			}
			c[name]++
		}
		return c
	}
	b, a := count(before), count(after)
	var names []string
	for n := range b {
		names = append(names, n)
	}
	for n := range a {
		if _, ok := b[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out []string
	for _, n := range names {
		if b[n] != a[n] {
			out = append(out, n+" "+itoa(b[n])+"→"+itoa(a[n]))
		}
	}
	return out
}

// IsShuffleRead reports whether name is adaptive execution's shuffle
// reader (AQEShuffleRead, CustomShuffleReader before Spark 3.2), whose
// description says what it did: "coalesced", "skewed", "local".
func IsShuffleRead(name string) bool {
	return name == "AQEShuffleRead" || name == "CustomShuffleReader"
}

func itoa(n int) string { return strconv.Itoa(n) }

// maxRunning is the most task attempts of stages running at once.
func maxRunning(stages []*model.Stage) int {
	type ev struct {
		t int64
		d int
	}
	var evs []ev
	for _, st := range stages {
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if t.Launch > 0 && t.Finish > t.Launch {
				evs = append(evs, ev{t.Launch, 1}, ev{t.Finish, -1})
			}
		}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			return cmp.Compare(a.t, b.t)
		}
		return a.d - b.d // ends before starts at the same instant
	})
	cur, best := 0, 0
	for _, e := range evs {
		cur += e.d
		best = max(best, cur)
	}
	return best
}

// waitingIdle is the slot time (slot-ms) left idle while tasks of the
// stages waited: from a stage attempt's submission, each task index
// waits until its first attempt launches; at any instant the idle slots
// that a waiting task could have used are min(slots - running, waiting).
func waitingIdle(stages []*model.Stage, slots int) int64 {
	type ev struct {
		t              int64
		running, waits int
	}
	var evs []ev
	for _, st := range stages {
		if st.Submitted <= 0 {
			continue
		}
		first := map[int32]int64{}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if t.Launch <= 0 {
				continue
			}
			if l, ok := first[t.Index]; !ok || t.Launch < l {
				first[t.Index] = t.Launch
			}
			if t.Finish > t.Launch {
				evs = append(evs, ev{t.Launch, 1, 0}, ev{t.Finish, -1, 0})
			}
		}
		for _, l := range first {
			if l > st.Submitted {
				evs = append(evs, ev{st.Submitted, 0, 1}, ev{l, 0, -1})
			}
		}
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Compare(a.t, b.t) })
	var idle int64
	running, waiting := 0, 0
	for i, e := range evs {
		if i > 0 && e.t > evs[i-1].t {
			if free := slots - running; free > 0 && waiting > 0 {
				idle += int64(min(free, waiting)) * (e.t - evs[i-1].t)
			}
		}
		running += e.running
		waiting += e.waits
	}
	return idle
}

// Command is the command an execution ran when it ran no job and its plan
// is that one command ("Execute CreateViewCommand" gives
// "CreateViewCommand"), else "": a statement such as a view's creation,
// which takes milliseconds on the driver and has nothing to diagnose.
func (q *Query) Command() string {
	if len(q.Jobs) > 0 || len(q.Operators) != 1 {
		return ""
	}
	name := q.Operators[0].Name
	cmd := strings.TrimPrefix(name, "Execute ")
	if cmd == name && !strings.HasSuffix(name, "Command") {
		return ""
	}
	return cmd
}
