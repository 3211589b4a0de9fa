package sim

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/summary"
)

func TestQuick(t *testing.T) {
	sc, _ := Named("clean")
	res, err := Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, app := range res.Apps {
		s := summary.Build(app)
		tr := res.Truth.Apps[i]
		t.Logf("%s %s dur=%ds jobs=%d stages=%d tasks=%d failed=%d hosts=%d | truth %+v", app.ID, app.Name, app.Duration()/1000,
			s.Totals.Jobs, s.Totals.Stages, s.Totals.Tasks, s.Totals.FailedTasks, s.Totals.Hosts, tr)
		for _, st := range s.Stages {
			t.Logf("  stage %d %s tasks=%d q=%v", st.ID, st.Name, st.Tasks, st.TaskDurationMs)
		}
	}
}
