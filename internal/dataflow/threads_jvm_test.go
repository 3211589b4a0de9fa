package dataflow

import (
	"bufio"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sampler"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// scripted is a phase a stand-in JVM ran, as it printed it.
type scripted struct {
	attempt, vertex, thread string
	start, end              int64
}

// standinJVM is a running stand-in from testdata/standin.
type standinJVM struct {
	pid   int
	stdin io.WriteCloser
	done  chan []scripted
}

// startStandin runs class from the compiled stand-ins in dir with args and
// waits for its "ready" line; it runs its script after "go" on stdin.
func startStandin(t *testing.T, java, dir, class string, args ...string) *standinJVM {
	t.Helper()
	cmd := exec.Command(java, append([]string{"-Xmx32m", "-XX:+UseSerialGC", "-cp", dir, class}, args...)...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	br := bufio.NewReader(stdout)
	if line, err := br.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("java %s: %q, %v", class, line, err)
	}
	j := &standinJVM{pid: cmd.Process.Pid, stdin: stdin, done: make(chan []scripted, 1)}
	go func() {
		var out []scripted
		for {
			line, err := br.ReadString('\n')
			if err != nil || line == "done\n" {
				j.done <- out
				return
			}
			f := strings.SplitN(strings.TrimSuffix(line, "\n"), " ", 6)
			if len(f) == 6 && f[0] == "P" {
				s, _ := strconv.ParseInt(f[3], 10, 64)
				e, _ := strconv.ParseInt(f[4], 10, 64)
				out = append(out, scripted{attempt: f[1], vertex: f[2], thread: f[5], start: s, end: e})
			}
		}
	}()
	return j
}

// TestThreadsRealJVM runs stand-ins of a Spark executor (two task threads
// through deserialize, fetch wait, compute, shuffle write and result
// serialization) and of a MapReduce map and reduce attempt (main thread,
// SpillThread, three MapOutputCopier threads) with scripted phases of
// 200–600 ms, samples them with the real jvm sampler every 50 ms, and checks
// that every scripted phase is found with its start and end within two
// sampling intervals, and the time its rounds near that moment took: every
// thread of a round is stamped with the round's tick, and on a loaded
// machine a round can take longer than an interval (the reducer's dump came
// 171 ms after its tick in a CI run). The log agreement is measured against
// applications written from the script.
func TestThreadsRealJVM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three JVMs")
	}
	javac := sharedtest.JavaTool(t, "javac")
	dir := t.TempDir()
	var srcs []string
	_ = filepath.WalkDir("testdata/standin", func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".java") {
			srcs = append(srcs, p)
		}
		return err
	})
	if out, err := exec.Command(javac, append([]string{"-d", dir}, srcs...)...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	java := filepath.Join(filepath.Dir(javac), "java")
	const mapID, redID = "attempt_1410000000000_0001_m_000003_0", "attempt_1410000000000_0001_r_000000_0"
	jvms := []*standinJVM{
		startStandin(t, java, dir, "org.apache.spark.executor.CoarseGrainedExecutorBackend", "--executor-id", "1"),
		startStandin(t, java, dir, "org.apache.hadoop.mapred.YarnChild", "127.0.0.1", "40404", mapID, "2"),
		startStandin(t, java, dir, "org.apache.hadoop.mapred.YarnChild", "127.0.0.1", "40404", redID, "3"),
	}
	s, err := sampler.Build("jvm", sampler.Config{Host: "n1"})
	if err != nil {
		t.Fatal(err)
	}
	// The attach listeners start at the first calls; the scripts start once
	// every stand-in answers (other JVMs on the machine are sampled too).
	waiting := map[string]bool{}
	for _, j := range jvms {
		waiting[strconv.Itoa(j.pid)] = true
	}
	for deadline := time.Now().Add(10 * time.Second); len(waiting) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("JVMs %v gave no thread dump in 10 s", waiting)
		}
		out, err := s.Sample(time.Now(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range out {
			delete(waiting, x.Target[:strings.IndexByte(x.Target, '/')])
		}
	}
	for _, j := range jvms {
		if _, err := io.WriteString(j.stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu      sync.Mutex
		samples []model.Sample
		rounds  [][2]int64 // a round's tick (unix ms) and how long it took (ms)
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	mine := map[string]int{}
	for i, j := range jvms {
		mine[strconv.Itoa(j.pid)] = i
	}
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		var buf []model.Sample
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				buf, _ = s.Sample(now, buf[:0])
				took := time.Since(now).Milliseconds()
				mu.Lock()
				rounds = append(rounds, [2]int64{now.UnixMilli(), took})
				for _, x := range buf {
					if _, ok := mine[x.Target[:strings.IndexByte(x.Target, '/')]]; ok {
						samples = append(samples, x)
					}
				}
				mu.Unlock()
			}
		}
	})
	var script []scripted
	for _, j := range jvms {
		select {
		case out := <-j.done:
			script = append(script, out...)
		case <-time.After(30 * time.Second):
			t.Fatal("stand-in JVM did not finish its script")
		}
	}
	close(stop)
	wg.Wait()
	if len(script) != 19 {
		t.Fatalf("%d scripted phases, want 19: %+v", len(script), script)
	}
	// What a JVM does after its script (printing it, exiting) is left out.
	var last [3]int64
	for _, sc := range script {
		k := map[string]int{mapID: 1, redID: 2}[sc.attempt]
		last[k] = max(last[k], sc.end)
	}
	var spark, mr []model.Sample
	for _, x := range samples {
		k := mine[x.Target[:strings.IndexByte(x.Target, '/')]]
		if x.Time > last[k] {
			continue
		}
		if k == 0 {
			spark = append(spark, x)
		} else {
			mr = append(mr, x)
		}
	}
	trs := []*ThreadReconstruction{
		ReconstructThreads(spark, mustBuiltin(t, "spark"), ThreadOptions{}),
		ReconstructThreads(mr, mustBuiltin(t, "hadoop"), ThreadOptions{}),
	}
	var worst int64
	for _, sc := range script {
		tr := trs[0]
		if strings.HasPrefix(sc.attempt, "attempt_") {
			tr = trs[1]
		}
		iv := tr.IntervalMs
		in, ok := instance(tr, sc.attempt, sc.thread, sc.vertex)
		if !ok {
			t.Errorf("scripted %s of %s in %q [%d ms] not found", sc.vertex, sc.attempt, sc.thread, sc.end-sc.start)
			continue
		}
		ds, de := in.Start-sc.start, in.End-sc.end
		worst = max(worst, ds, -ds, de, -de)
		t.Logf("%-38s %-20s %-18s scripted %4d ms, sampled start %+4d ms, end %+4d ms, %2d samples, %3.0f%% runnable",
			sc.attempt, truncateName(sc.thread), sc.vertex, sc.end-sc.start, ds, de, in.Samples, 100*float64(in.Runnable)/float64(in.Samples))
		if ok := 2*iv + slowestRound(rounds, sc.start, 2*iv); max(ds, -ds) > ok {
			t.Errorf("%s of %s in %q: sampled start %d, scripted %d: more than 2 intervals (%d ms) and the rounds' time off (%d ms in all)",
				sc.vertex, sc.attempt, sc.thread, in.Start, sc.start, iv, ok)
		}
		if ok := 2*iv + slowestRound(rounds, sc.end, 2*iv); max(de, -de) > ok {
			t.Errorf("%s of %s in %q: sampled end %d, scripted %d: more than 2 intervals (%d ms) and the rounds' time off (%d ms in all)",
				sc.vertex, sc.attempt, sc.thread, in.End, sc.end, iv, ok)
		}
	}
	for _, v := range trs[1].Vertices {
		if v.Vertex == "copier" && v.MaxThreads != 3 {
			t.Errorf("copier pool: %d threads, want 3", v.MaxThreads)
		}
	}
	var first int64 = math.MaxInt64
	for _, sc := range script {
		first = min(first, sc.start)
	}
	for _, r := range rounds {
		if r[1] > 100 {
			t.Logf("slow round: tick %+d ms from the first scripted phase, took %d ms", r[0]-first, r[1])
		}
	}
	t.Logf("intervals: spark %d ms, mapreduce %d ms; %d samples; worst start/end error %d ms; slowest round %d ms",
		trs[0].IntervalMs, trs[1].IntervalMs, len(samples), worst, slowestRound(rounds, rounds[len(rounds)/2][0], 1<<40))
	for _, c := range []struct {
		app     *model.App
		samples []model.Sample
	}{{scriptedSpark(script), spark}, {scriptedMapReduce(script, mapID, redID), mr}} {
		r, err := Reconstruct(c.app, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ag := SampledFor(r, c.samples, nil, ThreadOptions{}).Agreement
		if ag.Attempts != 2 || ag.NotInLog != 0 {
			t.Errorf("%s: %d attempts compared, %d not in the log, want 2 and 0", c.app.ID, ag.Attempts, ag.NotInLog)
		}
		t.Logf("%s agreement: start %+d ms, end %+d ms (medians)", c.app.ID, ag.MedianStartDiffMs, ag.MedianEndDiffMs)
		for _, p := range ag.Phases {
			t.Logf("  %-6s %-18s sampled %5d ms, logged %5d ms, |diff| %4d ms over %d attempts", p.Pool, p.Phase, p.SampledMs, p.LoggedMs, p.AbsDiffMs, p.Attempts)
		}
	}
}

// slowestRound is the longest time a sampling round took among those
// under way within reach ms of at (unix ms).
func slowestRound(rounds [][2]int64, at, reach int64) int64 {
	var m int64
	for _, r := range rounds {
		if r[0] <= at+reach && r[0]+r[1] >= at-reach {
			m = max(m, r[1])
		}
	}
	return m
}

func truncateName(s string) string {
	if len(s) > 20 {
		return s[:17] + "..."
	}
	return s
}

// scriptedSpark writes the Spark stand-in's script as a log would record
// it: each TID launched at its first phase and finished at its last, with
// its phases' times as task metrics.
func scriptedSpark(script []scripted) *model.App {
	app := &model.App{ID: "app-standin", Engine: model.Spark, Hosts: []string{"", "n1"},
		Executors: []*model.Executor{{ID: "1", Host: "n1", Cores: 2}}}
	st := &model.Stage{ID: 1, Kind: model.StageSpark}
	for tid := range int64(2) {
		var m model.TaskMetrics
		task := model.Task{ID: tid, Index: int32(tid), Host: 1, Status: model.TaskSuccess, HasMetrics: true}
		for _, sc := range script {
			if sc.attempt != strconv.FormatInt(tid, 10) {
				continue
			}
			if task.Launch == 0 || sc.start < task.Launch {
				task.Launch = sc.start
			}
			task.Finish = max(task.Finish, sc.end)
			d := sc.end - sc.start
			switch sc.vertex {
			case "deserialize":
				m[model.ExecutorDeserializeTime] = d
			case "result-serialize":
				m[model.ResultSerializationTime] = d
			case "shuffle-fetch-wait":
				m[model.ShuffleFetchWaitTime] = d
				m[model.ExecutorRunTime] += d
			case "shuffle-write":
				m[model.ShuffleWriteNanos] = d * 1e6
				m[model.ExecutorRunTime] += d
			default:
				m[model.ExecutorRunTime] += d
			}
		}
		st.AddTask(task, &m)
		app.Start = minNonZero(app.Start, task.Launch)
		app.End = max(app.End, task.Finish)
	}
	app.Stages = []*model.Stage{st}
	return app
}

// scriptedMapReduce writes the MapReduce stand-ins' script as a job history
// would: the map's map-phase end and, to split the rest, half its spilled
// records rewritten by merges; the reduce's shuffle and sort ends.
func scriptedMapReduce(script []scripted, mapID, redID string) *model.App {
	app := &model.App{ID: "job_1410000000000_0001", Engine: model.MapReduce, Hosts: []string{"", "n1"},
		Executors: []*model.Executor{{ID: "n1", Host: "n1"}}}
	span := func(id, thread, vertex string) (int64, int64) {
		for _, sc := range script {
			if sc.attempt == id && sc.thread == thread && sc.vertex == vertex {
				return sc.start, sc.end
			}
		}
		return 0, 0
	}
	maps := &model.Stage{ID: 0, Kind: model.StageMap}
	ms, me := span(mapID, "main", "map")
	_, mergeEnd := span(mapID, "main", "merge")
	_, flushEnd := span(mapID, "main", "spill")
	var m model.TaskMetrics
	m[model.MapPhaseFinish], m[model.MapOutputRecords] = me, flushEnd-me
	m[model.SpilledRecords] = mergeEnd - me
	maps.AddTask(model.Task{ID: 0, Index: 3, Launch: ms, Finish: mergeEnd, Host: 1, Status: model.TaskSuccess, HasMetrics: true}, &m)
	reduces := &model.Stage{ID: 1, Kind: model.StageReduce}
	rs, shuffleEnd := span(redID, "main", "copier")
	_, sortEnd := span(redID, "main", "sort")
	_, reduceEnd := span(redID, "main", "reduce")
	m = model.TaskMetrics{}
	m[model.ShufflePhaseFinish], m[model.SortPhaseFinish] = shuffleEnd, sortEnd
	reduces.AddTask(model.Task{ID: 1, Index: 0, Launch: rs, Finish: reduceEnd, Host: 1, Status: model.TaskSuccess, HasMetrics: true}, &m)
	app.Stages = []*model.Stage{maps, reduces}
	app.Start, app.End = min(ms, rs), max(mergeEnd, reduceEnd)
	return app
}

// minNonZero is the smaller of a and b, b when a is unset (0).
func minNonZero(a, b int64) int64 {
	if a == 0 {
		return b
	}
	return min(a, b)
}
