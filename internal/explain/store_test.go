package explain

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/history/sqlite"
)

// jobStore writes n runs of one recurring job (the simulator's sort job,
// its 20 distinct days repeated an hour apart under new ids) and, last, a
// run with cause injected, to a SQLite run history; it returns the store
// and the last run's key.
func jobStore(t testing.TB, n int, cause string) (history.Store, string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var days []*history.Run
	for day := range usualDays {
		r, _, _ := simRun(t, "sort", day, "", 7)
		days = append(days, r)
	}
	last, _, _ := simRun(t, "sort", usualDays, cause, 7)
	start := days[0].Start
	var batch []history.Entry
	for i := range n {
		src := days[i%len(days)]
		if i == n-1 {
			src = last
		}
		r := *src
		r.ID = fmt.Sprintf("application_%d_%04d", start/1000, i)
		r.Key = "spark/" + r.ID + "/"
		r.Log = "/logs/" + r.ID
		shift := start + int64(i)*3_600_000 - src.Start
		r.Start += shift
		r.End += shift
		r.LastUpdated += shift
		r.Stages = append([]history.Stage(nil), src.Stages...)
		for j := range r.Stages {
			tm := &r.Stages[j].Times
			tm.SubmitMs += shift
			tm.CompleteMs += shift
		}
		batch = append(batch, history.Entry{State: history.LogState{Path: r.Log, Size: 1, ModTime: r.LastUpdated, Runs: []string{r.Key}},
			Runs: []*history.Run{&r}})
		if len(batch) == 500 || i == n-1 {
			if err := st.Put(ctx, batch...); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return st, fmt.Sprintf("spark/application_%d_%04d/", start/1000, n-1)
}

// explainAtScale: explaining the latest run of a recurring job of 10,000
// runs in a SQLite run history (finding the run, grouping the job's
// variants, reading its usual runs with their detail, explaining, nodes
// judged by nodes) answers in under a second, and says what was injected.
func explainAtScale(t *testing.T, nodes NodeModel) {
	st, key := jobStore(t, 10_000, "input")
	ctx := context.Background()
	var best time.Duration
	var e *Explanation
	for range 3 {
		t0 := time.Now()
		var err error
		if e, err = Run(ctx, st, key, Options{Params: DefaultParams, Nodes: nodes}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(t0); best == 0 || d < best {
			best = d
		}
	}
	t.Logf("explain on a job of 10,000 runs: %v (best of 3): %s", best, e.Summary)
	if best > time.Second {
		t.Errorf("explain took %v, want under a second", best)
	}
	if e.Verdict != Slower || len(e.Causes) == 0 || e.Causes[0].Kind != KindInput || len(e.Usual.Runs) != DefaultParams.Usual {
		t.Errorf("explanation %s with %d usual runs: %s", e.Verdict, len(e.Usual.Runs), e.Summary)
	}
}
