package eventlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// counts are the numbers expected-counts.tsv gives per Spark log, computed
// from the model under the file's definitions.
type counts struct {
	Version, AppID, Attempt                                     string
	Jobs, Stages, FailedStages, Tasks, FailedTasks, Speculative int
	ExecAdded, ExecRemoved, TaskHosts, BadLines                 int
	Complete                                                    bool
}

func countApp(a *model.App) counts {
	c := counts{Version: a.Version, AppID: a.ID, Attempt: a.AttemptID, Complete: a.Complete,
		BadLines: int(a.Quality.BadLines)}
	for _, j := range a.Jobs {
		if j.Submitted != 0 || j.StageIDs != nil {
			c.Jobs++
		}
	}
	hosts := map[uint32]bool{}
	for _, st := range a.Stages {
		switch st.Status {
		case model.StageComplete:
			c.Stages++
		case model.StageFailed:
			c.Stages++
			c.FailedStages++
		}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if t.Status == model.TaskRunning {
				continue
			}
			c.Tasks++
			if t.Reason != 0 {
				c.FailedTasks++
			}
			if t.Speculative {
				c.Speculative++
			}
			hosts[t.Host] = true
		}
	}
	c.TaskHosts = len(hosts)
	for _, e := range a.Executors {
		if e.Added != 0 {
			c.ExecAdded++
		}
		if e.Removed != 0 {
			c.ExecRemoved++
		}
	}
	return c
}

// openTest opens a log file decompressed as its bytes say (codec.Open).
func openTest(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, _, err := codec.Open(path, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{r, closers{r, f}}, nil
}

// dbcVersion reads, with encoding/json, the "Spark Version" of a log whose
// first line is Databricks' DBCEventLoggingListenerMetadata, or "".
func dbcVersion(t *testing.T, path string) string {
	t.Helper()
	line, err := bufio.NewReader(sharedtest.RawLog(t, path)).ReadBytes('\n')
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	var first struct {
		Event   string
		Version string `json:"Spark Version"`
	}
	if json.Unmarshal(line, &first) != nil || first.Event != "DBCEventLoggingListenerMetadata" {
		return ""
	}
	return first.Version
}

type closers [2]io.Closer

func (c closers) Close() error { return errors.Join(c[0].Close(), c[1].Close()) }

// sparkRows returns shared/data/logs and the columns of every Spark row of
// its expected-counts.tsv, failing unless there are at least 100.
func sparkRows(t *testing.T) (string, [][]string) {
	t.Helper()
	return sharedtest.ExpectedRows(t, "spark-eventlog", 100)
}

func TestExpectedCounts(t *testing.T) {
	root, rows := sparkRows(t)
	for _, col := range rows {
		path := col[1]
		t.Run(path, func(t *testing.T) {
			r, err := openTest(filepath.Join(root, path))
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			app, _ := Read(path, bytes.NewReader(data))
			got := eventCounts(t, app)
			// Real Spark logs repeat tasks (retries, speculation, Resubmitted
			// records) and stages (re-attempts), never an event: none is a
			// duplicate. Read twice in a row, the log gives the same model.
			twice, _ := Read(path, io.MultiReader(bytes.NewReader(data), strings.NewReader("\n"), bytes.NewReader(data)))
			if app.Quality.Duplicates != 0 {
				t.Errorf("%d duplicates in a real log: %+v", app.Quality.Duplicates, app.Quality.Issues)
			}
			wantTwice := countApp(app)
			wantTwice.BadLines *= 2
			if c := countApp(twice); c != wantTwice {
				t.Errorf("log read twice: %+v, want %+v", c, wantTwice)
			}
			atoi := func(s string) int { v, _ := strconv.Atoi(s); return v }
			want := counts{Version: col[2], AppID: col[3], Attempt: col[4], Jobs: atoi(col[5]), Stages: atoi(col[6]),
				FailedStages: atoi(col[7]), Tasks: atoi(col[8]), FailedTasks: atoi(col[9]), Speculative: atoi(col[10]),
				ExecAdded: atoi(col[11]), ExecRemoved: atoi(col[12]), TaskHosts: atoi(col[13]), BadLines: atoi(col[14]),
				Complete: col[15] == "True"}
			if want.Version == "" && app.Quality.Events["SparkListenerLogStart"] == 0 {
				// The file counts SparkListenerLogStart's version; Databricks
				// writes it in its own first line instead.
				want.Version = dbcVersion(t, filepath.Join(root, path))
			}
			if got != want {
				t.Errorf("\n got %+v\nwant %+v\nquality: %+v", got, want, app.Quality)
			}
		})
	}
	t.Logf("%d Spark logs checked", len(rows))
}
