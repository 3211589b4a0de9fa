package mapreduce

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Tests on small hand-made inputs; they need no shared data.

func metricsOf(st *model.Stage, i int) model.TaskMetrics {
	var m model.TaskMetrics
	st.TaskMetrics(i, &m)
	return m
}

func stageOf(app *model.App, k model.StageKind) *model.Stage {
	for _, st := range app.Stages {
		if st.Kind == k {
			return st
		}
	}
	return nil
}

func TestJhistSmall(t *testing.T) {
	in := seedJhist + "\n{\"type\":\"SOMETHING_NEW\",\"event\":{}}\nnot json\n{\"type\":\"MAP_ATTEMPT_ST"
	app, err := ReadJhist(strings.NewReader(in), "small.jhist")
	if err != nil {
		t.Fatal(err)
	}
	if app.ID != "job_1_0001" || app.Name != "j" || app.User != "u" || app.Start != 5 || app.End != 30 || !app.Complete {
		t.Errorf("app %q %q %q %d %d %v", app.ID, app.Name, app.User, app.Start, app.End, app.Complete)
	}
	q := app.Quality
	if q.UnknownEvents != 1 || q.BadLines != 1 || !q.Truncated || len(q.Issues) != 2 || q.Issues[0].Line != 10 {
		t.Errorf("quality %+v", q)
	}
	j := app.Jobs[0]
	if j.Status != model.JobFailed || j.Failure != "FAILED: d" || j.Properties[0] != [2]string{"queue", "q"} {
		t.Errorf("job %+v", j)
	}
	st := stageOf(app, model.StageMap)
	if st == nil || len(st.Tasks) != 1 {
		t.Fatalf("map stage %+v", st)
	}
	tk := st.Tasks[0]
	if tk.Launch != 11 || tk.Finish != 20 || tk.Status != model.TaskFailed || app.Host(tk.Host) != "h1" ||
		app.Host(tk.Rack) != "/r" || tk.Locality != model.NodeLocal || !tk.Speculative {
		t.Errorf("task %+v", tk)
	}
	if r := app.Reasons[tk.Reason]; r.Kind != "FAILED" || r.Message != "boom" {
		t.Errorf("reason %+v", r)
	}
	m := metricsOf(st, 0)
	if m[model.CPUMillis] != 7 || m[model.ExecutorCPUNanos] != 7e6 || m[model.ExecutorRunTime] != 9 {
		t.Errorf("metrics cpu %d run %d", m[model.CPUMillis], m[model.ExecutorRunTime])
	}
	if len(app.Executors) != 1 || app.Executors[0].ID != "h1" || app.Executors[0].HostPort != "h1:80" || app.Executors[0].Added != 11 {
		t.Errorf("executors %+v", app.Executors[0])
	}
	if st.Status != model.StageFailed || st.Submitted != 10 {
		t.Errorf("stage status %v submitted %d", st.Status, st.Submitted)
	}
}

func TestJhistTruncatedRunning(t *testing.T) {
	// the real hraven file ends after MAP_ATTEMPT_STARTED
	app, err := ReadJhist(openLog(t, "hraven/hraven-etl/src/test/resources/job_1410289045532_259974-1411647985641-user35-SomeJobName-1411647999554-1-0-SUCCEEDED-root.someQueueName-1411647995323.jhist"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if app.Complete || app.End != 0 || app.Jobs[0].Status != model.JobRunning {
		t.Errorf("complete %v end %d status %v", app.Complete, app.End, app.Jobs[0].Status)
	}
	st := stageOf(app, model.StageMap)
	if st.Status != model.StageActive || len(st.Tasks) != 1 || st.Tasks[0].Status != model.TaskRunning ||
		app.Host(st.Tasks[0].Host) != "trackerHostName.example.com" || st.Tasks[0].Locality != model.AnyLocality {
		t.Errorf("stage %v tasks %+v", st.Status, st.Tasks)
	}
	if app.Jobs[0].Properties[0] != [2]string{"queue", "root.someQueueName"} {
		t.Errorf("properties %v", app.Jobs[0].Properties)
	}
}

func TestJhistRealMetrics(t *testing.T) {
	app, err := ReadJhist(openLog(t, "hadoop/hadoop-mapreduce-project/hadoop-mapreduce-client/hadoop-mapreduce-client-hs/src/test/resources/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist"), "sleep")
	if err != nil {
		t.Fatal(err)
	}
	if app.Name != "Sleep job" || app.User != "user" || app.Start != 1329348443227 || len(app.Stages) != 2 {
		t.Fatalf("app %q %q %d stages %d", app.Name, app.User, app.Start, len(app.Stages))
	}
	maps, reds := stageOf(app, model.StageMap), stageOf(app, model.StageReduce)
	if maps.NumTasks != 10 || len(maps.Tasks) != 10 || reds.NumTasks != 1 || len(reds.Tasks) != 2 || maps.Status != model.StageComplete {
		t.Errorf("maps %d/%d reduces %d/%d", maps.NumTasks, len(maps.Tasks), reds.NumTasks, len(reds.Tasks))
	}
	for i, tk := range maps.Tasks {
		m := metricsOf(maps, i)
		if m[model.FileBytesWritten] != 48051 || m[model.MapPhaseFinish] == 0 || m[model.ExecutorRunTime] != tk.Finish-tk.Launch ||
			m[model.MapInputRecords] != 1 || m[model.InputRecords] != 1 || m[model.CPUMillis] == 0 || m[model.ShuffleWriteRecords] != m[model.MapOutputRecords] {
			t.Errorf("map %d metrics %v", i, m)
		}
	}
	var sawShuffle bool
	for i := range reds.Tasks {
		m := metricsOf(reds, i)
		if m[model.ReduceShuffleBytes] == 120 && m[model.ShuffleRemoteBytesRead] == 120 && m[model.ShufflePhaseFinish] > 0 &&
			m[model.SortPhaseFinish] >= m[model.ShufflePhaseFinish] && m[model.JVMGCTime] == 14 && m[model.PhysicalMemoryBytes] == 82780160 {
			sawShuffle = true
		}
	}
	if !sawShuffle {
		t.Error("no reduce with the logged shuffle, sort, GC and memory counters")
	}
}

func TestLegacySmall(t *testing.T) {
	in := "\f!!FILE=host_job_1_0001_conf.xml!!\n<configuration><property><name>mapred.job.queue.name</name><value>qq</value></property></configuration>\n\f!!FILE=host_job_1_0001_u_n!!\n" +
		seedLegacy + "Bogus line here\nFoo BAR=\"1\" .\n"
	apps, st, err := ReadLegacyStats(strings.NewReader(in), "small")
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 1 || st.AttemptRecords != 3 || st.AttemptHosts != 2 {
		t.Fatalf("%d apps, %v", len(apps), st)
	}
	app := apps[0]
	if app.Name != "n.x" || app.Version != "1" || !app.Complete || app.End != 10 || app.Jobs[0].Status != model.JobSucceeded {
		t.Errorf("app %q %q %v %d", app.Name, app.Version, app.Complete, app.End)
	}
	if app.Quality.BadLines != 1 || app.Quality.UnknownEvents != 1 {
		t.Errorf("quality %+v", app.Quality)
	}
	if len(app.Conf) != 1 || app.Jobs[0].Properties[0] != [2]string{"queue", "qq"} {
		t.Errorf("conf %v properties %v", app.Conf, app.Jobs[0].Properties)
	}
	maps := stageOf(app, model.StageMap)
	tk := maps.Tasks[0]
	if tk.Launch != 3 || tk.Finish != 9 || tk.Status != model.TaskFailed || app.Host(tk.Host) != "h1" || tk.Rack != 0 ||
		app.Reasons[tk.Reason].Message != "x\n  at y" || tk.Locality != model.NodeLocal {
		t.Errorf("map attempt %+v reason %q", tk, app.Reasons[tk.Reason].Message)
	}
	reds := stageOf(app, model.StageReduce)
	m := metricsOf(reds, 0)
	if m[model.HDFSBytesWritten] != 12 || m[model.OutputBytes] != 12 || m[model.PhysicalMemoryBytes] != 100 ||
		m[model.ShufflePhaseFinish] != 5 || m[model.SortPhaseFinish] != 6 || app.Host(reds.Tasks[0].Rack) != "/r" {
		t.Errorf("reduce metrics %v", m)
	}
}

func TestLegacy018Counters(t *testing.T) {
	in := `Job JOBID="job_1_0001" JOBNAME="a" USER="u" SUBMIT_TIME="1"
MapAttempt TASK_TYPE="MAP" TASKID="task_1_0001_m_000000" TASK_ATTEMPT_ID="attempt_1_0001_m_000000_0" START_TIME="2" HOSTNAME="/rack/h"
MapAttempt TASK_TYPE="MAP" TASKID="task_1_0001_m_000000" TASK_ATTEMPT_ID="attempt_1_0001_m_000000_0" TASK_STATUS="SUCCESS" FINISH_TIME="5" HOSTNAME="/rack/h" COUNTERS="File Systems.HDFS bytes read:5,Map-Reduce Framework.Map input records:3,Demux.x y:9"
`
	apps, err := ReadLegacy(strings.NewReader(in), "018")
	if err != nil {
		t.Fatal(err)
	}
	st := stageOf(apps[0], model.StageMap)
	m := metricsOf(st, 0)
	if apps[0].Version != "" || m[model.HDFSBytesRead] != 5 || m[model.InputBytes] != 5 || m[model.MapInputRecords] != 3 || m[model.ExecutorRunTime] != 3 {
		t.Errorf("version %q metrics %v", apps[0].Version, m)
	}
	if apps[0].Complete {
		t.Error("complete without a finish record")
	}
}

func TestLegacyErrors(t *testing.T) {
	for _, in := range []string{"", "\n\n", "<configuration/>\n", "hello world\n"} {
		_, err := ReadLegacy(strings.NewReader(in), "x.log")
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), `mapreduce: "x.log": line`) {
			t.Errorf("%q: %v", in, err)
		}
	}
	// a value left open by the end of the input is a truncation, not an error
	apps, err := ReadLegacy(strings.NewReader(`Job JOBID="job_1_0001" JOBNAME="x" .
MapAttempt TASK_TYPE="MAP" TASKID="task_1_0001_m_000000" TASK_ATTEMPT_ID="attempt_1_0001_m_000000_0" ERROR="never closed`), "t")
	if err != nil || !apps[0].Quality.Truncated {
		t.Errorf("err %v quality %+v", err, apps[0].Quality)
	}
}

func TestRumenSmall(t *testing.T) {
	var apps []*model.App
	err := ReadRumen(strings.NewReader(seedRumen+"\n garbage {\"jobID\":\"job_1_0003\",\"mapTasks\":[{\"taskID\":"), "small",
		func(a *model.App) error { apps = append(apps, a); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 3 {
		t.Fatalf("%d jobs", len(apps))
	}
	a := apps[0]
	if a.ID != "job_1_0001" || !a.Complete || a.Start != 1 || a.End != 9 || len(a.Conf) != 1 || prop(a.Jobs[0], "queue") != "q" {
		t.Errorf("job %q %v %d %d %v", a.ID, a.Complete, a.Start, a.End, a.Jobs[0].Properties)
	}
	st := stageOf(a, model.StageMap)
	tk := st.Tasks[0]
	m := metricsOf(st, 0)
	if app := a; app.Host(tk.Host) != "h.1" || app.Host(tk.Rack) != "/r" || tk.Locality != model.NodeLocal || tk.Status != model.TaskSuccess ||
		m[model.HDFSBytesRead] != 0 || m[model.MapInputRecords] != 5 || m[model.CPUMillis] != 40 || m[model.ExecutorRunTime] != 5 {
		t.Errorf("task %+v metrics %v", tk, m)
	}
	b := apps[1]
	if b.Complete || stageOf(b, model.StageMap).Tasks[0].Status != model.TaskKilled || len(b.Executors) != 1 || b.Executors[0].ID != "" {
		t.Errorf("second job %+v", b)
	}
	c := apps[2]
	if !c.Quality.Truncated || c.Quality.BadLines != 1 || c.ID != "job_1_0003" {
		t.Errorf("third job quality %+v id %q", c.Quality, c.ID)
	}
	for _, in := range []string{"", "  ", "[1,2]", "hello"} {
		err := ReadRumen(strings.NewReader(in), "r.json", func(*model.App) error { return nil })
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%q: %v", in, err)
		}
	}
	stop := errors.New("stop")
	if err := ReadRumen(strings.NewReader(seedRumen), "r", func(*model.App) error { return stop }); err != stop {
		t.Errorf("callback error %v", err)
	}
}

func TestReadConf(t *testing.T) {
	conf, err := ReadConf(bytes.NewReader([]byte(`<?xml version="1.0"?>
<!-- c --><configuration>
<property><!--Loaded from job.xml--><name>mapreduce.job.name</name><value>word count</value><source>job.xml</source></property>
<property><name>user.name</name><value>me</value></property>
<property><name>mapreduce.job.queuename</name><value>etl</value></property>
</configuration>`)))
	if err != nil || len(conf) != 3 || conf[0] != [2]string{"mapreduce.job.name", "word count"} {
		t.Fatalf("conf %v err %v", conf, err)
	}
	app := &model.App{Jobs: []*model.Job{{}}}
	ApplyConf(app, conf)
	if app.Name != "word count" || app.User != "me" || app.Jobs[0].Name != "word count" || app.Jobs[0].Properties[0] != [2]string{"queue", "etl"} {
		t.Errorf("applied %+v %+v", app, app.Jobs[0])
	}
	if _, err := ReadConf(strings.NewReader("<html></html>")); !errors.Is(err, ErrFormat) {
		t.Errorf("html: %v", err)
	}
	// the real conf beside a history
	conf, err = ReadConf(openLog(t, "hadoop/hadoop-mapreduce-project/hadoop-mapreduce-client/hadoop-mapreduce-client-hs/src/test/resources/job_1329348432655_0001_conf.xml"))
	if err != nil || len(conf) < 100 {
		t.Errorf("real conf: %d properties, %v", len(conf), err)
	}
}

func prop(j *model.Job, key string) string {
	for _, p := range j.Properties {
		if p[0] == key {
			return p[1]
		}
	}
	return ""
}
