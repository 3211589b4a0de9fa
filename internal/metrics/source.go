package metrics

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/objstore/open"
)

// ErrPartial marks a metric file read only in part: its readable samples
// were delivered and the error says, with line numbers, what was skipped.
var ErrPartial = errors.New("read in part")

// SourceOptions tune ReadSourceWith; the zero value is ReadSource's.
type SourceOptions struct {
	// Hosts maps Prometheus instance labels to host names (PromSource.Hosts).
	Hosts map[string]string
	// Client sends Prometheus requests; nil means http.DefaultClient.
	Client *http.Client
	// Warn receives Prometheus's warnings and, for a directory, the files
	// it skipped as not metric files; nil drops them.
	Warn func(msg string)
	// Notes receives what a reader says about a file it read without
	// making the read partial: the canonical metrics the format does not
	// record (nmon has no load1, …), an incomplete last line; nil drops them.
	Notes func(msg string)
}

// ReadSource reads node samples from spec between from and to (inclusive)
// and calls fn with each; the Sample passed to fn is reused. spec is:
//
//   - http://… or https://…: a Prometheus server (PromSource), queried at a
//     1 s step. Query parameters tune it and are not sent: step, scrape and
//     window (Go durations, "5s"), and selector (label matchers added to
//     every metric, `job="node"`), e.g. http://prom:9090?step=15s&scrape=15s.
//     A zero to means now, a zero from one hour before to.
//   - a file: CSV (timestamp_ms,host,metric,value; .csv, .csv.zst,
//     .csv.gz), sadf -j JSON (.json, also compressed), a sadc binary
//     data file (sysstat's magic; read through sadf -j, which must be on
//     PATH) or an nmon recording (a first line AAA,…; also compressed; its
//     local times read in time.Local). The format is sniffed from the
//     content, so names do not matter.
//   - a directory: every file under it (recursively, hidden ones skipped)
//     whose content is one of those formats, in lexical order; other
//     files (event logs, truth.json, phases.csv.zst) are skipped.
//   - s3://, gs://, abfss:// or wasbs:// URLs (internal/objstore): an
//     object or a key prefix, read as the file or directory above; a sadc
//     file is streamed to a temporary file for sadf.
//
// For files, a zero from or to leaves that end open. A file read in part
// (ErrPartial) does not stop a directory's read: the error, joining every
// such file's, comes after all the samples. Stores (sqlite:,
// clickhouse+http:) are not sources here: the CLI opens them through
// internal/store, which imports this package.
func ReadSource(ctx context.Context, spec string, from, to time.Time, fn func(*model.Sample) error) error {
	return ReadSourceWith(ctx, spec, from, to, SourceOptions{}, fn)
}

// ReadSourceWith is ReadSource with options.
func ReadSourceWith(ctx context.Context, spec string, from, to time.Time, opt SourceOptions, fn func(*model.Sample) error) error {
	if strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://") {
		p, err := sourceProm(spec, opt)
		if err != nil {
			return err
		}
		if to.IsZero() {
			to = time.Now()
		}
		if from.IsZero() {
			from = to.Add(-time.Hour)
		}
		return p.Read(ctx, from, to, fn)
	}
	filter := sourceFilter(ctx, from, to, fn)
	src, root := localFiles(spec), "."
	if objstore.IsURL(spec) {
		fsys, p, err := open.Open(ctx, spec, objstore.Options{})
		if err != nil {
			return fmt.Errorf("metric source: %w", err)
		}
		src, root = files{fsys: fsys, display: fsys.URL, local: func(string) string { return "" }}, p
	}
	st, err := fs.Stat(src.fsys, root)
	if err != nil {
		return fmt.Errorf("metric source %s: %w", spec, err)
	}
	if !st.IsDir() {
		kind, err := src.sniff(root)
		if err != nil {
			return fmt.Errorf("metric source: %w", err)
		}
		return src.readFile(ctx, root, kind, opt, filter)
	}
	return src.dir(ctx, root, opt, filter)
}

// sourceProm builds a PromSource from a URL with optional step, scrape,
// window and selector parameters.
func sourceProm(spec string, opt SourceOptions) (*PromSource, error) {
	u, err := url.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("prometheus source %q: %w", spec, err)
	}
	p := &PromSource{Hosts: opt.Hosts, Client: opt.Client, Warn: opt.Warn}
	for k, vs := range u.Query() {
		v := vs[len(vs)-1]
		var d *time.Duration
		switch k {
		case "step":
			d = &p.Step
		case "scrape":
			d = &p.Scrape
		case "window":
			d = &p.Window
		case "selector":
			p.Selector = v
			continue
		default:
			return nil, fmt.Errorf("prometheus source %q: unknown parameter %q: want step, scrape, window or selector", spec, k)
		}
		if *d, err = time.ParseDuration(v); err != nil || *d <= 0 {
			return nil, fmt.Errorf("prometheus source %q: %s=%q: want a positive duration such as 15s", spec, k, v)
		}
	}
	u.RawQuery, u.Fragment = "", ""
	p.URL = u.String()
	return p, nil
}

// sourceFilter passes on the samples between from and to (zero: open) and
// stops when ctx is done.
func sourceFilter(ctx context.Context, from, to time.Time, fn func(*model.Sample) error) func(*model.Sample) error {
	lo, hi := int64(-1<<63), int64(1<<63-1)
	if !from.IsZero() {
		lo = from.UnixMilli()
	}
	if !to.IsZero() {
		hi = to.UnixMilli()
	}
	n := 0
	return func(s *model.Sample) error {
		if n++; n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if s.Time < lo || s.Time > hi {
			return nil
		}
		return fn(s)
	}
}

// dir reads every metric file under the folder root, going on past files
// read in part.
func (f files) dir(ctx context.Context, root string, opt SourceOptions, fn func(*model.Sample) error) error {
	found := 0
	var partial []error
	err := fs.WalkDir(f.fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("metric source: %w", err)
		}
		if name != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		kind, err := f.sniff(name)
		if err != nil {
			return fmt.Errorf("metric source: %w", err)
		}
		if kind == sourceUnknown {
			if opt.Warn != nil {
				opt.Warn(f.display(name) + ": skipped: not a metric file")
			}
			return nil
		}
		found++
		err = f.readFile(ctx, name, kind, opt, fn)
		if errors.Is(err, ErrPartial) {
			partial = append(partial, err)
			return nil
		}
		return err
	})
	if err == nil && found == 0 {
		return fmt.Errorf("metric source %s: no metric file in the directory (want CSV, sadf -j JSON, sadc data or nmon files)", f.display(root))
	}
	if err == nil {
		err = errors.Join(partial...)
	}
	return err
}
