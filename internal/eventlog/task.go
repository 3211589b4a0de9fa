package eventlog

import (
	"bytes"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

type taskKind uint8

const (
	noTaskEvent taskKind = iota
	taskStartEvent
	taskEndEvent
	taskGettingResultEvent
)

// taskEvent is the scratch form of SparkListenerTaskStart/TaskEnd/TaskGettingResult.
type taskEvent struct {
	stageID, stageAttempt  int32
	id                     int64
	index, attempt         int32
	partition              int32
	launch, finish, getRes int64
	executor, host         []byte // alias the line; interned on commit
	locality               model.Locality
	speculative            bool
	failed, killed         bool
	reason                 model.Reason
	hasReason              bool
	metrics                model.TaskMetrics
	hasMetrics             bool
	execMetrics            model.ExecutorMetrics
	accums                 []model.Accumulable
	accumRaw               []byte        // the raw list, aliasing the line
	ups                    []accumUpdate // its entries' IDs and updates
}

func (t *taskEvent) reset() {
	*t = taskEvent{partition: -1, id: -1, stageID: -1, accums: t.accums[:0], ups: t.ups[:0]}
}

// taskLine is a task event's line parsed, to be applied (applyTaskLine):
// what decodeLine parses itself, and what the workers of a parallel read
// parse ahead of it (parallel.go). Parsing it reads nothing of the
// decoder's state.
type taskLine struct {
	kind    taskKind
	idx     int    // handler index
	err     error  // the line is not valid JSON
	missing string // a required field the event lacks
	te      taskEvent
}

// parseTaskLine parses line into r when it holds a task event (start,
// getting result, end), valid or not, and reports whether it does.
func parseTaskLine(s *jsonscan.Scanner, line []byte, r *taskLine) bool {
	s.Reset(line)
	name, ok := eventName(s)
	if !ok {
		return false
	}
	h, known := handlers[string(name)]
	if !known || h.task == noTaskEvent {
		return false
	}
	r.kind, r.idx, r.missing = h.task, h.index, ""
	decodeTask(s, &r.te, &r.missing)
	if h.task == taskGettingResultEvent && r.missing == "Stage ID" {
		// JsonProtocol writes SparkListenerTaskGettingResult with the task
		// info only: the running task is found by its id.
		r.missing = ""
		require(&r.missing, r.te.id >= 0, "Task Info.Task ID")
	}
	r.err = s.End()
	return true
}

// decodeTask reads the fields shared by the three task events.
func decodeTask(s *jsonscan.Scanner, t *taskEvent, missing *string) {
	t.reset()
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Stage ID":
			t.stageID = int32(s.Int())
		case "Stage Attempt ID":
			t.stageAttempt = int32(s.Int())
		case "Task Info":
			decodeTaskInfo(s, t)
		case "Task End Reason":
			t.hasReason = true
			t.reason = decodeEndReason(s)
		case "Task Metrics":
			t.hasMetrics = decodeTaskMetrics(s, &t.metrics)
		case "Task Executor Metrics":
			decodeExecutorMetrics(s, &t.execMetrics)
		default:
			s.Skip()
		}
	}
	require(missing, t.stageID >= 0, "Stage ID")
	require(missing, t.id >= 0, "Task Info.Task ID")
}

func decodeTaskInfo(s *jsonscan.Scanner, t *taskEvent) {
	if !s.Object() {
		return
	}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Task ID":
			t.id = s.Int()
		case "Index":
			t.index = int32(s.Int())
		case "Attempt":
			t.attempt = int32(s.Int())
		case "Partition ID":
			t.partition = int32(s.Int())
		case "Launch Time":
			t.launch = s.Int()
		case "Executor ID":
			t.executor = s.Bytes()
		case "Host":
			t.host = s.Bytes()
		case "Locality":
			t.locality = model.ParseLocality(string(s.Bytes()))
		case "Speculative":
			t.speculative = s.Bool()
		case "Getting Result Time":
			t.getRes = s.Int()
		case "Finish Time":
			t.finish = s.Int()
		case "Failed":
			t.failed = s.Bool()
		case "Killed":
			t.killed = s.Bool()
		case "Accumulables":
			var internal bool
			t.accumRaw, t.ups, internal = readAccumulables(s, t.ups[:0])
			if !internal {
				t.accums = keepAccumulables(t.accumRaw, t.accums)
			}
		default:
			s.Skip()
		}
	}
}

// decodeTaskMetrics reads "Task Metrics" of every Spark version (1.x names
// such as "Shuffle Finish Time" and "Data Read Method" are ignored).
func decodeTaskMetrics(s *jsonscan.Scanner, m *model.TaskMetrics) bool {
	if !s.Object() {
		return false
	}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Executor Deserialize Time":
			m[model.ExecutorDeserializeTime] = s.Int()
		case "Executor Deserialize CPU Time":
			m[model.ExecutorDeserializeCPUNanos] = s.Int()
		case "Executor Run Time":
			m[model.ExecutorRunTime] = s.Int()
		case "Executor CPU Time":
			m[model.ExecutorCPUNanos] = s.Int()
		case "Peak Execution Memory":
			m[model.PeakExecutionMemory] = s.Int()
		case "Result Size":
			m[model.ResultSize] = s.Int()
		case "JVM GC Time":
			m[model.JVMGCTime] = s.Int()
		case "Result Serialization Time":
			m[model.ResultSerializationTime] = s.Int()
		case "Memory Bytes Spilled":
			m[model.MemoryBytesSpilled] = s.Int()
		case "Disk Bytes Spilled":
			m[model.DiskBytesSpilled] = s.Int()
		case "Shuffle Read Metrics":
			decodeShuffleRead(s, m)
		case "Shuffle Write Metrics":
			decodeFields(s, m, shuffleWriteFields)
		case "Input Metrics":
			decodeFields(s, m, inputFields)
		case "Output Metrics":
			decodeFields(s, m, outputFields)
		default:
			s.Skip()
		}
	}
	return true
}

type field struct {
	name   string
	metric model.Metric
}

var (
	shuffleWriteFields = []field{
		{"Shuffle Bytes Written", model.ShuffleWriteBytes},
		{"Shuffle Write Time", model.ShuffleWriteNanos},
		{"Shuffle Records Written", model.ShuffleWriteRecords},
	}
	inputFields  = []field{{"Bytes Read", model.InputBytes}, {"Records Read", model.InputRecords}}
	outputFields = []field{{"Bytes Written", model.OutputBytes}, {"Records Written", model.OutputRecords}}
	pushFields   = []field{
		{"Corrupt Merged Block Chunks", model.ShuffleCorruptMergedBlockChunks},
		{"Merged Fetch Fallback Count", model.ShuffleMergedFetchFallbackCount},
		{"Merged Fallback Count", model.ShuffleMergedFetchFallbackCount}, // the name before Spark 4
		{"Merged Remote Blocks Fetched", model.ShuffleMergedRemoteBlocksFetched},
		{"Merged Local Blocks Fetched", model.ShuffleMergedLocalBlocksFetched},
		{"Merged Remote Chunks Fetched", model.ShuffleMergedRemoteChunksFetched},
		{"Merged Local Chunks Fetched", model.ShuffleMergedLocalChunksFetched},
		{"Merged Remote Bytes Read", model.ShuffleMergedRemoteBytesRead},
		{"Merged Local Bytes Read", model.ShuffleMergedLocalBytesRead},
		{"Merged Remote Requests Duration", model.ShuffleMergedRemoteReqsDuration},
	}
)

// decodeFields reads a flat object of known numeric fields.
func decodeFields(s *jsonscan.Scanner, m *model.TaskMetrics, fields []field) {
	if !s.Object() {
		return
	}
next:
	for k := s.Key(); k != nil; k = s.Key() {
		for _, f := range fields {
			if string(k) == f.name {
				m[f.metric] = s.Int()
				continue next
			}
		}
		s.Skip()
	}
}

func decodeShuffleRead(s *jsonscan.Scanner, m *model.TaskMetrics) {
	if !s.Object() {
		return
	}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Remote Blocks Fetched":
			m[model.ShuffleRemoteBlocksFetched] = s.Int()
		case "Local Blocks Fetched":
			m[model.ShuffleLocalBlocksFetched] = s.Int()
		case "Fetch Wait Time":
			m[model.ShuffleFetchWaitTime] = s.Int()
		case "Remote Bytes Read":
			m[model.ShuffleRemoteBytesRead] = s.Int()
		case "Remote Bytes Read To Disk":
			m[model.ShuffleRemoteBytesReadToDisk] = s.Int()
		case "Local Bytes Read":
			m[model.ShuffleLocalBytesRead] = s.Int()
		case "Total Records Read":
			m[model.ShuffleRecordsRead] = s.Int()
		case "Remote Requests Duration":
			m[model.ShuffleRemoteReqsDuration] = s.Int()
		case "Shuffle Push Read Metrics", "Push Based Shuffle":
			decodeFields(s, m, pushFields)
		default:
			s.Skip()
		}
	}
}

// decodeExecutorMetrics reads an object of executor metric name -> value.
func decodeExecutorMetrics(s *jsonscan.Scanner, e *model.ExecutorMetrics) {
	if !s.Object() {
		return
	}
	for k := s.Key(); k != nil; k = s.Key() {
		if i := model.ExecutorMetricIndex(string(k)); i >= 0 {
			e.Values[i] = s.Int()
			e.Set = true
		} else {
			s.Skip()
		}
	}
}

// keepAccumulables reads a raw accumulable list, keeping only the entries
// the History Server shows: not internal and not SQL metrics. The common
// case, where every entry is internal or SQL, is recognized from the raw
// array (Spark writes compact JSON) without walking the entries; otherwise
// each entry is parsed.
func keepAccumulables(raw []byte, dst []model.Accumulable) []model.Accumulable {
	if len(raw) < 2 || raw[0] != '[' {
		return dst
	}
	// Spark marks its task metrics and SQL metrics internal: when every entry
	// says so, there is nothing to keep.
	// (Every version since 1.5 writes the flag on every entry.)
	if !bytes.Contains(raw, internalFalse) && bytes.Contains(raw, internalTrue) {
		return dst
	}
	var arr, sub jsonscan.Scanner
	arr.Reset(raw)
	if !arr.Array() {
		return dst
	}
	for arr.Next() {
		entry := arr.SkipRaw()
		if entry == nil || bytes.Contains(entry, internalTrue) || bytes.Contains(entry, sqlMetadata) {
			continue
		}
		dst = appendAccumulable(&sub, entry, dst)
	}
	return dst
}

var (
	internalFalse = []byte(`Internal":false`) // starts with a rare byte: fast to search
	internalTrue  = []byte(`"Internal":true`)
	sqlMetadata   = []byte(`"Metadata":"sql"`)
)

// appendAccumulable parses one accumulable entry and keeps it when shown.
func appendAccumulable(s *jsonscan.Scanner, raw []byte, dst []model.Accumulable) []model.Accumulable {
	s.Reset(raw)
	{
		if !s.Object() {
			return dst
		}
		var id int64
		var name, update, value []byte
		internal, sql := false, false
		for k := s.Key(); k != nil; k = s.Key() {
			switch string(k) {
			case "ID":
				id = s.Int()
			case "Name":
				name = rawValue(s)
				internal = internal || hasPrefix(name, `"internal.`)
			case "Update":
				update = rawValue(s)
			case "Value":
				value = rawValue(s)
			case "Internal":
				internal = s.Bool() || internal
			case "Metadata":
				sql = string(rawValue(s)) == `"sql"`
			default:
				s.Skip()
			}
		}
		if name != nil && string(name) != "null" && !internal && !sql {
			dst = append(dst, model.Accumulable{ID: id, Name: accumText(name),
				Update: accumText(update), Value: accumText(value)})
		}
	}
	return dst
}

// rawValue consumes any value and returns its raw text (strings with quotes).
func rawValue(s *jsonscan.Scanner) []byte { return s.SkipRaw() }

// accumText renders an accumulator value as the History Server does: a
// string's contents, or a number's or list's JSON text.
func accumText(raw []byte) string {
	if len(raw) >= 2 && raw[0] == '"' {
		var sc jsonscan.Scanner
		sc.Reset(raw)
		return sc.String()
	}
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

// stageFor returns the stage attempt a task belongs to, creating it when the
// log never announced it (truncated or partial logs).
func (d *Decoder) stageFor(id, attempt int32) *model.Stage {
	key := model.StageKey{ID: id, Attempt: attempt}
	if st := d.stages[key]; st != nil {
		return st
	}
	st := &model.Stage{ID: id, Attempt: attempt, Status: model.StageActive, Profile: 0}
	d.stages[key] = st
	d.app.Stages = append(d.app.Stages, st)
	return st
}

func (d *Decoder) fillTask(t *model.Task, e *taskEvent) {
	t.ID, t.Index, t.Attempt, t.Partition = e.id, e.index, e.attempt, e.partition
	t.Launch, t.Locality, t.Speculative = e.launch, e.locality, e.speculative
	t.Host = d.hosts.IDBytes(e.host)
	t.Executor = d.executorRef(e.executor, e.host)
}

func (d *Decoder) applyTaskStart(e *taskEvent) {
	st := d.stageFor(e.stageID, e.stageAttempt)
	var t model.Task
	d.fillTask(&t, e)
	t.Status = model.TaskRunning
	var none model.TaskMetrics
	i := st.AddTask(t, &none)
	d.running[e.id] = taskRef{st, i}
}

func (d *Decoder) applyGettingResult(e *taskEvent) {
	if ref, ok := d.running[e.id]; ok {
		ref.stage.Tasks[ref.index].GettingResult = e.getRes
	}
}

func (d *Decoder) applyTaskEnd(e *taskEvent) {
	ref, ok := d.running[e.id]
	if ok {
		delete(d.running, e.id)
	} else {
		st := d.stageFor(e.stageID, e.stageAttempt)
		var none model.TaskMetrics
		ref = taskRef{st, st.AddTask(model.Task{}, &none)}
	}
	t := &ref.stage.Tasks[ref.index]
	d.fillTask(t, e)
	t.Finish, t.GettingResult = e.finish, e.getRes
	t.Status = taskStatus(e)
	if e.hasReason && e.reason.Kind != "Success" {
		t.Reason = d.reasonRef(e.reason)
	}
	d.photon.task(e.accumRaw, &e.metrics)
	ref.stage.SetTaskMetrics(ref.index, &e.metrics)
	d.sqlTaskEnd(e)
	t.HasMetrics = e.hasMetrics
	if len(e.accums) > 0 {
		if ref.stage.TaskAccumulables == nil {
			ref.stage.TaskAccumulables = map[int64][]model.Accumulable{}
		}
		ref.stage.TaskAccumulables[e.id] = append([]model.Accumulable(nil), e.accums...)
	}
	if e.execMetrics.Set {
		d.stagePeak(ref.stage, t.Executor, &e.execMetrics)
	}
}

// taskStatus follows Spark's TaskInfo.status: the Failed and Killed flags
// decide; logs before Spark 2.2 lack Killed, so the end reason fills in.
func taskStatus(e *taskEvent) model.TaskStatus {
	switch {
	case e.failed:
		return model.TaskFailed
	case e.killed:
		return model.TaskKilled
	case !e.hasReason, e.reason.Kind == "Success", e.reason.Kind == "Resubmitted":
		return model.TaskSuccess
	case e.reason.Kind == "TaskKilled":
		return model.TaskKilled
	}
	return model.TaskFailed
}

func (d *Decoder) reasonRef(r model.Reason) uint32 {
	if id, ok := d.reasons[r]; ok {
		return id
	}
	id := uint32(len(d.app.Reasons))
	d.reasons[r] = id
	d.app.Reasons = append(d.app.Reasons, r)
	return id
}

// stagePeak raises the stage's and the stage executor's peak metrics.
func (d *Decoder) stagePeak(st *model.Stage, exec uint32, m *model.ExecutorMetrics) {
	st.PeakExecutor.Peak(m)
	if st.ExecutorPeaks == nil {
		st.ExecutorPeaks = map[uint32]*model.ExecutorMetrics{}
	}
	p := st.ExecutorPeaks[exec]
	if p == nil {
		p = &model.ExecutorMetrics{}
		st.ExecutorPeaks[exec] = p
	}
	p.Peak(m)
}
