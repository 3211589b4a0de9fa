package cli

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
)

func init() {
	register(func(e *env) *cobra.Command {
		return &cobra.Command{
			Use:   "api PATH REQUEST",
			Short: "Answer one Spark History Server REST request offline",
			Long: `api reads the Spark event logs in PATH (a log file or a folder of logs) and answers
REQUEST as the Spark History Server's REST API (/api/v1) would, printing its JSON.
REQUEST is the path under /api/v1/ with its query, for example

  clusterlens api /var/log/spark-events 'applications/app-1/stages/0/0/taskList?sortBy=-runtime'

A request the History Server would refuse prints its status and message and exits 1.
See docs/API.md for the endpoints and parameters.`,
			Args: cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				return runAPI(e, args[0], args[1])
			},
		}
	})
}

// runAPI loads the logs at path and answers one request.
func runAPI(e *env, path, request string) error {
	p, rawQuery, _ := strings.Cut(request, "?")
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("request query %q: %w", rawQuery, err))
	}
	apps, problems, err := loadSparkLogs(path)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintln(e.stderr, "clusterlens: warning:", p)
	}
	v, err := shs.NewIndex(apps).Get(p, q)
	if err != nil {
		var apiErr *shs.Error
		if errors.As(err, &apiErr) {
			return fmt.Errorf("%s %d: %s", request, apiErr.Status, apiErr.Message)
		}
		return err
	}
	body, err := shs.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	if _, err := e.stdout.Write(body); err != nil {
		return fmt.Errorf("write response: %w", err)
	}
	if len(problems) > 0 {
		return withCode(ExitPartial, fmt.Errorf("%d of the logs in %s could not be read fully", len(problems), path))
	}
	return nil
}

// loadSparkLogs reads the Spark event logs at path: one log file, or a
// folder holding log files, rolling-log folders (eventlog_v2_*) and Spark
// 1.x log folders (with an EVENT_LOG_1 file). Compressed logs are
// decompressed by name and magic number. Files that are not event logs are
// skipped; logs that could only be read in part are returned with a
// problem each.
func loadSparkLogs(path string) (apps []*model.App, problems []error, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open logs: %w", err)
	}
	if !st.IsDir() {
		a, err := readLog(path, []string{path}, codec.None)
		if err != nil {
			return nil, nil, err
		}
		return []*model.App{a}, nil, nil
	}
	if a, ok, err := readLogDir(path); ok {
		if err != nil {
			return nil, nil, err
		}
		return []*model.App{a}, nil, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, nil, fmt.Errorf("list logs: %w", err)
	}
	for _, ent := range ents {
		name := ent.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(path, name)
		var a *model.App
		var err error
		if ent.IsDir() {
			var ok bool
			if a, ok, err = readLogDir(p); !ok {
				continue
			}
		} else {
			a, err = readLog(p, []string{p}, codec.None)
		}
		if errors.Is(err, eventlog.ErrNotEventLog) {
			continue
		}
		if err != nil {
			problems = append(problems, err)
		}
		if a != nil && a.ID != "" {
			apps = append(apps, a)
		}
	}
	return apps, problems, nil
}

// readLogDir reads a rolling event-log folder (eventlog_v2_*: parts
// events_<n>_* in order) or a Spark 1.x log folder (EVENT_LOG_1 with a
// COMPRESSION_CODEC_* marker). ok is false for any other folder.
func readLogDir(dir string) (*model.App, bool, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, nil
	}
	var parts []string
	hint := codec.None
	legacy := false
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasPrefix(n, "events_"):
			parts = append(parts, n)
		case strings.HasPrefix(n, "EVENT_LOG_"):
			parts = append(parts, n)
			legacy = true
		case strings.HasPrefix(n, "COMPRESSION_CODEC_"):
			if c, ok := codec.ParseName(strings.TrimPrefix(n, "COMPRESSION_CODEC_")); ok {
				hint = c
			}
		}
	}
	if len(parts) == 0 || !legacy && !strings.HasPrefix(filepath.Base(dir), "eventlog_v2_") {
		return nil, false, nil
	}
	sort.Slice(parts, func(i, j int) bool { return partIndex(parts[i]) < partIndex(parts[j]) })
	paths := make([]string, len(parts))
	for i, p := range parts {
		paths[i] = filepath.Join(dir, p)
	}
	a, err := readLog(dir, paths, hint)
	return a, true, err
}

// partIndex is the number of a rolling part "events_<n>_..." or "EVENT_LOG_<n>".
func partIndex(name string) int {
	s := strings.TrimPrefix(strings.TrimPrefix(name, "events_"), "EVENT_LOG_")
	if i := strings.IndexByte(s, '_'); i >= 0 {
		s = s[:i]
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 1 << 30
	}
	return n
}

// readLog decodes the parts of one application's log in order. The
// application's last update is the newest part's modification time.
func readLog(name string, parts []string, hint codec.Codec) (*model.App, error) {
	d := eventlog.NewDecoder()
	var last int64
	var firstErr error
	for _, p := range parts {
		if err := feedPart(d, p, hint, &last); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	a := d.App()
	a.LastUpdated, a.Source = last, name
	if d.Events() == 0 {
		if firstErr != nil {
			return nil, firstErr
		}
		return nil, fmt.Errorf("%s: %w", name, eventlog.ErrNotEventLog)
	}
	return a, firstErr
}

// feedPart decompresses and decodes one file into d.
func feedPart(d *eventlog.Decoder, path string, hint codec.Codec, last *int64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.ModTime().UnixMilli() > *last {
		*last = st.ModTime().UnixMilli()
	}
	r, _, err := codec.OpenAs(path, f, hint)
	if err != nil {
		return fmt.Errorf("open log %q: %w", path, err)
	}
	defer r.Close()
	return d.Feed(path, r)
}
