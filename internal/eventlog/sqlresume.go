package eventlog

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/model"
)

// The SQL listener's state in a snapshot (resume.go): the executions still
// listening and the stages tracked, with the values their tasks reported.
// The executions themselves are in the application.

type sqlSnapshot struct {
	Live   []liveExecState
	Stages []liveStageState
}

type liveExecState struct {
	ID       int64
	Types    map[int64]model.SQLMetricType
	JobIDs   []int32
	StageSeq []int32
	Driver   [][2]int64
	Ended    int
	Done     bool
}

type liveStageState struct {
	ID, Attempt, NumTasks int32
	Types                 map[int64]model.SQLMetricType
	Done                  []uint64
	Metrics               []stageMetricState
}

// stageMetricState is a stageMetric; Untracked marks an id remembered as
// not tracked.
type stageMetricState struct {
	ID        int64
	Untracked bool
	Typ       model.SQLMetricType
	Seen      bool
	Pages     map[int32]valuePageState
	Set       int64
	HasMax    bool
	Max       int64
	MaxTask   int64
}

type valuePageState struct {
	V   [64]int64
	Set uint64
}

func (q *sqlState) snapshot() sqlSnapshot {
	var s sqlSnapshot
	for _, e := range q.live {
		s.Live = append(s.Live, liveExecState{ID: e.x.ID, Types: e.types, JobIDs: e.jobIDs, StageSeq: e.stageSeq,
			Driver: e.driver, Ended: e.ended, Done: e.done})
	}
	for _, st := range q.stages {
		ss := liveStageState{ID: st.id, Attempt: st.attempt, NumTasks: st.numTasks, Types: st.types, Done: st.done}
		for id, m := range st.metrics {
			if m == nil {
				ss.Metrics = append(ss.Metrics, stageMetricState{ID: id, Untracked: true})
				continue
			}
			ms := stageMetricState{ID: id, Typ: m.typ, Seen: m.seen, Set: m.vals.set, HasMax: m.hasMax, Max: m.max, MaxTask: m.maxTask}
			m.vals.each(func(k int32, p *valuePage) {
				if ms.Pages == nil {
					ms.Pages = map[int32]valuePageState{}
				}
				ms.Pages[k] = valuePageState{V: p.v, Set: p.set}
			})
			ss.Metrics = append(ss.Metrics, ms)
		}
		s.Stages = append(s.Stages, ss)
	}
	return s
}

// restore rebuilds the listener from a snapshot, the executions already
// in q.execs.
func (q *sqlState) restore(s sqlSnapshot) error {
	for _, le := range s.Live {
		x := q.execs[le.ID]
		if x == nil {
			return fmt.Errorf("read snapshot: SQL execution %d listening but not in the application", le.ID)
		}
		types := le.Types
		if types == nil {
			types = map[int64]model.SQLMetricType{}
		}
		q.live[le.ID] = &liveExec{x: x, types: types, jobIDs: le.JobIDs, stageSeq: le.StageSeq, driver: le.Driver,
			ended: le.Ended, done: le.Done}
	}
	for _, ss := range s.Stages {
		st := &liveStage{id: ss.ID, attempt: ss.Attempt, numTasks: ss.NumTasks, types: ss.Types, done: ss.Done}
		if len(ss.Metrics) > 0 {
			st.metrics = make(map[int64]*stageMetric, len(ss.Metrics))
		}
		for _, ms := range ss.Metrics {
			if ms.Untracked {
				st.metrics[ms.ID] = nil
				continue
			}
			m := &stageMetric{typ: ms.Typ, seen: ms.Seen, hasMax: ms.HasMax, max: ms.Max, maxTask: ms.MaxTask}
			m.vals.set = ms.Set
			for k, p := range ms.Pages {
				*m.vals.page(k<<6, true) = valuePage{v: p.V, set: p.Set}
			}
			st.metrics[ms.ID] = m
		}
		q.stages[ss.ID] = st
	}
	return nil
}
