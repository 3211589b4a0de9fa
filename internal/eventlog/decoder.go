// Package eventlog decodes Spark event logs (Spark 1.2 to 4.x) into the
// model. It streams: lines are decoded one at a time with a validating pull
// scanner and folded into compact per-stage task tables, so memory grows with
// the number of task attempts, not with the size of the log.
//
// A line that is not valid JSON is skipped and counted with its file and line
// number; a truncated last line (an in-progress log) is normal; unknown events
// and fields are ignored and unknown events counted.
package eventlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/lines"
	"github.com/clusterlens/clusterlens/internal/model"
)

// ErrNotEventLog is returned when an input does not look like a Spark event log.
var ErrNotEventLog = errors.New("not a Spark event log")

// Decoder folds the lines of one application's event log (one or more parts,
// fed in order) into a model.App.
type Decoder struct {
	// MaxLine is the longest line read, in bytes (0: lines.DefaultMax).
	// Longer lines are skipped without being held, and counted in
	// Quality.LongLines.
	MaxLine int64

	blockSize int // bytes read at once (0: lines.DefaultBlock); tests make it small

	app  *model.App
	scan jsonscan.Scanner

	hosts     *model.Interner
	execIndex map[string]uint32
	reasons   map[model.Reason]uint32
	stages    map[model.StageKey]*model.Stage
	jobs      map[int32]*model.Job
	stageJobs map[int32][]int32 // stage id -> ids of the jobs that list it
	running   map[int64]taskRef // tasks started and not yet ended
	sq        *sqlState         // the SQL listener (sql.go)

	file    string
	lastBad bool // the latest non-blank line was bad
	line    int64
	events  int64 // valid event lines
	seen    seen  // what was applied, to tell a repeated event from a new one

	// The line's decoded event waits here until the whole line is known to be
	// valid: task events in reusable scratch, rare events as a closure.
	task    taskLine
	pending func()
	missing string  // a required field the line's event lacks
	counts  []int64 // valid events by handler index

	// Parallel, when set, spreads the parsing of task events over
	// goroutines (parallel.go).
	Parallel *Parallel

	// Databricks part markers (dbc.go): the Spark context being read, the
	// parts read so far, whether the current part's first event was seen,
	// and the applications finished when the context changed.
	context     string
	parts       []partMark
	partStarted bool
	done        []*model.App

	photon photonUse // Photon metrics taken into task metrics (photon.go)
}

type taskRef struct {
	stage *model.Stage
	index int
}

// NewDecoder returns a decoder for one application attempt.
func NewDecoder() *Decoder {
	d := &Decoder{
		app:       &model.App{Engine: model.Spark},
		hosts:     model.NewInterner(),
		execIndex: map[string]uint32{},
		reasons:   map[model.Reason]uint32{{}: 0},
		stages:    map[model.StageKey]*model.Stage{},
		jobs:      map[int32]*model.Job{},
		stageJobs: map[int32][]int32{},
		running:   map[int64]taskRef{},
		sq:        newSQLState(),
		counts:    make([]int64, len(handlerNames)),
	}
	d.app.Reasons = []model.Reason{{}}
	return d
}

// Feed reads one part of the log. name is used in data-quality records.
// It returns an error only when the input cannot be read at all; bad lines
// are recorded in the application's Quality. A read error after some lines
// (for example a truncated compressed stream) marks the log truncated and is
// returned wrapped, with the application still usable.
func (d *Decoder) Feed(name string, r io.Reader) error { return d.FeedFrom(name, r, 0) }

// FeedFrom is Feed for the rest of a part whose first lines were fed
// earlier (FeedLines): line numbers go on from firstLine, and the part is
// not taken for a new one.
func (d *Decoder) FeedFrom(name string, r io.Reader, firstLine int64) error {
	d.startFeed(name, firstLine)
	_, _, _, err := d.feed(name, r, firstLine, false)
	return err
}

// startFeed begins reading name at line firstLine+1: a new part when
// firstLine is 0, the rest of the current one otherwise.
func (d *Decoder) startFeed(name string, firstLine int64) {
	d.file, d.line, d.lastBad = name, firstLine, false
	if firstLine == 0 {
		d.partStarted = false
	}
}

// decodeRead decodes a line read (d.line is its number): a line over the
// limit max is counted and skipped, a blank one skipped.
func (d *Decoder) decodeRead(l lines.Line, max int64) {
	switch {
	case l.TooLong:
		q := &d.app.Quality
		q.Lines++
		q.LongLines++
		q.Add(d.file, d.line, lines.TooLong(l.Len, max))
		d.lastBad = false
	case len(bytes.TrimSpace(l.Bytes)) > 0:
		d.decodeLine(l.Bytes)
	}
}

// errNoEvent is a JSON line without the event's name.
var errNoEvent = errors.New(`no "Event" field`)

// decodeLine decodes and applies one line: a task event through
// parseTaskLine and applyTaskLine, any other here.
func (d *Decoder) decodeLine(line []byte) {
	if parseTaskLine(&d.scan, line, &d.task) {
		d.applyTaskLine(&d.task)
		return
	}
	d.pending, d.missing = nil, ""
	idx := -1
	s := &d.scan
	s.Reset(line)
	name, ok := eventName(s)
	if ok {
		h, known := handlers[string(name)]
		if !known {
			d.app.Quality.UnknownEvents++
			d.countUnknown(name)
			for s.Key() != nil { // validate the rest of the line
				s.Skip()
			}
		} else {
			idx = h.index
			h.decode(d, s)
		}
	}
	err := s.End()
	if err == nil && !ok {
		err = errNoEvent
	}
	if d.settleLine(string(name), idx, err, d.missing) && d.pending != nil {
		d.pending()
	}
}

// applyTaskLine applies a task event's line parsed by parseTaskLine.
func (d *Decoder) applyTaskLine(r *taskLine) {
	if d.settleLine(handlerNames[r.idx], r.idx, r.err, r.missing) {
		d.commitTask(r.kind, &r.te)
	}
}

// settleLine does the bookkeeping of a decoded line (event name, handler
// index or -1, its error, a required field missing) and reports whether its
// event is to be applied.
func (d *Decoder) settleLine(name string, idx int, err error, missing string) bool {
	d.app.Quality.Lines++
	if err != nil {
		d.app.Quality.BadLines++
		d.app.Quality.Add(d.file, d.line, err.Error())
		d.lastBad = true
		return false
	}
	d.lastBad = false
	d.events++
	if idx >= 0 {
		d.counts[idx]++
	}
	if !d.partStarted {
		d.startPart(name)
	}
	if missing != "" {
		d.app.Quality.Incomplete++
		d.app.Quality.Add(d.file, d.line, fmt.Sprintf("%s without %q: not applied", handlerNames[idx], missing))
		return false
	}
	return true
}

func (d *Decoder) countUnknown(name []byte) {
	if d.app.Quality.Events == nil {
		d.app.Quality.Events = map[string]int64{}
	}
	d.app.Quality.Events[string(name)]++
}

// require records that a required field was absent.
func (d *Decoder) require(ok bool, field string) { require(&d.missing, ok, field) }

// require records in missing the first required field found absent.
func require(missing *string, ok bool, field string) {
	if !ok && *missing == "" {
		*missing = field
	}
}

// commitTask applies a task event decoded from a valid line.
func (d *Decoder) commitTask(kind taskKind, te *taskEvent) {
	switch kind {
	case taskStartEvent:
		if !d.seen.task(te.id, seenStart) {
			d.duplicate("SparkListenerTaskStart", fmt.Sprintf("task %d", te.id))
			return
		}
		d.applyTaskStart(te)
	case taskEndEvent:
		if te.hasReason && te.reason.Kind == model.ReasonResubmitted {
			if !d.seen.resubmit(te.id) {
				d.duplicate("SparkListenerTaskEnd (Resubmitted)", fmt.Sprintf("task %d", te.id))
				return
			}
		} else if !d.seen.task(te.id, seenEnd) {
			d.duplicate("SparkListenerTaskEnd", fmt.Sprintf("task %d", te.id))
			return
		}
		d.applyTaskEnd(te)
	case taskGettingResultEvent:
		d.applyGettingResult(te)
	}
}

// endOfInput labels a bad final line: the writer was cut off (an in-progress
// or truncated log), which is normal for running applications.
func (d *Decoder) endOfInput() {
	if !d.lastBad {
		return
	}
	q := &d.app.Quality
	q.Truncated, q.CutLastLine = true, true
	if n := len(q.Issues); n > 0 && q.Issues[n-1].File == d.file && q.Issues[n-1].Line == d.line {
		q.Issues[n-1].What = model.CutLastLinePrefix + q.Issues[n-1].What
	}
}

// eventName reads the "Event" field. In every Spark version it is the first
// key; if not, the line is walked to find it and the scanner rewound.
// The event's package prefix is dropped.
func eventName(s *jsonscan.Scanner) ([]byte, bool) {
	if !s.Object() {
		return nil, false
	}
	k := s.Key()
	if k == nil {
		return nil, false
	}
	var name []byte
	if string(k) == "Event" {
		name = s.Bytes()
	} else {
		s.Skip()
		for k = s.Key(); k != nil; k = s.Key() {
			if string(k) == "Event" {
				name = bytes.Clone(s.Bytes())
				break
			}
			s.Skip()
		}
		if name == nil || s.Err() != nil {
			return nil, false
		}
		s.Reset(s.Source())
		s.Object()
	}
	if i := bytes.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name, name != nil
}

// Apps finishes decoding and returns the applications read: one, unless
// Databricks part markers named another Spark context on the way (parts of
// two applications concatenated), each then read as its own. The decoder
// must not be used afterwards.
func (d *Decoder) Apps() []*model.App {
	return append(d.done, d.finish())
}

// finish completes the application being read.
func (d *Decoder) finish() *model.App {
	a := d.app
	a.Hosts = d.hosts.All
	for i, n := range d.counts {
		if n > 0 {
			if a.Quality.Events == nil {
				a.Quality.Events = map[string]int64{}
			}
			a.Quality.Events[handlerNames[i]] += n
		}
	}
	if d.events == 0 && a.Quality.Lines > 0 && a.ID == "" {
		a.Quality.Add(d.file, 0, "no valid Spark event found")
	}
	for _, st := range a.Stages {
		st.Metrics.Compact()
		if cap(st.Tasks) > len(st.Tasks)+len(st.Tasks)/16 {
			st.Tasks = append([]model.Task(nil), st.Tasks...)
		}
	}
	checkRollovers(d.parts, &a.Quality)
	d.photon.note(a)
	d.running = nil
	d.finishSQL()
	return a
}

// split finishes the application being read and starts another at the
// current line, a part marker of a new Spark context: the marker's line and
// event move to the new application.
func (d *Decoder) split() {
	done := d.finish()
	done.Quality.Lines--
	if done.Quality.Events[dbcEvent]--; done.Quality.Events[dbcEvent] == 0 {
		delete(done.Quality.Events, dbcEvent)
	}
	next := NewDecoder()
	next.file, next.line, next.events, next.MaxLine, next.blockSize = d.file, d.line, d.events, d.MaxLine, d.blockSize
	next.partStarted, next.done = true, append(d.done, done)
	next.app.Quality.Lines = 1
	next.counts[handlers[dbcEvent].index] = 1
	*d = *next
}

// Events is the number of valid event lines decoded so far.
func (d *Decoder) Events() int64 { return d.events }

// Read decodes a single-part event log of one application. A log holding
// several (Databricks parts of two Spark contexts concatenated) gives the
// first and an error; Decoder.Apps gives them all.
func Read(name string, r io.Reader) (*model.App, error) {
	d := NewDecoder()
	err := d.Feed(name, r)
	events := d.events
	apps := d.Apps()
	app := apps[0]
	if events == 0 && app.Quality.Lines > 0 {
		return app, fmt.Errorf("%q: line 1: %w: want a JSON object with an \"Event\" field", name, ErrNotEventLog)
	}
	if len(apps) > 1 && err == nil {
		err = fmt.Errorf("%q holds %d applications (Spark contexts); only the first is returned", name, len(apps))
	}
	return app, err
}
