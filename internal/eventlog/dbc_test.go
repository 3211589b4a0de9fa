package eventlog

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// marker is a DBCEventLoggingListenerMetadata line.
func marker(number int, context string) string {
	return fmt.Sprintf(`{"Event":"DBCEventLoggingListenerMetadata","Spark Version":"3.1.2","Timestamp":%d,"Rollover Number":%d,"SparkContext Id":%s}`+"\n",
		1642530108255+number, number, context)
}

const (
	ctxA = "4990884153077848559"
	ctxB = "5990884153077848559"
)

func TestPartHeader(t *testing.T) {
	event, r, ok := PartHeader([]byte(strings.TrimSpace(marker(3, ctxA))))
	if event != dbcEvent || !ok || r.Number != 3 || r.ContextID != ctxA || r.SparkVersion != "3.1.2" || r.Timestamp != 1642530108258 {
		t.Errorf("marker: %q %+v %v", event, r, ok)
	}
	if event, _, ok := PartHeader([]byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`)); event != "SparkListenerLogStart" || ok {
		t.Errorf("log start: %q %v", event, ok)
	}
	if event, _, ok := PartHeader([]byte(`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd","executionId":1}`)); event != "SparkListenerSQLExecutionEnd" || ok {
		t.Errorf("prefixed event: %q %v", event, ok)
	}
	for _, bad := range []string{"", "{", `{"Event":"DBCEventLoggingListenerMetadata","Rollover Number":`, "not json", `{"x":1}`} {
		if event, _, ok := PartHeader([]byte(bad)); event != "" || ok {
			t.Errorf("%q: %q %v", bad, event, ok)
		}
	}
}

// TestDatabricksVersion: a Databricks log has no SparkListenerLogStart; its
// version is the marker's (it was empty before).
func TestDatabricksVersion(t *testing.T) {
	log := marker(0, ctxA) + `{"Event":"SparkListenerApplicationStart","App Name":"Databricks Shell","App ID":"app-1","Timestamp":1,"User":"root"}` + "\n"
	a, err := Read("eventlog", strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if a.Version != "3.1.2" || len(a.Rollovers) != 1 || a.Rollovers[0].Line != 1 || a.Rollovers[0].File != "eventlog" {
		t.Errorf("version %q rollovers %+v", a.Version, a.Rollovers)
	}
	if a.Quality.UnknownEvents != 0 || a.Quality.Events[dbcEvent] != 1 || len(a.Quality.Notes) != 0 {
		t.Errorf("quality %+v", a.Quality)
	}
	// SparkListenerLogStart, when a log has both, says the version.
	b, _ := Read("x", strings.NewReader(marker(0, ctxA)+`{"Event":"SparkListenerLogStart","Spark Version":"3.4.1"}`+"\n"))
	if b.Version != "3.4.1" {
		t.Errorf("version %q", b.Version)
	}
}

// TestRolloverNotes feeds parts starting with markers of the numbers given
// (-1: a part without a marker) and checks what the decoder says.
func TestRolloverNotes(t *testing.T) {
	for _, tc := range []struct {
		parts []int
		want  []string // notes; a leading "!" marks a partial one
	}{
		{[]int{0, 1, 2}, nil},
		{[]int{-1, -1}, nil},
		{[]int{0, 2}, []string{"!part 1 is missing before part 2 (p1:1)"}},
		{[]int{1, 2}, []string{"!part 0 is missing: the log starts at part 1 (p0:1)"}},
		{[]int{3}, []string{"!parts 0 to 2 are missing: the log starts at part 3 (p0:1)"}},
		{[]int{0, -1, 2}, nil},
		{[]int{-1, 1}, nil},
		{[]int{0, -1, 3}, []string{"!1 of parts 1 to 2 is missing before part 3 (p2:1)"}},
		{[]int{0, 0, 1}, []string{"part 0 is read twice (again at p1:1): its task, stage and job events are applied once"}},
		{[]int{0, 2, 1}, []string{"!part 1 is missing before part 2 (p1:1)", "!part 1 at p2:1 comes after part 2: the parts are out of order"}},
	} {
		d := NewDecoder()
		for i, n := range tc.parts {
			part := `{"Event":"SparkListenerJobEnd","Job ID":1,"Completion Time":5,"Job Result":{"Result":"JobSucceeded"}}` + "\n"
			if n >= 0 {
				part = marker(n, ctxA) + part
			}
			if err := d.Feed(fmt.Sprintf("p%d", i), strings.NewReader(part)); err != nil {
				t.Fatal(err)
			}
		}
		apps := d.Apps()
		if len(apps) != 1 {
			t.Fatalf("%v: %d applications", tc.parts, len(apps))
		}
		var got []string
		for _, n := range apps[0].Quality.Notes {
			got = append(got, map[bool]string{true: "!"}[n.Partial]+n.Text)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%v: notes\n%s\nwant\n%s", tc.parts, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestContextSplit: parts of two Spark contexts concatenated in one file are
// read as two applications, never merged.
func TestContextSplit(t *testing.T) {
	log := marker(0, ctxA) +
		`{"Event":"SparkListenerApplicationStart","App Name":"a","App ID":"app-a","Timestamp":1,"User":"u"}` + "\n" +
		marker(1, ctxA) +
		`{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":2,"Stage Infos":[],"Stage IDs":[]}` + "\n" +
		marker(0, ctxB) +
		`{"Event":"SparkListenerApplicationStart","App Name":"b","App ID":"app-b","Timestamp":3,"User":"u"}` + "\n"
	d := NewDecoder()
	if err := d.Feed("all.json", strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	apps := d.Apps()
	if len(apps) != 2 {
		t.Fatalf("%d applications", len(apps))
	}
	a, b := apps[0], apps[1]
	if a.ID != "app-a" || len(a.Jobs) != 1 || len(a.Rollovers) != 2 || a.Quality.Lines != 4 || a.Quality.Events[dbcEvent] != 2 {
		t.Errorf("first: id %q jobs %d rollovers %v quality %+v", a.ID, len(a.Jobs), a.Rollovers, a.Quality)
	}
	if b.ID != "app-b" || len(b.Jobs) != 0 || len(b.Rollovers) != 1 || b.Rollovers[0].Line != 5 || b.Quality.Lines != 2 || b.Quality.Events[dbcEvent] != 1 {
		t.Errorf("second: id %q jobs %d rollovers %v quality %+v", b.ID, len(b.Jobs), b.Rollovers, b.Quality)
	}
	for _, app := range apps {
		if len(app.Quality.Notes) != 1 || app.Quality.Partial() || !strings.Contains(app.Quality.Notes[0].Text, "another") && !strings.Contains(app.Quality.Notes[0].Text, "changes from") {
			t.Errorf("%s notes %v", app.ID, app.Quality.Notes)
		}
	}
	if _, err := Read("all.json", strings.NewReader(log)); err == nil || !strings.Contains(err.Error(), "2 applications") {
		t.Errorf("Read: %v", err)
	}
}

// FuzzPartHeader: the first-line reader never panics, and what it says of a
// marker is what the decoder reads from the same line.
func FuzzPartHeader(f *testing.F) {
	f.Add([]byte(marker(2, ctxA)))
	f.Add([]byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`))
	f.Add([]byte(`{"SparkContext Id":"x","Event":"DBCEventLoggingListenerMetadata"}`))
	f.Add([]byte(`{"Event":"DBCEventLoggingListenerMetadata","Rollover Number":"7"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\r\n") {
			return // one line
		}
		event, r, ok := PartHeader(line)
		if ok != (event == dbcEvent) {
			t.Fatalf("event %q ok %v", event, ok)
		}
		if !ok {
			return
		}
		d := NewDecoder()
		d.Feed("f", strings.NewReader(string(line)+"\n"))
		apps := d.Apps()
		got := apps[len(apps)-1].Rollovers
		want := model.Rollover{Number: r.Number, ContextID: r.ContextID, SparkVersion: r.SparkVersion, Timestamp: r.Timestamp, File: "f", Line: 1}
		if len(got) != 1 || got[0] != want {
			t.Fatalf("decoder read %+v, header %+v", got, want)
		}
	})
}
