package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/report"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/open"
)

// errMetricsSource marks a --metrics store that cannot be read.
var errMetricsSource = errors.New("metrics source")

// readMetrics reads the node samples of --metrics SOURCE stamped within
// spans (Unix ms) into frames for the correlation; the source is asked for
// the samples between the first span's start and the last's end.
func readMetrics(ctx context.Context, spec string, spans [][2]int64) (*correlate.Frames, error) {
	from, to := spans[0][0], spans[0][1]
	for _, sp := range spans {
		from, to = min(from, sp[0]), max(to, sp[1])
	}
	fr := correlate.NewFramesWithin(spans)
	err := readMetricsSource(ctx, spec, from, to, func(s *model.Sample) error {
		fr.Add(s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	fr.Finish()
	return fr, nil
}

// readMetricsSource streams the samples of SOURCE stamped within [from,
// to]: a store (sqlite:PATH, PATH.db, clickhouse+http://HOST:PORT/DB,
// through store/open), else whatever metrics.ReadSource reads (a
// Prometheus URL, a CSV, sadf -j or sadc file, a folder of them).
func readMetricsSource(ctx context.Context, spec string, from, to int64, fn func(*model.Sample) error) error {
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
	return metrics.ReadSource(ctx, spec, time.UnixMilli(from), time.UnixMilli(to), fn)
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
// the tolerance and a minute) into opts.
func addMetrics(opts *report.AnalysisOptions, apps []*model.App, o analyzeOptions) error {
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
	fr, err := readMetrics(context.Background(), o.metrics, spans)
	if err != nil {
		return fmt.Errorf("--metrics: %w", err)
	}
	opts.Metrics = fr
	if o.alignClocks {
		opts.Correlate.Offsets = correlate.Offsets(correlate.EstimateOffsets(apps, fr, opts.Correlate))
	}
	return nil
}
