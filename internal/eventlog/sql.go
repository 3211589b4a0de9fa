package eventlog

import (
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// The SQL events are replayed as Spark's SQLAppStatusListener replays them
// in the History Server (Spark 3.5, sql/core/.../ui/SQLAppStatusListener.scala):
//
//   - SQLExecutionStart builds the plan graph and declares its metrics;
//     SQLAdaptiveExecutionUpdate replaces the graph and the plan text and
//     adds its metrics; SQLAdaptiveSQLMetricUpdates adds metrics.
//   - A job whose properties carry spark.sql.execution.id joins the
//     execution; each stage it lists starts tracking, afresh, the metrics
//     the execution had declared by then, sized to the stage's task count.
//   - A task end of a tracked stage attempt stores each declared metric's
//     update at the task's index, unless a successful attempt of that
//     index already did; the largest value per metric is kept with its task.
//   - SQLExecutionEnd aggregates the values (sqlmetric.go) and drops the
//     tracking of stages no other running execution uses; the execution
//     stops listening once its jobs have ended too.
//
// Only the accumulators the plans declare are read from a task's list.

// sqlState is the SQL listener's state for one log.
type sqlState struct {
	execs  map[int64]*model.SQLExecution // every execution seen
	live   map[int64]*liveExec           // executions still listening
	stages map[int32]*liveStage          // tracked stages by id
	names  map[string]string             // interned operator and metric names
}

// liveExec is an execution still listening (LiveExecutionData).
type liveExec struct {
	x *model.SQLExecution
	// types are the declared metrics (exec.metrics) by accumulator id;
	// shared is set while a tracked stage holds the same map, which is then
	// copied before it changes.
	types  map[int64]model.SQLMetricType
	shared bool
	// jobIDs and stageSeq are exec.jobs and exec.stages in insertion order.
	jobIDs   []int32
	stageSeq []int32
	driver   [][2]int64 // driver accumulator updates, in order
	// ended counts the job ends and, once aggregated, the execution end.
	ended int
	done  bool // metrics aggregated
}

func newSQLState() *sqlState {
	return &sqlState{execs: map[int64]*model.SQLExecution{}, live: map[int64]*liveExec{},
		stages: map[int32]*liveStage{}, names: map[string]string{}}
}

// intern returns the shared copy of a name.
func (q *sqlState) intern(b []byte) string {
	if s, ok := q.names[string(b)]; ok {
		return s
	}
	s := string(b)
	q.names[s] = s
	return s
}

// execution returns the listening execution id, creating it (and its
// model record, listed in the application) when there is none.
func (d *Decoder) execution(id int64) *liveExec {
	q := d.sq
	if e := q.live[id]; e != nil {
		return e
	}
	x := q.execs[id]
	if x == nil {
		x = &model.SQLExecution{ID: id, RootID: id, StreamBatch: -1}
		q.execs[id] = x
		d.app.SQL = append(d.app.SQL, x)
	}
	e := &liveExec{x: x, types: map[int64]model.SQLMetricType{}}
	q.live[id] = e
	return e
}

// declare adds metrics to the execution's declared set.
func (e *liveExec) declare(ms []model.SQLPlanMetric) {
	if len(ms) == 0 {
		return
	}
	if e.shared {
		c := make(map[int64]model.SQLMetricType, len(e.types)+len(ms))
		for k, v := range e.types {
			c[k] = v
		}
		e.types, e.shared = c, false
	}
	for _, m := range ms {
		e.types[m.AccumID] = m.Type
	}
}

// sqlPlanEvent is the decoded part of SQLExecutionStart and
// SQLAdaptiveExecutionUpdate.
type sqlPlanEvent struct {
	id, root, time int64
	hasID, hasRoot bool
	description    string
	details, plan  string
	graph          *model.SQLPlan
	metrics        []model.SQLPlanMetric
	configs        [][2]string
	hasGraph       bool
}

func (d *Decoder) decodeSQLPlanEvent(s *jsonscan.Scanner) *sqlPlanEvent {
	ev := &sqlPlanEvent{}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "executionId":
			ev.id, ev.hasID = s.Int(), true
		case "rootExecutionId":
			if s.Kind() == 'n' {
				s.Skip()
			} else {
				ev.root, ev.hasRoot = s.Int(), true
			}
		case "description":
			ev.description = s.String()
		case "details":
			ev.details = s.String()
		case "physicalPlanDescription":
			ev.plan = s.String()
		case "sparkPlanInfo":
			ev.graph, ev.metrics = d.decodePlanGraph(s)
			ev.hasGraph = true
		case "time":
			ev.time = s.Int()
		case "modifiedConfigs":
			ev.configs = decodeStringMap(s)
		default:
			s.Skip()
		}
	}
	d.require(ev.hasID, "executionId")
	return ev
}

func decodeSQLStart(d *Decoder, s *jsonscan.Scanner) {
	ev := d.decodeSQLPlanEvent(s)
	d.require(ev.hasGraph, "sparkPlanInfo")
	d.pending = func() {
		if !once(&d.seen.sql, ev.id, seenStart) {
			d.duplicate("SparkListenerSQLExecutionStart", "SQL execution "+strconv.FormatInt(ev.id, 10))
			return
		}
		e := d.execution(ev.id)
		x := e.x
		x.Description, x.Details, x.PlanDescription = ev.description, model.PackText(ev.details), model.PackText(ev.plan)
		x.Start, x.ModifiedConfigs, x.Plan, x.InitialPlan = ev.time, ev.configs, ev.graph, nil
		x.RootID = ev.id
		if ev.hasRoot {
			x.RootID = ev.root
		}
		// exec.metrics = sqlPlanMetrics: the start's metrics replace any.
		e.types, e.shared = map[int64]model.SQLMetricType{}, false
		e.declare(ev.metrics)
		if !d.photon.on && hasPhotonNode(ev.graph) {
			d.photon.enable("Photon operators in the plan of SQL execution " + strconv.FormatInt(x.ID, 10))
		}
	}
}

// hasPhotonNode reports whether Photon runs one of the plan's operators
// (photon.go: their names start with "Photon").
func hasPhotonNode(p *model.SQLPlan) bool {
	if p == nil {
		return false
	}
	for i := range p.Nodes {
		if strings.HasPrefix(p.Nodes[i].Name, "Photon") {
			return true
		}
	}
	return false
}

func decodeSQLAdaptiveUpdate(d *Decoder, s *jsonscan.Scanner) {
	ev := d.decodeSQLPlanEvent(s)
	d.require(ev.hasGraph, "sparkPlanInfo")
	d.pending = func() {
		e := d.execution(ev.id)
		x := e.x
		if x.InitialPlan == nil && x.Plan != nil {
			x.InitialPlan = x.Plan
		}
		x.Plan, x.PlanDescription = ev.graph, model.PackText(ev.plan)
		x.AdaptiveUpdates++
		e.declare(ev.metrics)
	}
}

func decodeSQLAdaptiveMetrics(d *Decoder, s *jsonscan.Scanner) {
	var id int64
	hasID := false
	var ms []model.SQLPlanMetric
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "executionId":
			id, hasID = s.Int(), true
		case "sqlPlanMetrics":
			if s.Array() {
				for s.Next() {
					ms = append(ms, d.decodePlanMetric(s))
				}
			}
		default:
			s.Skip()
		}
	}
	d.require(hasID, "executionId")
	d.pending = func() { d.execution(id).declare(ms) }
}

func decodeDriverAccumUpdates(d *Decoder, s *jsonscan.Scanner) {
	var id int64
	hasID := false
	var ups [][2]int64
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "executionId":
			id, hasID = s.Int(), true
		case "accumUpdates":
			if s.Array() {
				for s.Next() {
					var p [2]int64
					if s.Array() {
						for i := 0; s.Next(); i++ {
							if i < 2 {
								p[i] = s.Int()
							} else {
								s.Skip()
							}
						}
					}
					ups = append(ups, p)
				}
			}
		default:
			s.Skip()
		}
	}
	d.require(hasID, "executionId")
	d.pending = func() {
		if e := d.sq.live[id]; e != nil {
			e.driver = append(e.driver, ups...)
		}
	}
}

func decodeSQLEnd(d *Decoder, s *jsonscan.Scanner) {
	var id, ts int64
	hasID := false
	var msg string
	hasMsg := false
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "executionId":
			id, hasID = s.Int(), true
		case "time":
			ts = s.Int()
		case "errorMessage":
			hasMsg = s.Kind() != 'n'
			msg = s.String()
		default:
			s.Skip()
		}
	}
	d.require(hasID, "executionId")
	d.pending = func() {
		if !once(&d.seen.sql, id, seenEnd) {
			d.duplicate("SparkListenerSQLExecutionEnd", "SQL execution "+strconv.FormatInt(id, 10))
			return
		}
		e := d.sq.live[id]
		if e == nil {
			return
		}
		e.x.End, e.x.Error, e.x.HasError = ts, msg, hasMsg
		d.aggregate(e)
		d.dropStaleStages(e)
		e.ended++
		d.settle(e)
	}
}

// settle stops an execution listening once its jobs and itself have ended.
func (d *Decoder) settle(e *liveExec) {
	if e.ended >= len(e.jobIDs)+1 {
		delete(d.sq.live, e.x.ID)
		d.dropStaleStages(e)
	}
}

// dropStaleStages forgets the tracked stages that no other listening
// execution uses (removeStaleMetricsData).
func (d *Decoder) dropStaleStages(e *liveExec) {
	q := d.sq
	if len(q.stages) == 0 {
		return
	}
	keep := map[int32]bool{}
	for _, o := range q.live {
		if o != e {
			for _, id := range o.stageSeq {
				keep[id] = true
			}
		}
	}
	for id := range q.stages {
		if !keep[id] {
			delete(q.stages, id)
		}
	}
}

// sqlJobStart joins a job to its execution (onJobStart).
func (d *Decoder) sqlJobStart(job *model.Job, infos []stageInfo) {
	if job.SQLID < 0 {
		return
	}
	q := d.sq
	e := q.live[job.SQLID]
	if e == nil {
		if x := q.execs[job.SQLID]; x != nil && x.End != 0 {
			// A job of a finished execution: it listens again with its
			// values kept (the kvstore read in onJobStart).
			e = &liveExec{x: x, types: map[int64]model.SQLMetricType{}, done: true}
			e.jobIDs = append(e.jobIDs, x.Jobs...)
			e.ended = len(e.jobIDs) + 1
			q.live[x.ID] = e
		} else {
			e = d.execution(job.SQLID)
		}
	}
	x := e.x
	if len(e.types) > 0 {
		e.shared = true
		for i := range infos {
			si := &infos[i]
			q.stages[si.id] = &liveStage{id: si.id, numTasks: si.numTasks, types: e.types}
		}
	}
	if !containsInt32(e.jobIDs, job.ID) {
		e.jobIDs = append(e.jobIDs, job.ID)
		x.Jobs = append(x.Jobs, job.ID)
	}
	// exec.stages ++= event.stageIds.toSet: the job's ids in its own set's order.
	for _, id := range model.ScalaSetOrder(job.StageIDs) {
		if !containsInt32(e.stageSeq, id) {
			e.stageSeq = append(e.stageSeq, id)
		}
	}
	if x.StreamQueryID == "" {
		for _, kv := range job.Properties {
			switch kv[0] {
			case "sql.streaming.queryId":
				x.StreamQueryID = kv[1]
			case "streaming.sql.batchId":
				if v, err := strconv.ParseInt(kv[1], 10, 64); err == nil {
					x.StreamBatch = v
				}
			}
		}
	}
}

// sqlJobEnd counts a job's end for the executions listening to it.
func (d *Decoder) sqlJobEnd(id int32) {
	for _, e := range d.sq.live {
		if containsInt32(e.jobIDs, id) {
			e.ended++
			d.settle(e)
		}
	}
}

// sqlStageSubmitted restarts a tracked stage's values for a new attempt.
func (d *Decoder) sqlStageSubmitted(id, attempt int32) {
	st := d.sq.stages[id]
	if st == nil || st.attempt == attempt || !d.sqlStage(id) {
		return
	}
	d.sq.stages[id] = &liveStage{id: id, attempt: attempt, numTasks: st.numTasks, types: st.types}
}

// sqlStage reports whether a listening execution ran stage id (isSQLStage).
func (d *Decoder) sqlStage(id int32) bool {
	for _, e := range d.sq.live {
		if containsInt32(e.stageSeq, id) {
			return true
		}
	}
	return false
}

// sqlTaskEnd reads a tracked task end's SQL metric updates.
func (d *Decoder) sqlTaskEnd(t *taskEvent) {
	st := d.sq.stages[t.stageID]
	if st == nil || st.attempt != t.stageAttempt || !d.sqlStage(t.stageID) {
		return
	}
	st.update(t)
}

// finishSQL aggregates the executions the log left running, as the
// History Server does when it stops replaying (kvstore.onFlush).
func (d *Decoder) finishSQL() {
	for _, x := range d.app.SQL {
		if e := d.sq.live[x.ID]; e != nil && !e.done {
			d.aggregate(e)
		}
	}
	d.sq.live, d.sq.stages = nil, nil
}

func containsInt32(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
