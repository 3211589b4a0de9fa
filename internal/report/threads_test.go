package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/model"
)

// TestAnalysisThreads adds to a simulated run's node metrics the thread
// samples an agent would take every 100 ms of one Spark attempt's task
// thread, computing throughout, and checks that the analysis rebuilds the
// attempt's compute phase from them (HiTune §5) and compares it with the
// log's, in JSON and text; without thread samples there is no such part.
func TestAnalysisThreads(t *testing.T) {
	res, fr := simWithFrames(t, "demo", 1)
	var app *model.App
	var task *model.Task
	var stage int32
	for _, a := range res.Apps {
		if a.Engine != model.Spark || app != nil {
			continue
		}
		for _, st := range a.Stages {
			for i := range st.Tasks {
				if tk := &st.Tasks[i]; task == nil && tk.Status == model.TaskSuccess && tk.Finish-tk.Launch >= 2000 {
					app, task, stage = a, tk, st.ID
				}
			}
		}
	}
	if task == nil {
		t.Fatal("no Spark attempt of 2 s or more in the demo run")
	}
	if a := analysis.Build(app, analysis.Options{Metrics: fr}); a.Threads != nil {
		t.Fatalf("threads part without thread samples: %+v", a.Threads)
	}
	name := fmt.Sprintf("Executor task launch worker for task %d.0 in stage %d.0 (TID %d)", task.Index, stage, task.ID)
	const stack = "org.apache.spark.rdd.MapPartitionsRDD.compute(MapPartitionsRDD.scala:1)\norg.apache.spark.scheduler.ResultTask.runTask(ResultTask.scala:1)"
	n := 0
	for at := task.Launch; at < task.Finish; at += 100 {
		fr.Add(&model.Sample{Time: at, Host: app.Host(task.Host), Type: model.ThreadSampleType, Target: "7/8", Value: float64(task.ID),
			Text: "1\t" + name + "\tRUNNABLE\t" + stack})
		n++
	}
	a := analysis.Build(app, analysis.Options{Metrics: fr})
	tr := a.Threads
	if tr == nil || tr.Samples != n || tr.Attempts != 1 || tr.IntervalMs != 100 {
		t.Fatalf("threads part %+v, want %d samples of one attempt every 100 ms", tr, n)
	}
	ag := tr.Agreement
	if ag == nil || ag.Attempts != 1 || ag.NotInLog != 0 {
		t.Fatalf("agreement %+v, want the one attempt", ag)
	}
	var compute *dataflow.PhaseAgreement
	for i := range ag.Phases {
		if ag.Phases[i].Phase == dataflow.Compute {
			compute = &ag.Phases[i]
		}
	}
	if compute == nil || compute.SampledMs != int64(100*n) || compute.LoggedMs <= 0 {
		t.Errorf("compute agreement %+v, want %d ms sampled", compute, 100*n)
	}
	var js, text bytes.Buffer
	if err := AnalysisJSON(&js, []*analysis.Analysis{a}); err != nil {
		t.Fatal(err)
	}
	if err := AnalysisText(&text, a, 10); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"threads": {`) || !strings.Contains(text.String(), "Phases from JVM thread samples") {
		t.Errorf("threads part missing from JSON or text:\n%s", text.String())
	}
}
