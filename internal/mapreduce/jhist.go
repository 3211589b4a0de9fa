package mapreduce

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// ReadJhist reads one MapReduce job history file (.jhist), as written by
// org.apache.hadoop.mapreduce.jobhistory.EventWriter and read by
// EventReader / JobHistoryParser (Hadoop 0.23 to 3.x), into one App. It
// detects the form from the first bytes:
//
//   - "Avro-Json\n<schema>\n" then one Avro-JSON encoded Event per line (the default);
//   - "Avro-Binary\n<schema>\n" then Avro binary encoded Events back to back
//     (mapreduce.jobhistory.jhist.format=binary, Hadoop 3);
//   - an Avro object container file ("Obj\x01", schema in the header's
//     avro.schema, codec null, deflate or snappy).
//
// Bad lines are skipped and counted in App.Quality; an input that ends
// early gives a partial App with Complete false. The error is non-nil only
// when the input is not a job history at all (errors.Is(err, ErrFormat)) or
// could not be read.
func ReadJhist(r io.Reader, name string) (*model.App, error) { return Reader{}.ReadJhist(r, name) }

// ReadJhist is the package's ReadJhist with rd's line limit.
func (rd Reader) ReadJhist(r io.Reader, name string) (*model.App, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(len(avroMagic))
	if bytes.Equal(head, avroMagic) {
		return readJhistContainer(br, name)
	}
	lr := newLineReader(br, rd.MaxLine)
	ln, err := lr.next()
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("mapreduce: read %q: %w", name, err)
	}
	switch string(bytes.TrimSpace(ln.Bytes)) {
	case "Avro-Json":
		return readJhistJSON(lr, name)
	case "Avro-Binary":
		return readJhistBinary(lr, name)
	}
	return nil, lineErr(name, 1, `"Avro-Json" header or Avro magic`)
}

// Event types of org.apache.hadoop.mapreduce.jobhistory.EventType.
const (
	evUnknown = iota
	evJobSubmitted
	evJobInited
	evJobInfoChanged
	evJobPriorityChanged
	evJobQueueChanged
	evJobStatusChanged
	evJobFinished
	evJobFailed
	evJobKilled
	evJobError
	evTaskStarted
	evTaskFinished
	evTaskFailed
	evTaskUpdated
	evAttemptStarted
	evAttemptFinished
	evAttemptFailed
	evAttemptKilled
	evAMStarted
	evNormalizedResource
)

type eventType struct {
	ev   int
	kind model.StageKind // for attempt events
}

var eventTypes = map[string]eventType{
	"JOB_SUBMITTED":        {evJobSubmitted, 0},
	"JOB_INITED":           {evJobInited, 0},
	"JOB_INFO_CHANGED":     {evJobInfoChanged, 0},
	"JOB_PRIORITY_CHANGED": {evJobPriorityChanged, 0},
	"JOB_QUEUE_CHANGED":    {evJobQueueChanged, 0},
	"JOB_STATUS_CHANGED":   {evJobStatusChanged, 0},
	"JOB_FINISHED":         {evJobFinished, 0},
	"JOB_FAILED":           {evJobFailed, 0},
	"JOB_KILLED":           {evJobKilled, 0},
	"JOB_ERROR":            {evJobError, 0},
	"TASK_STARTED":         {evTaskStarted, 0},
	"TASK_FINISHED":        {evTaskFinished, 0},
	"TASK_FAILED":          {evTaskFailed, 0},
	"TASK_UPDATED":         {evTaskUpdated, 0},
	"AM_STARTED":           {evAMStarted, 0},
	"NORMALIZED_RESOURCE":  {evNormalizedResource, 0},
}

func init() {
	for prefix, k := range map[string]model.StageKind{
		"MAP": model.StageMap, "REDUCE": model.StageReduce,
		"SETUP": model.StageSetup, "CLEANUP": model.StageCleanup,
	} {
		eventTypes[prefix+"_ATTEMPT_STARTED"] = eventType{evAttemptStarted, k}
		eventTypes[prefix+"_ATTEMPT_FINISHED"] = eventType{evAttemptFinished, k}
		eventTypes[prefix+"_ATTEMPT_FAILED"] = eventType{evAttemptFailed, k}
		eventTypes[prefix+"_ATTEMPT_KILLED"] = eventType{evAttemptKilled, k}
	}
}

// jhEvent holds the fields of any event record the decoder uses; each
// Avro record (JobSubmitted, TaskAttemptStarted, MapAttemptFinished, ...)
// sets the ones it has.
type jhEvent struct {
	jobID, jobName, user, queue, jobStatus, priority, diagnostics string
	submit, launch, finish, start                                 int64
	totalMaps, totalReduces                                       int64
	hasTotals                                                     bool
	taskID, taskType, attemptID, taskStatus, status               string
	tracker, hostname, rack, errMsg, splits, locality, avataar    string
	port, httpPort                                                int64
	mapFinish, shuffleFinish, sortFinish                          int64
	ctr                                                           counters
	hasCtr                                                        bool
}

type jhistDecoder struct {
	file string
	b    *builder
	sc   jsonscan.Scanner
	ev   jhEvent
	typ  eventType
	name []byte // scratch for counter names
	grp  []byte // scratch for counter group names
}

func newJhistDecoder(file string) *jhistDecoder {
	return &jhistDecoder{file: file, b: newBuilder(file)}
}

func readJhistJSON(lr *lineReader, name string) (*model.App, error) {
	d := newJhistDecoder(name)
	d.b.app.Version = "Avro-Json"
	q := &d.b.app.Quality
	// line 2 is the Avro schema; the JSON form does not need it.
	if _, err := lr.next(); err != nil {
		if err == io.EOF {
			q.Truncated = true
			return d.finish(), nil
		}
		return nil, fmt.Errorf("mapreduce: read %q: %w", name, err)
	}
	for {
		ln, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			q.Add(name, lr.line+1, "read: "+err.Error())
			q.Truncated = true
			break
		}
		if ln.TooLong {
			q.Lines++
			lr.tooLong(q, name, ln)
			continue
		}
		line, complete := bytes.TrimSpace(ln.Bytes), ln.Complete
		if len(line) == 0 {
			continue
		}
		q.Lines++
		if err := d.event(line); err != nil {
			if !complete {
				q.Truncated = true
				q.Add(name, lr.line, "truncated last line")
				break
			}
			q.BadLines++
			q.Add(name, lr.line, err.Error())
		}
	}
	return d.finish(), nil
}

// finish builds the App, naming it after the job.
func (d *jhistDecoder) finish() *model.App {
	b := d.b
	if b.app.ID == "" {
		for id := range b.attempts {
			if a, ok := parseAttemptID(id); ok {
				b.app.ID = a.job
				break
			}
		}
	}
	return b.build()
}

// event decodes one Avro-JSON Event ({"type":"...","event":{"<record>":{...}}})
// and applies it.
func (d *jhistDecoder) event(line []byte) error {
	s := &d.sc
	s.Reset(line)
	d.ev = jhEvent{}
	d.typ = eventType{}
	known := false
	if !s.Object() {
		if s.Err() != nil {
			return s.Err()
		}
		return errors.New("event is null")
	}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "type":
			t := s.Bytes()
			d.typ, known = eventTypes[string(t)]
		case "event":
			if s.Object() { // the union: {"<record full name>": {...}}
				for rk := s.Key(); rk != nil; rk = s.Key() {
					d.record()
				}
			}
		default:
			s.Skip()
		}
	}
	if err := s.End(); err != nil {
		return err
	}
	if !known {
		d.b.app.Quality.UnknownEvents++
		return nil
	}
	d.apply()
	return nil
}

// record reads the fields of one event record into d.ev.
func (d *jhistDecoder) record() {
	s := &d.sc
	e := &d.ev
	if !s.Object() {
		return
	}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "jobid":
			e.jobID = d.str()
		case "jobName":
			e.jobName = d.str()
		case "userName":
			e.user = d.str()
		case "jobQueueName":
			e.queue = d.str()
		case "jobStatus":
			e.jobStatus = d.str()
		case "priority":
			e.priority = d.str()
		case "diagnostics":
			e.diagnostics = d.str()
		case "submitTime":
			e.submit = d.num()
		case "launchTime":
			e.launch = d.num()
		case "finishTime":
			e.finish = d.num()
		case "startTime":
			e.start = d.num()
		case "totalMaps":
			e.totalMaps, e.hasTotals = d.num(), true
		case "totalReduces":
			e.totalReduces, e.hasTotals = d.num(), true
		case "taskid":
			e.taskID = d.str()
		case "taskType":
			e.taskType = d.str()
		case "attemptId":
			e.attemptID = d.str()
		case "taskStatus":
			e.taskStatus = d.str()
		case "status":
			e.status = d.str()
		case "trackerName":
			e.tracker = d.str()
		case "hostname":
			e.hostname = d.str()
		case "rackname":
			e.rack = d.str()
		case "error":
			e.errMsg = d.str()
		case "splitLocations":
			e.splits = d.str()
		case "locality":
			e.locality = d.str()
		case "avataar":
			e.avataar = d.str()
		case "port":
			e.port = d.num()
		case "httpPort":
			e.httpPort = d.num()
		case "mapFinishTime":
			e.mapFinish = d.num()
		case "shuffleFinishTime":
			e.shuffleFinish = d.num()
		case "sortFinishTime":
			e.sortFinish = d.num()
		case "counters":
			d.counters()
		default:
			s.Skip()
		}
	}
}

// union enters an Avro-JSON union value {"<branch>": value} and reports
// whether it did; null and plain values (fields that are not unions in
// older schemas) are left for the caller.
func (d *jhistDecoder) union() bool {
	if d.sc.Kind() != '{' {
		return false
	}
	d.sc.Object()
	return d.sc.Key() != nil
}

// unionEnd consumes the rest of a union object after its value.
func (d *jhistDecoder) unionEnd() {
	for d.sc.Key() != nil {
		d.sc.Skip()
	}
}

// str reads a string field, plain or as an Avro union ({"string": "..."}).
func (d *jhistDecoder) str() string {
	if d.union() {
		v := d.sc.String()
		d.unionEnd()
		return v
	}
	return d.sc.String()
}

// num reads an int or long field, plain or as an Avro union.
func (d *jhistDecoder) num() int64 {
	if d.union() {
		v := d.sc.Int()
		d.unionEnd()
		return v
	}
	return d.sc.Int()
}

// counters reads a JhCounters record (possibly inside a ["null","JhCounters"]
// union, {"org.apache.hadoop.mapreduce.jobhistory.JhCounters": {...}}) into d.ev.ctr.
func (d *jhistDecoder) counters() {
	s := &d.sc
	if !s.Object() {
		return
	}
	d.ev.hasCtr = true
	k := s.Key()
	if k != nil && bytes.HasSuffix(k, []byte("JhCounters")) {
		d.counters() // the union's branch
		d.unionEnd()
		return
	}
	for ; k != nil; k = s.Key() {
		if string(k) != "groups" || !s.Array() {
			s.Skip()
			continue
		}
		for s.Next() {
			d.group()
		}
	}
}

func (d *jhistDecoder) group() {
	s := &d.sc
	if !s.Object() {
		return
	}
	d.grp = d.grp[:0]
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "name":
			d.grp = append(d.grp[:0], s.Bytes()...)
		case "counts":
			if !s.Array() {
				continue
			}
			for s.Next() {
				if !s.Object() {
					continue
				}
				d.name = d.name[:0]
				var v int64
				for ck := s.Key(); ck != nil; ck = s.Key() {
					switch string(ck) {
					case "name":
						d.name = append(d.name[:0], s.Bytes()...)
					case "value":
						v = d.num()
					default:
						s.Skip()
					}
				}
				addCounter(&d.ev.ctr, d.grp, d.name, v)
			}
		default:
			s.Skip()
		}
	}
}

// apply turns the decoded event into model changes.
func (d *jhistDecoder) apply() {
	b, e := d.b, &d.ev
	app := b.app
	if e.jobID != "" && app.ID == "" {
		app.ID = e.jobID
	}
	switch d.typ.ev {
	case evJobSubmitted:
		if e.jobName != "" {
			app.Name = e.jobName
		}
		if e.user != "" {
			app.User = e.user
		}
		if e.submit > 0 {
			b.submit = e.submit
		}
		if e.queue != "" {
			b.queue = e.queue
		}
	case evJobInited:
		if e.launch > 0 {
			b.launch = e.launch
		}
		if e.hasTotals {
			b.declared[model.StageMap] = int32(e.totalMaps)
			b.declared[model.StageReduce] = int32(e.totalReduces)
		}
	case evJobInfoChanged:
		if e.submit > 0 {
			b.submit = e.submit
		}
		if e.launch > 0 {
			b.launch = e.launch
		}
	case evJobPriorityChanged:
		b.priority = e.priority
	case evJobQueueChanged:
		b.queue = e.queue
	case evJobFinished:
		b.finish, b.status, b.complete = e.finish, "SUCCEEDED", true
	case evJobFailed, evJobKilled, evJobError:
		b.finish, b.complete = e.finish, true
		b.status = e.jobStatus
		if b.status == "" {
			b.status = map[int]string{evJobFailed: "FAILED", evJobKilled: "KILLED", evJobError: "ERROR"}[d.typ.ev]
		}
		b.diagnostics = e.diagnostics
	case evTaskStarted, evTaskFinished, evTaskFailed:
		_, typ, idx, ok := parseTaskID(e.taskID)
		kind, okK := kindOfType(e.taskType)
		if !okK {
			kind, okK = kindOfLetter(typ)
		}
		if !ok || !okK {
			return
		}
		status := e.status
		if d.typ.ev == evTaskStarted {
			status = ""
		}
		b.task(kind, idx, e.start, e.finish, status, e.errMsg, e.splits)
	case evAttemptStarted, evAttemptFinished, evAttemptFailed, evAttemptKilled:
		d.attempt()
	}
}

func (d *jhistDecoder) attempt() {
	e := &d.ev
	if e.attemptID == "" {
		d.b.app.Quality.Add(d.file, 0, "attempt event without attemptId")
		return
	}
	r := attemptRec{id: e.attemptID, kind: d.typ.kind}
	switch d.typ.ev {
	case evAttemptStarted:
		r.start = e.start
		r.host = trackerHost(e.tracker)
		r.port = int32(e.httpPort)
		switch e.locality {
		case "NODE_LOCAL":
			r.locality = model.NodeLocal
		case "RACK_LOCAL":
			r.locality = model.RackLocal
		case "OFF_SWITCH":
			r.locality = model.AnyLocality
		}
		r.speculative = e.avataar == "SPECULATIVE"
	default:
		r.finish = e.finish
		r.rack, r.host = splitHost(e.hostname)
		if e.rack != "" {
			r.rack = e.rack
		}
		r.port = int32(e.port)
		r.hasStatus = true
		switch d.typ.ev {
		case evAttemptFinished:
			r.status = model.TaskSuccess
		case evAttemptFailed:
			r.status = model.TaskFailed
		default:
			r.status = model.TaskKilled
		}
		r.errMsg = strings.TrimSpace(e.errMsg)
		r.mapFinish, r.shuffleFinish, r.sortFn = e.mapFinish, e.shuffleFinish, e.sortFinish
		if e.hasCtr && e.ctr.seen {
			r.ctr = &e.ctr
		}
	}
	d.b.attempt(&r)
}
