package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
)

// errMetricsSource marks a --metrics SOURCE that cannot be opened.
var errMetricsSource = errors.New("metrics source")

// readMetrics reads the node samples of --metrics SOURCE stamped within
// [from, to] (Unix ms) into frames for the correlation.
func readMetrics(ctx context.Context, spec string, from, to int64) (*correlate.Frames, error) {
	fr := correlate.NewFrames(from, to)
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

// readMetricsSource streams the samples of SOURCE:
//
//   - http:// or https://: a Prometheus server over node_exporter
//     (metrics.PromSource), queried from from to to;
//   - a file: CSV timestamp_ms,host,metric,value, plain or compressed (the
//     codec found by name and magic: .csv.zst, .csv.gz, ...);
//   - a folder: its metrics.csv.zst (a simulator output), else every
//     *.csv file in it, compressed or not, in name order.
//
// The stores (sqlite:PATH, clickhouse+http://...) are not readable yet.
func readMetricsSource(ctx context.Context, spec string, from, to int64, fn func(*model.Sample) error) error {
	switch {
	case strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://"):
		p := &metrics.PromSource{URL: spec}
		return p.Read(ctx, time.UnixMilli(from), time.UnixMilli(to), fn)
	case strings.HasPrefix(spec, "sqlite:") || strings.HasPrefix(spec, "clickhouse"):
		return fmt.Errorf("%w %q: reading samples from a store is not supported yet; export them to CSV", errMetricsSource, spec)
	}
	files, err := metricsFiles(spec)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := readMetricsFile(f, fn); err != nil {
			return err
		}
	}
	return nil
}

// metricsFiles lists the CSV files a file or folder SOURCE names.
func metricsFiles(spec string) ([]string, error) {
	st, err := os.Stat(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errMetricsSource, err)
	}
	if !st.IsDir() {
		return []string{spec}, nil
	}
	if sim := filepath.Join(spec, "metrics.csv.zst"); fileExists(sim) {
		return []string{sim}, nil
	}
	var files []string
	err = filepath.WalkDir(spec, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != spec {
			return fs.SkipDir
		}
		if !d.IsDir() && isCSVName(d.Name()) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errMetricsSource, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w %q: no metrics.csv.zst or *.csv file in the folder", errMetricsSource, spec)
	}
	slices.Sort(files)
	return files, nil
}

// isCSVName says whether a file name is CSV, compressed or not.
func isCSVName(name string) bool {
	if codec.FromExtension(name) != codec.None {
		name = name[:max(strings.LastIndexByte(name, '.'), 0)]
	}
	return strings.HasSuffix(strings.ToLower(name), ".csv")
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// readMetricsFile reads one CSV file, decompressing it as its name and
// first bytes say.
func readMetricsFile(path string, fn func(*model.Sample) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %w", errMetricsSource, err)
	}
	defer f.Close()
	r, _, err := codec.Open(path, f)
	if err != nil {
		return fmt.Errorf("%w %q: %w", errMetricsSource, path, err)
	}
	defer r.Close()
	return metrics.ReadCSV(bufio.NewReaderSize(r, 1<<16), path, fn)
}
