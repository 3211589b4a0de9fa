package mapreduce

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// Record kinds of the time-ordered part, in their order at equal times.
const (
	recTaskStart = iota
	recAttemptStart
	recAttemptEnd
	recTaskEnd
)

// rec is one scheduled task or attempt record.
type rec struct {
	time  int64
	kind  uint8
	stage uint8 // index in app.Stages
	seq   int32 // attempts: position in task-id order; tasks: task number
	idx   int32 // attempts: index in Stage.Tasks; tasks: index into taskEnds
}

// taskEnd is a task-level end record to write.
type taskEnd struct {
	number   int32
	finish   int64
	failed   bool   // TASK_FAILED, else TASK_FINISHED
	status   string // TaskFailed.status
	err      string
	attempt  int32 // Stage.Tasks index of the successful attempt, or -1
	stageIdx uint8
}

// kindNames are the TaskType name, the event-type prefix and the id letter
// of each stage kind.
func kindNames(k model.StageKind) (taskType, prefix string, letter byte) {
	switch k {
	case model.StageReduce:
		return "REDUCE", "REDUCE", 'r'
	case model.StageSetup:
		return "JOB_SETUP", "SETUP", 's'
	case model.StageCleanup:
		return "JOB_CLEANUP", "CLEANUP", 'c'
	}
	return "MAP", "MAP", 'm'
}

func (h *histWriter) attemptID(k model.StageKind, t *model.Task) string {
	return string(h.appendAttemptID(nil, k, t))
}

// appendTaskID appends "task_<tail>_<letter>_<n, 6 digits>" to b.
func (h *histWriter) appendTaskID(b []byte, k model.StageKind, n int32) []byte {
	_, _, l := kindNames(k)
	b = append(b, "task_"...)
	b = append(b, h.tail...)
	b = append(b, '_', l, '_')
	return appendPad6(b, n)
}

// appendAttemptID appends "attempt_<tail>_<letter>_<index, 6 digits>_<attempt>" to b.
func (h *histWriter) appendAttemptID(b []byte, k model.StageKind, t *model.Task) []byte {
	_, _, l := kindNames(k)
	b = append(b, "attempt_"...)
	b = append(b, h.tail...)
	b = append(b, '_', l, '_')
	b = appendPad6(b, t.Index)
	b = append(b, '_')
	return strconv.AppendInt(b, int64(t.Attempt), 10)
}

// idField writes `"key":"<id>"` from id, an id appended to h.id's storage
// (which it keeps for the next id), so that ids need no allocation.
func (h *histWriter) idField(key string, first bool, id []byte) {
	h.id = id
	h.j.key(key, first)
	h.j.b = jsonscan.AppendString(h.j.b, id)
}

// appendPad6 appends n in decimal, zero-padded on the left to 6 characters.
func appendPad6(b []byte, n int32) []byte {
	var d [12]byte
	s := strconv.AppendInt(d[:0], int64(n), 10)
	for k := len(s); k < 6; k++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// failedTask parses a stage failure as the reader words it
// ("task N failed" with ": error" when one was logged).
func failedTask(s string) (n int32, err string, ok bool) {
	rest, found := strings.CutPrefix(s, "task ")
	if !found {
		return 0, "", false
	}
	num, tail, _ := strings.Cut(rest, " failed")
	v, e := strconv.ParseInt(num, 10, 32)
	if e != nil {
		return 0, "", false
	}
	return int32(v), strings.TrimPrefix(tail, ": "), true
}

// tasks schedules and writes the task and attempt records. Attempts start
// in task-id order (the reader numbers attempts by first appearance), each
// no earlier than the one before; a stage's first task starts at the
// stage's submission and its last task-level end is at its completion.
func (h *histWriter) tasks() error {
	app := h.app
	if len(app.Stages) > 255 {
		return errors.New("too many stages: " + strconv.Itoa(len(app.Stages)))
	}
	type ref struct {
		id    int64
		stage uint8
		idx   int32
	}
	var order []ref
	for si, st := range app.Stages {
		for i := range st.Tasks {
			order = append(order, ref{st.Tasks[i].ID, uint8(si), int32(i)})
		}
	}
	slices.SortStableFunc(order, func(a, b ref) int { return cmp.Compare(a.id, b.id) })
	recs := make([]rec, 0, 2*len(order)+16)
	prev := int64(0)
	for pos, r := range order {
		t := &app.Stages[r.stage].Tasks[r.idx]
		start := max(t.Launch, prev)
		prev = start
		recs = append(recs, rec{start, recAttemptStart, r.stage, int32(pos), r.idx})
		if t.Status != model.TaskRunning {
			recs = append(recs, rec{max(t.Finish, start), recAttemptEnd, r.stage, int32(pos), r.idx})
		}
	}
	var ends []taskEnd
	for si, st := range app.Stages {
		recs, ends = h.stageTasks(uint8(si), st, recs, ends)
	}
	slices.SortFunc(recs, func(a, b rec) int {
		if c := cmp.Compare(a.time, b.time); c != 0 {
			return c
		}
		if c := cmp.Compare(a.kind, b.kind); c != 0 {
			return c
		}
		if c := cmp.Compare(a.stage, b.stage); c != 0 && (a.kind == recTaskStart || a.kind == recTaskEnd) {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	for _, r := range recs {
		st := app.Stages[r.stage]
		var err error
		switch r.kind {
		case recTaskStart:
			err = h.taskStarted(st, r.seq, r.time)
		case recAttemptStart:
			err = h.attemptStarted(st, &st.Tasks[r.idx])
		case recAttemptEnd:
			err = h.attemptEnded(st, int(r.idx))
		case recTaskEnd:
			err = h.taskEnded(st, &ends[r.idx], r.time)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// stageTasks adds the task-level records of one stage.
func (h *histWriter) stageTasks(si uint8, st *model.Stage, recs []rec, ends []taskEnd) ([]rec, []taskEnd) {
	type agg struct {
		start, finish  int64
		success        int32
		done, anyStart bool
	}
	byNum := map[int32]*agg{}
	var nums []int32
	for i := range st.Tasks {
		t := &st.Tasks[i]
		a := byNum[t.Index]
		if a == nil {
			a = &agg{success: -1, done: true}
			byNum[t.Index] = a
			nums = append(nums, t.Index)
		}
		if t.Launch > 0 && (!a.anyStart || t.Launch < a.start) {
			a.start, a.anyStart = t.Launch, true
		}
		a.finish = max(a.finish, t.Finish)
		if t.Status == model.TaskSuccess && a.success < 0 {
			a.success = int32(i)
		}
		a.done = a.done && t.Status != model.TaskRunning
	}
	if len(nums) == 0 {
		// A stage whose tasks were scheduled but never ran an attempt (the
		// reduces of a job whose maps failed): its times come from
		// task-level records only.
		if st.Submitted > 0 {
			recs = append(recs, rec{st.Submitted, recTaskStart, si, 0, 0})
		}
		if st.Completed > 0 {
			ends = append(ends, taskEnd{finish: st.Completed, failed: true, status: "KILLED", attempt: -1, stageIdx: si})
			recs = append(recs, rec{st.Completed, recTaskEnd, si, 0, int32(len(ends) - 1)})
		}
		return recs, ends
	}
	// The stage's submission is its earliest task start.
	first := nums[0]
	for _, n := range nums {
		if byNum[n].start < byNum[first].start {
			first = n
		}
	}
	if st.Submitted > 0 && (st.Submitted < byNum[first].start || byNum[first].start == 0) {
		byNum[first].start = st.Submitted
	}
	for _, n := range nums {
		recs = append(recs, rec{byNum[n].start, recTaskStart, si, n, 0})
	}
	failN, failErr, failOK := failedTask(st.Failure)
	if st.Failure != "" && !failOK { // worded otherwise: pin it on the first unsuccessful task
		for _, n := range nums {
			if byNum[n].success < 0 {
				failN, failErr, failOK = n, st.Failure, true
				break
			}
		}
	}
	base := len(ends)
	for _, n := range nums {
		a := byNum[n]
		switch {
		case failOK && n == failN:
			ends = append(ends, taskEnd{number: n, finish: a.finish, failed: true, status: "FAILED", err: failErr, attempt: -1, stageIdx: si})
		case a.success >= 0:
			ends = append(ends, taskEnd{number: n, finish: a.finish, attempt: a.success, stageIdx: si})
		case a.done && h.app.Complete:
			ends = append(ends, taskEnd{number: n, finish: a.finish, failed: true, status: "KILLED", attempt: -1, stageIdx: si})
		}
	}
	if len(ends) > base && st.Status != model.StageActive && st.Status != model.StagePending {
		last := base
		for i := base; i < len(ends); i++ {
			if ends[i].finish > ends[last].finish {
				last = i
			}
		}
		if st.Completed > ends[last].finish {
			ends[last].finish = st.Completed
		}
	}
	for i := base; i < len(ends); i++ {
		recs = append(recs, rec{ends[i].finish, recTaskEnd, si, ends[i].number, int32(i)})
	}
	return recs, ends
}

func (h *histWriter) taskStarted(st *model.Stage, n int32, start int64) error {
	typ, _, _ := kindNames(st.Kind)
	h.open("TASK_STARTED", "TaskStarted")
	h.idField("taskid", true, h.appendTaskID(h.id[:0], st.Kind, n))
	h.j.str("taskType", typ, false)
	h.j.int("startTime", start, false)
	h.j.str("splitLocations", "", false)
	return h.close()
}

func (h *histWriter) taskEnded(st *model.Stage, e *taskEnd, finish int64) error {
	typ, _, _ := kindNames(st.Kind)
	j := &h.j
	if e.failed {
		h.open("TASK_FAILED", "TaskFailed")
		h.idField("taskid", true, h.appendTaskID(h.id[:0], st.Kind, e.number))
		j.str("taskType", typ, false)
		j.int("finishTime", finish, false)
		j.str("error", e.err, false)
		j.raw(`,"failedDueToAttempt":null`)
		j.str("status", e.status, false)
		j.raw(`,"counters":{"name":"COUNTERS","groups":[]}`)
		return h.close()
	}
	t := &st.Tasks[e.attempt]
	h.open("TASK_FINISHED", "TaskFinished")
	h.idField("taskid", true, h.appendTaskID(h.id[:0], st.Kind, e.number))
	j.str("taskType", typ, false)
	j.int("finishTime", finish, false)
	j.str("status", "SUCCEEDED", false)
	st.TaskMetrics(int(e.attempt), &h.m)
	j.key("counters", false)
	h.counters(st.Kind, &h.m)
	j.ustr("successfulAttemptId", h.attemptID(st.Kind, t), false)
	return h.close()
}

// locality names a model locality as TaskAttemptStarted.locality does.
func locality(l model.Locality) (string, bool) {
	switch l {
	case model.NodeLocal, model.ProcessLocal:
		return "NODE_LOCAL", true
	case model.RackLocal:
		return "RACK_LOCAL", true
	case model.AnyLocality, model.NoPref:
		return "OFF_SWITCH", true
	}
	return "", false
}

func (h *histWriter) attemptStarted(st *model.Stage, t *model.Task) error {
	typ, prefix, _ := kindNames(st.Kind)
	host := h.app.Host(t.Host)
	j := &h.j
	h.open(prefix+"_ATTEMPT_STARTED", "TaskAttemptStarted")
	h.idField("taskid", true, h.appendTaskID(h.id[:0], st.Kind, t.Index))
	j.str("taskType", typ, false)
	h.idField("attemptId", false, h.appendAttemptID(h.id[:0], st.Kind, t))
	j.int("startTime", t.Launch, false)
	j.str("trackerName", host, false)
	j.int("httpPort", h.ports[host], false)
	j.int("shufflePort", 13562, false)
	id := append(append(append(h.id[:0], "container_"...), h.tail...), "_01_"...)
	h.idField("containerId", false, appendPad6(id, int32(t.ID+2)))
	loc, ok := locality(t.Locality)
	j.ustr("locality", loc, !ok)
	avataar := "VIRGIN"
	if t.Speculative {
		avataar = "SPECULATIVE"
	}
	j.ustr("avataar", avataar, false)
	return h.close()
}

// attemptEnded writes MapAttemptFinished, ReduceAttemptFinished,
// TaskAttemptFinished (setup, cleanup) or TaskAttemptUnsuccessfulCompletion.
func (h *histWriter) attemptEnded(st *model.Stage, i int) error {
	t := &st.Tasks[i]
	typ, prefix, _ := kindNames(st.Kind)
	host := h.app.Host(t.Host)
	rack := ""
	if t.Rack != 0 {
		rack = h.app.Host(t.Rack)
	}
	st.TaskMetrics(i, &h.m)
	m := &h.m
	j := &h.j
	if t.Status != model.TaskSuccess {
		status, suffix := "FAILED", "_ATTEMPT_FAILED"
		if t.Status == model.TaskKilled {
			status, suffix = "KILLED", "_ATTEMPT_KILLED"
		}
		var msg string
		if int(t.Reason) < len(h.app.Reasons) {
			msg = h.app.Reasons[t.Reason].Message
		}
		h.open(prefix+suffix, "TaskAttemptUnsuccessfulCompletion")
		h.idField("taskid", true, h.appendTaskID(h.id[:0], st.Kind, t.Index))
		j.str("taskType", typ, false)
		h.idField("attemptId", false, h.appendAttemptID(h.id[:0], st.Kind, t))
		j.int("finishTime", t.Finish, false)
		j.str("hostname", host, false)
		j.int("port", h.ports[host], false)
		j.str("rackname", rack, false)
		j.str("status", status, false)
		j.str("error", msg, false)
		j.key("counters", false)
		if hasCounters(m) {
			h.counters(st.Kind, m)
		} else {
			j.raw("null")
		}
		j.raw(`,"clockSplits":[],"cpuUsages":[],"vMemKbytes":[],"physMemKbytes":[]`)
		return h.close()
	}
	switch st.Kind {
	case model.StageMap:
		h.open("MAP_ATTEMPT_FINISHED", "MapAttemptFinished")
	case model.StageReduce:
		h.open("REDUCE_ATTEMPT_FINISHED", "ReduceAttemptFinished")
	default:
		h.open(prefix+"_ATTEMPT_FINISHED", "TaskAttemptFinished")
	}
	h.idField("taskid", true, h.appendTaskID(h.id[:0], st.Kind, t.Index))
	h.idField("attemptId", false, h.appendAttemptID(h.id[:0], st.Kind, t))
	j.str("taskType", typ, false)
	j.str("taskStatus", "SUCCEEDED", false)
	switch st.Kind {
	case model.StageMap:
		j.int("mapFinishTime", m[model.MapPhaseFinish], false)
	case model.StageReduce:
		j.int("shuffleFinishTime", m[model.ShufflePhaseFinish], false)
		j.int("sortFinishTime", m[model.SortPhaseFinish], false)
	}
	j.int("finishTime", t.Finish, false)
	if st.Kind == model.StageMap || st.Kind == model.StageReduce {
		j.str("hostname", host, false)
		j.int("port", h.ports[host], false)
		j.str("rackname", rack, false)
		state := "map"
		if st.Kind == model.StageReduce {
			state = "reduce > reduce"
		}
		j.str("state", state, false)
	} else {
		j.str("rackname", rack, false)
		j.str("hostname", host, false)
		j.str("state", "", false)
	}
	j.key("counters", false)
	h.counters(st.Kind, m)
	if st.Kind == model.StageMap || st.Kind == model.StageReduce {
		j.raw(`,"clockSplits":[],"cpuUsages":[],"vMemKbytes":[],"physMemKbytes":[]`)
	}
	return h.close()
}
