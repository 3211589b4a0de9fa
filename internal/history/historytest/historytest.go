// Package historytest is the conformance suite every history.Store passes:
// exact round trips of runs with their stages, host rows, host facts and
// findings; a
// log's runs replaced as a whole; runs moving between logs (a Spark log
// renamed from .inprogress); every filter, agreeing with Count; variants;
// resume state; concurrent writers; awkward strings; and persistence across
// a reopen.
package historytest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/history"
)

// Opener opens the store under test. Called twice with the same t, it must
// return the same underlying store (for the persistence check); each
// subtest gets a fresh one.
type Opener func(t *testing.T) history.Store

// Run runs the suite.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"RoundTrip", roundTrip},
		{"ReplaceLog", replaceLog},
		{"MoveRun", moveRun},
		{"Filters", filters},
		{"Variants", variants},
		{"Forget", forget},
		{"Resume", resume},
		{"PutMany", putMany},
		{"Concurrent", concurrent},
		{"AwkwardStrings", awkward},
		{"Reopen", reopen},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

// SampleRun returns a plausible run numbered i, drawn from rng: a few
// stages and hosts, findings, one of four recurring jobs.
func SampleRun(rng *rand.Rand, i int) *history.Run {
	job := i % 4
	r := &history.Run{
		Key: fmt.Sprintf("spark/app-%06d/", i), Log: fmt.Sprintf("/logs/app-%06d", i),
		ID: fmt.Sprintf("app-%06d", i), Name: fmt.Sprintf("Job%d run %d", job, i), User: []string{"ana", "bo"}[i%2],
		Engine: "spark", Version: "3.5.1", Status: []history.Status{history.StatusSucceeded, history.StatusFailed}[i%5/4],
		Start: 1_700_000_000_000 + int64(i)*60_000, LastUpdated: 1_700_000_000_000 + int64(i)*60_000 + 50_000,
		NameKey: fmt.Sprintf("job%d run <n>", job), Findings: []history.Finding{},
	}
	r.DurationMs = 1000 + rng.Int64N(40_000)
	r.End = r.Start + r.DurationMs
	r.Cluster = history.Cluster{Hosts: 3, Executors: 3, Cores: 12, ExecutorMemoryMB: 4096, InstanceTypes: "m5.xlarge"}
	r.Totals = history.Totals{Jobs: 2, Stages: 3, Tasks: 30, InputBytes: rng.Int64N(1 << 40), TaskTimeMs: rng.Int64N(1e7),
		CPUTimeMs: rng.Int64N(1e7), GCTimeMs: rng.Int64N(1e5), ShuffleReadBytes: rng.Int64N(1 << 30)}
	for s := range 3 {
		st := history.Stage{ID: int32(s), Name: fmt.Sprintf("map at Job%d.scala:%d", job, 10+s), Signature: fmt.Sprintf("sig%d-%d", job, s),
			Class: history.ClassCPU, Status: "COMPLETE", Tasks: 10, DurationMs: rng.Int64N(10_000),
			Quantiles: [5]float64{1, 2, 3, 4, float64(5 + rng.IntN(100))}, InputBytes: rng.Int64N(1 << 30),
			RunTimeMs: rng.Int64N(1e6), CPUTimeMs: rng.Int64N(1e6), InputRecords: rng.Int64N(1e9)}
		st.Times = history.StageTimes{SubmitMs: r.Start + int64(s)*1000, CompleteMs: r.Start + int64(s)*1000 + st.DurationMs,
			SlotMs: 12 * st.DurationMs, WaitMs: rng.Int64N(1000), FailedMs: rng.Int64N(5000), TaskBytesMedian: rng.Int64N(1 << 27),
			Last: history.LastTask{Host: fmt.Sprintf("host%02d", (s+i)%7), Ms: rng.Int64N(10_000), Bytes: rng.Int64N(1 << 28),
				GCMs: rng.Int64N(500), RetryMs: rng.Int64N(2) * rng.Int64N(3000)}}
		r.Stages = append(r.Stages, st)
		r.DAG = append(r.DAG, st.Signature)
		for h := range 3 {
			r.Hosts = append(r.Hosts, history.HostStage{Stage: int32(s), Host: fmt.Sprintf("host%02d", (h+i)%7), Tasks: 3 + h,
				SumMs: float64(rng.IntN(1e6)) + 0.5, SumSqMs: rng.Float64() * 1e12, SumLog: rng.Float64() * 100,
				SumSqLog: rng.Float64() * 1000, MinMs: rng.Int64N(100), MaxMs: 100 + rng.Int64N(1000), Bytes: rng.Int64N(1 << 30)})
		}
	}
	seen := map[string]bool{}
	for k, h := range r.Hosts {
		if !seen[h.Host] {
			seen[h.Host] = true
			r.HostFacts = append(r.HostFacts, history.HostFact{Host: h.Host, Rack: fmt.Sprintf("/rack-%d", k%2),
				Executors: 1 + k%2, Cores: 4 * (1 + k%3), MemoryMB: 4096, InstanceType: []string{"m5.xlarge", ""}[i%2]})
		}
	}
	sortHosts(r)
	r.DriverMs, r.ExecutorWaitMs = rng.Int64N(5000), rng.Int64N(2)*rng.Int64N(2000)
	if i%5 != 4 { // some runs have no configuration
		r.Config = [][2]string{{"spark.executor.cores", "4"}, {"spark.executor.memory", fmt.Sprintf("%dg", 4+i%2)},
			{"spark.sql.shuffle.partitions", "200"}}
	}
	if job == 1 { // and one job runs SQL
		r.Queries = []history.Query{{ID: 0, Description: "SELECT k, count(*) FROM t GROUP BY k -- 'quoted'", WallMs: 1200,
			Stages: []int32{0, 1}, Plan: []string{"HashAggregate", "Exchange", "HashAggregate", "Scan parquet t"}},
			{ID: 1, Description: "", WallMs: 30, Stages: []int32{}, Plan: []string{}}}
	}
	r.JobKey = history.JobKey(r.Engine, r.NameKey, r.DAG)
	if i%3 == 0 {
		r.Findings = append(r.Findings, history.Finding{Detector: "data-skew", Severity: finding.Severity(1 + i%4),
			Scope: "stage", Title: "Data skew", Summary: fmt.Sprintf("stage 1 of run %d is skewed", i)})
		r.Worst = finding.Severity(1 + i%4)
	}
	return r
}

func sortHosts(r *history.Run) {
	sort.Slice(r.HostFacts, func(i, j int) bool { return r.HostFacts[i].Host < r.HostFacts[j].Host })
	sort.Slice(r.Hosts, func(i, j int) bool {
		a, b := &r.Hosts[i], &r.Hosts[j]
		if a.Stage != b.Stage {
			return a.Stage < b.Stage
		}
		return a.Host < b.Host
	})
}

func logOf(r *history.Run, size int64) history.LogState {
	return history.LogState{Path: r.Log, Size: size, ModTime: r.LastUpdated, Fingerprint: "fp-" + r.ID, IndexedAt: r.LastUpdated + 1}
}

func put(t *testing.T, s history.Store, st history.LogState, runs ...*history.Run) {
	t.Helper()
	if err := s.Put(context.Background(), history.Entry{State: st, Runs: runs}); err != nil {
		t.Fatal(err)
	}
}

func runs(t *testing.T, s history.Store, f history.Filter) []*history.Run {
	t.Helper()
	got, err := s.Runs(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// summaryOnly is r without what only Filter.Detail returns.
func summaryOnly(r *history.Run) *history.Run {
	c := *r
	c.Stages, c.Hosts, c.HostFacts, c.DAG = nil, nil, nil, nil
	c.DriverMs, c.ExecutorWaitMs, c.Config, c.Queries = 0, 0, nil, nil
	return &c
}

func roundTrip(t *testing.T, open Opener) {
	s := open(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var want []*history.Run
	for i := range 12 {
		r := SampleRun(rng, i)
		put(t, s, logOf(r, int64(1000+i)), r)
		want = append(want, r)
	}
	got := runs(t, s, history.Filter{Detail: true, Oldest: true})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("runs read back differ (-put +got):\n%s", diff)
	}
	plain := runs(t, s, history.Filter{Oldest: true})
	for i := range want {
		if diff := cmp.Diff(summaryOnly(want[i]), plain[i]); diff != "" {
			t.Fatalf("run %d without detail differs (-want +got):\n%s", i, diff)
		}
	}
	logs, err := s.Logs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 12 {
		t.Fatalf("%d logs, want 12", len(logs))
	}
	for _, l := range logs {
		if len(l.Runs) != 1 || !strings.HasSuffix(l.Path, strings.Split(l.Runs[0], "/")[1]) || l.Fingerprint == "" {
			t.Fatalf("log state %+v: want its one run and fingerprint", l)
		}
	}
}

func replaceLog(t *testing.T, open Opener) {
	s := open(t)
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := SampleRun(rng, 1), SampleRun(rng, 2)
	b.Log = a.Log
	st := logOf(a, 10)
	put(t, s, st, a, b)
	if n := len(runs(t, s, history.Filter{})); n != 2 {
		t.Fatalf("%d runs after putting a log with two, want 2", n)
	}
	// The log now holds only a, changed: b must go, a must be replaced.
	a2 := SampleRun(rng, 1)
	a2.Name, a2.Log = "renamed", a.Log
	st.Size = 20
	put(t, s, st, a2)
	got := runs(t, s, history.Filter{Detail: true})
	if len(got) != 1 || got[0].Name != "renamed" || len(got[0].Stages) != 3 || len(got[0].Hosts) != 9 {
		t.Fatalf("after replacing the log: %d runs (want 1 named renamed with 3 stages, 9 host rows): %+v", len(got), got)
	}
	// A failed read keeps the state with its error and no runs.
	st.Error, st.Size = "read x: unexpected EOF", 30
	put(t, s, st)
	if n := len(runs(t, s, history.Filter{})); n != 0 {
		t.Fatalf("%d runs after a failed read, want 0", n)
	}
	logs, _ := s.Logs(context.Background())
	if len(logs) != 1 || logs[0].Error != st.Error || logs[0].Size != 30 || len(logs[0].Runs) != 0 {
		t.Fatalf("log state after a failed read: %+v", logs)
	}
}

func moveRun(t *testing.T, open Opener) {
	s := open(t)
	rng := rand.New(rand.NewPCG(5, 6))
	r := SampleRun(rng, 7)
	r.Log = "/logs/app-000007.inprogress"
	r.Status = history.StatusRunning
	put(t, s, logOf(r, 10), r)
	done := *r
	done.Log, done.Status = "/logs/app-000007", history.StatusSucceeded
	put(t, s, logOf(&done, 20), &done)
	got := runs(t, s, history.Filter{})
	if len(got) != 1 || got[0].Log != done.Log || got[0].Status != history.StatusSucceeded {
		t.Fatalf("after the log was renamed: %+v, want the one run read from %s", got, done.Log)
	}
	// Forgetting the old path leaves the run, now the new log's.
	if err := s.Forget(context.Background(), r.Log); err != nil {
		t.Fatal(err)
	}
	if n := len(runs(t, s, history.Filter{})); n != 1 {
		t.Fatalf("forgetting the old path removed the moved run")
	}
}

func filters(t *testing.T, open Opener) {
	s := open(t)
	rng := rand.New(rand.NewPCG(7, 8))
	var all []*history.Run
	for i := range 40 {
		r := SampleRun(rng, i)
		put(t, s, logOf(r, 1), r)
		all = append(all, r)
	}
	all[5].Name = "Nightly_ETL 100% done"
	put(t, s, logOf(all[5], 2), all[5])
	check := func(name string, f history.Filter, keep func(*history.Run) bool) {
		t.Helper()
		var want []string
		for i := len(all) - 1; i >= 0; i-- { // newest first
			if keep(all[i]) {
				want = append(want, all[i].Key)
			}
		}
		n, err := s.Count(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if n != len(want) {
			t.Errorf("%s: Count %d, want %d", name, n, len(want))
		}
		var got []string
		for _, r := range runs(t, s, f) {
			got = append(got, r.Key)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: runs differ (-want +got):\n%s", name, diff)
		}
	}
	check("all", history.Filter{}, func(*history.Run) bool { return true })
	check("user", history.Filter{User: "bo"}, func(r *history.Run) bool { return r.User == "bo" })
	check("name", history.Filter{Name: "JOB2"}, func(r *history.Run) bool { return strings.Contains(strings.ToLower(r.Name), "job2") })
	check("name with wildcards", history.Filter{Name: "100%"}, func(r *history.Run) bool { return strings.Contains(r.Name, "100%") })
	check("name underscore", history.Filter{Name: "y_e"}, func(r *history.Run) bool { return strings.Contains(strings.ToLower(r.Name), "y_e") })
	check("status", history.Filter{Status: history.StatusFailed}, func(r *history.Run) bool { return r.Status == history.StatusFailed })
	check("severity", history.Filter{MinSeverity: finding.Severe}, func(r *history.Run) bool { return r.Worst >= finding.Severe })
	check("time", history.Filter{From: all[10].Start, To: all[20].Start}, func(r *history.Run) bool {
		return r.Start >= all[10].Start && r.Start < all[20].Start
	})
	check("job", history.Filter{JobKeys: []string{all[1].JobKey, all[2].JobKey}}, func(r *history.Run) bool {
		return r.JobKey == all[1].JobKey || r.JobKey == all[2].JobKey
	})
	check("keys", history.Filter{Keys: []string{all[3].Key, all[30].Key, "spark/none/"}}, func(r *history.Run) bool {
		return r == all[3] || r == all[30]
	})
	check("host", history.Filter{Host: "host03"}, func(r *history.Run) bool {
		for _, h := range r.Hosts {
			if h.Host == "host03" {
				return true
			}
		}
		return false
	})
	check("combined", history.Filter{User: "ana", MinSeverity: finding.Low, From: all[4].Start}, func(r *history.Run) bool {
		return r.User == "ana" && r.Worst >= finding.Low && r.Start >= all[4].Start
	})
	briefs, err := s.Briefs(context.Background(), history.Filter{User: "bo"})
	if err != nil {
		t.Fatal(err)
	}
	var wantBriefs []history.Brief
	for _, r := range all {
		if r.User == "bo" {
			wantBriefs = append(wantBriefs, history.Brief{Key: r.Key, ID: r.ID, Attempt: r.Attempt, Name: r.Name, User: r.User,
				Engine: r.Engine, Version: r.Version, Platform: r.Platform, Status: r.Status, JobKey: r.JobKey, Start: r.Start, End: r.End,
				DurationMs: r.DurationMs, LastUpdated: r.LastUpdated, Log: r.Log, Worst: r.Worst})
		}
	}
	if diff := cmp.Diff(wantBriefs, briefs); diff != "" {
		t.Errorf("briefs of bo's runs differ (-want +got):\n%s", diff)
	}
	page := runs(t, s, history.Filter{Limit: 5, Offset: 10})
	if len(page) != 5 || page[0].Key != all[29].Key || page[4].Key != all[25].Key {
		t.Errorf("page of 5 from 10: got %d runs starting %v", len(page), page)
	}
	old := runs(t, s, history.Filter{Limit: 3, Oldest: true})
	if len(old) != 3 || old[0].Key != all[0].Key || old[2].Key != all[2].Key {
		t.Errorf("3 oldest: got %v", old)
	}
	hostOnly := runs(t, s, history.Filter{Host: "host03", Detail: true, Limit: 1})
	if len(hostOnly) != 1 || len(hostOnly[0].Hosts) == 0 || len(hostOnly[0].Stages) != 3 {
		t.Fatalf("host detail: %+v", hostOnly)
	}
	for _, h := range hostOnly[0].Hosts {
		if h.Host != "host03" {
			t.Errorf("host detail returned a row of %s", h.Host)
		}
	}
	if f := hostOnly[0].HostFacts; len(f) != 1 || f[0].Host != "host03" {
		t.Errorf("host detail returned the facts %+v, want host03's alone", f)
	}
}

func variants(t *testing.T, open Opener) {
	s := open(t)
	rng := rand.New(rand.NewPCG(9, 10))
	want := map[string]int{}
	for i := range 21 {
		r := SampleRun(rng, i)
		put(t, s, logOf(r, 1), r)
		want[r.JobKey]++
	}
	vs, err := s.Variants(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, v := range vs {
		got[v.JobKey] = v.Runs
		if len(v.DAG) != 3 || v.Engine != "spark" || !strings.HasPrefix(v.NameKey, "job") {
			t.Errorf("variant %+v: want its engine, name key and 3-stage DAG", v)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("variants' run counts differ (-want +got):\n%s", diff)
	}
}

func forget(t *testing.T, open Opener) {
	s := open(t)
	rng := rand.New(rand.NewPCG(11, 12))
	a, b := SampleRun(rng, 1), SampleRun(rng, 2)
	put(t, s, logOf(a, 1), a)
	put(t, s, logOf(b, 1), b)
	ctx := context.Background()
	if err := s.PutResume(ctx, a.Log, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.Forget(ctx, a.Log); err != nil {
		t.Fatal(err)
	}
	got := runs(t, s, history.Filter{Detail: true})
	if len(got) != 1 || got[0].Key != b.Key || len(got[0].Hosts) != 9 {
		t.Fatalf("after forgetting %s: %+v", a.Log, got)
	}
	if st, _ := s.Resume(ctx, a.Log); st != nil {
		t.Fatalf("resume state survived Forget")
	}
	logs, _ := s.Logs(ctx)
	if len(logs) != 1 || logs[0].Path != b.Log {
		t.Fatalf("logs after Forget: %+v", logs)
	}
}

func resume(t *testing.T, open Opener) {
	s := open(t)
	ctx := context.Background()
	if st, err := s.Resume(ctx, "/none"); err != nil || st != nil {
		t.Fatalf("resume of an unknown log: %v, %v", st, err)
	}
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	if err := s.PutResume(ctx, "/a", big); err != nil {
		t.Fatal(err)
	}
	if err := s.PutResume(ctx, "/a", big[:100]); err != nil {
		t.Fatal(err)
	}
	got, err := s.Resume(ctx, "/a")
	if err != nil || string(got) != string(big[:100]) {
		t.Fatalf("resume state read back %d bytes, %v; want the 100 last put", len(got), err)
	}
	if err := s.PutResume(ctx, "/a", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Resume(ctx, "/a"); got != nil {
		t.Fatalf("resume state survived its removal")
	}
}

// putMany: several logs put at once hold what putting them one by one
// holds, a run key given twice taking the later log's.
func putMany(t *testing.T, open Opener) {
	s := open(t)
	rng := rand.New(rand.NewPCG(17, 18))
	var entries []history.Entry
	var want []*history.Run
	for i := range 5 {
		r := SampleRun(rng, i)
		entries = append(entries, history.Entry{State: logOf(r, 1), Runs: []*history.Run{r}})
		want = append(want, r)
	}
	again := *want[2]
	again.Log, again.Name = "/logs/copy", "the copy"
	entries = append(entries, history.Entry{State: logOf(&again, 2), Runs: []*history.Run{&again}})
	want[2] = &again
	if err := s.Put(context.Background(), entries...); err != nil {
		t.Fatal(err)
	}
	got := runs(t, s, history.Filter{Detail: true, Oldest: true})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("runs put at once differ (-want +got):\n%s", diff)
	}
	logs, _ := s.Logs(context.Background())
	if len(logs) != 6 {
		t.Fatalf("%d logs after putting 6 at once", len(logs))
	}
	if err := s.Put(context.Background()); err != nil {
		t.Fatalf("putting nothing: %v", err)
	}
}

func concurrent(t *testing.T, open Opener) {
	s := open(t)
	const writers, each = 6, 10
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			for i := range each {
				r := SampleRun(rng, w*each+i)
				errs <- s.Put(context.Background(), history.Entry{State: logOf(r, 1), Runs: []*history.Run{r}})
				// Every writer also rewrites one shared log.
				shared := SampleRun(rng, 1000)
				shared.Name = fmt.Sprintf("writer %d", w)
				errs <- s.Put(context.Background(), history.Entry{State: logOf(shared, int64(w)), Runs: []*history.Run{shared}})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := runs(t, s, history.Filter{Detail: true})
	if len(got) != writers*each+1 {
		t.Fatalf("%d runs after %d writers wrote %d logs each and one shared log, want %d", len(got), writers, each, writers*each+1)
	}
	for _, r := range got {
		if len(r.Stages) != 3 || len(r.Hosts) != 9 {
			t.Fatalf("run %s has %d stages and %d host rows, want 3 and 9: a write was torn", r.Key, len(r.Stages), len(r.Hosts))
		}
	}
}

func awkward(t *testing.T, open Opener) {
	s := open(t)
	rng := rand.New(rand.NewPCG(13, 14))
	r := SampleRun(rng, 3)
	r.Name = "it's a \"quoted\"\\ name\n\twith\x00 controls, ünïcode ☃ and ' ; DROP TABLE x; --"
	r.User = "o'brien"
	r.Log = "s3://bucket/it's/a path?with=query#frag"
	r.Stages[0].Name = r.Name
	r.Hosts[0].Host = "ip-10-0-0-1.ec2.internal'"
	r.HostFacts[0].Host, r.HostFacts[0].InstanceType, r.HostFacts[0].Rack = r.Hosts[0].Host, "it's \"big\"", "/rack'1"
	sortHosts(r)
	r.Stages[1].Times.Last.Host = r.Hosts[0].Host
	r.Config = [][2]string{{"spark.driver.extraJavaOptions", r.Name}, {"spark.x'y", "\\"}}
	r.Queries = []history.Query{{ID: 7, Description: r.Name, Stages: []int32{1}, Plan: []string{"Scan \"x\"'", "ünïcode"}}}
	r.Findings = []history.Finding{{Detector: "x", Severity: finding.Critical, Scope: "application", Title: r.Name, Summary: r.Name}}
	r.Worst = finding.Critical
	put(t, s, logOf(r, 1), r)
	got := runs(t, s, history.Filter{Detail: true, User: "o'brien"})
	if len(got) != 1 {
		t.Fatalf("%d runs by o'brien, want 1", len(got))
	}
	if diff := cmp.Diff(r, got[0]); diff != "" {
		t.Fatalf("awkward run differs (-put +got):\n%s", diff)
	}
	if got := runs(t, s, history.Filter{Name: "\"quoted\"\\"}); len(got) != 1 {
		t.Fatalf("name filter with quotes and a backslash found %d runs, want 1", len(got))
	}
}

func reopen(t *testing.T, open Opener) {
	s := open(t)
	rng := rand.New(rand.NewPCG(15, 16))
	r := SampleRun(rng, 4)
	put(t, s, logOf(r, 1), r)
	if err := s.PutResume(context.Background(), r.Log, []byte("state")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t)
	got := runs(t, s, history.Filter{Detail: true})
	if len(got) != 1 {
		t.Fatalf("%d runs after reopening, want 1", len(got))
	}
	if diff := cmp.Diff(r, got[0]); diff != "" {
		t.Fatalf("run after reopening differs (-put +got):\n%s", diff)
	}
	if st, _ := s.Resume(context.Background(), r.Log); string(st) != "state" {
		t.Fatalf("resume state after reopening: %q", st)
	}
}
