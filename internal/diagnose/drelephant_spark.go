package diagnose

import (
	"fmt"
	"runtime"
	"sync"
	"weak"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
)

// sparkREST is what Dr. Elephant's SparkRestClient
// (spark/fetchers/SparkRestClient.scala) reads from the History Server for
// one application attempt: allexecutors, jobs and stages. clusterlens
// computes the same resources from the log with internal/shs, so the
// heuristics see the numbers Dr. Elephant would; the driver's task time is
// the time of the tasks it ran, as the History Servers of Dr. Elephant's
// day reported it (see drDriverTaskTime).
type sparkREST struct {
	executors []shs.ExecutorSummary
	jobs      []shs.JobData
	stages    []shs.StageData
}

// drRESTCache keeps each Input's REST data while the Input lives, so the
// four heuristics that read it replay the application's tasks once. Keys
// are weak: a cleanup drops an entry when its Input is collected.
var drRESTCache sync.Map // weak.Pointer[Input] → *sparkREST

// fetchSparkREST answers the three requests for in's application, once per
// Input.
func fetchSparkREST(in *Input) (*sparkREST, error) {
	key := weak.Make(in)
	if v, ok := drRESTCache.Load(key); ok {
		return v.(*sparkREST), nil
	}
	r, err := fetchSparkRESTUncached(in)
	if err != nil {
		return nil, err
	}
	if _, loaded := drRESTCache.LoadOrStore(key, r); !loaded {
		runtime.AddCleanup(in, func(k weak.Pointer[Input]) { drRESTCache.Delete(k) }, key)
	}
	return r, nil
}

// fetchSparkRESTUncached computes the three resources through the History
// Server API's typed answers.
func fetchSparkRESTUncached(in *Input) (*sparkREST, error) {
	app := in.App
	if app.Engine != model.Spark || app.ID == "" {
		return nil, fmt.Errorf("fetch spark rest data: not a spark application with an id")
	}
	ix := shs.NewIndex([]*model.App{app})
	r := sparkREST{executors: ix.AllExecutors(app), jobs: ix.Jobs(app), stages: ix.Stages(app)}
	for i := range r.executors {
		if r.executors[i].ID == "driver" {
			r.executors[i].TotalDuration = drDriverTaskTime(app)
		}
	}
	return &r, nil
}

// drDriverTaskTime is the time of the tasks the driver ran itself (local
// mode; none in cluster mode): the driver's totalDuration as the History
// Servers Dr. Elephant read (Spark 1.x, 2.x) report it. Spark 3's History
// Server reports the application's duration instead (AppStatusStore
// replaceExec), which would make the driver the executor with the most
// task time in every application.
func drDriverTaskTime(app *model.App) int64 {
	idx := -1
	for i, e := range app.Executors {
		if e.ID == "driver" {
			idx = i
		}
	}
	var sum int64
	for _, st := range app.Stages {
		for i := range st.Tasks {
			if t := &st.Tasks[i]; int(t.Executor) == idx && t.Finish > 0 {
				sum += t.Finish - t.Launch
			}
		}
	}
	return sum
}
