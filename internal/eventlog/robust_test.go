package eventlog

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestOverLongLineSkippedUnread streams a 256 MiB line (a valid event with
// a huge string) past a 1 MiB limit: it is counted as too long with its
// length, not as invalid JSON, the events around it are applied, and the
// decoder allocates about the limit, not the line.
func TestOverLongLineSkippedUnread(t *testing.T) {
	const size = 256 << 20
	in := io.MultiReader(
		strings.NewReader(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`+"\n"+`{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{"x":"`),
		sharedtest.Repeat('x', size),
		strings.NewReader(`"}}`+"\n"+`{"Event":"SparkListenerApplicationStart","App Name":"a","App ID":"app-1","Timestamp":1,"User":"u"}`+"\n"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d := NewDecoder()
	d.MaxLine = 1 << 20
	if err := d.Feed("long.log", in); err != nil {
		t.Fatal(err)
	}
	app := d.Apps()[0]
	runtime.ReadMemStats(&after)
	q := app.Quality
	if q.LongLines != 1 || q.BadLines != 0 || app.ID != "app-1" || app.Version != "3.5.0" {
		t.Fatalf("quality %+v, app %q version %q", q, app.ID, app.Version)
	}
	wantLen := fmt.Sprint(size + len(`{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{"x":""}}`))
	if len(q.Issues) != 1 || q.Issues[0].Line != 2 || !strings.Contains(q.Issues[0].What, "line of "+wantLen+" bytes") ||
		!strings.Contains(q.Issues[0].What, "1.0 MiB line limit") {
		t.Errorf("issues %+v, want line 2 of %s bytes over the 1 MiB limit", q.Issues, wantLen)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("decoding allocated %d MiB for a 256 MiB line over a 1 MiB limit", alloc>>20)
	}
}

// TestBlankLinesAreCheap decodes 256 MiB of blank lines in well under the
// time one line at a time took (about 75 ns each: 20 s here).
func TestBlankLinesAreCheap(t *testing.T) {
	const size = 256 << 20
	in := io.MultiReader(strings.NewReader(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`+"\n"),
		sharedtest.Repeat('\n', size), strings.NewReader(`{"Event":"SparkListenerApplicationEnd","Timestamp":5}`+"\n"))
	cpu := sharedtest.ProcessCPU().Seconds()
	app, err := Read("blank.log", in)
	secs := sharedtest.ProcessCPU().Seconds() - cpu
	if err != nil || app.End != 5 || app.Quality.Lines != 2 {
		t.Fatalf("err %v, end %d, quality %+v", err, app.End, app.Quality)
	}
	if is := app.Quality.Issues; len(is) > 0 {
		t.Errorf("issues %+v", is)
	}
	t.Logf("%d MiB of blank lines in %.2f CPU s", size>>20, secs)
	if secs > 3 {
		t.Errorf("%.1f CPU s for %d MiB of blank lines, want < 3", secs, size>>20)
	}
}

// handLog is a Spark log with the repeats Spark itself writes: a failed task
// retried under a new task id, a speculative copy, a stage re-attempt, and a
// Resubmitted TaskEnd for a task that had succeeded.
const handLog = `{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}
{"Event":"SparkListenerApplicationStart","App Name":"a","App ID":"app-1","Timestamp":1000,"User":"u"}
{"Event":"SparkListenerResourceProfileAdded","Resource Profile Id":0,"Executor Resource Requests":{},"Task Resource Requests":{}}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1100,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":2,"RDD Info":[],"Parent IDs":[]}],"Stage IDs":[0]}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":2,"Submission Time":1100}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":1200,"Executor ID":"1","Host":"h1"}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":1,"Index":1,"Attempt":0,"Launch Time":1200,"Executor ID":"2","Host":"h2"}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":1200,"Executor ID":"1","Host":"h1","Finish Time":1300}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task End Reason":{"Reason":"ExceptionFailure","Description":"boom"},"Task Info":{"Task ID":1,"Index":1,"Attempt":0,"Launch Time":1200,"Executor ID":"2","Host":"h2","Finish Time":1250,"Failed":true}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":2,"Index":1,"Attempt":1,"Launch Time":1260,"Executor ID":"1","Host":"h1"}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":3,"Index":1,"Attempt":2,"Launch Time":1270,"Executor ID":"2","Host":"h2","Speculative":true}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":2,"Index":1,"Attempt":1,"Launch Time":1260,"Executor ID":"1","Host":"h1","Finish Time":1400}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task End Reason":{"Reason":"TaskKilled","Kill Reason":"another attempt succeeded"},"Task Info":{"Task ID":3,"Index":1,"Attempt":2,"Launch Time":1270,"Executor ID":"2","Host":"h2","Speculative":true,"Finish Time":1401,"Killed":true}}
{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":2,"Submission Time":1100,"Completion Time":1402}}
{"Event":"SparkListenerExecutorRemoved","Timestamp":1500,"Executor ID":"1","Removed Reason":"lost"}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task End Reason":{"Reason":"Resubmitted"},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":1200,"Executor ID":"1","Host":"h1","Finish Time":1300}}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":1,"Stage Name":"s","Number of Tasks":1,"Submission Time":1600}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":1,"Task Info":{"Task ID":4,"Index":0,"Attempt":0,"Launch Time":1610,"Executor ID":"2","Host":"h2"}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":1,"Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":4,"Index":0,"Attempt":0,"Launch Time":1610,"Executor ID":"2","Host":"h2","Finish Time":1700}}
{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":1,"Stage Name":"s","Number of Tasks":1,"Submission Time":1600,"Completion Time":1701}}
{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1702,"Job Result":{"Result":"JobSucceeded"}}
{"Event":"SparkListenerApplicationEnd","Timestamp":1800}
`

// shape is what a model says about tasks, stages and jobs.
func shape(a *model.App) string {
	var b strings.Builder
	for _, j := range a.Jobs {
		fmt.Fprintf(&b, "job %d %v %d-%d tasks %d\n", j.ID, j.Status, j.Submitted, j.Completed, j.NumTasks)
	}
	for _, st := range a.Stages {
		fmt.Fprintf(&b, "stage %d.%d %v %d-%d\n", st.ID, st.Attempt, st.Status, st.Submitted, st.Completed)
		for _, t := range st.Tasks {
			fmt.Fprintf(&b, "  task %d %d.%d %v %d-%d reason %d\n", t.ID, t.Index, t.Attempt, t.Status, t.Launch, t.Finish, t.Reason)
		}
	}
	fmt.Fprintf(&b, "profiles %d sql %d processes %d\n", len(a.ResourceProfiles), len(a.SQL), len(a.Processes))
	return b.String()
}

// TestSparkRepeatsAreNotDuplicates: retries, speculative copies, stage
// re-attempts and Resubmitted records are events of their own.
func TestSparkRepeatsAreNotDuplicates(t *testing.T) {
	app, err := Read("hand.log", strings.NewReader(handLog))
	if err != nil {
		t.Fatal(err)
	}
	if app.Quality.Duplicates != 0 || app.NumTasks() != 6 {
		t.Fatalf("%d duplicates, %d task records (want 0, 6: five attempts and a Resubmitted record)\n%s",
			app.Quality.Duplicates, app.NumTasks(), shape(app))
	}
}

// TestDuplicateEventsAppliedOnce reads a log concatenated with itself: the
// model is that of the log read once, and every repeated task, stage, job
// and profile event is counted as a duplicate.
func TestDuplicateEventsAppliedOnce(t *testing.T) {
	once, err := Read("hand.log", strings.NewReader(handLog))
	if err != nil {
		t.Fatal(err)
	}
	twice, err := Read("hand.log", strings.NewReader(handLog+handLog))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shape(twice), shape(once); got != want {
		t.Errorf("log read twice:\n%s\nwant as read once:\n%s", got, want)
	}
	// 5 task starts, 6 task ends (the Resubmitted one included), 2 stage
	// submissions, 2 completions, a job start and end, a resource profile.
	if twice.Quality.Duplicates != 18 {
		t.Errorf("%d duplicates, want 18", twice.Quality.Duplicates)
	}
	notes := 0
	for _, is := range twice.Quality.Issues {
		if !is.Handled || !strings.Contains(is.What, "duplicate ignored") {
			t.Errorf("issue %+v is not a handled duplicate", is)
		}
		notes++
	}
	if notes != model.MaxKindSamples || twice.Quality.Issues[0].Line != int64(strings.Count(handLog, "\n")+3) {
		t.Errorf("issues %+v: want %d samples, the first at line %d", twice.Quality.Issues, model.MaxKindSamples, strings.Count(handLog, "\n")+3)
	}
}

// TestTaskRepeatsAcrossParts: a part fed twice (a rolled part duplicated)
// is applied once.
func TestTaskRepeatsAcrossParts(t *testing.T) {
	d := NewDecoder()
	for i := 0; i < 2; i++ {
		if err := d.Feed(fmt.Sprintf("part-%d", i), bytes.NewReader([]byte(handLog))); err != nil {
			t.Fatal(err)
		}
	}
	app := d.Apps()[0]
	once, _ := Read("hand.log", strings.NewReader(handLog))
	if shape(app) != shape(once) || app.Quality.Duplicates != 18 || app.Quality.Issues[0].File != "part-1" {
		t.Errorf("duplicates %d, issues %+v\n%s", app.Quality.Duplicates, app.Quality.Issues, shape(app))
	}
}

// TestDuplicatesAcrossSnapshots: a log concatenated with itself and read
// as a growing log, through snapshots cut at every fifth line, is the log
// read once, with the repeats counted: what was applied survives Snapshot
// and Resume.
func TestDuplicatesAcrossSnapshots(t *testing.T) {
	data := []byte(handLog + handLog)
	var cuts []int
	for i, n := 0, 0; i < len(data); i++ {
		if data[i] == '\n' {
			if n++; n%5 == 0 {
				cuts = append(cuts, i+1)
			}
		}
	}
	apps := readResumed(t, "twice.log", data, cuts, nil)
	once, _ := Read("hand.log", strings.NewReader(handLog))
	if len(apps) != 1 || shape(apps[0]) != shape(once) || apps[0].Quality.Duplicates != 18 {
		t.Errorf("%d applications, duplicates %d\n%s", len(apps), apps[0].Quality.Duplicates, shape(apps[0]))
	}
}
