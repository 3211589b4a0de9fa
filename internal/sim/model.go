package sim

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
)

// The model is built as the decoders build it from real logs (package
// eventlog for Spark, package mapreduce for .jhist), so that a written and
// re-read application equals the simulated one.

const sparkVersion = "3.5.1"

// startSparkOrMR creates the application's model when it starts.
func startSparkOrMR(a *appRun, now int64) {
	app := a.app
	app.Start = a.submit
	if app.Start == 0 {
		app.Start = now
	}
	if a.plan.engine == model.MapReduce {
		app.Version = "Avro-Json"
		app.Conf = mrConf(a)
		return
	}
	spec := a.plan.spec
	app.Version = sparkVersion
	app.Env = model.Environment{
		Seen: true,
		JVM:  [][2]string{{"Java Home", "/usr/lib/jvm/java-17-openjdk-amd64"}, {"Java Version", "17.0.10 (Eclipse Adoptium)"}, {"Scala Version", "version 2.12.18"}},
		Spark: [][2]string{
			{"spark.app.id", app.ID}, {"spark.app.name", app.Name},
			{"spark.driver.host", a.execsDriverHost()}, {"spark.dynamicAllocation.enabled", strconv.FormatBool(a.dynamic)},
			{"spark.eventLog.enabled", "true"}, {"spark.executor.cores", strconv.Itoa(spec.Cores)},
			{"spark.executor.instances", strconv.Itoa(spec.Executors)}, {"spark.executor.memory", strconv.Itoa(int(memPerCore/mb)*spec.Cores) + "m"},
			{"spark.master", "yarn"}, {"spark.speculation", strconv.FormatBool(a.speculation)},
			{"spark.sql.shuffle.partitions", strconv.Itoa(spec.Partitions)}, {"spark.submit.deployMode", "cluster"},
		},
		Hadoop: [][2]string{{"dfs.blocksize", "134217728"}, {"dfs.replication", "3"}},
		System: [][2]string{{"java.vm.name", "OpenJDK 64-Bit Server VM"}, {"os.name", "Linux"}, {"user.timezone", "UTC"}},
	}
	app.ResourceProfiles = []model.ResourceProfile{{ID: 0,
		Executor: []model.ResourceRequest{{Name: "cores", Amount: float64(spec.Cores)},
			{Name: "memory", Amount: float64(int(memPerCore/mb) * spec.Cores)}, {Name: "offHeap", Amount: 0}},
		Task: []model.ResourceRequest{{Name: "cpus", Amount: 1}}}}
	app.Executors = append(app.Executors, &model.Executor{ID: "driver", Host: a.execsDriverHost(),
		HostPort: a.execsDriverHost() + ":" + strconv.Itoa(a.portBase), BlockManagerSeen: true, BlockManagerAdded: app.Start + 900,
		MaxMemory: 2 << 30, MaxOnHeapMemory: 2 << 30})
}

func (a *appRun) execsDriverHost() string { return a.driverHost }

// sparkExecutor describes a new executor as SparkListenerExecutorAdded and BlockManagerAdded do.
func sparkExecutor(a *appRun, nd *node, seq, cores int, now int64) *model.Executor {
	id := strconv.Itoa(seq)
	container := fmt.Sprintf("container_%s_01_%06d", a.clusterTS, seq+1)
	mem := int64(memPerCore*float64(cores)) * 6 / 10
	return &model.Executor{
		ID: id, Host: nd.name, HostPort: nd.name + ":" + strconv.Itoa(a.portBase+seq), Cores: int32(cores), Added: now,
		LogURLs: [][2]string{
			{"stderr", "http://" + nd.name + ":8042/node/containerlogs/" + container + "/sim/stderr?start=-4096"},
			{"stdout", "http://" + nd.name + ":8042/node/containerlogs/" + container + "/sim/stdout?start=-4096"},
		},
		BlockManagerSeen: true, MaxMemory: mem, MaxOnHeapMemory: mem,
	}
}

// newModelStage records a stage's submission.
func newModelStage(a *appRun, st *stageRun, now int64) *model.Stage {
	sp := st.plan
	ms := &model.Stage{ID: int32(st.pi), Kind: sp.kind, Name: sp.name, NumTasks: int32(sp.tasks),
		Submitted: now, Status: model.StageActive, JobIDs: []int32{int32(sp.job)}}
	if a.plan.engine == model.MapReduce {
		ms.ID = 0
		if sp.kind == model.StageReduce {
			ms.ID = 1
		}
		ms.JobIDs = []int32{0}
	} else {
		ms.Details = sp.details
		ms.Pool = "default"
		ms.RDDIDs = []int32{int32(2 * st.pi), int32(2*st.pi + 1)}
		for _, p := range sp.parents {
			ms.ParentIDs = append(ms.ParentIDs, int32(p))
		}
		ms.Properties = [][2]string{{"spark.scheduler.pool", "default"}}
	}
	a.app.Stages = append(a.app.Stages, ms)
	return ms
}

// completeModelStage records a stage's completion.
func completeModelStage(st *stageRun, now int64) {
	st.m.Completed, st.m.Status = now+1, model.StageComplete
	if st.app.plan.engine == model.MapReduce {
		// The .jhist decoder takes a stage's window from its attempts.
		st.m.Submitted, st.m.Completed = 0, 0
		for i := range st.m.Tasks {
			t := &st.m.Tasks[i]
			if st.m.Submitted == 0 || t.Launch < st.m.Submitted {
				st.m.Submitted = t.Launch
			}
			st.m.Completed = max(st.m.Completed, t.Finish)
		}
	}
	if st.app.plan.engine == model.Spark {
		executorPeaks(st)
	}
	st.m.Metrics.Compact()
}

// executorPeaks sets the peaks of Spark's executor metrics per executor in
// a stage (SparkListenerStageExecutorMetrics and the task-end executor
// metrics) and raises each executor's peaks over its life: heap from the
// base JVM plus the execution memory of as many tasks as it has cores, RSS
// from heap and off-heap, and garbage-collection counts and times counted
// up over the executor's life.
func executorPeaks(st *stageRun) {
	a := st.app
	type acc struct {
		peakExec, gc int64
		tasks        int
	}
	byExec := map[uint32]*acc{}
	var m model.TaskMetrics
	for i := range st.m.Tasks {
		t := &st.m.Tasks[i]
		if !t.HasMetrics {
			continue
		}
		st.m.TaskMetrics(i, &m)
		x := byExec[t.Executor]
		if x == nil {
			x = &acc{}
			byExec[t.Executor] = x
		}
		x.peakExec = max(x.peakExec, m[model.PeakExecutionMemory])
		x.gc += m[model.JVMGCTime]
		x.tasks++
	}
	if len(byExec) == 0 {
		return
	}
	if st.m.ExecutorPeaks == nil {
		st.m.ExecutorPeaks = map[uint32]*model.ExecutorMetrics{}
	}
	if a.gcCum == nil {
		a.gcCum = map[uint32]int64{}
	}
	keys := make([]uint32, 0, len(byExec))
	for k := range byExec {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		x := byExec[k]
		ex := a.app.Executors[k]
		heap := int64(memPerCore) * int64(ex.Cores)
		a.gcCum[k] += x.gc
		gc := a.gcCum[k]
		exec := min(int64(ex.Cores)*x.peakExec, heap*6/10)
		used := min(350*mb+exec+heap/10, heap*95/100)
		p := &model.ExecutorMetrics{Set: true}
		set := func(name string, v int64) { p.Values[model.ExecutorMetricIndex(name)] = v }
		set("JVMHeapMemory", used)
		set("JVMOffHeapMemory", 90*mb+int64(ex.Cores)*4*mb)
		set("OnHeapExecutionMemory", exec)
		set("OnHeapUnifiedMemory", exec)
		set("DirectPoolMemory", 16*mb)
		set("ProcessTreeJVMVMemory", heap+3<<30)
		set("ProcessTreeJVMRSSMemory", used+290*mb)
		set("MinorGCCount", gc/15+int64(x.tasks))
		set("MinorGCTime", gc*8/10)
		set("MajorGCCount", gc/400)
		set("MajorGCTime", gc-gc*8/10)
		set("TotalGCTime", gc)
		st.m.ExecutorPeaks[k] = p
		st.m.PeakExecutor.Peak(p)
		ex.Peak.Peak(p)
	}
}

// addModelTask records an attempt, as its end event will report it.
func addModelTask(st *stageRun, t *taskRun, loc model.Locality, w work) int {
	a := st.app
	x := t.exec
	mt := model.Task{ID: a.nextTask, Launch: t.launch, Finish: w.finish, Index: t.index, Partition: t.index,
		Attempt: t.attempt, Host: a.hosts.ID(x.node.name), Status: model.TaskSuccess, Locality: loc,
		Speculative: t.speculative, HasMetrics: true}
	a.nextTask++
	if a.plan.engine == model.MapReduce {
		mt.HasMetrics = false // the .jhist decoder leaves it unset
		mt.Rack = a.hosts.ID(a.rackName(x.node))
		switch {
		case st.plan.kind == model.StageReduce:
			mt.Locality = model.AnyLocality
		case mt.Locality == model.NoPref:
			mt.Locality = model.AnyLocality
		case mt.Locality == model.ProcessLocal:
			mt.Locality = model.NodeLocal
		}
		if st.plan.input == inNone {
			mt.Locality = model.LocalityUnknown
		}
		w.m[model.ExecutorRunTime] = w.finish - t.launch
	} else {
		mt.Executor = x.idx
	}
	if w.failed {
		mt.Status = model.TaskFailed
		mt.Reason = a.reason(failureReason(a, t, w))
		// An unsuccessful attempt's record has no phase ends.
		w.m[model.MapPhaseFinish], w.m[model.ShufflePhaseFinish], w.m[model.SortPhaseFinish] = 0, 0, 0
		if a.plan.engine == model.Spark && w.nodeHung {
			w.m = model.TaskMetrics{} // a lost executor reports no metrics
			mt.HasMetrics = false
		}
	}
	return st.m.AddTask(mt, &w.m)
}

// killModelTask marks an attempt killed at now because another attempt succeeded.
func killModelTask(t *taskRun, now int64) {
	a := t.st.app
	mt := &t.st.m.Tasks[t.mi]
	mt.Finish, mt.Status = now, model.TaskKilled
	if a.plan.engine == model.Spark {
		mt.Reason = a.reason(model.Reason{Kind: "TaskKilled", Message: "another attempt succeeded"})
	} else {
		mt.Reason = a.reason(model.Reason{Kind: "KILLED", Message: "Speculation: attempt " + mrAttemptID(a, t) + " succeeded"})
		var m model.TaskMetrics
		t.st.m.TaskMetrics(t.mi, &m)
		m[model.ExecutorRunTime] = now - mt.Launch
		m[model.MapPhaseFinish], m[model.ShufflePhaseFinish], m[model.SortPhaseFinish] = 0, 0, 0
		t.st.m.SetTaskMetrics(t.mi, &m)
	}
}

// failureReason says why an attempt failed, in the engine's words.
func failureReason(a *appRun, t *taskRun, w work) model.Reason {
	if a.plan.engine == model.MapReduce {
		msg := "Error: java.io.IOException: Connection reset by peer"
		if w.nodeHung || w.hungTask {
			msg = "AttemptID:" + mrAttemptID(a, t) + " Timed out after " + strconv.Itoa(int(a.timeoutS)) + " secs"
		}
		return model.Reason{Kind: "FAILED", Message: msg}
	}
	switch {
	case w.nodeHung:
		return model.Reason{Kind: "ExecutorLostFailure", Message: "ExecutorLostFailure (executor " + a.app.Executors[t.exec.idx].ID +
			" exited unrelated to the running tasks) Reason: Executor heartbeat timed out after 120000 ms"}
	case w.hungTask:
		return model.Reason{Kind: "ExceptionFailure", Message: "java.util.concurrent.TimeoutException: task made no progress\n\tat org.apache.spark.executor.Executor$TaskRunner.run(Executor.scala:620)\n"}
	}
	return model.Reason{Kind: "ExceptionFailure", Message: "java.io.IOException: Connection reset by peer\n\tat org.apache.spark.network.client.TransportResponseHandler.channelInactive(TransportResponseHandler.java:147)\n"}
}

// mrAttemptID is an attempt's Hadoop id.
func mrAttemptID(a *appRun, t *taskRun) string {
	kind := "m"
	if t.st.plan.kind == model.StageReduce {
		kind = "r"
	}
	return fmt.Sprintf("attempt_%s_%04d_%s_%06d_%d", a.clusterTS, a.seq, kind, t.index, t.attempt)
}

// reason interns a failure reason.
func (a *appRun) reason(r model.Reason) uint32 {
	if i, ok := a.reasons[r]; ok {
		return i
	}
	i := uint32(len(a.app.Reasons))
	a.app.Reasons = append(a.app.Reasons, r)
	a.reasons[r] = i
	return i
}

func (a *appRun) rackName(n *node) string { return a.racks[n.rack] }

// finishApp closes the application's model.
func finishApp(a *appRun, end int64) {
	app := a.app
	app.End, app.Complete = end, true
	app.Hosts = a.hosts.All
	if a.plan.engine == model.MapReduce {
		mrExecutors(a)
		job := app.Jobs[0]
		job.Completed = end
		if job.Properties != nil {
			job.Properties = append(job.Properties, [2]string{"launchTime", strconv.FormatInt(app.Start+300, 10)})
		}
	}
}

// mrExecutors lists one executor per host, in order of the host's first
// attempt, as the .jhist decoder does.
func mrExecutors(a *appRun) {
	app := a.app
	byHost := map[uint32]uint32{}
	// Task ids follow launch order and reduces start after every map
	// (slowstart 1.0), so stage order is first-appearance order.
	for _, st := range app.Stages {
		for i := range st.Tasks {
			t := &st.Tasks[i]
			ei, ok := byHost[t.Host]
			if !ok {
				name := app.Hosts[t.Host]
				ei = uint32(len(app.Executors))
				byHost[t.Host] = ei
				app.Executors = append(app.Executors, &model.Executor{ID: name, Host: name, HostPort: name + ":8041"})
			}
			t.Executor = ei
			if e := app.Executors[ei]; e.Added == 0 || t.Launch < e.Added {
				e.Added = t.Launch
			}
		}
	}
}

// mrConf is the job configuration written beside the history.
func mrConf(a *appRun) [][2]string {
	spec := a.plan.spec
	return [][2]string{
		{"mapreduce.job.name", a.app.Name}, {"mapreduce.job.user.name", a.app.User},
		{"mapreduce.job.reduces", strconv.Itoa(boolInt(len(a.plan.stages) > 1) * spec.Partitions)},
		{"mapreduce.task.io.sort.mb", "100"}, {"mapreduce.map.sort.spill.percent", "0.80"},
		{"mapreduce.job.reduce.slowstart.completedmaps", "1.0"}, {"mapreduce.map.memory.mb", "2048"},
		{"mapreduce.reduce.memory.mb", "2048"}, {"dfs.blocksize", "134217728"}, {"mapreduce.framework.name", "yarn"},
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
