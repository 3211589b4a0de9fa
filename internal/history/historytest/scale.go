package historytest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/diagnose"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// ScaleRuns is how many runs Scale indexes: CLUSTERLENS_SCALE_RUNS, or
// 10,000 (CI's size; docs/PERFORMANCE.md quotes 100,000).
func ScaleRuns() int {
	if n, err := strconv.Atoi(os.Getenv("CLUSTERLENS_SCALE_RUNS")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// fleetStart is when FleetRuns's first run starts: 2026-01-01.
const fleetStart = 1_767_225_600_000

// FleetRuns returns n runs made from the simulator's recurring scenario:
// its applications, with their real stages, hosts and findings, repeated
// under new keys, logs and start times a minute apart from 2026-01-01.
func FleetRuns(t testing.TB, n int) []*history.Run {
	t.Helper()
	sc, err := sim.Named("recurring")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var proto []*history.Run
	for _, a := range res.Apps {
		proto = append(proto, history.FromApp(a, "", false, diagnose.Run(a, diagnose.Options{})))
	}
	out := make([]*history.Run, n)
	for i := range out {
		r := *proto[i%len(proto)]
		r.ID = fmt.Sprintf("application_1_%07d", i)
		r.Key = "spark/" + r.ID + "/"
		r.Log = fmt.Sprintf("/fleet/%03d/%s", i/1000, r.ID)
		r.User = []string{"ana", "bo", "chen", "dee", "eli"}[i%5]
		shift := fleetStart + int64(i)*60_000 - r.Start
		r.Start += shift
		if r.End > 0 {
			r.End += shift
		}
		out[i] = &r
	}
	return out
}

// Timing is one measured query.
type Timing struct {
	What string
	Took time.Duration
	Rows int
}

// Scale puts runs into st, 1,000 to a log as an indexer per folder would,
// and times the queries the API listing and the history command make. With
// settle set, the listing page is timed once right after writing, then
// settle waits for the store to finish what it does after writes (the
// background merges of ClickHouse's parts) before the rest. It fails when
// the listing page or the fleet view takes over limit.
func Scale(t *testing.T, st history.Store, runs []*history.Run, limit time.Duration, settle func()) []Timing {
	ctx := context.Background()
	start := time.Now()
	for i := 0; i < len(runs); i += 1000 {
		batch := runs[i:min(i+1000, len(runs))]
		if err := st.Put(ctx, history.Entry{State: history.LogState{Path: fmt.Sprintf("/fleet/%03d", i/1000), Size: 1, IndexedAt: 1}, Runs: batch}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("put %d runs in %s", len(runs), time.Since(start).Round(time.Millisecond))
	if settle != nil {
		s := time.Now()
		if _, err := st.Runs(ctx, history.Filter{Limit: 100}); err != nil {
			t.Fatal(err)
		}
		t.Logf("listing page right after writing: %s", time.Since(s).Round(time.Microsecond))
		s = time.Now()
		settle()
		t.Logf("settled in %s", time.Since(s).Round(time.Millisecond))
	}
	var out []Timing
	// Each query is timed as the best of three, as a user's second look is.
	time3 := func(what string, f func() (int, error)) time.Duration {
		best := time.Duration(1 << 62)
		rows := 0
		for range 3 {
			s := time.Now()
			n, err := f()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			best, rows = min(best, time.Since(s)), n
		}
		out = append(out, Timing{what, best, rows})
		return best
	}
	page := time3("listing page: 100 newest runs and the count", func() (int, error) {
		rs, err := st.Runs(ctx, history.Filter{Limit: 100})
		if err != nil {
			return 0, err
		}
		_, err = st.Count(ctx, history.Filter{})
		return len(rs), err
	})
	fleet := time3("history: 50 newest runs of one user with a severe finding, and the count", func() (int, error) {
		f := history.Filter{User: "bo", MinSeverity: finding.Moderate, Limit: 50}
		rs, err := st.Runs(ctx, f)
		if err != nil {
			return 0, err
		}
		_, err = st.Count(ctx, f)
		return len(rs), err
	})
	time3("history: name search", func() (int, error) {
		rs, err := st.Runs(ctx, history.Filter{Name: "SESSIONS", Limit: 50})
		return len(rs), err
	})
	time3("history jobs: every recurring job summarized", func() (int, error) {
		js, err := history.Jobs(ctx, st, history.GroupOptions{})
		return len(js), err
	})
	host := runs[0].Hosts[0].Host
	time3("history node: one host's 100 latest runs", func() (int, error) {
		n, err := history.NodeHistory(ctx, st, host, 100)
		if err != nil {
			return 0, err
		}
		return len(n.Runs), nil
	})
	time3("listing: every run", func() (int, error) {
		rs, err := st.Runs(ctx, history.Filter{})
		return len(rs), err
	})
	for _, tm := range out {
		t.Logf("%-72s %8s  %d rows", tm.What, tm.Took.Round(time.Microsecond), tm.Rows)
	}
	if page > limit || fleet > limit {
		t.Errorf("with %d runs the listing page took %s and the fleet view %s, want under %s", len(runs), page, fleet, limit)
	}
	return out
}
