package eventlog

import (
	"bufio"
	"encoding/gob"
	"fmt"
	"io"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Reading a log further. A log still being written grows; Snapshot keeps
// what a decoder has folded so far and Resume returns a decoder that goes
// on from there, so that the run history reads each byte of a growing log
// once (FeedLines stops before a last line that is not yet whole).

// resumeState is the decoder state beyond the application itself; the
// maps the decoder keeps (stages, jobs, executors, hosts, reasons, SQL
// executions, running tasks) are rebuilt from the application.
type resumeState struct {
	Events    int64
	Counts    map[string]int64 // valid events by handler name
	StageJobs map[int32][]int32
	// Databricks part markers and the Spark context being read (dbc.go);
	// the applications of earlier contexts are snapshotted before this.
	Context     string
	Parts       []partState
	PartStarted bool
	Photon      photonState
	Seen        seenState   // the events applied, to tell repeats (seen.go)
	SQL         sqlSnapshot // the SQL listener (sqlresume.go)
}

// partState and photonState are partMark and photonUse with exported
// fields, for gob.
type partState struct {
	Number int64
	File   string
	Line   int64
}

type photonState struct {
	On         bool
	Evidence   []string
	Tasks      int64
	Filled     [4]int64
	Cumulative int64
}

// Snapshot writes the decoder's state to w: the number of applications of
// earlier Spark contexts, those applications and the one being read
// (model.WriteSnapshot), then the rest of the state. The decoder stays
// usable.
func (d *Decoder) Snapshot(w io.Writer) error {
	if err := gob.NewEncoder(w).Encode(len(d.done)); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	for _, a := range d.done {
		if err := model.WriteSnapshot(w, a); err != nil {
			return err
		}
	}
	d.app.Hosts = d.hosts.All
	if err := model.WriteSnapshot(w, d.app); err != nil {
		return err
	}
	st := resumeState{Events: d.events, Counts: map[string]int64{}, StageJobs: d.stageJobs, Context: d.context,
		PartStarted: d.partStarted, Photon: photonState{On: d.photon.on, Evidence: d.photon.evidence,
			Tasks: d.photon.tasks, Filled: d.photon.filled, Cumulative: d.photon.cumulative}, Seen: d.seen.state(), SQL: d.sq.snapshot()}
	for _, p := range d.parts {
		st.Parts = append(st.Parts, partState{p.number, p.file, p.line})
	}
	for i, n := range d.counts {
		if n > 0 {
			st.Counts[handlerNames[i]] = n
		}
	}
	if err := gob.NewEncoder(w).Encode(&st); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return nil
}

// maxDone bounds the finished applications a snapshot may claim.
const maxDone = 1 << 16

// Resume returns a decoder in the state a Snapshot wrote.
func Resume(r io.Reader) (*Decoder, error) {
	br := bufio.NewReader(r) // one buffered reader for every gob stream
	var done int
	if err := gob.NewDecoder(br).Decode(&done); err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	if done < 0 || done > maxDone {
		return nil, fmt.Errorf("read snapshot: %d finished applications", done)
	}
	d := NewDecoder()
	for range done {
		a, err := model.ReadSnapshot(br)
		if err != nil {
			return nil, err
		}
		d.done = append(d.done, a)
	}
	app, err := model.ReadSnapshot(br)
	if err != nil {
		return nil, err
	}
	var st resumeState
	if err := gob.NewDecoder(br).Decode(&st); err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	d.app = app
	if len(app.Reasons) == 0 {
		app.Reasons = []model.Reason{{}}
	}
	for _, h := range app.Hosts {
		d.hosts.ID(h)
	}
	for i, e := range app.Executors {
		d.execIndex[e.ID] = uint32(i)
	}
	for i, r := range app.Reasons {
		d.reasons[r] = uint32(i)
	}
	for _, s := range app.Stages {
		d.stages[s.Key()] = s
		for i := range s.Tasks {
			if s.Tasks[i].Status == model.TaskRunning {
				d.running[s.Tasks[i].ID] = taskRef{s, i}
			}
		}
	}
	for _, j := range app.Jobs {
		d.jobs[j.ID] = j
	}
	for _, x := range app.SQL {
		d.sq.execs[x.ID] = x
	}
	if err := d.sq.restore(st.SQL); err != nil {
		return nil, err
	}
	if st.StageJobs != nil {
		d.stageJobs = st.StageJobs
	}
	d.events = st.Events
	for i, name := range handlerNames {
		d.counts[i] = st.Counts[name]
	}
	d.context, d.partStarted = st.Context, st.PartStarted
	d.seen.restore(st.Seen)
	for _, p := range st.Parts {
		d.parts = append(d.parts, partMark{p.Number, p.File, p.Line})
	}
	ph := st.Photon
	d.photon = photonUse{on: ph.On, evidence: ph.Evidence, tasks: ph.Tasks, filled: ph.Filled, cumulative: ph.Cumulative}
	return d, nil
}

// FeedLines is Feed for a log still being written: it decodes the whole
// lines of r, numbering them from firstLine+1, and stops before a last line
// without its newline (the writer is still writing it), which it returns
// as tail (as Feed would decode it: without a CR, nil when blank). consumed is the bytes of r taken, through the last newline, and
// lines the lines counted.
func (d *Decoder) FeedLines(name string, r io.Reader, firstLine int64) (consumed, lines int64, tail []byte, err error) {
	d.file, d.line, d.lastBad = name, firstLine, false
	return d.feed(name, r, firstLine, true)
}
