package eventlog

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// rawSQLEvent holds the fields of the events the SQL check reads
// independently of the decoder (encoding/json, one line at a time).
type rawSQLEvent struct {
	Event          string
	ExecutionID    *int64            `json:"executionId"`
	Time           int64             `json:"time"`
	Description    *string           `json:"description"`
	ErrorMessage   *string           `json:"errorMessage"`
	SparkPlanInfo  *rawPlanInfo      `json:"sparkPlanInfo"`
	SQLPlanMetrics []rawMetric       `json:"sqlPlanMetrics"`
	AccumUpdates   [][2]int64        `json:"accumUpdates"`
	JobID          *int32            `json:"Job ID"`
	StageIDs       []int32           `json:"Stage IDs"`
	Properties     map[string]string `json:"Properties"`
	StageID        int32             `json:"Stage ID"`
	StageAttempt   int32             `json:"Stage Attempt ID"`
	TaskInfo       *struct {
		Failed, Killed, Speculative bool
		Accumulables                []struct {
			ID            int64
			Update, Value json.RawMessage
		}
	} `json:"Task Info"`
}

type rawPlanInfo struct {
	NodeName string        `json:"nodeName"`
	Children []rawPlanInfo `json:"children"`
	Metrics  []rawMetric   `json:"metrics"`
}

type rawMetric struct {
	AccumulatorID int64 `json:"accumulatorId"`
}

func (p *rawPlanInfo) accumIDs(into map[int64]bool) {
	for _, m := range p.Metrics {
		into[m.AccumulatorID] = true
	}
	for i := range p.Children {
		p.Children[i].accumIDs(into)
	}
}

// rawExec is what the independent scan learns about one execution.
type rawExec struct {
	started, ended  bool
	start, end      int64
	description     string
	errMsg          *string
	jobs            []int32
	stages          [][]int32
	adaptive        int
	finalIDs        map[int64]bool // accumulators of the latest plan
	declared        map[int64]bool // every accumulator any of its plans declared
	adaptiveMetrics bool
	driverIDs       map[int64]bool
	endLine         int
	messyTasks      bool // failed, killed, speculative or retried tasks in its stages
	lastValue       map[int64]int64
	// unfit are accumulators whose driver value is no oracle: updated after
	// the execution ended, by a task of another execution's stage, or with
	// a negative value (Spark 2 merged its -1 "not set" into the value).
	unfit map[int64]bool
}

// scanSQL reads a log's SQL events and SQL task accumulables with
// encoding/json.
func scanSQL(t *testing.T, path string) (map[int64]*rawExec, int) {
	execs := map[int64]*rawExec{}
	get := func(id int64) *rawExec {
		e := execs[id]
		if e == nil {
			e = &rawExec{declared: map[int64]bool{}, driverIDs: map[int64]bool{}, lastValue: map[int64]int64{},
				unfit: map[int64]bool{}}
			execs[id] = e
		}
		return e
	}
	stageExec := map[int32]int64{}
	declarer := map[int64]int64{} // accumulator -> the execution that declared it
	starts := 0
	sc := bufio.NewScanner(sharedtest.RawLog(t, path))
	sc.Buffer(nil, 256<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if !strings.Contains(string(b[:min(len(b), 200)]), "SQL") && !strings.Contains(string(b[:min(len(b), 200)]), "SparkListenerJobStart") &&
			!strings.Contains(string(b[:min(len(b), 200)]), "SparkListenerTaskEnd") && !strings.Contains(string(b[:min(len(b), 200)]), "DriverAccum") {
			continue
		}
		var ev rawSQLEvent
		if json.Unmarshal(b, &ev) != nil {
			continue
		}
		name := ev.Event[strings.LastIndexByte(ev.Event, '.')+1:]
		switch name {
		case "SparkListenerSQLExecutionStart":
			starts++
			e := get(*ev.ExecutionID)
			e.started, e.start = true, ev.Time
			if ev.Description != nil {
				e.description = *ev.Description
			}
			e.finalIDs = map[int64]bool{}
			ev.SparkPlanInfo.accumIDs(e.finalIDs)
			ev.SparkPlanInfo.accumIDs(e.declared)
			for a := range e.declared {
				declarer[a] = *ev.ExecutionID
			}
		case "SparkListenerSQLAdaptiveExecutionUpdate":
			e := get(*ev.ExecutionID)
			e.adaptive++
			e.finalIDs = map[int64]bool{}
			ev.SparkPlanInfo.accumIDs(e.finalIDs)
			ev.SparkPlanInfo.accumIDs(e.declared)
		case "SparkListenerSQLAdaptiveSQLMetricUpdates":
			e := get(*ev.ExecutionID)
			e.adaptiveMetrics = true
			for _, m := range ev.SQLPlanMetrics {
				e.declared[m.AccumulatorID] = true
			}
		case "SparkListenerDriverAccumUpdates":
			e := get(*ev.ExecutionID)
			for _, u := range ev.AccumUpdates {
				e.driverIDs[u[0]] = true
			}
		case "SparkListenerSQLExecutionEnd":
			e := execs[*ev.ExecutionID]
			if e != nil && !e.ended {
				e.ended, e.end, e.errMsg, e.endLine = true, ev.Time, ev.ErrorMessage, line
			}
		case "SparkListenerJobStart":
			s, ok := ev.Properties["spark.sql.execution.id"]
			if !ok || ev.JobID == nil {
				continue
			}
			id, _ := strconv.ParseInt(s, 10, 64)
			e := get(id)
			e.jobs = append(e.jobs, *ev.JobID)
			e.stages = append(e.stages, ev.StageIDs)
			for _, sid := range ev.StageIDs {
				stageExec[sid] = id
			}
		case "SparkListenerTaskEnd":
			if ev.TaskInfo == nil {
				continue
			}
			id, ok := stageExec[ev.StageID]
			if ok && (ev.TaskInfo.Failed || ev.TaskInfo.Killed || ev.TaskInfo.Speculative || ev.StageAttempt != 0) {
				execs[id].messyTasks = true
			}
			for _, a := range ev.TaskInfo.Accumulables {
				owner, declared := declarer[a.ID]
				if !declared {
					continue
				}
				e := execs[owner]
				v, err := strconv.ParseInt(strings.Trim(string(a.Value), `"`), 10, 64)
				up, uerr := strconv.ParseInt(strings.Trim(string(a.Update), `"`), 10, 64)
				if err != nil || uerr != nil || up < 0 || !ok || id != owner || e.ended {
					e.unfit[a.ID] = true
					continue
				}
				e.lastValue[a.ID] = v
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return execs, starts
}

// TestSQLRealLogs reads every real Spark log and checks each SQL execution
// against an independent scan of its events: the executions (by id), their
// description, start and end, error, jobs, adaptive updates, and the
// accumulators of their final plan graph. Where Spark's driver-side
// accumulator values can serve as an oracle (an execution whose tasks all
// succeeded once, without adaptive plans, retries or shared stages, and
// whose metric got no driver update and is declared by no other
// execution), each metric's aggregated total must equal the "Value" of its
// accumulator in the execution's last task end (Spark 3 logs).
func TestSQLRealLogs(t *testing.T) {
	root, rows := sparkRows(t)
	var logs, starts, execs, oracle int
	for _, col := range rows {
		path := filepath.Join(root, col[1])
		r, err := openTest(path)
		if err != nil {
			t.Fatal(err)
		}
		app, _ := Read(col[1], r)
		r.Close()
		raw, n := scanSQL(t, path)
		if n > 0 {
			logs++
			starts += n
		}
		execs += len(app.SQL)
		oracle += checkSQL(t, col[1], app, raw)
	}
	t.Logf("%d logs with SQL executions, %d SQLExecutionStart events, %d executions in the model; %d metric totals matched Spark's accumulator values",
		logs, starts, execs, oracle)
	if logs < 50 || starts < 240 || oracle < 200 {
		t.Errorf("too little checked: %d logs, %d starts, %d metric totals", logs, starts, oracle)
	}
}

func checkSQL(t *testing.T, path string, app *model.App, raw map[int64]*rawExec) int {
	t.Helper()
	got := map[int64]*model.SQLExecution{}
	for _, x := range app.SQL {
		if got[x.ID] != nil {
			t.Errorf("%s: execution %d twice in the model", path, x.ID)
		}
		got[x.ID] = x
	}
	if len(got) != len(raw) {
		t.Errorf("%s: %d executions in the model, %d in the log", path, len(got), len(raw))
	}
	for id := range got {
		if raw[id] == nil {
			t.Errorf("%s: execution %d in the model only", path, id)
		}
	}
	declaredBy := map[int64]int{}
	for _, e := range raw {
		for id := range e.declared {
			declaredBy[id]++
		}
	}
	matched := 0
	for id, e := range raw {
		x := got[id]
		if x == nil {
			t.Errorf("%s: execution %d missing", path, id)
			continue
		}
		if e.started && (x.Start != e.start || x.Description != e.description) {
			t.Errorf("%s: execution %d start %d %q, log says %d %q", path, id, x.Start, x.Description, e.start, e.description)
		}
		if e.ended != (x.End != 0) || e.ended && x.End != e.end {
			t.Errorf("%s: execution %d end %d, log says %v at %d", path, id, x.End, e.ended, e.end)
		}
		if e.ended && (e.errMsg != nil) != x.HasError || e.errMsg != nil && *e.errMsg != x.Error {
			t.Errorf("%s: execution %d error %v %q, log says %v", path, id, x.HasError, x.Error, e.errMsg)
		}
		if !slices.Equal(x.Jobs, e.jobs) {
			t.Errorf("%s: execution %d jobs %v, log says %v", path, id, x.Jobs, e.jobs)
		}
		if int(x.AdaptiveUpdates) != e.adaptive || (e.adaptive > 0) != (x.InitialPlan != nil) {
			t.Errorf("%s: execution %d adaptive updates %d, log says %d", path, id, x.AdaptiveUpdates, e.adaptive)
		}
		if e.started {
			ids := map[int64]bool{}
			for _, n := range x.Plan.Nodes {
				for _, m := range n.Metrics {
					ids[m.AccumID] = true
				}
			}
			if len(ids) != len(e.finalIDs) {
				t.Errorf("%s: execution %d graph declares %d accumulators, its plan %d", path, id, len(ids), len(e.finalIDs))
			}
			for a := range e.finalIDs {
				if !ids[a] {
					t.Errorf("%s: execution %d graph lacks accumulator %d", path, id, a)
				}
			}
		}
		matched += checkOracle(t, path, app, x, e, declaredBy)
	}
	return matched
}

// checkOracle compares metric totals with Spark's accumulator values where
// they must agree (see TestSQLRealLogs) and returns how many it compared.
func checkOracle(t *testing.T, path string, app *model.App, x *model.SQLExecution, e *rawExec, declaredBy map[int64]int) int {
	// Before Spark 3 the driver's accumulator started from the metric's -1
	// "not set" and added it to its value, so it is no oracle there.
	if v := app.Version; v == "" || v < "3" {
		return 0
	}
	id := x.ID
	if !e.ended || e.adaptive > 0 || e.adaptiveMetrics || e.messyTasks {
		return 0
	}
	seen := map[int32]bool{}
	for _, st := range e.stages {
		for _, s := range st {
			if seen[s] {
				return 0 // a stage in two jobs is tracked afresh by the second
			}
			seen[s] = true
		}
	}
	n := 0
	for a, v := range e.lastValue {
		if declaredBy[a] != 1 || e.driverIDs[a] || e.unfit[a] {
			continue
		}
		mv, ok := x.Metric(a)
		if !ok || mv.Sum != v {
			t.Errorf("%s: execution %d accumulator %d: total %d (found %v), Spark's value %d", path, id, a, mv.Sum, ok, v)
		}
		n++
	}
	return n
}
