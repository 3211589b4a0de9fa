package eventlog

import (
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

const sqlEvents = "org.apache.spark.sql.execution.ui."

// sqlStart writes SparkListenerSQLExecutionStart as Spark 3.5's Jackson
// mapper serializes it, with the plan as it was at the start (the initial
// one when adaptive execution replaced it).
func (e *encoder) sqlStart(x *model.SQLExecution) {
	e.begin(sqlEvents + "SparkListenerSQLExecutionStart")
	j := &e.j
	j.kint("executionId", x.ID)
	j.kint("rootExecutionId", x.RootID)
	j.kstr("description", x.Description)
	j.kstr("details", x.Details.String())
	j.kstr("physicalPlanDescription", x.PlanDescription.String())
	j.key("sparkPlanInfo")
	plan := x.Plan
	if x.InitialPlan != nil {
		plan = x.InitialPlan
	}
	writePlanInfo(j, plan)
	j.kint("time", x.Start)
	j.kmap("modifiedConfigs", x.ModifiedConfigs)
	j.key("jobTags")
	j.open('[')
	j.close(']')
}

// sqlAdaptive writes the final plan as a SparkListenerSQLAdaptiveExecutionUpdate.
func (e *encoder) sqlAdaptive(x *model.SQLExecution) {
	e.begin(sqlEvents + "SparkListenerSQLAdaptiveExecutionUpdate")
	e.j.kint("executionId", x.ID)
	e.j.kstr("physicalPlanDescription", x.PlanDescription.String())
	e.j.key("sparkPlanInfo")
	writePlanInfo(&e.j, x.Plan)
}

// sqlDriverUpdates writes SparkListenerDriverAccumUpdates.
func (e *encoder) sqlDriverUpdates(x *model.SQLExecution) {
	e.begin(sqlEvents + "SparkListenerDriverAccumUpdates")
	e.j.kint("executionId", x.ID)
	e.j.key("accumUpdates")
	e.j.open('[')
	for _, u := range x.DriverUpdates {
		e.j.open('[')
		e.j.int(u.AccumID)
		e.j.int(u.Value)
		e.j.close(']')
	}
	e.j.close(']')
}

func (e *encoder) sqlEnd(x *model.SQLExecution) {
	e.begin(sqlEvents + "SparkListenerSQLExecutionEnd")
	e.j.kint("executionId", x.ID)
	e.j.kint("time", x.End)
	e.j.key("errorMessage")
	if x.HasError {
		e.j.str(x.Error)
	} else {
		e.j.null()
	}
}

// sqlAccumulables writes a task's SQL metric updates as Spark lists them
// among its accumulables: the value is the accumulator's running total.
func (e *encoder) sqlAccumulables(st *model.Stage, t *model.Task) {
	ups := st.TaskSQLUpdates[t.ID]
	if len(ups) == 0 {
		return
	}
	if e.sqlNames == nil {
		e.sqlNames, e.sqlTotals = map[int64]string{}, map[int64]int64{}
		for _, x := range e.app.SQL {
			for _, p := range []*model.SQLPlan{x.InitialPlan, x.Plan} {
				if p == nil {
					continue
				}
				for _, n := range p.Nodes {
					for _, m := range n.Metrics {
						e.sqlNames[m.AccumID] = m.Name
					}
				}
			}
		}
	}
	j := &e.j
	for _, u := range ups {
		e.sqlTotals[u.AccumID] += u.Value
		j.open('{')
		j.kint("ID", u.AccumID)
		j.kstr("Name", e.sqlNames[u.AccumID])
		j.b = append(j.b, `,"Update":"`...)
		j.b = appendInt(j.b, u.Value)
		j.b = append(j.b, `","Value":"`...)
		j.b = appendInt(j.b, e.sqlTotals[u.AccumID])
		j.raw(`","Internal":true,"Count Failed Values":true,"Metadata":"sql"}`)
	}
}

// writePlanInfo writes a plan graph back as the SparkPlanInfo tree it was
// drawn from: each WholeStageCodegen node wraps the topmost operator it
// fused, an InputAdapter stands where a fused operator reads from outside
// its stage, and an operator with several consumers is written in full at
// the first and as a ReusedExchange (ReusedSubquery) of the same text at
// the others, so that reading it back gives the same graph.
func writePlanInfo(j *jsonBuf, p *model.SQLPlan) {
	if p == nil || len(p.Nodes) == 0 {
		planInfoOpen(j, "", "")
		planInfoClose(j, nil)
		return
	}
	w := planWriter{j: j, p: p, children: make([][]int32, len(p.Nodes)), spans: make([][2]int, len(p.Nodes))}
	for _, ed := range p.Edges {
		if int(ed.To) < len(p.Nodes) && int(ed.From) < len(p.Nodes) {
			w.children[ed.To] = append(w.children[ed.To], ed.From)
		}
	}
	root := int32(0)
	if p.Nodes[0].IsCluster && len(p.Nodes) > 1 {
		root = 1
	}
	w.write(root, -1)
}

type planWriter struct {
	j        *jsonBuf
	p        *model.SQLPlan
	children [][]int32
	spans    [][2]int // where each written node's tree lies in j.b
}

// write writes node n read by an operator of cluster parentCluster.
func (w *planWriter) write(n, parentCluster int32) {
	node := &w.p.Nodes[n]
	if c := node.Cluster; c >= 0 && c != parentCluster && int(c) < len(w.p.Nodes) {
		cl := &w.p.Nodes[c]
		planInfoOpen(w.j, cl.Name, cl.Desc)
		w.proper(n)
		planInfoClose(w.j, cl.Metrics)
		return
	}
	w.proper(n)
}

// proper writes node n itself and its children.
func (w *planWriter) proper(n int32) {
	node := &w.p.Nodes[n]
	j := w.j
	j.sep()
	start := len(j.b)
	j.comma = false
	planInfoOpen(j, node.Name, node.Desc)
	for _, c := range w.children[n] {
		child := &w.p.Nodes[c]
		switch {
		case w.spans[c][1] > 0: // a second consumer
			name := "ReusedExchange"
			if child.Name == "Subquery" {
				name = "ReusedSubquery"
			}
			planInfoOpen(j, name, name)
			j.sep()
			span := w.spans[c]
			j.b = append(j.b, j.b[span[0]:span[1]]...)
			j.comma = true
			planInfoClose(j, nil)
		case node.Cluster >= 0 && child.Cluster != node.Cluster:
			planInfoOpen(j, "InputAdapter", "InputAdapter")
			w.write(c, -1)
			planInfoClose(j, nil)
		default:
			w.write(c, node.Cluster)
		}
	}
	planInfoClose(j, node.Metrics)
	if strings.Contains(node.Name, "Exchange") || node.Name == "Subquery" {
		w.spans[n] = [2]int{start, len(j.b)}
	}
}

// planInfoOpen starts a SparkPlanInfo object up to its children list.
func planInfoOpen(j *jsonBuf, name, desc string) {
	j.open('{')
	j.kstr("nodeName", name)
	j.kstr("simpleString", desc)
	j.key("children")
	j.open('[')
}

// planInfoClose ends the children list and writes metadata and metrics.
func planInfoClose(j *jsonBuf, ms []model.SQLPlanMetric) {
	j.close(']')
	j.key("metadata")
	j.open('{')
	j.close('}')
	j.key("metrics")
	j.open('[')
	for _, m := range ms {
		j.open('{')
		j.kstr("name", m.Name)
		j.kint("accumulatorId", m.AccumID)
		j.kstr("metricType", metricTypeName(m.Type))
		j.close('}')
	}
	j.close(']')
	j.close('}')
}

// metricTypeName is the metricType Spark logs for t.
func metricTypeName(t model.SQLMetricType) string {
	if t == model.MetricCustom {
		return "v2Custom_unknown"
	}
	return t.String()
}
