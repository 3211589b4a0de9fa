package eventlog

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// dbcEvent is the event Databricks writes at the head of every part of a
// rolled event log, in place of SparkListenerLogStart:
//
//	{"Event":"DBCEventLoggingListenerMetadata","Spark Version":"3.1.2",
//	 "Timestamp":1642530108255,"Rollover Number":0,"SparkContext Id":4990884153077848559}
//
// The parts of one application share the SparkContext Id and are numbered
// from 0 in the order they were written. A file where parts were
// concatenated carries the line again where each part begins.
const dbcEvent = "DBCEventLoggingListenerMetadata"

// PartHeader reads the first line of a Spark event log part: the name of its
// event (package prefix dropped) and, when that is Databricks'
// DBCEventLoggingListenerMetadata, what it says of the part (ok is then
// true). A line that is not a valid event gives "".
func PartHeader(line []byte) (event string, r model.Rollover, ok bool) {
	var d Decoder
	d.scan.Reset(line)
	name, valid := eventName(&d.scan)
	if !valid {
		return "", r, false
	}
	event = string(name)
	if event == dbcEvent {
		r = readRollover(&d.scan)
	} else {
		for d.scan.Key() != nil {
			d.scan.Skip()
		}
	}
	if d.scan.End() != nil {
		return "", model.Rollover{}, false
	}
	return event, r, event == dbcEvent
}

// readRollover reads the fields of a DBCEventLoggingListenerMetadata event.
// The context id is kept as the text of its number: it uses all 63 bits.
func readRollover(s *jsonscan.Scanner) model.Rollover {
	var r model.Rollover
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "Spark Version":
			r.SparkVersion = s.String()
		case "Timestamp":
			r.Timestamp = s.Int()
		case "Rollover Number":
			r.Number = s.Int()
		case "SparkContext Id":
			r.ContextID = accumText(rawValue(s))
		default:
			s.Skip()
		}
	}
	return r
}

func decodeDBCMetadata(d *Decoder, s *jsonscan.Scanner) {
	r := readRollover(s)
	d.pending = func() { d.rollover(r) }
}

// rollover applies a part marker: the Spark version when no
// SparkListenerLogStart gave it, and a new application when the marker names
// another Spark context than the one being read (concatenated parts of two
// applications are never merged).
func (d *Decoder) rollover(r model.Rollover) {
	r.File, r.Line = d.file, d.line
	if len(d.app.Rollovers) > 0 && r.ContextID != d.context {
		prev := d.context
		d.app.Quality.Note(false, fmt.Sprintf("%s:%d goes on with the events of another Spark context (%s): read as another application", d.file, d.line, r.ContextID))
		d.split()
		d.app.Quality.Note(false, fmt.Sprintf("read from %s:%d, where the log changes from Spark context %s to %s", d.file, d.line, prev, r.ContextID))
	}
	d.context = r.ContextID
	if d.app.Version == "" {
		d.app.Version = r.SparkVersion
	}
	d.app.Rollovers = append(d.app.Rollovers, r)
	d.parts = append(d.parts, partMark{number: r.Number, file: d.file, line: d.line})
}

// partMark is one part of the log as read: a marker's number, or -1 for a
// part that did not start with one.
type partMark struct {
	number int64
	file   string
	line   int64
}

// startPart notes the first valid event of a part fed to the decoder: a part
// that does not begin with a marker is an unnumbered part of the set.
func (d *Decoder) startPart(event string) {
	d.partStarted = true
	if event != dbcEvent {
		d.parts = append(d.parts, partMark{number: -1, file: d.file, line: d.line})
	}
}

// checkRollovers says, when the log has Databricks part markers, which parts
// are missing, repeated or out of order. An unnumbered part (one that does
// not start with a marker, placed by its file name) may stand for one missing
// number.
func checkRollovers(parts []partMark, q *model.Quality) {
	numbered := false
	for _, p := range parts {
		numbered = numbered || p.number >= 0
	}
	if !numbered {
		return
	}
	var next int64 // the number the next part should carry
	last := int64(-1)
	unnumbered := 0 // unnumbered parts since the last numbered one
	for i, p := range parts {
		if p.number < 0 {
			unnumbered++
			continue
		}
		n := p.number
		switch {
		case n > next:
			if missing := n - next - int64(unnumbered); missing > 0 {
				q.Note(true, missingParts(next, n, missing, i == unnumbered, p))
			}
		case n == last:
			q.Note(false, fmt.Sprintf("part %d is read twice (again at %s:%d): its task, stage and job events are applied once", n, p.file, p.line))
		case n < next:
			q.Note(true, fmt.Sprintf("part %d at %s:%d comes after part %d: the parts are out of order", n, p.file, p.line, last))
		}
		if n >= next {
			next = n + 1
		}
		last, unnumbered = n, 0
	}
}

// missingParts says that missing of the part numbers from..to-1 are not in
// the log before part to, read at p (the others are unnumbered parts).
func missingParts(from, to, missing int64, first bool, p partMark) string {
	which := fmt.Sprintf("part %d is", from)
	switch {
	case missing < to-from:
		which = fmt.Sprintf("%d of parts %d to %d %s", missing, from, to-1, map[bool]string{true: "is", false: "are"}[missing == 1])
	case missing > 1:
		which = fmt.Sprintf("parts %d to %d are", from, to-1)
	}
	if first {
		return fmt.Sprintf("%s missing: the log starts at part %d (%s:%d)", which, to, p.file, p.line)
	}
	return fmt.Sprintf("%s missing before part %d (%s:%d)", which, to, p.file, p.line)
}
