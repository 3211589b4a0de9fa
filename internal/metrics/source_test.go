package metrics

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/mapreduce"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestReadSourceSimulatorDir reads a whole simulator output folder (event
// logs, histories, truth.json, phases.csv.zst beside metrics.csv.zst) plus
// a sadf -j file and checks that exactly the metric rows truth.json counts
// and the sadf samples come back, every one a canonical metric; then reads
// a time window of it and checks the bounds.
func TestReadSourceSimulatorDir(t *testing.T) {
	dir := t.TempDir()
	sc, err := sim.Named("demo")
	if err != nil {
		t.Fatal(err)
	}
	enc := sim.Encoders{SparkFile: eventlog.WriteFile, SparkRolling: eventlog.WriteRolling,
		RollingDirName: eventlog.RollingDirName, Jhist: mapreduce.WriteJhist, Conf: mapreduce.WriteConf}
	res, err := sim.Run(sc, 1, dir, enc)
	if err != nil {
		t.Fatal(err)
	}
	sadf, err := os.ReadFile("testdata/sadf-11.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "node02.sadf"), sadf, 0o644); err != nil {
		t.Fatal(err)
	}
	var skipped []string
	n, sysstat := 0, 0
	opt := SourceOptions{Warn: func(m string) { skipped = append(skipped, m) }}
	err = ReadSourceWith(context.Background(), dir, time.Time{}, time.Time{}, opt, func(s *model.Sample) error {
		if model.NodeMetricIndex(s.Type) < 0 {
			t.Fatalf("sample %+v: not a canonical metric", s)
		}
		if s.Host == "node02" || s.Host == "node03" {
			sysstat++
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if int64(n-sysstat) != res.Truth.Metrics.Rows || sysstat != 25 {
		t.Fatalf("%d simulator rows and %d sysstat samples, truth.json says %d and the file holds 25", n-sysstat, sysstat, res.Truth.Metrics.Rows)
	}
	for _, want := range []string{"truth.json", "scenario.json", "phases.csv.zst", ".jhist"} {
		if !strings.Contains(strings.Join(skipped, "\n"), want) {
			t.Errorf("%s not reported as skipped: %v", want, skipped)
		}
	}

	from := time.UnixMilli(res.Truth.StartMs + 30_000)
	to := from.Add(10 * time.Second)
	n = 0
	err = ReadSource(context.Background(), filepath.Join(dir, sim.MetricsFile), from, to, func(s *model.Sample) error {
		if s.Time < from.UnixMilli() || s.Time > to.UnixMilli() {
			t.Fatalf("sample at %d outside [%d, %d]", s.Time, from.UnixMilli(), to.UnixMilli())
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := 11 * len(res.Truth.Nodes) * res.Truth.Metrics.Metrics; n != want {
		t.Fatalf("%d samples in 10 s, want %d (11 seconds × %d nodes × %d metrics)", n, want, len(res.Truth.Nodes), res.Truth.Metrics.Metrics)
	}
}

func TestReadSourceErrors(t *testing.T) {
	dir := t.TempDir()
	noop := func(*model.Sample) error { return nil }
	ctx := context.Background()
	if err := ReadSource(ctx, dir, time.Time{}, time.Time{}, noop); err == nil || !strings.Contains(err.Error(), "no metric file") {
		t.Errorf("empty directory: %v", err)
	}
	other := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(other, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReadSource(ctx, other, time.Time{}, time.Time{}, noop); err == nil || !strings.Contains(err.Error(), "notes.txt: not a metric file") {
		t.Errorf("text file: %v", err)
	}
	if err := ReadSource(ctx, filepath.Join(dir, "absent.csv"), time.Time{}, time.Time{}, noop); err == nil || !strings.Contains(err.Error(), "absent.csv") {
		t.Errorf("missing file: %v", err)
	}
	for spec, want := range map[string]string{
		"http://127.0.0.1:1?step=fast": `step="fast": want a positive duration`,
		"http://127.0.0.1:1?foo=1":     `unknown parameter "foo"`,
	} {
		if err := ReadSource(ctx, spec, time.Time{}, time.Time{}, noop); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
}

// TestReadSourcePrometheusURL checks that the URL's parameters tune the
// queries and are not sent, and that zero times mean the last hour.
func TestReadSourcePrometheusURL(t *testing.T) {
	var got []map[string]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		got = append(got, map[string]string{"path": r.URL.Path, "rawquery": r.URL.RawQuery, "query": r.Form.Get("query"),
			"start": r.Form.Get("start"), "end": r.Form.Get("end"), "step": r.Form.Get("step")})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix", "result": []any{}}})
	}))
	defer srv.Close()
	spec := srv.URL + "/prom?step=15s&scrape=15s&selector=" + `job%3D%22node%22`
	if err := ReadSource(context.Background(), spec, time.Time{}, time.Time{}, func(*model.Sample) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(promQueries) {
		t.Fatalf("%d requests, want %d", len(got), len(promQueries))
	}
	r := got[0]
	if r["path"] != "/prom/api/v1/query_range" || r["rawquery"] != "" || r["step"] != "15" || !strings.Contains(r["query"], `job="node"`) || !strings.Contains(r["query"], "[60000ms]") {
		t.Fatalf("request %v", r)
	}
	var start, end float64
	json.Unmarshal([]byte(r["start"]), &start)
	json.Unmarshal([]byte(r["end"]), &end)
	if end-start != 3600 || time.Since(time.Unix(int64(end), 0)) > time.Minute {
		t.Fatalf("range %v..%v, want the last hour", r["start"], r["end"])
	}
}
