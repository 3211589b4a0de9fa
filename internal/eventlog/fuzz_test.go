package eventlog

import (
	"bytes"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// FuzzDecode feeds arbitrary bytes as an event log: the decoder must never
// panic, and every non-blank line must be either decoded or counted bad.
func FuzzDecode(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder()
		d.Feed("fuzz", bytes.NewReader(b))
		var lines, bad int64
		for _, app := range d.Apps() {
			q := app.Quality
			if q.Lines < 0 || q.BadLines > q.Lines {
				t.Fatalf("quality inconsistent: %+v", q)
			}
			lines, bad = lines+q.Lines, bad+q.BadLines
			var m model.TaskMetrics
			for _, st := range app.Stages {
				for i := range st.Tasks {
					st.TaskMetrics(i, &m)
					if st.Tasks[i].Host >= uint32(len(app.Hosts)) || st.Tasks[i].Reason >= uint32(len(app.Reasons)) {
						t.Fatalf("task refers outside the tables: %+v", st.Tasks[i])
					}
				}
			}
			for _, r := range app.Rollovers {
				if r.ContextID != app.Rollovers[0].ContextID {
					t.Fatalf("one application, two Spark contexts: %+v", app.Rollovers)
				}
			}
		}
		if want := int64(len(bytes.Fields(bytes.ReplaceAll(b, []byte(" "), []byte("x"))))); lines > want {
			t.Fatalf("%d lines counted in %d non-blank lines", lines, want)
		}
	})
}

// fuzzSeeds are the decoder fuzz targets' seeds: a complete small log, bad
// and cut lines, Databricks parts of two Spark contexts, a Photon task.
var fuzzSeeds = []string{
	`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}
{"Event":"SparkListenerApplicationStart","App Name":"x","App ID":"app-1","Timestamp":1,"User":"u"}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":2,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"RDD Info":[{"RDD ID":1}],"Parent IDs":[]}],"Stage IDs":[0]}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Number of Tasks":1}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h"}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task End Reason":{"Reason":"ExceptionFailure","Class Name":"E","Description":"d","Stack Trace":[{"Declaring Class":"C","Method Name":"m","File Name":"F.java","Line Number":3}]},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Finish Time":9,"Failed":true},"Task Metrics":{"Executor Run Time":5,"Shuffle Read Metrics":{"Remote Bytes Read":7,"Push Based Shuffle":{"Merged Remote Bytes Read":1}}}}
{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Failure Reason":"boom"}}
{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":10,"Job Result":{"Result":"JobFailed","Exception":{"Message":"m"}}}
{"Event":"SparkListenerApplicationEnd","Timestamp":11}
`,
	"{\"Event\":\"SparkListenerTaskEnd\",\"Task Info\":{\"Task ID\":\"7\"}}\n{bad\n\n{\"Event\"",
	// Databricks parts of two Spark contexts; a Photon task.
	marker(0, ctxA) + marker(2, ctxA) + marker(1, ctxB) + marker(1, ctxB) + "{bad\n" + marker(0, ctxA),
	environment("spark.databricks.clusterUsageTags.runtimeEngine", "PHOTON") + photonTaskEnd(1, 0, 0, 0),
}
