package driver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/open"
)

// Metrics is a source of node samples: a sample store (sqlite:PATH,
// PATH.db, clickhouse+http://HOST:PORT/DB, or one already open), else
// what metrics.ReadSource reads (a Prometheus URL, a CSV, sadf -j, sadc or
// nmon file, a folder of them, on disk or in an object store).
type Metrics struct {
	spec  string
	store store.Store
	notes func(string)
}

// OpenMetrics is the source spec names; notes receives what the file
// readers say about what they read (metrics a format lacks, an
// incomplete last line), nil to drop it. A store is opened at each Read.
func OpenMetrics(spec string, notes func(string)) *Metrics {
	return &Metrics{spec: spec, notes: notes}
}

// StoreMetrics is an open sample store as a source.
func StoreMetrics(st store.Store) *Metrics { return &Metrics{store: st} }

// Store is the sample store the source is open on, nil for any other
// source: the live views follow a store as it fills.
func (m *Metrics) Store() store.Store { return m.store }

// Query selects samples: stamped within [From, To] (a zero time: open),
// of Types and of Hosts (nil: all).
type Query struct {
	From, To     time.Time
	Types, Hosts []string
}

// ErrSource marks a store that cannot be opened or read.
var ErrSource = errors.New("metrics source")

// Read streams the samples q selects to fn (a file source may deliver
// them in any order). A source read only in part returns an error that is
// metrics.ErrPartial after delivering what it could read.
func (m *Metrics) Read(ctx context.Context, q Query, fn func(*model.Sample) error) error {
	if m.store != nil || IsStoreDSN(m.spec) {
		return m.readStore(ctx, q, fn)
	}
	if len(q.Types) > 0 || len(q.Hosts) > 0 {
		inner := fn
		fn = func(s *model.Sample) error {
			if len(q.Types) > 0 && !slices.Contains(q.Types, s.Type) || len(q.Hosts) > 0 && !slices.Contains(q.Hosts, s.Host) {
				return nil
			}
			return inner(s)
		}
	}
	opt := metrics.SourceOptions{Notes: m.notes}
	var warned promWarnings
	if m.notes != nil {
		opt.Warn = warned.add
	}
	err := metrics.ReadSourceWith(ctx, m.spec, q.From, q.To, opt, fn)
	warned.say(m.notes)
	return err
}

// promWarnings gathers the warnings Prometheus attaches to its answers
// (one per metric's query and chunk of time) so that each is said once
// with the number of queries it came with. A folder's files that are not
// metric files are not warned of: event logs and truth files sit beside
// metrics (ReadSource's doc).
type promWarnings struct {
	order   []string
	queries map[string]map[string]bool
}

func (p *promWarnings) add(w string) {
	if strings.HasSuffix(w, ": skipped: not a metric file") {
		return
	}
	query, body := "", w
	if i := strings.LastIndex(w, "\": "); strings.HasPrefix(w, "prometheus query ") && i > 0 {
		query, body = w[:i+1], w[i+3:]
	}
	if p.queries == nil {
		p.queries = map[string]map[string]bool{}
	}
	if p.queries[body] == nil {
		p.queries[body] = map[string]bool{}
		p.order = append(p.order, body)
	}
	p.queries[body][query] = true
}

func (p *promWarnings) say(notes func(string)) {
	for _, body := range p.order {
		if n := len(p.queries[body]); n > 1 {
			notes(fmt.Sprintf("Prometheus warned on %d queries: %s", n, body))
		} else {
			notes("Prometheus warned: " + body)
		}
	}
}

func (m *Metrics) readStore(ctx context.Context, q Query, fn func(*model.Sample) error) error {
	st := m.store
	if st == nil {
		if path, ok := sqlitePath(m.spec); ok {
			if _, err := os.Stat(path); err != nil {
				return fmt.Errorf("%w %q: %w", ErrSource, m.spec, err) // open would create it
			}
		}
		var err error
		if st, err = open.Open(ctx, m.spec); err != nil {
			return fmt.Errorf("%w: %w", ErrSource, err)
		}
		defer st.Close()
	}
	sq := store.Query{Types: q.Types, Hosts: q.Hosts}
	if !q.From.IsZero() {
		sq.From = q.From.UnixMilli()
	}
	if !q.To.IsZero() {
		sq.To = q.To.UnixMilli() + 1
	}
	if err := st.Query(ctx, sq, fn); err != nil {
		if m.spec != "" {
			return fmt.Errorf("%w %q: %w", ErrSource, m.spec, err)
		}
		return err
	}
	return nil
}

// IsStoreDSN says whether a metrics source names a sample store rather
// than files or a Prometheus server.
func IsStoreDSN(spec string) bool {
	if strings.HasPrefix(spec, "sqlite:") || strings.HasPrefix(spec, "clickhouse+") {
		return true
	}
	if strings.Contains(spec, "://") {
		return false
	}
	for _, ext := range []string{".db", ".sqlite", ".sqlite3"} {
		if strings.HasSuffix(spec, ext) {
			return true
		}
	}
	return false
}

// sqlitePath is the file a SQLite DSN names.
func sqlitePath(spec string) (string, bool) {
	if p, ok := strings.CutPrefix(spec, "sqlite:"); ok {
		return strings.TrimPrefix(p, "//"), true
	}
	return spec, !strings.HasPrefix(spec, "clickhouse+")
}

// Frames reads the samples of m stamped within spans (Unix ms) into
// frames for the correlation: the source is asked for the samples between
// the first span's start and the last's end. A source read in part gives
// its frames and its metrics.ErrPartial error; one that cannot be read
// gives nil frames.
func Frames(ctx context.Context, m *Metrics, spans [][2]int64) (*correlate.Frames, error) {
	from, to := int64(math.MaxInt64), int64(math.MinInt64)
	for _, sp := range spans {
		from, to = min(from, sp[0]), max(to, sp[1])
	}
	fr := correlate.NewFramesWithin(spans)
	err := m.Read(ctx, Query{From: time.UnixMilli(from), To: time.UnixMilli(to)}, func(s *model.Sample) error {
		fr.Add(s)
		return nil
	})
	if err != nil && !errors.Is(err, metrics.ErrPartial) {
		return nil, err
	}
	fr.Finish()
	return fr, err
}

// MetricsError is a metrics source that failed or was read only in part
// (Err is then metrics.ErrPartial), as the callers' outcome: they name
// the source as their user named it.
type MetricsError struct{ Err error }

func (e *MetricsError) Error() string { return e.Err.Error() }
func (e *MetricsError) Unwrap() error { return e.Err }

// metricsError wraps err, nil staying nil.
func metricsError(err error) error {
	if err == nil {
		return nil
	}
	return &MetricsError{err}
}

// ThreadTasks reconstructs the tasks of MapReduce jobs from the JVM
// thread samples of m over their runs (HiTune's reconstruction from
// samples, with the built-in Hadoop dataflow): for histories without
// phase ends.
func ThreadTasks(ctx context.Context, m *Metrics, apps []*model.App) (*dataflow.ThreadReconstruction, error) {
	var from, to int64
	for _, a := range apps {
		if from == 0 || a.Start < from {
			from = a.Start
		}
		to = max(to, a.End)
	}
	var samples []model.Sample
	q := Query{From: time.UnixMilli(from), To: time.UnixMilli(to), Types: []string{model.ThreadSampleType}}
	err := m.Read(ctx, q, func(s *model.Sample) error {
		samples = append(samples, *s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	spec, err := dataflow.LoadSpec("hadoop")
	if err != nil {
		return nil, err
	}
	return dataflow.ReconstructThreads(samples, spec, dataflow.ThreadOptions{}), nil
}
