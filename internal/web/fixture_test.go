package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/diagnose"
	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/history"
	historysqlite "github.com/clusterlens/clusterlens/internal/history/sqlite"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/sim"
	"github.com/clusterlens/clusterlens/internal/store"
	samplesqlite "github.com/clusterlens/clusterlens/internal/store/sqlite"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// fixture is a UI over the simulator's recurring scenario: its Spark
// applications as the logs would give them, every application indexed into
// a SQLite run history (with its findings), its node metrics in a SQLite
// sample store (one sample every 10 s), and a Ganesha profile trained on
// them, served on loopback.
type fixture struct {
	apps    []*model.App // every application, Spark and MapReduce
	spark   []*model.App
	sql     []*model.App // Spark SQL applications, in the logs only
	hist    history.Store
	samples store.Store
	prof    *peer.Profile
	// last is the time of the last sample: the node pages' window ends
	// there.
	last int64
	ui   *UI
	srv  *httptest.Server
}

var (
	fixtureOnce sync.Once
	fixtureVal  *fixture
	fixtureErr  error
	fixtureDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureVal != nil {
		fixtureVal.srv.Close()
		fixtureVal.hist.Close()
		fixtureVal.samples.Close()
	}
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// getFixture builds the fixture once for the package's tests.
func getFixture(t testing.TB) *fixture {
	t.Helper()
	fixtureOnce.Do(func() { fixtureVal, fixtureErr = buildFixture() })
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixtureVal
}

func buildFixture() (*fixture, error) {
	dir, err := os.MkdirTemp("", "clusterlens-web-")
	if err != nil {
		return nil, err
	}
	fixtureDir = dir
	sc, err := sim.Named("recurring")
	if err != nil {
		return nil, err
	}
	// A sample every 10 s (not every second): 360,000 samples to store,
	// which SQLite takes seconds over, not a minute.
	sc.Metrics.IntervalS = 10
	return buildFixtureFrom(sc, dir, false)
}

// buildFixtureFrom builds the fixture of scenario sc in dir; with atEnd the
// UI's clock stands at the last sample (the live nodes page then shows the
// scenario's last minutes).
func buildFixtureFrom(sc *sim.Scenario, dir string, atEnd bool) (*fixture, error) {
	ctx := context.Background()
	var csv bytes.Buffer
	res, err := sim.Simulate(sc, 1, &csv)
	if err != nil {
		return nil, err
	}
	f := &fixture{apps: res.Apps}
	for _, a := range res.Apps {
		if a.Engine == model.Spark {
			f.spark = append(f.spark, a)
		}
	}
	// The node metrics, in batches as agents ship them, and the profile.
	ss, err := samplesqlite.Open(filepath.Join(dir, "samples.db"))
	if err != nil {
		return nil, err
	}
	f.samples = ss
	tb := peer.NewTable(peer.GaneshaMetrics)
	batch := &wire.Batch{Agent: "sim", Seq: 1}
	flush := func() error {
		if len(batch.Samples) == 0 {
			return nil
		}
		if _, err := ss.Append(ctx, batch); err != nil {
			return err
		}
		batch = &wire.Batch{Agent: "sim", Seq: batch.Seq + 1}
		return nil
	}
	err = metrics.ReadCSV(&csv, "metrics.csv", func(s *model.Sample) error {
		tb.Add(s)
		f.last = max(f.last, s.Time)
		batch.Samples = append(batch.Samples, *s)
		if len(batch.Samples) == 20_000 {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	var vectors [][]float64
	tb.Each(func(_ string, _ int64, x []float64) { vectors = append(vectors, slices.Clone(x)) })
	if f.prof, err = peer.Train(vectors, peer.GaneshaMetrics, peer.DefaultTrainOptions(), peer.DefaultParams()); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	// The run history, one log per application as an index pass writes it.
	hs, err := historysqlite.Open(ctx, filepath.Join(dir, "history.db"))
	if err != nil {
		return nil, err
	}
	f.hist = hs
	var entries []history.Entry
	for _, a := range res.Apps {
		log := "/logs/" + a.ID
		entries = append(entries, history.Entry{State: history.LogState{Path: log, Size: 1, ModTime: a.End},
			Runs: []*history.Run{history.FromApp(a, log, false, diagnose.Run(a, diagnose.Options{}))}})
	}
	if err := hs.Put(ctx, entries...); err != nil {
		return nil, err
	}
	// Spark SQL applications (sql-skew: joins with a skewed stage) for the
	// SQL pages, served from the logs only.
	sq, err := sim.Named("sql-skew")
	if err != nil {
		return nil, err
	}
	sqlRes, err := sim.Simulate(sq, 1, nil)
	if err != nil {
		return nil, err
	}
	// Through their logs, as serve reads them: the decoder aggregates the
	// operators' metrics from the tasks.
	for _, a := range sqlRes.Apps {
		var log bytes.Buffer
		if err := eventlog.Write(&log, a); err != nil {
			return nil, err
		}
		read, err := eventlog.Read(a.ID, &log)
		if err != nil {
			return nil, err
		}
		f.sql = append(f.sql, read)
	}
	o := Options{Apps: shs.Static(shs.NewIndex(append(slices.Clone(f.spark), f.sql...))), History: hs, Metrics: driver.StoreMetrics(ss), Peer: f.prof}
	if atEnd {
		o.Now = func() time.Time { return time.UnixMilli(f.last + 1000) }
	}
	f.ui, err = New(o)
	if err != nil {
		return nil, err
	}
	f.srv = httptest.NewServer(f.ui)
	return f, nil
}

// get fetches a page from the fixture's server.
func (f *fixture) get(t testing.TB, path string) (int, string) {
	t.Helper()
	res, err := http.Get(f.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(res.Body); err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b.String()
}

// nodeTo is the node pages' "to" parameter: the last sample's time.
func (f *fixture) nodeTo() string {
	return time.UnixMilli(f.last + 1000).UTC().Format(time.RFC3339)
}
