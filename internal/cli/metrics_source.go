package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/open"
)

// errMetricsSource marks a --metrics store that cannot be read.
var errMetricsSource = errors.New("metrics source")

// readMetrics reads the node samples of --metrics SOURCE stamped within
// spans (Unix ms) into frames for the correlation; the source is asked for
// the samples between the first span's start and the last's end. A source
// read in part (metrics.ErrPartial) gives its frames and that error.
func readMetrics(ctx context.Context, e *env, spec string, spans [][2]int64) (*correlate.Frames, error) {
	from, to := spans[0][0], spans[0][1]
	for _, sp := range spans {
		from, to = min(from, sp[0]), max(to, sp[1])
	}
	fr := correlate.NewFramesWithin(spans)
	err := readMetricsSource(ctx, e, spec, from, to, func(s *model.Sample) error {
		fr.Add(s)
		return nil
	})
	if err != nil && !errors.Is(err, metrics.ErrPartial) {
		return nil, err
	}
	fr.Finish()
	return fr, err
}

// metricNotes prints what the metric readers say about the files they
// read (metrics a format does not record, an incomplete last line) as
// warnings.
func (e *env) metricNotes() metrics.SourceOptions {
	return metrics.SourceOptions{Notes: func(m string) { fmt.Fprintln(e.stderr, "clusterlens: warning:", m) }}
}

// metricsPartial reports a metric source read only in part (a
// metrics.ErrPartial error) on stderr and turns it into exit code 3 unless
// err, the command's own outcome, already says something.
func metricsPartial(e *env, partial, err error) error {
	if partial == nil {
		return err
	}
	fmt.Fprintln(e.stderr, "clusterlens: warning:", partial)
	if err != nil {
		return err
	}
	return withCode(ExitPartial, errors.New("the metric source could be read only in part"))
}

// readMetricsSource streams the samples of SOURCE stamped within [from,
// to]: a store (sqlite:PATH, PATH.db, clickhouse+http://HOST:PORT/DB,
// through store/open), else whatever metrics.ReadSource reads (a
// Prometheus URL, a CSV, sadf -j, sadc or nmon file, a folder of them),
// its readers' notes printed as warnings.
func readMetricsSource(ctx context.Context, e *env, spec string, from, to int64, fn func(*model.Sample) error) error {
	if isStoreDSN(spec) {
		if path, ok := sqlitePath(spec); ok {
			if _, err := os.Stat(path); err != nil {
				return fmt.Errorf("%w %q: %w", errMetricsSource, spec, err) // open would create it
			}
		}
		st, err := open.Open(ctx, spec)
		if err != nil {
			return fmt.Errorf("%w: %w", errMetricsSource, err)
		}
		defer st.Close()
		if err := st.Query(ctx, store.Query{From: from, To: to + 1}, fn); err != nil {
			return fmt.Errorf("%w %q: %w", errMetricsSource, spec, err)
		}
		return nil
	}
	return metrics.ReadSourceWith(ctx, spec, time.UnixMilli(from), time.UnixMilli(to), e.metricNotes(), fn)
}

// sqlitePath is the file a SQLite DSN names.
func sqlitePath(spec string) (string, bool) {
	if p, ok := strings.CutPrefix(spec, "sqlite:"); ok {
		return strings.TrimPrefix(p, "//"), true
	}
	return spec, !strings.HasPrefix(spec, "clickhouse+")
}

// isStoreDSN says whether SOURCE names a store rather than files or a
// Prometheus server.
func isStoreDSN(spec string) bool {
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

// addMetrics reads --metrics over the applications' runs (each widened by
// the tolerance and a minute) into opts; a source read in part fills opts
// and returns its metrics.ErrPartial error.
func addMetrics(e *env, opts *analysis.Options, apps []*model.App, o analyzeOptions) error {
	if o.clockSkew < 0 {
		return withCode(ExitUsage, fmt.Errorf("--clock-skew %s: want a duration of at least 0", o.clockSkew))
	}
	opts.Correlate.Aliases = o.hostAlias
	skew := o.clockSkew.Milliseconds()
	opts.Correlate.SkewMs = skew
	if skew == 0 {
		opts.Correlate.SkewMs = -1 // none
	}
	margin := skew + time.Minute.Milliseconds()
	var spans [][2]int64
	for _, a := range apps {
		if a.Start > 0 && a.End >= a.Start {
			spans = append(spans, [2]int64{a.Start - margin, a.End + margin})
		}
	}
	if len(spans) == 0 {
		return nil // no application with known times: nothing to correlate
	}
	fr, err := readMetrics(context.Background(), e, o.metrics, spans)
	if fr == nil {
		return fmt.Errorf("--metrics: %w", err)
	}
	opts.Metrics = fr
	if o.alignClocks {
		opts.Correlate.Offsets = correlate.Offsets(correlate.EstimateOffsets(apps, fr, opts.Correlate))
	}
	if err != nil {
		return fmt.Errorf("--metrics: %w", err)
	}
	return nil
}
