package dataflow

import (
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Stacks of the hand-written samples, innermost frame first.
const (
	stDeser   = "java.io.ObjectInputStream.readObject(ObjectInputStream.java:1)\norg.apache.spark.serializer.JavaSerializerInstance.deserialize(JavaSerializer.scala:1)\norg.apache.spark.executor.Executor$TaskRunner.run(Executor.scala:1)"
	stFetch   = "jdk.internal.misc.Unsafe.park(Native Method)\norg.apache.spark.storage.ShuffleBlockFetcherIterator.next(ShuffleBlockFetcherIterator.scala:1)\nscala.collection.Iterator$$anon$10.next(Iterator.scala:1)\norg.apache.spark.shuffle.sort.SortShuffleWriter.write(SortShuffleWriter.scala:1)"
	stCompute = "Job.lambda$1(Job.java:1)\nscala.collection.Iterator$$anon$10.next(Iterator.scala:1)\norg.apache.spark.util.collection.ExternalSorter.insertAll(ExternalSorter.scala:1)\norg.apache.spark.shuffle.sort.SortShuffleWriter.write(SortShuffleWriter.scala:1)"
	stWrite   = "java.io.FileOutputStream.write(Native Method)\norg.apache.spark.util.collection.ExternalSorter.writePartitionedMapOutput(ExternalSorter.scala:1)\norg.apache.spark.shuffle.sort.SortShuffleWriter.write(SortShuffleWriter.scala:1)"
	stResult  = "org.apache.spark.serializer.JavaSerializerInstance.serialize(JavaSerializer.scala:1)\norg.apache.spark.executor.Executor$TaskRunner.run(Executor.scala:1)"
)

func threadSample(host, target string, t int64, task float64, exec, name, state, stack string) model.Sample {
	return model.Sample{Time: t, Host: host, Type: model.ThreadSampleType, Target: target, Value: task,
		Text: exec + "\t" + name + "\t" + state + "\t" + stack}
}

func mustBuiltin(t testing.TB, name string) *Spec {
	t.Helper()
	s, err := Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// instance finds the longest instance of vertex v in attempt a's thread named name.
func instance(tr *ThreadReconstruction, a, name, v string) (VertexInstance, bool) {
	var best VertexInstance
	for _, in := range tr.Instances {
		if in.Attempt == a && in.Name == name && in.Vertex == v && in.Samples > best.Samples {
			best = in
		}
	}
	return best, best.Samples > 0
}

func TestReconstructThreadsSpark(t *testing.T) {
	const worker = "Executor task launch worker for task 0.0 in stage 1.0 (TID 7)"
	var ss []model.Sample
	// TID 7, every 100 ms, given out of order: deserialize, fetch ×2, compute, write, result.
	for i, st := range []string{stDeser, stFetch, stFetch, stCompute, stWrite, stResult} {
		state := "RUNNABLE"
		if st == stFetch {
			state = "WAITING (parking)"
		}
		ss = append([]model.Sample{threadSample("h1", "10/11", 1000+int64(i)*100, 7, "1", worker, state, st)}, ss...)
	}
	ss = append(ss,
		threadSample("h1", "10/12", 1000, -1, "1", "shuffle-client-1", "RUNNABLE", "x.y(z)"), // no task
		threadSample("h1", "10/12", 1100, -1, "1", "shuffle-client-1", "RUNNABLE", "x.y(z)"),
		threadSample("h2", "20/21", 5000, 8, "2", "Executor task launch worker for task 1.0 in stage 1.0 (TID 8)", "RUNNABLE", "Job.f(Job.java:1)"), // a single sample
		model.Sample{Time: 1000, Host: "h1", Type: "load1", Value: 3},
		model.Sample{Time: 1000, Host: "h1", Type: model.ThreadSampleType, Target: "10/13", Value: 9, Text: "no tabs"},
	)
	tr := ReconstructThreads(ss, mustBuiltin(t, "spark"), ThreadOptions{})
	if tr.IntervalMs != 100 || tr.Samples != 9 || tr.Threads != 3 || tr.Unattributed != 1 || tr.Attempts != 2 {
		t.Fatalf("interval %d, samples %d, threads %d, unattributed %d, attempts %d", tr.IntervalMs, tr.Samples, tr.Threads, tr.Unattributed, tr.Attempts)
	}
	for _, w := range []struct {
		v          string
		start, end int64
		n, run     int
	}{
		{"deserialize", 1000, 1100, 1, 1},
		{"shuffle-fetch-wait", 1100, 1300, 2, 0},
		{"compute", 1300, 1400, 1, 1},
		{"shuffle-write", 1400, 1500, 1, 1},
		{"result-serialize", 1500, 1600, 1, 1},
	} {
		in, ok := instance(tr, "7", worker, w.v)
		if !ok || in.Start != w.start || in.End != w.end || in.Samples != w.n || in.Runnable != w.run || in.Waiting != w.n-w.run || in.Host != "h1" || !in.Main {
			t.Errorf("%s: %+v (found %v), want [%d, %d] with %d samples, %d runnable", w.v, in, ok, w.start, w.end, w.n, w.run)
		}
	}
	if in, ok := instance(tr, "8", "Executor task launch worker for task 1.0 in stage 1.0 (TID 8)", "compute"); !ok || in.Start != 5000 || in.End != 5100 {
		t.Errorf("single sample: %+v %v", in, ok)
	}
	if len(tr.Instances) != 6 {
		t.Errorf("%d instances, want 6", len(tr.Instances))
	}
	var fetch ThreadVertex
	for _, v := range tr.Vertices {
		if v.Vertex == "shuffle-fetch-wait" {
			fetch = v
		}
	}
	if fetch.Instances != 1 || fetch.SampledMs != 200 || fetch.RunnableShare != 0 || fetch.WaitingShare != 1 || fetch.Phase != FetchWait {
		t.Errorf("fetch vertex %+v", fetch)
	}
}

func TestReconstructThreadsMapReduce(t *testing.T) {
	const (
		mapID = "attempt_1410000000000_0001_m_000003_0"
		redID = "attempt_1410000000000_0001_r_000000_0"
	)
	var ss []model.Sample
	add := func(target string, t0 int64, n int, task float64, exec, name, state, stack string) {
		for i := range n {
			ss = append(ss, threadSample("h", target, t0+int64(i)*50, task, exec, name, state, stack))
		}
	}
	add("1/1", 0, 10, 3, mapID, "main", "RUNNABLE", "org.apache.hadoop.mapred.MapTask.runOldMapper(MapTask.java:1)")
	add("1/1", 500, 4, 3, mapID, "main", "WAITING (on object monitor)", "java.lang.Object.wait(Native Method)\norg.apache.hadoop.mapred.MapTask$MapOutputBuffer.flush(MapTask.java:1)")
	add("1/1", 700, 6, 3, mapID, "main", "RUNNABLE", "org.apache.hadoop.mapred.Merger.merge(Merger.java:1)\norg.apache.hadoop.mapred.MapTask$MapOutputBuffer.mergeParts(MapTask.java:1)")
	add("1/2", 300, 8, -1, mapID, "SpillThread", "RUNNABLE", "org.apache.hadoop.mapred.MapTask$MapOutputBuffer.sortAndSpill(MapTask.java:1)\norg.apache.hadoop.mapred.MapTask$MapOutputBuffer$SpillThread.run(MapTask.java:1)")
	add("1/3", 0, 20, -1, mapID, "communication thread", "TIMED_WAITING (sleeping)", "java.lang.Thread.sleep(Native Method)")
	add("2/1", 0, 12, 0, redID, "main", "TIMED_WAITING (sleeping)", "java.lang.Thread.sleep(Native Method)\norg.apache.hadoop.mapred.ReduceTask$ReduceCopier.fetchOutputs(ReduceTask.java:1)")
	add("2/1", 600, 6, 0, redID, "main", "RUNNABLE", "org.apache.hadoop.mapred.Merger.merge(Merger.java:1)\norg.apache.hadoop.mapred.ReduceTask.run(ReduceTask.java:1)")
	add("2/1", 900, 8, 0, redID, "main", "RUNNABLE", "org.apache.hadoop.mapred.ReduceTask.runOldReducer(ReduceTask.java:1)")
	for c := range 3 {
		add("2/"+string(rune('5'+c)), 50, 10, -1, redID, "MapOutputCopier "+redID+"."+string(rune('0'+c)), "RUNNABLE", "java.net.SocketInputStream.read(Native Method)")
	}
	tr := ReconstructThreads(ss, mustBuiltin(t, "hadoop"), ThreadOptions{})
	if tr.IntervalMs != 50 || tr.Unmapped != 1 || tr.Unattributed != 0 || tr.Attempts != 2 {
		t.Fatalf("interval %d, unmapped %d, unattributed %d, attempts %d", tr.IntervalMs, tr.Unmapped, tr.Unattributed, tr.Attempts)
	}
	for _, w := range []struct {
		a, name, v string
		start, end int64
	}{
		{mapID, "main", "map", 0, 500},
		{mapID, "main", "spill", 500, 700},
		{mapID, "main", "merge", 700, 1000},
		{mapID, "SpillThread", "spill", 300, 700},
		{redID, "main", "copier", 0, 600},
		{redID, "main", "sort", 600, 900},
		{redID, "main", "reduce", 900, 1300},
		{redID, "MapOutputCopier " + redID + ".2", "copier", 50, 550},
	} {
		if in, ok := instance(tr, w.a, w.name, w.v); !ok || in.Start != w.start || in.End != w.end {
			t.Errorf("%s %s %s: %+v (found %v), want [%d, %d]", w.a, w.name, w.v, in, ok, w.start, w.end)
		}
	}
	for _, v := range tr.Vertices {
		if v.Vertex == "copier" && (v.MaxThreads != 3 || v.Card != "5" || v.Instances != 4 || v.Attempts != 1) {
			t.Errorf("copier pool %+v, want 3 threads of the spec's 5 and the main thread's instance", v)
		}
	}
}

// TestSampledForAgreement samples attempt 0 of the hand-made Spark
// application (TID 0 on host A: 3000–8000, deserialize 200, compute 3500,
// shuffle write 500, result serialization 100, after 700 of scheduler delay)
// exactly as logged, plus a TID the log lacks and a host it lacks.
func TestSampledForAgreement(t *testing.T) {
	r, err := Reconstruct(handmadeSpark(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	const worker = "Executor task launch worker for task 0.0 in stage 0.0 (TID 0)"
	var ss []model.Sample
	at := int64(3700)
	for _, ph := range []struct {
		stack string
		n     int
	}{{stDeser, 2}, {stCompute, 34}, {stWrite, 5}, {stResult, 1}} {
		for range ph.n {
			ss = append(ss, threadSample("a.example", "1/2", at, 0, "1", worker, "RUNNABLE", ph.stack))
			at += 100
		}
	}
	ss = append(ss,
		threadSample("a.example", "1/3", 4000, 99, "1", "Executor task launch worker for task 5.0 in stage 9.0 (TID 99)", "RUNNABLE", stCompute),
		threadSample("c.example", "1/2", 4000, 0, "1", worker, "RUNNABLE", stCompute),
		threadSample("a.example", "1/2", 900_000, 0, "1", worker, "RUNNABLE", stCompute), // long after the application
	)
	tr := SampledFor(r, ss, map[string]string{"a.example": "A"}, ThreadOptions{})
	ag := tr.Agreement
	if ag == nil || ag.Attempts != 1 || ag.NotInLog != 1 || ag.MedianStartDiffMs != 700 || ag.MedianEndDiffMs != -100 {
		t.Fatalf("agreement %+v", ag)
	}
	want := map[Phase][2]int64{Deserialize: {200, 200}, FetchWait: {0, 0}, Compute: {3400, 3500}, ShuffleWrite: {500, 500}, ResultSerialize: {100, 100}}
	if len(ag.Phases) != len(want) {
		t.Fatalf("phases %+v", ag.Phases)
	}
	for _, p := range ag.Phases {
		if w := want[p.Phase]; p.SampledMs != w[0] || p.LoggedMs != w[1] || p.AbsDiffMs != max(w[0]-w[1], w[1]-w[0]) || p.Attempts != 1 {
			t.Errorf("%s: %+v, want sampled %d, logged %d", p.Phase, p, w[0], w[1])
		}
	}
	if tr.Instances[0].Host != "A" {
		t.Errorf("host %q, want the log's name", tr.Instances[0].Host)
	}
}

func TestClassifyStackOverride(t *testing.T) {
	rules := []PhaseRule{{PoolSpark, "Job.f", ShuffleWrite}, {PoolSpark, "", Deserialize}}
	if p := ClassifyStack(rules, PoolSpark, "Job.g(x)\nJob.f(y)"); p != ShuffleWrite {
		t.Errorf("override: %s", p)
	}
	if p := ClassifyStack(rules, PoolSpark, "Job.g(x)"); p != Deserialize {
		t.Errorf("default: %s", p)
	}
	if p := ClassifyStack(rules, PoolMap, "Job.f(y)"); p != PhaseNone {
		t.Errorf("other pool: %s", p)
	}
	if p := ClassifyStack(DefaultPhaseRules, PoolSpark, stFetch); p != FetchWait {
		t.Errorf("a fetch inside a writer: %s", p)
	}
}

func FuzzParseThreadText(f *testing.F) {
	f.Add("1\tExecutor task launch worker for task 0.0 in stage 1.0 (TID 7)\tRUNNABLE\t" + stFetch)
	f.Add("attempt_1_2_m_000003_0\tmain\tWAITING\tjava.lang.Object.wait(x)")
	f.Add("a\tb")
	spec := mustBuiltin(f, "hadoop")
	f.Fuzz(func(t *testing.T, text string) {
		tt, ok := ParseThreadText(text)
		if !ok {
			return
		}
		if got := strings.Join([]string{tt.Executor, tt.Name, tt.State, tt.Stack}, "\t"); got != text {
			t.Fatalf("fields %q do not rejoin to %q", got, text)
		}
		for _, p := range []Pool{PoolSpark, PoolMap, PoolReduce} {
			if ph := ClassifyStack(DefaultPhaseRules, p, tt.Stack); phaseIndex(p, ph) < 0 {
				t.Fatalf("pool %s: phase %q outside its layout", p, ph)
			}
		}
		s := model.Sample{Host: "h", Type: model.ThreadSampleType, Target: "1/1", Value: 3, Text: text}
		ReconstructThreads([]model.Sample{s, s}, spec, ThreadOptions{})
	})
}
