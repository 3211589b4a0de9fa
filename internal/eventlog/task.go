package eventlog

import (
	"bytes"
	"slices"

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
	next := 0
	for {
		switch keyIndex(s, taskKeys, &next) {
		case keyEnd:
			require(missing, t.stageID >= 0, "Stage ID")
			require(missing, t.id >= 0, "Task Info.Task ID")
			return
		case 0:
			t.stageID = int32(s.Int())
		case 1:
			t.stageAttempt = int32(s.Int())
		case 2:
			decodeTaskInfo(s, t)
		case 3:
			t.hasReason = true
			t.reason = decodeEndReason(s)
		case 4:
			t.hasMetrics = decodeTaskMetrics(s, &t.metrics)
		case 5:
			decodeExecutorMetrics(s, &t.execMetrics)
		default:
			s.Skip()
		}
	}
}

// The keys the task decoders read, in the order JsonProtocol writes them
// (keyIndex tries them in that order).
var (
	taskKeys = []string{"Stage ID", "Stage Attempt ID", "Task Info", "Task End Reason", "Task Metrics", "Task Executor Metrics"}
	infoKeys = []string{"Task ID", "Index", "Attempt", "Partition ID", "Launch Time", "Executor ID", "Host", "Locality",
		"Speculative", "Getting Result Time", "Finish Time", "Failed", "Killed", "Accumulables"}
	metricKeys = []string{"Executor Deserialize Time", "Executor Deserialize CPU Time", "Executor Run Time", "Executor CPU Time",
		"Peak Execution Memory", "Result Size", "JVM GC Time", "Result Serialization Time", "Memory Bytes Spilled",
		"Disk Bytes Spilled", "Shuffle Read Metrics", "Shuffle Write Metrics", "Input Metrics", "Output Metrics"}
	shuffleReadKeys = []string{"Remote Blocks Fetched", "Local Blocks Fetched", "Fetch Wait Time", "Remote Bytes Read",
		"Remote Bytes Read To Disk", "Local Bytes Read", "Total Records Read", "Remote Requests Duration",
		"Shuffle Push Read Metrics", "Push Based Shuffle"}
)

// keyEnd is keyIndex's answer at the end of the object (or an error).
const keyEnd = -2

// keyIndex reads the next key of an object whose keys usually come in the
// order of keys, trying keys[*next] first (jsonscan.Scanner.KeyIs), and
// returns its index in keys, -1 for a key not among them, or keyEnd. The
// key's value is left to read.
func keyIndex(s *jsonscan.Scanner, keys []string, next *int) int {
	if i := *next; i < len(keys) && s.KeyIs(keys[i]) {
		*next = i + 1
		return i
	}
	k := s.Key()
	if k == nil {
		return keyEnd
	}
	for i, key := range keys {
		if string(k) == key {
			*next = i + 1
			return i
		}
	}
	return -1
}

func decodeTaskInfo(s *jsonscan.Scanner, t *taskEvent) {
	if !s.Object() {
		return
	}
	next := 0
	for {
		switch keyIndex(s, infoKeys, &next) {
		case keyEnd:
			return
		case 0:
			t.id = s.Int()
		case 1:
			t.index = int32(s.Int())
		case 2:
			t.attempt = int32(s.Int())
		case 3:
			t.partition = int32(s.Int())
		case 4:
			t.launch = s.Int()
		case 5:
			t.executor = s.Bytes()
		case 6:
			t.host = s.Bytes()
		case 7:
			t.locality = model.ParseLocality(string(s.Bytes()))
		case 8:
			t.speculative = s.Bool()
		case 9:
			t.getRes = s.Int()
		case 10:
			t.finish = s.Int()
		case 11:
			t.failed = s.Bool()
		case 12:
			t.killed = s.Bool()
		case 13:
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
	next := 0
	for {
		i := keyIndex(s, metricKeys, &next)
		switch {
		case i == keyEnd:
			return true
		case i >= 0 && i < len(metricFields):
			m[metricFields[i]] = s.Int()
		case i == 10:
			decodeShuffleRead(s, m)
		case i == 11:
			decodeFields(s, m, shuffleWriteFields)
		case i == 12:
			decodeFields(s, m, inputFields)
		case i == 13:
			decodeFields(s, m, outputFields)
		default:
			s.Skip()
		}
	}
}

// metricFields are the task metrics of the first metricKeys, in order.
var metricFields = []model.Metric{model.ExecutorDeserializeTime, model.ExecutorDeserializeCPUNanos, model.ExecutorRunTime,
	model.ExecutorCPUNanos, model.PeakExecutionMemory, model.ResultSize, model.JVMGCTime, model.ResultSerializationTime,
	model.MemoryBytesSpilled, model.DiskBytesSpilled}

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

// decodeFields reads a flat object of known numeric fields, expected in
// their order.
func decodeFields(s *jsonscan.Scanner, m *model.TaskMetrics, fields []field) {
	if !s.Object() {
		return
	}
	next := 0
	for {
		var i int
		if next < len(fields) && s.KeyIs(fields[next].name) {
			i = next
		} else {
			k := s.Key()
			if k == nil {
				return
			}
			i = slices.IndexFunc(fields, func(f field) bool { return string(k) == f.name })
			if i < 0 {
				s.Skip()
				continue
			}
		}
		m[fields[i].metric] = s.Int()
		next = i + 1
	}
}

func decodeShuffleRead(s *jsonscan.Scanner, m *model.TaskMetrics) {
	if !s.Object() {
		return
	}
	next := 0
	for {
		i := keyIndex(s, shuffleReadKeys, &next)
		switch {
		case i == keyEnd:
			return
		case i >= 0 && i < len(shuffleReadFields):
			m[shuffleReadFields[i]] = s.Int()
		case i >= len(shuffleReadFields):
			decodeFields(s, m, pushFields)
		default:
			s.Skip()
		}
	}
}

// shuffleReadFields are the task metrics of the first shuffleReadKeys.
var shuffleReadFields = []model.Metric{model.ShuffleRemoteBlocksFetched, model.ShuffleLocalBlocksFetched,
	model.ShuffleFetchWaitTime, model.ShuffleRemoteBytesRead, model.ShuffleRemoteBytesReadToDisk,
	model.ShuffleLocalBytesRead, model.ShuffleRecordsRead, model.ShuffleRemoteReqsDuration}

// decodeExecutorMetrics reads an object of executor metric name -> value.
func decodeExecutorMetrics(s *jsonscan.Scanner, e *model.ExecutorMetrics) {
	if !s.Object() {
		return
	}
	next := 0
	for {
		i := keyIndex(s, model.ExecutorMetricNames[:], &next)
		switch {
		case i == keyEnd:
			return
		case i >= 0:
			e.Values[i] = s.Int()
			e.Set = true
		default:
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
