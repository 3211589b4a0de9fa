package shs

import (
	"cmp"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// The typed answers for callers in the same process (Dr. Elephant's
// heuristics in diagnose): the resources a History Server client would
// fetch, as values rather than REST paths to format and decode. Each
// answers exactly as the route of the same name with no query parameters.

// AllExecutors is /applications/{id}[/{attempt}]/allexecutors for attempt
// a: every executor, active or removed, the driver among them.
func (ix *Index) AllExecutors(a *model.App) []ExecutorSummary {
	return ix.view(a).executorList(false)
}

// Jobs is /applications/{id}[/{attempt}]/jobs for attempt a: every job.
func (ix *Index) Jobs(a *model.App) []JobData { return ix.view(a).jobList(nil) }

// Stages is /applications/{id}[/{attempt}]/stages for attempt a: every
// stage attempt, without task details, with the default quantiles.
func (ix *Index) Stages(a *model.App) []StageData {
	qs, err := parseQuantiles(defaultStageQuantiles)
	if err != nil {
		panic("shs: default stage quantiles do not parse: " + err.Message)
	}
	return ix.view(a).stageList(nil, stageOptions{quantiles: sortedCopy(qs)})
}

// Attempts returns application appID's attempts, newest start first (nil
// when the index has no such application). An attempt known only from its
// log's first events is among them: Pending(appID) tells.
func (ix *Index) Attempts(appID string) []*model.App {
	if e := ix.byID[appID]; e != nil {
		return e.attempts
	}
	return nil
}

// Apps returns every application's newest attempt, in the order the
// History Server lists them.
func (ix *Index) Apps() []*model.App {
	out := make([]*model.App, len(ix.apps))
	for i, e := range ix.apps {
		out[i] = e.attempts[0]
	}
	return out
}

// StageExecutors is the executorSummary of
// /applications/{id}[/{attempt}]/stages/{stage}/{stageAttempt} for attempt
// a, without the task map that comes with it (false when there is no such
// stage attempt): the History Server stage page's aggregated metrics by
// executor.
func (ix *Index) StageExecutors(a *model.App, stage, attempt int32) (ExecutorStageSummaries, bool) {
	v := ix.view(a)
	sa, err := v.findAttempt(stage, attempt)
	if err != nil {
		return nil, false
	}
	return v.executorStageSummaries(sa), true
}

// SQLNode is one operator of a SQL execution's plan as /sql?details=true
// lists it: its id, name, codegen stage id (0: none) and its metrics'
// values, as SQLMetrics.stringValue prints them.
type SQLNode struct {
	ID        int64
	Name      string
	CodegenID int64
	Metrics   []Pair
}

// SQLNodes are the plan nodes of execution x, in the order /sql lists
// them (the last created first), with the same names, codegen ids and
// metric values (writeNodes; TestSQLNodesAsAPI checks they agree).
func SQLNodes(x *model.SQLExecution) []SQLNode {
	if x.Plan == nil {
		return nil
	}
	values := x.Metrics
	for _, mv := range values {
		if !printable(mv.Type) {
			values = nil // Spark's aggregation threw: no values
			break
		}
	}
	nodes := x.Plan.Nodes
	if !slices.IsSortedFunc(nodes, func(a, b model.SQLNode) int { return cmp.Compare(a.ID, b.ID) }) {
		nodes = slices.Clone(nodes)
		slices.SortStableFunc(nodes, func(a, b model.SQLNode) int { return cmp.Compare(a.ID, b.ID) })
	}
	out := make([]SQLNode, 0, len(nodes))
	var scratch []byte
	for i := len(nodes) - 1; i >= 0; i-- {
		n := &nodes[i]
		sn := SQLNode{ID: int64(n.ID), Name: javaTrim(n.Name)}
		if c := n.Cluster; c >= 0 && int(c) < len(x.Plan.Nodes) && x.Plan.Nodes[c].IsCluster {
			sn.CodegenID, _ = codegenID(javaTrim(x.Plan.Nodes[c].Name))
		}
		for _, m := range n.Metrics {
			mv, ok := metricValue(values, m.AccumID)
			if !ok {
				continue
			}
			scratch, _ = appendMetric(scratch[:0], mv)
			sn.Metrics = append(sn.Metrics, Pair{javaTrim(m.Name), string(scratch)})
		}
		out = append(out, sn)
	}
	return out
}

// SQLSummaries are attempt a's SQL executions as /sql lists them (in id
// order), without their plans.
func (ix *Index) SQLSummaries(a *model.App) []SQLSummary {
	v := &sqlView{app: a, now: ix.now()}
	order := slices.Clone(a.SQL)
	slices.SortStableFunc(order, func(x, y *model.SQLExecution) int { return cmp.Compare(x.ID, y.ID) })
	out := make([]SQLSummary, len(order))
	for i, x := range order {
		out[i] = v.summary(x)
	}
	return out
}
