package shs

import (
	"bytes"
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// SQL execution statuses (SQLExecutionUIData.executionStatus, Spark 3.5).
const (
	sqlRunning   = "RUNNING"
	sqlCompleted = "COMPLETED"
	sqlFailed    = "FAILED"
)

// sqlParams are SqlResource's query parameters.
type sqlParams struct {
	details, planDescription bool
	offset, length           int
}

// convertSQLParams converts /sql's parameters as Jersey does: details and
// planDescription default to true; offset to 0, length to 20 (list only).
func convertSQLParams(rest []string, q map[string][]string) (sqlParams, *Error) {
	p := sqlParams{details: boolParam(q, "details", true), planDescription: boolParam(q, "planDescription", true), length: 20}
	if len(rest) > 1 {
		return p, nil
	}
	var err *Error
	if p.offset, err = intParam(q, "offset", 0); err != nil {
		return p, err
	}
	p.length, err = intParam(q, "length", 20)
	return p, err
}

// sqlResource answers /sql and /sql/{executionId} (Spark 3.5's SqlResource).
// It needs none of the task aggregates, so it does not build the app view.
func (ix *Index) sqlResource(a *model.App, rest []string, p sqlParams) (any, *Error) {
	ans := sqlAnswer{view: &sqlView{app: a, now: ix.now()}, p: p}
	if len(rest) == 2 {
		id, err := strconv.ParseInt(rest[1], 10, 64)
		if err != nil {
			return nil, notFound("bad path parameter: %s", rest[1])
		}
		for _, x := range a.SQL {
			if x.ID == id {
				ans.execs, ans.one = []*model.SQLExecution{x}, true
				return ans, nil
			}
		}
		return nil, notFound("unknown query execution id: %d", id)
	}
	// KVStoreView.max refuses a length that is not positive; the stream's
	// skip a negative offset (when there is anything to skip).
	if p.length <= 0 {
		return nil, serverError("max must be positive.")
	}
	if p.offset < 0 && len(a.SQL) > 0 {
		return nil, serverError("%d", p.offset)
	}
	order := make([]*model.SQLExecution, len(a.SQL))
	copy(order, a.SQL)
	slices.SortStableFunc(order, func(x, y *model.SQLExecution) int { return cmp.Compare(x.ID, y.ID) })
	if p.offset < len(order) {
		ans.execs = order[p.offset:min(len(order), p.offset+p.length)]
	}
	return ans, nil
}

// sqlAnswer is the answer of /sql (a list) or /sql/{id} (one), written
// straight from the model as ExecutionData objects (docs/API.md), one
// execution at a time (streamer).
type sqlAnswer struct {
	view  *sqlView
	execs []*model.SQLExecution
	one   bool
	p     sqlParams
}

func (a sqlAnswer) writeJSON(out io.Writer) error {
	w := jsonOut{b: make([]byte, 0, 256<<10), out: out}
	if a.one {
		a.view.write(&w, a.execs[0], a.p)
	} else {
		w.open('[')
		for _, x := range a.execs {
			w.elem("")
			a.view.write(&w, x, a.p)
			w.flushOver(128 << 10)
		}
		w.close(']')
	}
	w.flushOver(0)
	return w.err
}

// MarshalJSON writes the answer for encoding/json.
func (a sqlAnswer) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	err := a.writeJSON(&buf)
	return buf.Bytes(), err
}

// sqlView answers for one application at one instant.
type sqlView struct {
	app     *model.App
	now     int64
	status  map[int32]model.JobStatus
	scratch []byte
}

// jobStatus is the status of job id as the execution's listener saw it.
func (s *sqlView) jobStatus(id int32) model.JobStatus {
	if s.status == nil {
		s.status = make(map[int32]model.JobStatus, len(s.app.Jobs))
		for _, j := range s.app.Jobs {
			s.status[j.ID] = j.Status
		}
	}
	st, ok := s.status[id]
	if !ok {
		return model.JobRunning
	}
	return st
}

// SQLSummary is an execution as /sql lists it without details: its
// status (COMPLETED, FAILED, RUNNING), submission time (-1 when the log
// names it only in a job's properties), duration, and its jobs by status
// in Spark's order.
type SQLSummary struct {
	ID                       int64
	Status                   string
	Known                    bool // from SQLExecutionStart, not only a job
	Submitted, DurationMs    int64
	Running, Success, Failed []int32
}

// summary is SqlResource.prepareExecutionData's status, times and jobs.
func (s *sqlView) summary(x *model.SQLExecution) SQLSummary {
	sm := SQLSummary{ID: x.ID, Status: sqlCompleted}
	// exec.jobs is a Scala Map: its iteration order decides the lists'.
	for _, id := range model.ScalaSetOrder(x.Jobs) {
		switch s.jobStatus(id) {
		case model.JobRunning:
			sm.Running = append(sm.Running, id)
		case model.JobSucceeded:
			sm.Success = append(sm.Success, id)
		case model.JobFailed:
			sm.Failed = append(sm.Failed, id)
		}
	}
	switch {
	case x.HasError && x.Error == "":
	case x.HasError:
		sm.Status = sqlFailed
	case x.End == 0:
		sm.Status = sqlRunning
	case len(sm.Failed) > 0:
		sm.Status = sqlFailed
	}
	sm.Known = x.Start != 0 || x.Plan != nil
	sm.Submitted = x.Start
	if !sm.Known {
		sm.Submitted = -1 // LiveExecutionData.submissionTime's default
	}
	end := x.End
	if end == 0 {
		end = s.now
	}
	sm.DurationMs = end - sm.Submitted
	return sm
}

// write writes one ExecutionData (SqlResource.prepareExecutionData).
func (s *sqlView) write(w *jsonOut, x *model.SQLExecution, p sqlParams) {
	sm := s.summary(x)
	running, success, failed, status, known, start := sm.Running, sm.Success, sm.Failed, sm.Status, sm.Known, sm.Submitted
	w.open('{')
	w.int("id", x.ID)
	w.str("status", status)
	if known {
		w.str("description", x.Description)
	}
	if !p.planDescription {
		w.str("planDescription", "")
	} else if known {
		w.str("planDescription", x.PlanDescription.String())
	}
	w.str("submissionTime", Date(start).String())
	w.int("duration", sm.DurationMs)
	w.ints("runningJobIds", running)
	w.ints("successJobIds", success)
	w.ints("failedJobIds", failed)
	w.elem("nodes")
	w.open('[')
	if p.details && x.Plan != nil {
		s.writeNodes(w, x)
	}
	w.close(']')
	w.elem("edges")
	w.open('[')
	if p.details && x.Plan != nil {
		for _, e := range x.Plan.Edges {
			w.elem("")
			w.open('{')
			w.int("fromId", int64(e.From))
			w.int("toId", int64(e.To))
			w.close('}')
		}
	}
	w.close(']')
	w.close('}')
}

// writeNodes is SqlResource.printableMetrics: every node, the last created
// first, each with the metrics that have a value, names trimmed; an
// operator fused by a WholeStageCodegen stage carries the stage's id.
func (s *sqlView) writeNodes(w *jsonOut, x *model.SQLExecution) {
	values := x.Metrics
	for _, mv := range values {
		if !printable(mv.Type) {
			values = nil // Spark's aggregation threw: the execution has no values
			break
		}
	}
	// The last created first; the decoder keeps nodes in id order.
	nodes := x.Plan.Nodes
	if !slices.IsSortedFunc(nodes, func(a, b model.SQLNode) int { return cmp.Compare(a.ID, b.ID) }) {
		nodes = slices.Clone(nodes)
		slices.SortStableFunc(nodes, func(a, b model.SQLNode) int { return cmp.Compare(a.ID, b.ID) })
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		n := &nodes[i]
		w.elem("")
		w.open('{')
		w.int("nodeId", int64(n.ID))
		w.str("nodeName", javaTrim(n.Name))
		if c := n.Cluster; c >= 0 && int(c) < len(x.Plan.Nodes) && x.Plan.Nodes[c].IsCluster {
			if id, ok := codegenID(javaTrim(x.Plan.Nodes[c].Name)); ok {
				w.int("wholeStageCodegenId", id)
			}
		}
		w.elem("metrics")
		w.open('[')
		for _, m := range n.Metrics {
			mv, ok := metricValue(values, m.AccumID)
			if !ok {
				continue
			}
			w.elem("")
			w.open('{')
			w.str("name", javaTrim(m.Name))
			s.scratch, _ = appendMetric(s.scratch[:0], mv)
			w.elem("value")
			w.b = jsonscan.AppendString(w.b, s.scratch)
			w.close('}')
		}
		w.close(']')
		w.close('}')
	}
}

// metricValue finds accumulator id among values sorted by id.
func metricValue(values []model.SQLMetricValue, id int64) (model.SQLMetricValue, bool) {
	i, ok := slices.BinarySearchFunc(values, id, func(v model.SQLMetricValue, id int64) int { return cmp.Compare(v.AccumID, id) })
	if !ok {
		return model.SQLMetricValue{}, false
	}
	return values[i], true
}

// codegenID parses "WholeStageCodegen (N)" as getWholeStageCodegenId does.
func codegenID(name string) (int64, bool) {
	const prefix = "WholeStageCodegen ("
	if !strings.HasPrefix(name, "WholeStageCodegen") || len(name) < len(prefix)+1 {
		return 0, false
	}
	v, err := strconv.ParseInt(name[len(prefix):len(name)-1], 10, 64)
	return v, err == nil
}

// javaTrim is Java's String.trim: it drops characters up to ' ' at both ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}
