package mapreduce

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// rtAttempt is a task attempt with its interned references resolved.
type rtAttempt struct {
	ID, Launch, Finish, GettingResult int64
	Index, Partition, Attempt         int32
	Status                            model.TaskStatus
	Locality                          model.Locality
	Speculative, HasMetrics           bool
	Metrics                           model.TaskMetrics
	Host, Rack, Executor              string
	Reason                            model.Reason
}

type rtJob struct {
	*model.App
	Tasks map[model.StageKind][]rtAttempt
}

func rtJobOf(a *model.App) rtJob {
	v := rtJob{App: a, Tasks: map[model.StageKind][]rtAttempt{}}
	for _, st := range a.Stages {
		for i := range st.Tasks {
			t := &st.Tasks[i]
			av := rtAttempt{ID: t.ID, Launch: t.Launch, Finish: t.Finish, GettingResult: t.GettingResult,
				Index: t.Index, Partition: t.Partition, Attempt: t.Attempt, Status: t.Status, Locality: t.Locality,
				Speculative: t.Speculative, HasMetrics: t.HasMetrics,
				Host: a.Host(t.Host), Rack: a.Host(t.Rack), Reason: a.Reasons[t.Reason]}
			if int(t.Executor) < len(a.Executors) {
				av.Executor = a.Executors[t.Executor].ID
			}
			st.TaskMetrics(i, &av.Metrics)
			v.Tasks[st.Kind] = append(v.Tasks[st.Kind], av)
		}
	}
	return v
}

// diffJobs compares two models, ignoring:
//   - App.Quality: the reader's bookkeeping of the input;
//   - App.Source, App.LastUpdated: the file's name and modification time;
//   - App.Hosts, App.Reasons, Stage.Tasks, Stage.Metrics: interned tables and
//     packed metrics, compared resolved (host, rack and executor names,
//     reasons, unpacked metrics) in rtJob.Tasks, since the order in which
//     hosts are first named may differ.
func diffJobs(a, b *model.App) string {
	return cmp.Diff(rtJobOf(a), rtJobOf(b),
		cmpopts.IgnoreFields(model.App{}, "Quality", "Source", "LastUpdated", "Hosts", "Reasons"),
		cmpopts.IgnoreFields(model.Stage{}, "Tasks", "Metrics"),
		cmp.Comparer(func(x, y rtAttempt) bool { return x == y }),
		cmpopts.EquateEmpty())
}

func rewriteJhist(t *testing.T, app *model.App) *model.App {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJhist(&buf, app); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJhist(&buf, "rewritten.jhist")
	if err != nil {
		t.Fatal(err)
	}
	if q := back.Quality; q.BadLines != 0 || q.UnknownEvents != 0 || q.Truncated {
		t.Fatalf("rewritten history has bad lines: %+v", q)
	}
	return back
}

// TestWriteJhistRealRoundTrip: every real .jhist in the shared data, read,
// written and read again, gives the same model.
func TestWriteJhistRealRoundTrip(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(d.Name(), ".jhist") {
			return err
		}
		n++
		rel, _ := filepath.Rel(root, p)
		t.Run(rel, func(t *testing.T) {
			orig, err := ReadJhist(openLog(t, rel), rel)
			if err != nil {
				t.Fatal(err)
			}
			back := rewriteJhist(t, orig)
			back.Version = orig.Version // the form read (Avro-Binary, container) is written as Avro-Json
			if d := diffJobs(orig, back); d != "" {
				t.Errorf("round trip differs (-orig +back):\n%s", d)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 12 {
		t.Fatalf("found %d .jhist files, want 12", n)
	}
}

// TestWriteConfRoundTrip: real job confs and awkward values survive
// WriteConf then ReadConf.
func TestWriteConfRoundTrip(t *testing.T) {
	cases := [][][2]string{
		{{"mapreduce.job.name", "a <b> & \"c\" 'd'"}, {"x", ""}, {"unicode", "ünï\tcode\nline"}, {"dup", "1"}, {"dup", "2"}},
	}
	root := sharedtest.Dir(t, "logs")
	confs, _ := filepath.Glob(filepath.Join(root, "dr-elephant/test/resources/history/done/2018/05/17/000000/*_conf.xml"))
	for _, p := range confs {
		rel, _ := filepath.Rel(root, p)
		c, err := ReadConf(openLog(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	if len(cases) < 3 {
		t.Fatalf("found %d real confs", len(cases)-1)
	}
	for i, c := range cases {
		var buf bytes.Buffer
		if err := WriteConf(&buf, c); err != nil {
			t.Fatal(err)
		}
		back, err := ReadConf(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(c, back); d != "" {
			t.Errorf("conf %d differs (-wrote +read):\n%s", i, d)
		}
	}
}
