package eventlog

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clusterlens/clusterlens/internal/model"
)

// taskView is a task attempt with its packed references resolved, so that
// models can be compared field by field.
type taskView struct {
	ID, Launch, Finish, GettingResult int64
	Index, Partition, Attempt         int32
	Status                            model.TaskStatus
	Locality                          model.Locality
	Speculative, HasMetrics           bool
	Rack                              uint32
	Metrics                           model.TaskMetrics
	HostName, ExecID                  string
	Reason                            model.Reason
}

// stageView is a stage with its tasks resolved.
type stageView struct {
	*model.Stage
	Views []taskView
	// ExecPeaks are ExecutorPeaks keyed by executor id.
	ExecPeaks map[string]model.ExecutorMetrics
	Excluded  []string
}

// appView is what the round trip compares: the model with its interned
// indexes (hosts, executors, reasons) replaced by what they name.
type appView struct {
	*model.App
	StageViews []stageView
	// Execs are the executors sorted by id.
	Execs []*model.Executor
}

func viewOf(a *model.App) appView {
	v := appView{App: a, Execs: slices.Clone(a.Executors)}
	slices.SortStableFunc(v.Execs, func(x, y *model.Executor) int { return strings.Compare(x.ID, y.ID) })
	for _, st := range a.Stages {
		sv := stageView{Stage: st, ExecPeaks: map[string]model.ExecutorMetrics{}}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			tv := taskView{ID: t.ID, Launch: t.Launch, Finish: t.Finish, GettingResult: t.GettingResult,
				Index: t.Index, Partition: t.Partition, Attempt: t.Attempt, Status: t.Status, Locality: t.Locality,
				Speculative: t.Speculative, HasMetrics: t.HasMetrics, Rack: t.Rack,
				HostName: a.Host(t.Host), Reason: a.Reasons[t.Reason]}
			st.TaskMetrics(i, &tv.Metrics)
			if int(t.Executor) < len(a.Executors) {
				tv.ExecID = a.Executors[t.Executor].ID
			}
			sv.Views = append(sv.Views, tv)
		}
		for k, p := range st.ExecutorPeaks {
			sv.ExecPeaks[a.Executors[k].ID] = *p
		}
		for _, k := range st.ExcludedExecutors {
			sv.Excluded = append(sv.Excluded, a.Executors[k].ID)
		}
		v.StageViews = append(v.StageViews, sv)
	}
	return v
}

// roundTripOptions lists what the comparison ignores, and why:
//   - App.Quality: the reader's bookkeeping of the input (line counts, event
//     counts), not the application;
//   - App.Source, App.LastUpdated: the file's name and modification time;
//   - App.Executors: compared sorted by id (Execs), since their order is that
//     of first appearance in the log, and logs edited by hand (sparkscope's
//     corrupted-events test log) announce executors out of time order;
//   - App.Hosts, App.Reasons, Task.Host/Executor/Reason, Stage.Tasks,
//     Stage.Metrics, Stage.ExecutorPeaks, Stage.ExcludedExecutors: interned
//     tables and indexes into them; the views compare what they name (host
//     names, executor ids, reasons, unpacked metrics) instead, since the order
//     of first appearance may differ when events share a timestamp;
//   - App.Platform: load identifies it from what was read (no event holds it);
//   - Rollover.File and Line: the writer puts Databricks' markers first;
//   - Executor.ExcludedStages: compared as a set (the model keeps no time of
//     an exclusion; the writer logs it at the stage's submission).
func roundTripOptions() cmp.Options {
	return cmp.Options{
		cmpopts.IgnoreFields(model.App{}, "Quality", "Source", "LastUpdated", "Hosts", "Reasons", "Stages", "Executors", "Platform"),
		cmpopts.IgnoreFields(model.Stage{}, "Tasks", "Metrics", "ExecutorPeaks", "ExcludedExecutors"),
		cmpopts.IgnoreFields(model.Rollover{}, "File", "Line"),
		// Task views are flat values: compared whole, which keeps the
		// comparison of million-task models fast.
		cmp.Comparer(func(a, b taskView) bool { return a == b }),
		cmp.Comparer(func(a, b model.Text) bool { return a.String() == b.String() }),
		// The decoder folds the SQL metric updates the encoder writes into
		// aggregated values (the sql tests check those); the count of
		// adaptive plan updates is written as one.
		cmpopts.IgnoreFields(model.SQLExecution{}, "Metrics", "DriverUpdates", "AdaptiveUpdates"),
		cmpopts.IgnoreFields(model.Stage{}, "TaskSQLUpdates"),
		cmpopts.EquateEmpty(),
		cmpopts.SortSlices(func(a, b int32) bool { return a < b }),
	}
}

// normalize applies what a 3.5 writer legitimately adds to a model read
// from an older log: the Spark version (logs before 1.3 have no
// SparkListenerLogStart) and the default resource profile (logs before 3.1
// have none).
func normalize(orig, back *model.App) {
	if orig.Version == "" && back.Version == DefaultSparkVersion {
		back.Version = ""
	}
	if len(orig.ResourceProfiles) == 0 && len(back.ResourceProfiles) == 1 {
		back.ResourceProfiles = nil
	}
}

func roundTrip(t *testing.T, orig *model.App) (*model.App, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, orig); err != nil {
		t.Fatal(err)
	}
	back, err := Read("re-encoded", bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if q := back.Quality; q.BadLines != 0 || q.Incomplete != 0 || q.UnknownEvents != 0 {
		t.Fatalf("re-encoded log has bad lines: %+v", q)
	}
	normalize(orig, back)
	return back, buf.Bytes()
}

func TestRoundTripRealLogs(t *testing.T) {
	root, rows := sparkRows(t)
	for _, col := range rows {
		path := col[1]
		t.Run(path, func(t *testing.T) {
			r, err := openTest(filepath.Join(root, path))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			orig, _ := Read(path, r)
			back, _ := roundTrip(t, orig)
			if d := cmp.Diff(viewOf(orig), viewOf(back), roundTripOptions()); d != "" {
				t.Errorf("round trip differs (-orig +back):\n%s", d)
			}
		})
	}
}

// DiffApps compares two models as the round-trip tests do (for the
// external tests of this package).
func DiffApps(a, b *model.App) string {
	return cmp.Diff(viewOf(a), viewOf(b), roundTripOptions())
}

// Normalize undoes, in back, what a 3.5 writer adds to a model read from an
// older log (see normalize).
func Normalize(orig, back *model.App) { normalize(orig, back) }
