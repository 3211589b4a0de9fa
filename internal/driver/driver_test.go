package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/sim"
	samplesqlite "github.com/clusterlens/clusterlens/internal/store/sqlite"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// hog is a simulated CPU hog's applications, its node metrics as a CSV
// file (what analyze --metrics reads) and the same samples in a SQLite
// sample store (what serve reads), and a profile trained on them.
type hog struct {
	apps      []*model.App
	csv, db   string
	culprit   string
	prof      *peer.Profile
	asFile    *Metrics
	asStore   *Metrics
	first, to int64
}

func newHog(t *testing.T) *hog {
	t.Helper()
	sc, err := sim.Named("cpu-hog")
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	res, err := sim.Simulate(sc, 3, &csv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h := &hog{apps: res.Apps, csv: filepath.Join(dir, "metrics.csv"), db: filepath.Join(dir, "samples.db"), culprit: res.Truth.Faults[0].Host}
	if err := os.WriteFile(h.csv, csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := samplesqlite.Open(h.db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	tb := peer.NewTable(peer.GaneshaMetrics)
	b := &wire.Batch{Agent: "sim", Seq: 1}
	h.first = 1 << 62
	err = metrics.ReadCSV(bytes.NewReader(csv.Bytes()), "metrics.csv", func(s *model.Sample) error {
		tb.Add(s)
		h.first, h.to = min(h.first, s.Time), max(h.to, s.Time)
		b.Samples = append(b.Samples, *s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	var vectors [][]float64
	tb.Each(func(_ string, _ int64, x []float64) { vectors = append(vectors, slices.Clone(x)) })
	if h.prof, err = peer.Train(vectors, peer.GaneshaMetrics, peer.DefaultTrainOptions(), peer.DefaultParams()); err != nil {
		t.Fatal(err)
	}
	h.asFile, h.asStore = OpenMetrics(h.csv, nil), StoreMetrics(st)
	return h
}

// TestFileAndStoreAnswerAlike: the command line reads node metrics from
// files, the server from its sample store; the same samples through
// either give the same samples for a query, the same analyses and the
// same peer diagnosis, and the diagnosis indicts the simulator's culprit.
func TestFileAndStoreAnswerAlike(t *testing.T) {
	h := newHog(t)
	ctx := context.Background()

	// A query by host, types and time.
	q := Query{From: time.UnixMilli(h.first + 60_000), To: time.UnixMilli(h.first + 120_000), Hosts: []string{h.culprit}, Types: []string{"cpu_user_pct", "load1"}}
	read := func(m *Metrics) []model.Sample {
		var out []model.Sample
		if err := m.Read(ctx, q, func(s *model.Sample) error { out = append(out, *s); return nil }); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(out, func(a, b model.Sample) int { return int(a.Time-b.Time)*4 + len(a.Type) - len(b.Type) })
		return out
	}
	fromFile, fromStore := read(h.asFile), read(h.asStore)
	if len(fromFile) == 0 {
		t.Fatal("no sample of two metrics over a minute")
	}
	t.Logf("%d samples of the query", len(fromFile))
	if !reflect.DeepEqual(fromFile, fromStore) {
		t.Errorf("the file gives %d samples, the store %d, or they differ", len(fromFile), len(fromStore))
	}

	// The analyses, with the node diagnosis.
	in := Analyses{Skew: 2 * time.Second, Nodes: &NodeInputs{Profile: h.prof, ProfileName: "trained"}}
	analyze := func(m *Metrics) []string {
		in.Metrics = m
		as, err := Analyze(ctx, h.apps, in)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range as {
			if a.Metrics == nil {
				out = append(out, a.Summary.App.ID+" no metrics")
				continue
			}
			for _, f := range a.Findings {
				out = append(out, a.Summary.App.ID+" "+f.ID+" "+f.Summary)
			}
		}
		return out
	}
	fa, sa := analyze(h.asFile), analyze(h.asStore)
	t.Logf("%d findings", len(fa))
	if !slices.Equal(fa, sa) || !slices.ContainsFunc(fa, func(f string) bool { return strings.Contains(f, "culprit-node") }) {
		t.Errorf("findings from the file (want a culprit-node finding):\n%q\nfrom the store:\n%q", fa, sa)
	}

	// The peer diagnosis, culprits named by the applications' workload.
	diagnose := func(m *Metrics) *peer.Report {
		rep, err := DiagnosePeers(ctx, m, time.Time{}, time.Time{}, Peers{Profile: h.prof, Workload: peer.NewWorkload(h.apps), Attribute: true})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	f, s := diagnose(h.asFile), diagnose(h.asStore)
	if !reflect.DeepEqual(f, s) {
		t.Errorf("peer diagnosis from the file %+v\nfrom the store %+v", f, s)
	}
	var culprits []string
	for _, v := range f.Verdicts {
		if v.Role == "culprit" {
			culprits = append(culprits, v.Host)
		}
	}
	if !slices.Equal(culprits, []string{h.culprit}) {
		t.Errorf("culprits %v, want the simulated hog %s", culprits, h.culprit)
	}
}

// TestSharedStore: a server's store that holds nothing of an
// application's run gives it no metrics, where a source the user named
// gives its (empty) correlation; a source that cannot be read is the
// command's failure, named as a *MetricsError, and a note in the server's
// analysis.
func TestSharedStore(t *testing.T) {
	sc, err := sim.Named("skew")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	apps := res.Apps[:1]
	st, err := samplesqlite.Open(filepath.Join(t.TempDir(), "empty.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	as, err := Analyze(t.Context(), apps, Analyses{Metrics: StoreMetrics(st), Shared: true, Nodes: &NodeInputs{}})
	if err != nil || as[0].Metrics != nil || as[0].Nodes != nil {
		t.Errorf("shared empty store: err %v, metrics %v, nodes %v", err, as[0].Metrics != nil, as[0].Nodes != nil)
	}
	as, err = Analyze(t.Context(), apps, Analyses{Metrics: StoreMetrics(st)})
	if err != nil || as[0].Metrics == nil {
		t.Errorf("named empty store: err %v, metrics %v", err, as[0].Metrics)
	}
	missing := OpenMetrics(filepath.Join(t.TempDir(), "none.db"), nil)
	_, err = Analyze(t.Context(), apps, Analyses{Metrics: missing})
	var me *MetricsError
	if !errors.As(err, &me) {
		t.Errorf("missing store: %v, want a *MetricsError", err)
	}
	as, err = Analyze(t.Context(), apps, Analyses{Metrics: missing, Shared: true})
	if err != nil || len(as[0].Notes) == 0 || !strings.HasPrefix(as[0].Notes[len(as[0].Notes)-1], "node metrics: ") {
		t.Errorf("missing shared store: err %v, notes %q", err, as[0].Notes)
	}
}

// TestPrometheusWarningsSaid: the warnings Prometheus attaches to its
// answers reach the user once each, not dropped.
func TestPrometheusWarningsSaid(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"instance":"n1:9100"},"values":[[1.000,"1"]]}]},"warnings":["PromQL info: metric might not be a counter"]}`)
	}))
	defer srv.Close()
	var notes []string
	from := time.UnixMilli(1000)
	err := OpenMetrics(srv.URL, func(s string) { notes = append(notes, s) }).Read(t.Context(), Query{From: from, To: from.Add(time.Second)}, func(*model.Sample) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "Prometheus warned on ") || !strings.HasSuffix(notes[0], " queries: PromQL info: metric might not be a counter") {
		t.Fatalf("notes %q, want the warning once", notes)
	}
}
