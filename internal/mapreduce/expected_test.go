package mapreduce

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestExpectedCounts compares every mr-jhist, mr-legacy-history and
// rumen-trace row of shared/data/logs/expected-counts.tsv (counted by an
// independent decoder) with what the readers give.
func TestExpectedCounts(t *testing.T) {
	for _, row := range expectedRows(t, "mr-jhist", "mr-legacy-history", "rumen-trace") {
		t.Run(row.path, func(t *testing.T) {
			switch row.kind {
			case "mr-jhist":
				checkJhistRow(t, row)
			case "mr-legacy-history":
				checkLegacyRow(t, row)
			case "rumen-trace":
				checkRumenRow(t, row)
			}
		})
	}
}

func want(t *testing.T, what string, got int, exp string) {
	t.Helper()
	if exp == "" {
		return
	}
	n, err := strconv.Atoi(exp)
	if err != nil {
		t.Fatalf("%s: bad expected %q", what, exp)
	}
	if got != n {
		t.Errorf("%s = %d, want %d", what, got, n)
	}
}

func checkJhistRow(t *testing.T, row expectedRow) {
	app, err := ReadJhist(openLog(t, row.path), row.path)
	if err != nil {
		t.Fatal(err)
	}
	if app.Version != row.version {
		t.Errorf("version %q, want %q", app.Version, row.version)
	}
	if app.ID != row.id {
		t.Errorf("id %q, want %q", app.ID, row.id)
	}
	want(t, "tasks (attempts)", app.NumTasks(), row.tasks)
	want(t, "failed+killed attempts", failedCount(app), row.failed)
	want(t, "task hosts", hostCount(app), row.hosts)
	want(t, "executors", len(app.Executors), row.hosts)
	switch row.complete {
	case "JOB_FINISHED":
		if !app.Complete || app.Jobs[0].Status != model.JobSucceeded {
			t.Errorf("complete %v status %v, want a finished job", app.Complete, app.Jobs[0].Status)
		}
	case "JOB_FAILED", "JOB_KILLED":
		if !app.Complete || app.Jobs[0].Status != model.JobFailed {
			t.Errorf("complete %v status %v, want a failed job", app.Complete, app.Jobs[0].Status)
		}
	case "":
		if app.Complete {
			t.Error("complete, want a partial job")
		}
	}
	if app.Quality.BadLines != 0 {
		t.Errorf("bad lines %d: %v", app.Quality.BadLines, app.Quality.Issues)
	}
}

var attemptIDRe = regexp.MustCompile(`(?m)^(?:Map|Reduce)Attempt .*?TASK_ATTEMPT_ID="([^"]*)"`)

func checkLegacyRow(t *testing.T, row expectedRow) {
	data := readLog(t, row.path)
	apps, st, err := ReadLegacyStats(bytesReader(data), row.path)
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) == 0 {
		t.Fatal("no jobs")
	}
	if apps[0].ID != row.id {
		t.Errorf("first job %q, want %q", apps[0].ID, row.id)
	}
	if apps[0].Version != row.version {
		t.Errorf("version %q, want %q", apps[0].Version, row.version)
	}
	// The independent counts: attempt records (start and finish lines
	// apart) and distinct HOSTNAME values.
	want(t, "attempt records", int(st.AttemptRecords), row.tasks)
	want(t, "distinct HOSTNAME values", st.AttemptHosts, row.hosts)
	// Merged attempts: one Task per distinct TASK_ATTEMPT_ID, counted here
	// with a regular expression over the raw file.
	ids := map[string]bool{}
	for _, m := range attemptIDRe.FindAllSubmatch(data, -1) {
		ids[string(m[1])] = true
	}
	merged := 0
	for _, app := range apps {
		merged += app.NumTasks()
	}
	if merged != len(ids) {
		t.Errorf("merged attempts %d, want %d distinct attempt ids", merged, len(ids))
	}
	// The model's (rack, host) pairs of finished attempts are the HOSTNAME values.
	if n := locationCount(apps, func(t *model.Task) bool { return t.Status != model.TaskRunning }); n != st.AttemptHosts {
		t.Errorf("model locations of finished attempts %d, want %d HOSTNAME values", n, st.AttemptHosts)
	}
	// truncated-job-tracker-log was cut on purpose inside one Task record
	// (line 58, `Task TASKID="..." TASK_TY .`); every other file is clean.
	wantBad := int64(0)
	if strings.HasSuffix(row.path, "/truncated-job-tracker-log") {
		wantBad = 1
	}
	var bad int64
	for _, app := range apps {
		bad += app.Quality.BadLines
	}
	if bad != wantBad {
		t.Errorf("bad lines %d, want %d: %v", bad, wantBad, apps[0].Quality.Issues)
	}
	t.Logf("%d jobs, %d merged attempts, %v", len(apps), merged, st)
}

func checkRumenRow(t *testing.T, row expectedRow) {
	var apps []*model.App
	err := ReadRumen(openLog(t, row.path), row.path, func(a *model.App) error {
		apps = append(apps, a)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want(t, "jobs", len(apps), row.jobs)
	n := 0
	for _, a := range apps {
		n += a.NumTasks()
		if a.Quality.BadLines != 0 || a.Quality.Truncated {
			t.Errorf("%s: quality %+v", a.ID, a.Quality)
		}
	}
	want(t, "attempts", n, row.tasks)
	want(t, "hosts (distinct hostName)", locationCount(apps, nil), row.hosts)
}
