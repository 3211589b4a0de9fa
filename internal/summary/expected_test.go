package summary

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestExpectedCounts checks the summary's task totals against
// shared/data/logs/expected-counts.tsv, counts computed independently of this
// project. Its failed_tasks are the TaskEnd events whose reason is not
// Success: the History Server's failed tasks (Resubmitted records included)
// plus its killed ones, so failedTasks + killedTasks must equal them. The tsv
// counts a rolling or Spark 1.x directory log per file, so each file is read
// and summarized on its own, as internal/eventlog's TestExpectedCounts does.
func TestExpectedCounts(t *testing.T) {
	root, rows := sharedtest.ExpectedRows(t, "spark-eventlog", 100)
	resubmitted := 0
	for _, col := range rows {
		path := col[1]
		t.Run(path, func(t *testing.T) {
			tasks, err := strconv.Atoi(col[8])
			if err != nil {
				t.Fatalf("tasks column %q: %v", col[8], err)
			}
			failed, err := strconv.Atoi(col[9])
			if err != nil {
				t.Fatalf("failed_tasks column %q: %v", col[9], err)
			}
			file, err := os.Open(filepath.Join(root, path))
			if err != nil {
				t.Fatal(err)
			}
			defer file.Close()
			r, _, err := codec.Open(path, file)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			app, _ := eventlog.Read(path, r)
			s := Build(app)
			tt := s.Totals
			if tt.Tasks != tasks || tt.FailedTasks+tt.KilledTasks != failed {
				t.Errorf("tasks %d (+%d unfinished), failed %d + killed %d; expected-counts.tsv: tasks %d, failed_tasks %d",
					tt.Tasks, tt.RunningTasks, tt.FailedTasks, tt.KilledTasks, tasks, failed)
			}
			var st Totals
			for _, ss := range s.Stages {
				st.Tasks += ss.Tasks
				st.FailedTasks += ss.Failed
				st.ResubmittedTasks += ss.Resubmitted
				st.KilledTasks += ss.Killed
			}
			if st.Tasks != tt.Tasks || st.FailedTasks != tt.FailedTasks || st.ResubmittedTasks != tt.ResubmittedTasks || st.KilledTasks != tt.KilledTasks {
				t.Errorf("stages sum to %+v, totals %+v", st, tt)
			}
			resubmitted += tt.ResubmittedTasks
		})
	}
	t.Logf("%d Spark logs checked, %d Resubmitted records among their failed tasks", len(rows), resubmitted)
}
