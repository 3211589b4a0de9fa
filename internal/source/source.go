// Package source finds the logs to read under paths given by a user: single
// files (plain or compressed), folders of applications searched recursively,
// globs, and Spark History Server zip downloads.
//
// A Log is one application attempt (Spark) or one job (MapReduce), possibly
// written in several parts: Spark's rolling event-log folders
// (eventlog_v2_*), the Spark 1.0–1.2 folder format (EVENT_LOG_1 and marker
// files), and Databricks-style rotated logs (eventlog plus dated
// eventlog-YYYY-MM-DD--HH-MM files). The kind of a file is sniffed from its
// first decompressed bytes; names are only hints. Files that are not logs are
// reported as Skipped, each with one reason.
//
// Everything is read through an fs.FS: Scan works on any (fstest.MapFS in
// tests, a zip or tar archive), Find maps operating-system paths onto
// os.DirFS. Archives (zip, tar, either compressed) found inside are read as
// folders, nested up to maxDepth.
package source

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
)

// Kind is what a log holds, named as expected-counts.tsv names it. The
// kinds are those of the formats a search is given (Options.Formats,
// decodelogs' table); these are the ones that exist now.
type Kind string

// The kinds of logs clusterlens reads.
const (
	// Unknown is not a log.
	Unknown Kind = ""
	// SparkEventLog is a Spark event log (JSON lines, {"Event":...}).
	SparkEventLog Kind = "spark-eventlog"
	// MapReduceJhist is a Hadoop 2+ MapReduce job history file (.jhist),
	// Avro-JSON or Avro binary.
	MapReduceJhist Kind = "mr-jhist"
	// MapReduceLegacy is a Hadoop 0.18–1.x job history file
	// (Meta VERSION=... / Job JOBID=... lines).
	MapReduceLegacy Kind = "mr-legacy-history"
	// RumenTrace is a Rumen JSON job trace.
	RumenTrace Kind = "rumen-trace"
)

// String returns the kind's name ("unknown" for Unknown).
func (k Kind) String() string {
	if k == Unknown {
		return "unknown"
	}
	return string(k)
}

// A Format is one kind of log as its decoder knows it: how its files
// start and what they are named. A search finds the formats it is given
// (Options.Formats); decodelogs holds the table of them with their
// decoders, so that a new format is its decoder and a row there.
type Format struct {
	Kind Kind
	// Sniff tells whether head, a file's first decompressed bytes (up to
	// SniffSize, a byte-order mark removed), starts a log of this format:
	// sure when nothing else starts so, likely when only its content
	// suggests it (a damaged first line). The sure are asked first, in
	// the formats' order, then the likely.
	Sniff func(head []byte) (sure, likely bool)
	// Job says its files are MapReduce job histories: their names carry
	// their job id, and the job's configuration (_conf.xml) lies beside
	// them.
	Job bool
	// Ext is the extension its files' names drop to make their id.
	Ext string
}

// format returns the format of kind k among fs.
func format(fs []Format, k Kind) (Format, bool) {
	for _, f := range fs {
		if f.Kind == k {
			return f, true
		}
	}
	return Format{}, false
}

// Layout is how a log's parts are laid out on disk.
type Layout uint8

// The layouts.
const (
	// Single is one file.
	Single Layout = iota
	// Rolling is Spark 3's rolling folder eventlog_v2_<app>/events_<n>_<app>.
	Rolling
	// Spark1Dir is the Spark 1.0–1.2 folder: EVENT_LOG_<n>, SPARK_VERSION_<v>,
	// COMPRESSION_CODEC_<codec>, APPLICATION_COMPLETE.
	Spark1Dir
	// Rotated is a Databricks-style folder: eventlog-YYYY-MM-DD--HH-MM[.gz]
	// parts, then eventlog.
	Rotated
)

var layoutNames = [...]string{"single", "rolling", "spark1-dir", "rotated"}

// String returns the layout's name.
func (l Layout) String() string {
	if int(l) < len(layoutNames) {
		return layoutNames[l]
	}
	return fmt.Sprintf("layout(%d)", uint8(l))
}

// Log is one application attempt or job, in one or more parts read in order.
type Log struct {
	// Name is the display path of the log: its file, or its folder for
	// multi-part layouts.
	Name string
	// ID is the application (and attempt) or job id as the names say it,
	// best effort: "local-1430917381535_1", "job_1329348432655_0001". The
	// decoders take the real ids from the content.
	ID string
	// Kind is what the log holds, sniffed from its content.
	Kind Kind
	// Layout is how its parts are laid out.
	Layout Layout
	// Parts are the files to read, in order.
	Parts []Part
	// ModTime is the latest modification time of the parts.
	ModTime time.Time
	// InProgress is true when the names say the writer is still going: a
	// ".inprogress" suffix, an appstatus_*.inprogress marker, or a Spark 1.x
	// folder without APPLICATION_COMPLETE.
	InProgress bool
	// Complete is true when the names say the writer finished, by Spark's
	// rules: a Spark event log file without ".inprogress", an appstatus
	// marker without it, APPLICATION_COMPLETE. When neither Complete nor
	// InProgress is set, the layout does not tell (MapReduce, Rumen, rotated
	// logs, a rolling folder without appstatus); the content may.
	Complete bool
	// SparkVersion is the version a Spark 1.x folder names (SPARK_VERSION_<v>).
	SparkVersion string
	// Conf is the MapReduce job configuration XML found beside the history
	// file (<jobid>_conf.xml), or nil.
	Conf *Part
	// Notes are oddities of the layout worth telling a user: a missing
	// part (partial), a missing status marker, an unknown codec name, parts
	// ordered by a guess or read once of two copies.
	Notes []model.Note

	fsys fs.FS   // where Parts and Conf are opened
	key  string  // identity of the log for de-duplication
	opts Options // how to open the parts (MaxWindow)
}

// Part is one file of a log.
type Part struct {
	// Name is the display path of the file.
	Name string
	// Path is the file's path in the log's file system.
	Path string
	// Size is the file's size as stored (compressed), in bytes.
	Size int64
	// ModTime is the file's modification time.
	ModTime time.Time
	// Codec is the codec expected for the part: from a Spark 1.x
	// COMPRESSION_CODEC_ marker, or what sniffing found. Opening still
	// checks magic numbers.
	Codec codec.Codec
	// Index is the part's number in a rolling or Spark 1.x folder, else 0.
	Index int64
	// Compact marks a rolling folder's compacted file (events_<n>_*.compact).
	Compact bool

	fsys fs.FS // where the part opens, when not in its log's file system
}

// Skipped is a file or folder that holds no log, and why.
type Skipped struct {
	Name   string // display path
	Reason string // why it is not a log, for a person
	// Err is set when the file or folder could not be read (permission
	// denied, an I/O error, a compressed stream that cannot be opened, an
	// archive nested too deep): it may hold a log that was lost. It is nil
	// for what was read and is not a log.
	Err error
}

// ErrNotLog is wrapped by the error for a path given explicitly that holds
// no log.
var ErrNotLog = errors.New("not a log")

// Size returns the total stored (compressed) size of the log's parts in
// bytes, the denominator of a progress bar.
func (l *Log) Size() int64 {
	var n int64
	for _, p := range l.Parts {
		n += p.Size
	}
	return n
}

// TotalSize returns the total stored size of all parts of all logs.
func TotalSize(logs []*Log) int64 {
	var n int64
	for _, l := range logs {
		n += l.Size()
	}
	return n
}

// Open returns part i decompressed. The caller closes it.
func (l *Log) Open(i int) (*PartReader, error) { return l.OpenProgress(i, nil) }

// OpenProgress is Open that calls progress with the number of stored bytes
// read each time the decompressor reads from the file, so that the sum over
// all parts reaches TotalSize. progress may be nil.
func (l *Log) OpenProgress(i int, progress func(n int64)) (*PartReader, error) {
	if i < 0 || i >= len(l.Parts) {
		return nil, fmt.Errorf("source: %q: part %d of %d", l.Name, i, len(l.Parts))
	}
	return openPart(l.partFS(i), &l.Parts[i], l.opts, progress)
}

// partFS is the file system part i opens in.
func (l *Log) partFS(i int) fs.FS {
	if p := &l.Parts[i]; p.fsys != nil {
		return p.fsys
	}
	return l.fsys
}

// OpenConf returns the MapReduce job configuration XML, decompressed.
func (l *Log) OpenConf() (*PartReader, error) {
	if l.Conf == nil {
		return nil, fmt.Errorf("source: %q: no job conf beside it: %w", l.Name, fs.ErrNotExist)
	}
	return openPart(l.fsys, l.Conf, l.opts, nil)
}

// openPart opens p in fsys through its codec.
func openPart(fsys fs.FS, p *Part, o Options, progress func(n int64)) (*PartReader, error) {
	f, err := fsys.Open(p.Path)
	if err != nil {
		return nil, fmt.Errorf("source: %q: %w", p.Name, pathless(err))
	}
	var r io.Reader = f
	if progress != nil {
		r = NewCountingReader(f, progress)
	}
	rc, _, err := codec.OpenWith(p.Name, r, codec.Options{Hint: p.Codec, MaxWindow: o.MaxWindow})
	if err != nil {
		f.Close()
		return nil, err
	}
	return &PartReader{rc, closers{rc, f}}, nil
}

// PartReader is a part of a log, decompressed. Closing it closes the
// decompressor, then the file.
type PartReader struct {
	io.Reader
	io.Closer
}

// Window returns the history the part's decompressor keeps (codec.Window):
// what a caller sharing a memory budget among parallel decoders reserves.
func (p *PartReader) Window() int64 { return codec.Window(p.Reader) }

// fileErr is a file-system error about the file its message names already:
// the operation and the cause, without the path inside the fs.FS (os.DirFS
// reports "tmp/x" for "/tmp/x"). errors.Is sees the cause.
type fileErr struct {
	op  string
	err error
}

func (e *fileErr) Error() string { return e.op + ": " + e.err.Error() }
func (e *fileErr) Unwrap() error { return e.err }

// pathless turns an *fs.PathError into a fileErr; other errors are kept.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fileErr{op: pe.Op, err: pe.Err}
	}
	return err
}

// closers closes both, the first first (a decompressor, then its file).
type closers [2]io.Closer

func (c closers) Close() error { return errors.Join(c[0].Close(), c[1].Close()) }

// note records a note about the log's layout.
func (l *Log) note(partial bool, format string, args ...any) {
	l.Notes = append(l.Notes, model.Note{Text: fmt.Sprintf(format, args...), Partial: partial})
}
