package sim

import (
	"bytes"
	"testing"

	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/model"
)

// TestDemoLogReadsBack checks the project's own reader sees exactly what the
// demo wrote: no skipped line, the ground-truth task and failure counts.
func TestDemoLogReadsBack(t *testing.T) {
	var buf bytes.Buffer
	truth, err := WriteDemoSparkLog(&buf, 1)
	if err != nil {
		t.Fatal(err)
	}
	app, err := eventlog.Read("demo", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if q := app.Quality; q.BadLines != 0 || q.UnknownEvents != 0 || q.Incomplete != 0 {
		t.Fatalf("quality: %+v", q)
	}
	if app.ID != truth.ID || !app.Complete || app.Version != "3.5.1" {
		t.Fatalf("identity: %q complete=%v version=%q", app.ID, app.Complete, app.Version)
	}
	tasks, failed := 0, 0
	for _, st := range app.Stages {
		for _, tk := range st.Tasks {
			tasks++
			if tk.Status == model.TaskFailed {
				failed++
			}
		}
	}
	if tasks != truth.Tasks || failed != truth.Failed || len(app.Jobs) != 2 || len(app.Stages) != 3 {
		t.Fatalf("tasks %d/%d failed %d/%d jobs %d stages %d", tasks, truth.Tasks, failed, truth.Failed, len(app.Jobs), len(app.Stages))
	}
	var again bytes.Buffer
	WriteDemoSparkLog(&again, 1)
	var b2 bytes.Buffer
	WriteDemoSparkLog(&b2, 1)
	if !bytes.Equal(again.Bytes(), b2.Bytes()) {
		t.Fatal("demo log is not deterministic")
	}
}
