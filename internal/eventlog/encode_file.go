package eventlog

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
)

// FileName is the name Spark's SingleEventLogFileWriter gives the
// application's log (EventLogFileWriter.nameForAppAndAttempt): the
// application id, "_" and the attempt id when set, the codec's extension,
// and ".inprogress" while the application runs.
func FileName(app *model.App, c codec.Codec) string {
	name := appAttemptName(app) + c.Extension()
	if !app.Complete {
		name += ".inprogress"
	}
	return name
}

// appAttemptName is Spark's sanitized "<app>[_<attempt>]".
func appAttemptName(app *model.App) string {
	s := sanitize(app.ID)
	if app.AttemptID != "" {
		s += "_" + sanitize(app.AttemptID)
	}
	return s
}

// sanitize follows EventLogFileWriter.nameForAppAndAttempt: spaces, colons
// and slashes become '-', the characters . $ { } ' " become '_', and the
// result is lower case.
func sanitize(s string) string {
	return strings.ToLower(nameReplacer.Replace(s))
}

var nameReplacer = strings.NewReplacer(" ", "-", ":", "-", "/", "-",
	".", "_", "$", "_", "{", "_", "}", "_", "'", "_", `"`, "_")

// WriteFile writes app to the file path as one event log compressed with c
// (codec.None for plain JSON lines), as SingleEventLogFileWriter does with
// spark.eventLog.compress and spark.eventLog.compression.codec.
func WriteFile(path string, app *model.App, c codec.Codec) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write event log: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write event log %q: %w", path, cerr)
		}
	}()
	cw, err := codec.NewWriter(c, f)
	if err != nil {
		return fmt.Errorf("write event log %q: %w", path, err)
	}
	if err := Write(cw, app); err != nil {
		return fmt.Errorf("%q: %w", path, err)
	}
	if err := cw.Close(); err != nil {
		return fmt.Errorf("write event log %q: %w", path, err)
	}
	return nil
}

// WriteRolling writes app as Spark's RollingEventLogFilesWriter lays out a
// rolling event log (spark.eventLog.rolling.enabled) under dir:
//
//	eventlog_v2_<app>[_<attempt>]/
//	    events_<n>_<app>[_<attempt>][<codec extension>]   n = 1, 2, ...
//	    appstatus_<app>[_<attempt>][.inprogress]
//
// A new part starts before a line that would take the current one past
// maxPartBytes (spark.eventLog.rolling.maxFileSize; counted before
// compression here, after it in Spark); every part holds at least one line.
// The appstatus file is empty and ends in ".inprogress" unless app.Complete.
// The folder's name is RollingDirName(app).
func WriteRolling(dir string, app *model.App, maxPartBytes int64, c codec.Codec) error {
	if app == nil {
		return errors.New("write rolling event log: nil application")
	}
	if maxPartBytes <= 0 {
		return errors.New("write rolling event log: part size must be positive")
	}
	name := appAttemptName(app)
	root := filepath.Join(dir, RollingDirName(app))
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("write rolling event log: %w", err)
	}
	status := filepath.Join(root, "appstatus_"+name)
	if !app.Complete {
		status += ".inprogress"
	}
	if err := os.WriteFile(status, nil, 0o644); err != nil {
		return fmt.Errorf("write rolling event log: %w", err)
	}
	r := &roller{root: root, name: name, c: c, max: maxPartBytes}
	err := writeTo(app, r.line, nil)
	if cerr := r.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write rolling event log %q: %w", root, err)
	}
	return nil
}

// RollingDirName is the folder RollingEventLogFilesWriter writes the
// application's rolling log into: "eventlog_v2_" and the sanitized
// application id, with "_" and the attempt id when set.
func RollingDirName(app *model.App) string {
	return "eventlog_v2_" + appAttemptName(app)
}

// roller writes lines into numbered parts.
type roller struct {
	root, name string
	c          codec.Codec
	max        int64

	n    int // parts opened
	size int64
	f    *os.File
	cw   codec.Writer
	bw   *bufio.Writer
}

// line writes one or more complete lines, opening a new part when needed.
func (r *roller) line(b []byte) error {
	for len(b) > 0 {
		// Split into single lines so that a part boundary never cuts one.
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if i < len(b) {
			i++
		}
		one := b[:i]
		b = b[i:]
		if r.f == nil || r.size > 0 && r.size+int64(len(one)) > r.max {
			if err := r.open(); err != nil {
				return err
			}
		}
		if _, err := r.bw.Write(one); err != nil {
			return err
		}
		r.size += int64(len(one))
	}
	return nil
}

func (r *roller) open() error {
	if err := r.close(); err != nil {
		return err
	}
	r.n++
	p := filepath.Join(r.root, "events_"+strconv.Itoa(r.n)+"_"+r.name+r.c.Extension())
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	cw, err := codec.NewWriter(r.c, f)
	if err != nil {
		f.Close()
		return err
	}
	r.f, r.cw, r.size = f, cw, 0
	r.bw = bufio.NewWriterSize(cw, 256<<10)
	return nil
}

func (r *roller) close() error {
	if r.f == nil {
		return nil
	}
	err := r.bw.Flush()
	if cerr := r.cw.Close(); err == nil {
		err = cerr
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	r.f = nil
	return err
}

// writeTo runs the encoder with each finished line (or group of prologue
// lines) passed to sink; avail, when not nil, lends the sink's free buffer.
func writeTo(app *model.App, sink func([]byte) error, avail func() []byte) error {
	if app == nil {
		return errors.New("nil application")
	}
	if err := checkModel(app); err != nil {
		return err
	}
	if len(app.Stages) > refMask || len(app.Jobs) > refMask || len(app.Executors) > refMask {
		return errors.New("too many stages, jobs or executors")
	}
	e := newEncoder(app)
	e.flush, e.avail = sink, avail
	e.reset()
	return e.run()
}

// checkModel rejects nil entries, which would otherwise stop the encoder
// midway.
func checkModel(app *model.App) error {
	for _, j := range app.Jobs {
		if j == nil {
			return errors.New("nil job in model")
		}
	}
	for _, st := range app.Stages {
		if st == nil {
			return errors.New("nil stage in model")
		}
	}
	for _, x := range app.Executors {
		if x == nil {
			return errors.New("nil executor in model")
		}
	}
	for _, x := range app.SQL {
		if x == nil {
			return errors.New("nil SQL execution in model")
		}
	}
	for _, p := range app.Processes {
		if p == nil {
			return errors.New("nil process in model")
		}
	}
	return nil
}
