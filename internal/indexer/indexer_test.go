package indexer

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/history"
	chstore "github.com/clusterlens/clusterlens/internal/history/clickhouse"
	"github.com/clusterlens/clusterlens/internal/history/sqlite"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

func openStore(t *testing.T) history.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Every real log is indexed: as many runs as the loader gives applications
// (less those with the same application id and attempt in two logs, which
// the History Server too keeps once), each with its stages; a second pass
// over unchanged logs reads nothing and takes under a second of CPU (wall
// time on a loaded machine measures the other processes).
func TestIndexRealLogs(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	st := openStore(t)
	ctx := context.Background()
	start := time.Now()
	stats, err := Pass(ctx, st, []string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first pass: %d logs, %d runs (%d kept, %d moved), %d failed, %d bytes in %s", stats.Logs, stats.Runs, stats.Kept, stats.Moved, stats.Failed, stats.Bytes, time.Since(start))
	res, err := decodelogs.Paths([]string{root}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	withID := 0
	failed := map[string]bool{} // logs read in part (load's Problems) or with an application without id
	for _, a := range res.Apps {
		if a.ID != "" {
			ids[history.RunKey(a)] = true
			withID++
		} else {
			failed[a.Source] = true
		}
	}
	logs, _, _ := decodelogs.Find([]string{root}, decodelogs.Options{})
	for _, l := range logs {
		if _, err := decodelogs.Log(l, decodelogs.Options{}); err != nil {
			failed[l.Name] = true
		}
	}
	n, err := st.Count(ctx, history.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	// What the pass says it kept is what the history holds (issue 23: it
	// said "355 runs written" of a history of 264).
	if stats.Runs != withID || n != stats.Kept || stats.Kept+stats.Repeated != stats.Runs || n < len(ids) ||
		stats.Moved != 0 || stats.Failed != len(failed) {
		t.Fatalf("%d runs written, %d kept, %d repeated, %d held (%d moved, %d failed); the loader reads %d applications, %d with an id, %d distinct keys, %d logs in part or without an id",
			stats.Runs, stats.Kept, stats.Repeated, n, stats.Moved, stats.Failed, len(res.Apps), withID, len(ids), len(failed))
	}
	t.Logf("%d runs written, %d kept, %d repeat another log's; the history holds %d", stats.Runs, stats.Kept, stats.Repeated, n)
	if stats.Read != stats.Logs || stats.Logs < 130 {
		t.Fatalf("first pass read %d of %d logs", stats.Read, stats.Logs)
	}
	runs, err := st.Runs(ctx, history.Filter{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	withStages := 0
	for _, r := range runs {
		// No run at 1970 (two logs have no application start); no run
		// with events and no end shows a 0 duration.
		if r.Start < 946_684_800_000 || r.End == 0 && r.Totals.Tasks > 0 && r.DurationMs <= 0 || r.DurationMs > 365*86_400_000 {
			t.Errorf("run %s: start %d, end %d, duration %d ms", r.Key, r.Start, r.End, r.DurationMs)
		}
		if len(r.Stages) > 0 {
			withStages++
		}
		if r.JobKey == "" || r.Status == "" || r.Engine == "" {
			t.Errorf("run %s lacks its job key, status or engine: %+v", r.Key, r)
		}
	}
	if withStages < len(runs)*8/10 {
		t.Errorf("only %d of %d runs have stages", withStages, len(runs))
	}
	start, cpu := time.Now(), sharedtest.ProcessCPU()
	again, err := Pass(ctx, st, []string{root}, Options{})
	took, tookCPU := time.Since(start), sharedtest.ProcessCPU()-cpu
	if err != nil {
		t.Fatal(err)
	}
	if again.Unchanged != again.Logs || again.Bytes != 0 || again.Runs != 0 {
		t.Fatalf("second pass over unchanged logs: %+v, want all unchanged and nothing read", *again)
	}
	if tookCPU > time.Second {
		t.Errorf("second pass took %s of CPU, want under a second", tookCPU)
	}
	t.Logf("second pass: %d logs unchanged in %s (%s of CPU)", again.Logs, took, tookCPU)
}

// writeLog appends data to path.
func appendTo(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func realLog(t *testing.T) []byte {
	t.Helper()
	p := filepath.Join(sharedtest.Dir(t, "logs"), "rapids-tools/core/src/test/resources/spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, _, err := codec.Open(p, f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A running application's log grown by 1 MB costs about 1 MB of reading,
// and its run in the history follows it.
func TestIndexGrowingLog(t *testing.T) {
	data := realLog(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "app-1.inprogress")
	st := openStore(t)
	ctx := context.Background()
	appendTo(t, path, data[:len(data)/2])
	first, err := Pass(ctx, st, []string{dir}, Options{})
	if err != nil || first.Read != 1 {
		t.Fatalf("first pass: %+v, %v", first, err)
	}
	before, _ := st.Runs(ctx, history.Filter{})
	const grow = 1 << 20
	appendTo(t, path, data[len(data)/2:len(data)/2+grow])
	second, err := Pass(ctx, st, []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if second.Resumed != 1 || second.Bytes < grow || second.Bytes > grow+64<<10 {
		t.Fatalf("after growing by %d bytes: %+v; want it read on, about %d bytes", grow, *second, grow)
	}
	after, _ := st.Runs(ctx, history.Filter{})
	if len(before) != 1 || len(after) != 1 || after[0].Totals.Tasks <= before[0].Totals.Tasks || after[0].Status != history.StatusRunning {
		t.Fatalf("the run did not follow the log: before %+v, after %+v", before[0].Totals, after[0].Totals)
	}
	t.Logf("grown by %d bytes: read %d; tasks %d -> %d", grow, second.Bytes, before[0].Totals.Tasks, after[0].Totals.Tasks)
	// The application ends and its log is renamed: read whole under the new
	// name, the run moves there, and pruning forgets the old name.
	appendTo(t, path, data[len(data)/2+grow:])
	final := filepath.Join(dir, "app-1")
	if err := os.Rename(path, final); err != nil {
		t.Fatal(err)
	}
	third, err := Pass(ctx, st, []string{dir}, Options{Prune: true})
	if err != nil || third.Read != 1 || third.Pruned != 1 || third.Moved != 1 {
		t.Fatalf("after the rename: %+v, %v; want the new log read, the run moved and the old name pruned", third, err)
	}
	done, _ := st.Runs(ctx, history.Filter{})
	logs, _ := st.Logs(ctx)
	if len(done) != 1 || done[0].Log != final || done[0].Status != history.StatusSucceeded && done[0].Status != history.StatusFailed || len(logs) != 1 {
		t.Fatalf("after the rename: runs %+v, logs %+v", done, logs)
	}
	if res, _ := st.Resume(ctx, path); res != nil {
		t.Errorf("the old name's resume state was kept")
	}
}

// A log that cannot be indexed (here one whose only line is cut short: no
// event at all) is recorded with its error, not retried while unchanged,
// and read again once it changes.
func TestIndexFailedLogRetried(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app-2")
	if err := os.WriteFile(path, []byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"`), 0o644); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	ctx := context.Background()
	first, err := Pass(ctx, st, []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := st.Logs(ctx)
	if len(logs) != 1 || first.Failed != 1 || !strings.Contains(logs[0].Error, "no Spark event") || len(logs[0].Runs) != 0 {
		t.Fatalf("a log without an application: %+v, logs %+v; want it recorded as failed with its error", first, logs)
	}
	again, _ := Pass(ctx, st, []string{dir}, Options{})
	if again.Unchanged != 1 || again.Failed != 0 {
		t.Fatalf("unchanged failed log: %+v, want it skipped", *again)
	}
	data := realLog(t)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fixed, err := Pass(ctx, st, []string{dir}, Options{})
	if err != nil || fixed.Read != 1 || fixed.Failed != 0 || fixed.Runs != 1 {
		t.Fatalf("after the log was fixed: %+v, %v; want it read", fixed, err)
	}
	logs, _ = st.Logs(ctx)
	if logs[0].Error != "" {
		t.Fatalf("fixed log still carries error %q", logs[0].Error)
	}
}

// Two indexers on one store, over the same logs at once: nothing is lost
// or doubled.
func TestTwoIndexers(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	sub := filepath.Join(root, "apache-spark")
	path := filepath.Join(t.TempDir(), "h.db")
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	stats := make([]*Stats, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := sqlite.Open(ctx, path) // a store each, as two processes would have
			if err != nil {
				errs[i] = err
				return
			}
			defer st.Close()
			stats[i], errs[i] = Pass(ctx, st, []string{sub}, Options{Workers: 2})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := decodelogs.Paths([]string{sub}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, a := range res.Apps {
		keys[history.RunKey(a)] = true
	}
	runs, err := st.Runs(ctx, history.Filter{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range runs {
		base := strings.SplitN(r.Key, "#", 2)[0]
		if seen[r.Key] {
			t.Errorf("run %s stored twice", r.Key)
		}
		seen[r.Key] = true
		if !keys[base] {
			t.Errorf("run %s is no application of the logs", r.Key)
		}
	}
	if len(seen) < len(keys) {
		t.Fatalf("%d runs stored by two indexers, want the %d applications", len(seen), len(keys))
	}
	t.Logf("two indexers: %+v and %+v; %d runs stored", *stats[0], *stats[1], len(runs))
}

// One indexer per log folder, all writing into one ClickHouse at once:
// every run each folder gives when indexed alone is stored, once, with the
// same totals and stages (an application in two folders as either).
func TestIndexersPerPrefixOnClickHouse(t *testing.T) {
	url := strings.TrimSuffix(sharedtest.Service(t, "CLICKHOUSE_URL"), "/") + fmt.Sprintf("/indexers_%d", time.Now().UnixNano()%1e9)
	root := sharedtest.Dir(t, "logs")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var prefixes []string
	for _, e := range entries {
		if e.IsDir() {
			prefixes = append(prefixes, filepath.Join(root, e.Name()))
		}
	}
	ctx := context.Background()
	// The reference: each folder indexed alone into SQLite. A run whose
	// application is in two folders is held by whichever indexer wrote
	// last, so it must equal one of them.
	want := map[string][]*history.Run{}
	for _, p := range prefixes {
		ref := openStore(t)
		if _, err := Pass(ctx, ref, []string{p}, Options{}); err != nil {
			t.Fatal(err)
		}
		rs, err := ref.Runs(ctx, history.Filter{Detail: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			want[r.Key] = append(want[r.Key], r)
		}
	}
	logsOf := map[string]map[string]bool{} // run key -> the logs holding it
	res, err := decodelogs.Paths(prefixes, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Apps {
		k := history.RunKey(a)
		if logsOf[k] == nil {
			logsOf[k] = map[string]bool{}
		}
		logsOf[k][a.Source] = true
	}
	var wg sync.WaitGroup
	errs := make([]error, len(prefixes))
	for i, p := range prefixes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := chstore.Open(ctx, url)
			if err != nil {
				errs[i] = err
				return
			}
			defer st.Close()
			_, errs[i] = Pass(ctx, st, []string{p}, Options{Workers: 1})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ch, err := chstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.DropDatabase(ctx)
	got, err := ch.Runs(ctx, history.Filter{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range got {
		if seen[r.Key] {
			t.Errorf("run %s stored twice", r.Key)
		}
		seen[r.Key] = true
		same := false
		for _, c := range want[r.Key] {
			same = same || c.Log == r.Log && c.Totals == r.Totals && len(c.Stages) == len(r.Stages) && len(c.Hosts) == len(r.Hosts)
		}
		// An application in two logs of one folder: either log may hold it.
		if logs := logsOf[strings.SplitN(r.Key, "#", 2)[0]]; !same && len(logs) > 1 && logs[r.Log] {
			same = true
		}
		if !same {
			t.Errorf("run %s from %s (totals %+v) is none of the runs its folders give alone", r.Key, r.Log, r.Totals)
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("run %s lost", k)
		}
	}
	t.Logf("%d indexers, one per folder, stored %d runs on ClickHouse, each as its folder indexed alone gives it", len(prefixes), len(got))
}

// TestIndexCountsWhatItKeeps: one application's log in three folders is
// read three times and kept once; the pass says so, and a later pass that
// reads a fourth copy alone says it took the run over (issue 23: index
// said "355 runs written" of a history of 264).
func TestIndexCountsWhatItKeeps(t *testing.T) {
	data := realLog(t)
	root := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		appendTo(t, filepath.Join(root, d, "app"), data)
	}
	st := openStore(t)
	ctx := context.Background()
	stats, err := Pass(ctx, st, []string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := st.Count(ctx, history.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Runs != 3 || stats.Kept != 1 || stats.Repeated != 2 || stats.Moved != 0 || n != 1 {
		t.Fatalf("three copies: %d runs, %d kept, %d repeated, %d moved; history holds %d", stats.Runs, stats.Kept, stats.Repeated, stats.Moved, n)
	}
	other := filepath.Join(t.TempDir(), "app")
	appendTo(t, other, data)
	again, err := Pass(ctx, st, []string{other}, Options{})
	if err != nil || again.Runs != 1 || again.Kept != 1 || again.Repeated != 0 || again.Moved != 1 {
		t.Fatalf("a fourth copy alone: %+v, %v; want 1 run kept, taken over from another log", again, err)
	}
}
