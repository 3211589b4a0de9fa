package decodelogs

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/source"
)

// Reading Spark logs that grow. A running application's log grows at its
// end (a single file, or a rolling folder whose newest part grows and gets
// new parts after it); the run history reads it at every pass, and must not
// read 20 GB again to take in the last megabyte. Growing keeps, beside the
// decoder's snapshot, where the read stopped: the parts read whole (names
// and sizes) and the offset, after the last whole line, in the newest one.
// A compressed newest part cannot be read from an offset; the snapshot is
// then taken before it and it is read again next time, alone.

// mark is where a growing read stopped.
type mark struct {
	Parts []partMark // the parts read, the last possibly in part
	// Offset is the stored bytes of the last part already decoded (0 when
	// it was compressed and is read again whole); Line the lines in them.
	Offset, Line int64
}

type partMark struct {
	Name string
	Size int64
}

// growingVersion tags the state format; a state of another version is
// ignored (the log is read from the start).
const growingVersion = 1

// GrowingResult is what one growing read gives.
type GrowingResult struct {
	// Apps are the applications read (one, unless Databricks markers name
	// several Spark contexts: eventlog.Decoder.Apps); none when the log held
	// no Spark event.
	Apps []*model.App
	// State is what to pass next time: nil when the (last) application
	// ended, or nothing was read, so there is nothing to go on from.
	State []byte
	// Resumed is set when the read went on from the state given; Bytes is
	// the stored bytes read this time.
	Resumed bool
	Bytes   int64
}

// Growing reads a Spark event log that may still be written, going on from
// state (what the previous call returned; nil reads from the start). A
// state that does not fit the log (a part replaced or shrunk, another
// format) is ignored and the log read from the start. Errors name the log;
// with a partial read the application is still returned.
func Growing(l *source.Log, state []byte, opts Options) (*GrowingResult, error) {
	return NewLoader(opts).Growing(l, state)
}

// Growing is the package's Growing with the loader's options and memory
// budget.
func (ld *Loader) Growing(l *source.Log, state []byte) (*GrowingResult, error) {
	if l.Kind != source.SparkEventLog {
		return nil, fmt.Errorf("%s: growing reads take Spark event logs, not %s", l.Name, l.Kind)
	}
	defer ld.decoding()()
	var bytesRead int64
	count := func(n int64) {
		bytesRead += n
		if ld.opts.Progress != nil {
			ld.opts.Progress(n)
		}
	}
	d, m, resumed := resume(l, state)
	d.MaxLine = ld.opts.maxLine()
	res := &GrowingResult{Resumed: resumed}
	var errs []error
	var snap []byte
	start := len(m.Parts) - 1 // the part to read on from
	if start < 0 {
		start = 0
	}
parts:
	for i := start; i < len(l.Parts); i++ {
		offset, line := int64(0), int64(0)
		if i == start && resumed {
			offset, line = m.Offset, m.Line
		}
		growing := i == len(l.Parts)-1 && !l.Complete
		plain, err := l.Plain(i)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if growing && plain {
			n, lines, tail, err := ld.feedGrowing(d, l, i, offset, line, count)
			if err != nil {
				errs = append(errs, err)
				break parts
			}
			m = mark{Parts: marks(l.Parts[:i+1]), Offset: offset + n, Line: line + lines}
			snap, errs = snapshot(d, m, errs)
			// The tail after the last newline is decoded for this answer
			// (labelled incomplete) and read again next time.
			if err := d.FeedFrom(l.Parts[i].Name, bytes.NewReader(tail), m.Line); err != nil {
				errs = append(errs, err)
			}
			continue
		} else if growing {
			// A compressed newest part cannot be read on from an offset:
			// the snapshot is taken before it, and it is read again.
			m = mark{Parts: marks(l.Parts[:i+1])}
			snap, errs = snapshot(d, m, errs)
		}
		if err := ld.feedPart(d, l, i, offset, line, count); err != nil {
			errs = append(errs, err)
		}
	}
	events := d.Events()
	apps := d.Apps()
	res.Bytes = bytesRead
	if events == 0 {
		errs = append(errs, fmt.Errorf("%w: no Spark event in %d lines", eventlog.ErrNotEventLog, apps[0].Quality.Lines))
		return res, fmt.Errorf("%s: %w", l.Name, errors.Join(errs...))
	}
	for _, a := range apps {
		if err := finish(l, a, ld.opts.maxLine()); err != nil {
			errs = append(errs, err)
		}
	}
	res.Apps = apps
	if !apps[len(apps)-1].Complete {
		res.State = snap
	}
	if err := errors.Join(errs...); err != nil {
		return res, fmt.Errorf("%s: %w", l.Name, err)
	}
	return res, nil
}

func marks(parts []source.Part) []partMark {
	out := make([]partMark, len(parts))
	for i, p := range parts {
		out[i] = partMark{p.Name, p.Size}
	}
	return out
}

// resume returns the decoder and mark state gives when it fits l, and a
// new decoder otherwise.
func resume(l *source.Log, state []byte) (*eventlog.Decoder, mark, bool) {
	fresh := func() (*eventlog.Decoder, mark, bool) { return eventlog.NewDecoder(), mark{}, false }
	if state == nil {
		return fresh()
	}
	zr, err := zstd.NewReader(bytes.NewReader(state), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return fresh()
	}
	defer zr.Close()
	br := bufio.NewReader(zr) // one reader for the gob stream and the snapshot
	var version int
	var m mark
	dec := gob.NewDecoder(br)
	if dec.Decode(&version) != nil || version != growingVersion || dec.Decode(&m) != nil || !fits(l, m) {
		return fresh()
	}
	d, err := eventlog.Resume(br)
	if err != nil {
		return fresh()
	}
	return d, m, true
}

// fits reports whether the log is what m saw, grown: the same parts, all
// but the last of the same size, the last at least as big; parts may
// follow.
func fits(l *source.Log, m mark) bool {
	if len(m.Parts) == 0 || len(m.Parts) > len(l.Parts) {
		return false
	}
	for i, pm := range m.Parts {
		p := l.Parts[i]
		last := i == len(m.Parts)-1
		if p.Name != pm.Name || (!last && p.Size != pm.Size) || (last && (p.Size < pm.Size || p.Size < m.Offset)) {
			return false
		}
	}
	return true
}

// snapshot encodes the state to go on from: the mark, then the decoder,
// zstd-compressed. A failure is added to errs and gives nil.
func snapshot(d *eventlog.Decoder, m mark, errs []error) ([]byte, []error) {
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, append(errs, err)
	}
	enc := gob.NewEncoder(zw)
	if err := enc.Encode(growingVersion); err != nil {
		return nil, append(errs, err)
	}
	if err := enc.Encode(m); err != nil {
		return nil, append(errs, err)
	}
	if err := d.Snapshot(zw); err != nil {
		return nil, append(errs, err)
	}
	if err := zw.Close(); err != nil {
		return nil, append(errs, err)
	}
	return buf.Bytes(), errs
}

// feedGrowing decodes the whole lines of plain part i from offset,
// numbering lines from line, and returns the bytes and lines taken and the
// unfinished last line.
func (ld *Loader) feedGrowing(d *eventlog.Decoder, l *source.Log, i int, offset, line int64, count func(int64)) (n, lines int64, tail []byte, err error) {
	open := func() (*source.PartReader, error) { return l.OpenFrom(i, offset, count) }
	err = ld.sparkPart(d, l, i, offset, open, func(r io.Reader) (err error) {
		n, lines, tail, err = d.FeedLines(l.Parts[i].Name, r, line)
		return err
	})
	return n, lines, tail, err
}

// feedPart decodes part i (from offset, when plain) to its end.
func (ld *Loader) feedPart(d *eventlog.Decoder, l *source.Log, i int, offset, line int64, count func(int64)) error {
	open := func() (*source.PartReader, error) {
		if offset > 0 {
			return l.OpenFrom(i, offset, count)
		}
		return l.OpenProgress(i, count)
	}
	return ld.sparkPart(d, l, i, offset, open, func(r io.Reader) error { return d.FeedFrom(l.Parts[i].Name, r, line) })
}
