// Package decodelogs turns the logs that package source finds into applications,
// choosing the decoder by the log's kind. It is the one place where inputs
// meet decoders, shared by every command.
package decodelogs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dustin/go-humanize"
	"golang.org/x/sync/semaphore"

	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/lines"
	"github.com/clusterlens/clusterlens/internal/mapreduce"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/platform"
	"github.com/clusterlens/clusterlens/internal/source"
)

// DefaultMemory is the default Options.Memory: room for a 128 MiB zstd
// window (long-range matching, as Databricks Photon writes) and the line
// buffers of the files decoded beside it.
const DefaultMemory = 512 << 20

// Options tune loading.
type Options struct {
	// Kinds restricts the logs read (nil: every kind).
	Kinds []source.Kind
	// Progress, when set, is called with stored bytes read as decoding goes,
	// from several goroutines; the total is source.TotalSize of the logs.
	Progress func(n int64)
	// Workers decode logs in parallel (0: one per CPU).
	Workers int
	// MaxLine is the longest line or record read, in bytes (0:
	// lines.DefaultMax). A longer one is skipped without being held, and
	// counted in the application's data quality.
	MaxLine int64
	// Memory bounds, in bytes, what the decoders working in parallel hold at
	// once for lines and decompression history (0: DefaultMemory). Before a
	// part is decoded its share is reserved (MaxLine plus its zstd window),
	// waiting while other parts hold the rest; a zstd frame whose window is
	// over Memory is refused (codec.ErrWindowTooLarge).
	Memory int64
}

func (o *Options) memory() int64 {
	if o.Memory > 0 {
		return o.Memory
	}
	return DefaultMemory
}

func (o *Options) maxLine() int64 {
	if o.MaxLine > 0 {
		return o.MaxLine
	}
	return lines.DefaultMax
}

// Result is what loading found.
type Result struct {
	Apps []*model.App // in the order the logs were found
	// Skipped are files and folders that hold no log, each with a reason;
	// those that could not be read (Err set) may have held one.
	Skipped []source.Skipped
	// Problems are logs that could not be read at all or only in part
	// (records lost, see model.Quality.Lost), one error each naming the
	// log; the partial applications are in Apps.
	Problems []error
	// Paths are the paths given that could not be read or hold no log,
	// one error each naming the path (source.Find's, split).
	Paths []error
}

// PathErrors splits the error source.Find returns into one error per path.
func PathErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// Unreadable returns the skipped files and folders that could not be read.
func (r *Result) Unreadable() []source.Skipped {
	var out []source.Skipped
	for _, s := range r.Skipped {
		if s.Err != nil {
			out = append(out, s)
		}
	}
	return out
}

// Partial reports whether some input was lost: a log read in part, a
// path given that could not be read, or a file or folder that could not be
// read.
func (r *Result) Partial() bool {
	return len(r.Problems) > 0 || len(r.Paths) > 0 || len(r.Unreadable()) > 0
}

// Find lists the logs under paths, keeping the kinds asked for.
func Find(paths []string, opts Options) ([]*source.Log, []source.Skipped, error) {
	logs, skipped, err := source.Find(paths, source.Options{PartHeader: eventlog.PartHeader, Formats: Formats(), MaxWindow: opts.memory()})
	if len(opts.Kinds) > 0 {
		kept := logs[:0]
		for _, l := range logs {
			for _, k := range opts.Kinds {
				if l.Kind == k {
					kept = append(kept, l)
					break
				}
			}
		}
		logs = kept
	}
	return logs, skipped, err
}

// Paths finds and reads every log under paths. It fails only when nothing
// was found; unreadable logs become Problems.
func Paths(paths []string, opts Options) (*Result, error) {
	logs, skipped, err := Find(paths, opts)
	if len(logs) == 0 {
		if err == nil {
			err = fmt.Errorf("no logs found in %v (%d files skipped)", paths, len(skipped))
		}
		return &Result{Skipped: skipped}, err
	}
	res := Logs(logs, opts)
	res.Skipped = skipped
	res.Paths = PathErrors(err)
	return res, nil
}

// Logs reads logs in parallel, keeping their order.
func Logs(logs []*source.Log, opts Options) *Result {
	res := &Result{}
	for _, o := range readEach(logs, opts) {
		res.add(o)
	}
	return res
}

// read is what reading one log gave.
type read struct {
	apps []*model.App
	err  error
}

func (r *Result) add(o read) {
	r.Apps = append(r.Apps, o.apps...)
	if o.err != nil {
		r.Problems = append(r.Problems, o.err)
	}
}

// readEach reads logs with opts.Workers goroutines, one result per log.
func readEach(logs []*source.Log, opts Options) []read {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ld := NewLoader(opts)
	outs := make([]read, len(logs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(logs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				outs[i].apps, outs[i].err = ld.Log(logs[i])
			}
		}()
	}
	for i := range logs {
		next <- i
	}
	close(next)
	wg.Wait()
	return outs
}

// Cache remembers what each log gave, so that reading the same paths again
// reads only the logs that are new or changed, by their parts' names,
// sizes and modification times: serve's rescans of a bucket fetch only
// those. The zero value is ready.
type Cache struct {
	mu   sync.Mutex
	logs map[string]cached // by log name
}

type cached struct {
	sig  string
	read read
}

// Signature identifies a log's content as its listing shows it: its parts'
// (and configuration's) names, sizes and modification times.
func Signature(l *source.Log) string {
	var b strings.Builder
	for _, p := range l.Parts {
		fmt.Fprintf(&b, "%s\x00%d\x00%d\x00", p.Name, p.Size, p.ModTime.UnixNano())
	}
	if l.Conf != nil {
		fmt.Fprintf(&b, "%s\x00%d\x00%d", l.Conf.Name, l.Conf.Size, l.Conf.ModTime.UnixNano())
	}
	return b.String()
}

// Paths is the package's Paths through the cache; fresh is how many logs
// were read anew. Logs no longer found are forgotten.
func (c *Cache) Paths(paths []string, opts Options) (res *Result, fresh int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	logs, skipped, ferr := Find(paths, opts)
	if len(logs) == 0 {
		c.logs = nil
		if ferr == nil {
			ferr = fmt.Errorf("no logs found in %v (%d files skipped)", paths, len(skipped))
		}
		return &Result{Skipped: skipped}, 0, ferr
	}
	sigs := make([]string, len(logs))
	var stale []*source.Log
	for i, l := range logs {
		sigs[i] = Signature(l)
		if e, ok := c.logs[l.Name]; !ok || e.sig != sigs[i] {
			stale = append(stale, l)
		}
	}
	outs := readEach(stale, opts)
	kept := make(map[string]cached, len(logs))
	res = &Result{Skipped: skipped}
	for i, l := range logs {
		e, ok := c.logs[l.Name]
		if !ok || e.sig != sigs[i] {
			e = cached{sig: sigs[i], read: outs[0]}
			outs = outs[1:]
		}
		kept[l.Name] = e
		res.add(e.read)
	}
	c.logs = kept
	res.Paths = PathErrors(ferr)
	return res, len(stale), nil
}

// Log reads one log: one application for Spark and .jhist, one per job for
// legacy histories and Rumen traces. A log read only in part returns its
// applications and an error naming the log.
func Log(l *source.Log, opts Options) ([]*model.App, error) { return NewLoader(opts).Log(l) }

// Loader reads logs, sharing one memory budget among the decoders that
// read with it in parallel (Options.Memory), and the machine's cores: a
// large Spark log is decoded on the cores that no other log is using
// (eventlog.Parallel). It is safe for concurrent use.
type Loader struct {
	opts   Options
	budget *semaphore.Weighted
	busy   atomic.Int64 // logs being decoded, and blocks being parsed for them
}

// ParallelMin is the stored size from which a Spark log part is decoded on
// several cores: below it, a log is decoded on one core (many small logs
// are decoded in parallel one per core, and setting up the goroutines would
// cost more than it gives).
const ParallelMin = 4 << 20

// parallel returns how to decode a part of stored size bytes: in parallel
// when it is large and there is more than one core, nil otherwise. The
// workers parse a block only on a core no other log is using (acquire).
func (ld *Loader) parallel(size int64) *eventlog.Parallel {
	cores := runtime.GOMAXPROCS(0)
	if cores < 2 || size < ParallelMin {
		return nil
	}
	return &eventlog.Parallel{Workers: cores - 1, Acquire: ld.acquire, Release: func() { ld.busy.Add(-1) }}
}

// acquire takes an idle core, if there is one.
func (ld *Loader) acquire() bool {
	for {
		n := ld.busy.Load()
		if n >= int64(runtime.GOMAXPROCS(0)) {
			return false
		}
		if ld.busy.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// decoding counts a log being decoded for acquire until done is called.
func (ld *Loader) decoding() (done func()) {
	ld.busy.Add(1)
	return func() { ld.busy.Add(-1) }
}

// NewLoader returns a loader with opts.
func NewLoader(opts Options) *Loader {
	return &Loader{opts: opts, budget: semaphore.NewWeighted(opts.memory())}
}

// Log is the package's Log with the loader's options and memory budget.
func (ld *Loader) Log(l *source.Log) ([]*model.App, error) {
	defer ld.decoding()()
	var apps []*model.App
	var err error
	f := formatOf(l.Kind)
	if f == nil {
		return nil, fmt.Errorf("%s: %w: kind %s has no decoder", l.Name, source.ErrNotLog, l.Kind)
	}
	apps, err = f.decode(ld, l)
	if l.Conf != nil && f.Job {
		if cerr := applyConf(l, apps); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}
	for _, a := range apps {
		if perr := finish(l, a, ld.opts.maxLine()); perr != nil {
			err = errors.Join(err, perr)
		}
	}
	if err != nil {
		err = fmt.Errorf("%s: %w", l.Name, err)
	}
	return apps, err
}

// finish fills in what the log's layout says of an application read from
// it (its source, time, version, notes, platform), audits its times, and
// returns an error naming what is missing from it (partial), or nil.
func finish(l *source.Log, a *model.App, maxLine int64) error {
	a.Source = l.Name
	if a.LastUpdated == 0 {
		a.LastUpdated = l.ModTime.UnixMilli()
	}
	if a.Version == "" && l.SparkVersion != "" {
		a.Version = l.SparkVersion
	}
	a.Quality.Notes = append(slices.Clone(l.Notes), a.Quality.Notes...)
	if a.Engine == model.Spark {
		platform.Identify(a)
		if a.ID == "" && l.ID != "" {
			a.ID = l.ID
			a.Quality.Note(false, "no SparkListenerApplicationStart was read: the application is named after its file or folder")
		}
	}
	a.AuditTimes()
	return partial(a, maxLine)
}

// partial says what is missing from a: what its notes say (parts of a
// rolled log missing or out of order), and the records lost, with the first
// place one was (see lost); nil when nothing is.
func partial(a *model.App, maxLine int64) error {
	var what []string
	for _, n := range a.Quality.Notes {
		if n.Partial {
			what = append(what, n.Text)
		}
	}
	loss := lost(&a.Quality, maxLine)
	if loss != nil {
		what = append(what, loss.msg)
	}
	if len(what) == 0 {
		return nil
	}
	id := a.ID
	if id == "" {
		id = "the application"
	}
	return &lossError{msg: id + " read in part: " + strings.Join(what, "; "), tooLong: loss != nil && loss.tooLong}
}

// lost says which records of an application were lost, with the first
// place one was, or returns nil when none was.
func lost(q *model.Quality, max int64) *lossError {
	if !q.Lost() {
		return nil
	}
	var parts []string
	bad := q.BadLines
	if q.CutLastLine {
		bad--
	}
	count := func(n int64, one, many string) {
		if n == 1 {
			parts = append(parts, "1 "+one)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	count(bad, "malformed line", "malformed lines")
	count(q.LongLines, "line over the "+humanize.IBytes(uint64(max))+" line limit", "lines over the "+humanize.IBytes(uint64(max))+" line limit")
	count(q.Incomplete, "event without a field it needs", "events without a field they need")
	msg := strings.Join(parts, ", ") + " skipped"
	if is, ok := q.FirstLoss(); ok && is.Line > 0 {
		msg += fmt.Sprintf(" (first at %s:%d: %s)", is.File, is.Line, is.What)
	} else if ok {
		msg += fmt.Sprintf(" (first in %s: %s)", is.File, is.What)
	}
	return &lossError{msg: msg, tooLong: q.LongLines > 0}
}

// lossError is the error of an application read in part.
type lossError struct {
	msg     string
	tooLong bool // lines over the limit were among them
}

func (e *lossError) Error() string { return e.msg }

// Is lets errors.Is(err, lines.ErrTooLong) tell that raising the line limit
// would read more.
func (e *lossError) Is(target error) bool { return e.tooLong && target == lines.ErrTooLong }

// part opens part i of l, reserves its share of the memory budget (the line
// limit plus the part's decompression window, at most the whole budget),
// and hands it to decode.
func (ld *Loader) part(l *source.Log, i int, decode func(r io.Reader) error) error {
	r, err := l.OpenProgress(i, ld.opts.Progress)
	if err != nil {
		return fmt.Errorf("open %s: %w", l.Parts[i].Name, err)
	}
	defer r.Close()
	return ld.reserve(r.Window(), func() error { return decode(r) })
}

// sparkPart is part for Spark parts, read with d from offset: in parallel
// when what is left of the part is large (its blocks in flight then charged
// to the memory budget too).
func (ld *Loader) sparkPart(d *eventlog.Decoder, l *source.Log, i int, offset int64, open func() (*source.PartReader, error), decode func(r io.Reader) error) error {
	r, err := open()
	if err != nil {
		return fmt.Errorf("open %s: %w", l.Parts[i].Name, err)
	}
	defer r.Close()
	d.Parallel = ld.parallel(l.Parts[i].Size - offset)
	need := r.Window()
	if d.Parallel != nil {
		need += d.Parallel.Memory()
	}
	return ld.reserve(need, func() error { return decode(r) })
}

// reserve runs decode with the share of the memory budget a part needs
// beside the line limit (its decompression window, and the blocks of a
// parallel decoding): the line limit plus extra, at most the whole budget.
func (ld *Loader) reserve(extra int64, decode func() error) error {
	need := min(ld.opts.maxLine()+extra, ld.opts.memory())
	if err := ld.budget.Acquire(context.Background(), need); err != nil {
		return err
	}
	defer ld.budget.Release(need)
	return decode()
}

// mapreduce returns the MapReduce history reader with the line limit.
func (ld *Loader) mapreduce() mapreduce.Reader { return mapreduce.Reader{MaxLine: ld.opts.maxLine()} }

// readSpark feeds the parts of one Spark log in order: one application, or
// several when Databricks markers inside name several Spark contexts.
func (ld *Loader) readSpark(l *source.Log) ([]*model.App, error) {
	d := eventlog.NewDecoder()
	d.MaxLine = ld.opts.maxLine()
	var errs []error
	for i, p := range l.Parts {
		open := func() (*source.PartReader, error) { return l.OpenProgress(i, ld.opts.Progress) }
		if err := ld.sparkPart(d, l, i, 0, open, func(r io.Reader) error { return d.Feed(p.Name, r) }); err != nil {
			errs = append(errs, err)
		}
	}
	events := d.Events()
	apps := d.Apps()
	if events == 0 {
		errs = append(errs, fmt.Errorf("%w: no Spark event in %d lines", eventlog.ErrNotEventLog, apps[0].Quality.Lines))
		return nil, errors.Join(errs...)
	}
	return apps, errors.Join(errs...)
}

// readOne reads a single-part MapReduce log with dec.
func (ld *Loader) readOne(l *source.Log, dec func(io.Reader, string) ([]*model.App, error)) ([]*model.App, error) {
	if len(l.Parts) == 0 {
		return nil, errors.New("log has no parts")
	}
	var apps []*model.App
	var errs []error
	for i, p := range l.Parts {
		err := ld.part(l, i, func(r io.Reader) error {
			got, err := dec(r, p.Name)
			apps = append(apps, got...)
			return err
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return apps, errors.Join(errs...)
}

func applyConf(l *source.Log, apps []*model.App) error {
	r, err := l.OpenConf()
	if err != nil {
		return fmt.Errorf("open conf: %w", err)
	}
	defer r.Close()
	conf, err := mapreduce.ReadConf(r)
	if err != nil {
		return fmt.Errorf("conf %s: %w", l.Conf.Name, err)
	}
	for _, a := range apps {
		mapreduce.ApplyConf(a, conf)
	}
	return nil
}

// ByStart sorts applications by start time, then id and attempt.
func ByStart(apps []*model.App) {
	sort.SliceStable(apps, func(i, j int) bool {
		if apps[i].Start != apps[j].Start {
			return apps[i].Start < apps[j].Start
		}
		if apps[i].ID != apps[j].ID {
			return apps[i].ID < apps[j].ID
		}
		return apps[i].AttemptID < apps[j].AttemptID
	})
}
