package model

import (
	"strings"
	"testing"
)

// TestAuditTimes builds an application with every kind of impossible time
// beside sound records: each impossible one is counted once, with a sample,
// and only those are misdated.
func TestAuditTimes(t *testing.T) {
	const start, end = 1_700_000_000_000, 1_700_000_016_000 // a 16 s application
	year := int64(365 * 24 * 3600 * 1000)
	st := &Stage{ID: 1, Submitted: start + 1000, Completed: start + 9000}
	st.Tasks = []Task{
		{ID: 1, Launch: start + 2000, Finish: start + 3000},        // sound
		{ID: 2, Launch: start + 4000, Finish: start + 3500},        // ends before its launch
		{ID: 3, Launch: start + 2000 - year, Finish: start + 3000}, // launched a year early
		{ID: 4, Launch: start + 5000, Finish: end + 2*year},        // finishes two years late
		{ID: 5, Launch: start + 6000},                              // still running
		{ID: 6, Finish: start + 7000},                              // no launch time
	}
	bad := &Stage{ID: 2, Submitted: start + 9000, Completed: start + 8000}         // completes before its submission
	early := &Stage{ID: 4, Submitted: start - year, Completed: start + 8000}       // submitted a year early
	sound := &Stage{ID: 5, Attempt: 1, Submitted: start + 100, Completed: end - 1} // within the application
	mr := &Stage{ID: 3, Kind: StageMap, Tasks: []Task{
		{ID: 7, Launch: start - 5*year, Finish: start - 5*year + 10}, // node clocks: not misdated
		{ID: 8, Launch: start + 100, Finish: start + 50},             // but never backwards
	}}
	app := &App{Engine: Spark, Start: start, End: end, Stages: []*Stage{st, bad, mr, early, sound},
		Jobs:      []*Job{{ID: 0, Submitted: start + 500, Completed: start + 400}},
		Executors: []*Executor{{ID: "1", Added: start + 10, Removed: start + 5}, {ID: "2", Added: start + 10, Removed: end}},
		Source:    "app.log"}
	want := map[int64]bool{2: true, 3: true, 4: true, 6: true, 8: true}
	for _, s := range app.Stages {
		for i := range s.Tasks {
			tk := &s.Tasks[i]
			if got := app.Misdated(s, tk); got != want[tk.ID] {
				t.Errorf("task %d misdated %v, want %v", tk.ID, got, want[tk.ID])
			}
		}
	}
	app.AuditTimes()
	q := app.Quality
	// tasks 2, 3, 4, 6, 8; stages 2 and 4; job 0; executor 1
	if q.ImpossibleTimes != 9 {
		t.Errorf("%d impossible times, want 9", q.ImpossibleTimes)
	}
	if !app.ImpossibleSpan(early.Submitted, early.Completed) || app.ImpossibleSpan(sound.Submitted, sound.Completed) {
		t.Error("ImpossibleSpan: a year-early stage is impossible, one within the application is not")
	}
	if len(q.Issues) != MaxKindSamples {
		t.Fatalf("issues %+v, want %d samples", q.Issues, MaxKindSamples)
	}
	for _, is := range q.Issues {
		if !is.Handled || is.File != "app.log" || !strings.HasSuffix(is.What, "left out of durations") {
			t.Errorf("issue %+v", is)
		}
	}
	if q.Lost() {
		t.Error("impossible times are no loss")
	}

	// An application that ends before it starts has no duration, and its
	// end does not make its tasks misdated.
	app = &App{Engine: Spark, Start: end, End: start, Stages: []*Stage{{ID: 1, Tasks: []Task{{ID: 1, Launch: end + 10, Finish: end + 20}}}}}
	app.AuditTimes()
	if app.Quality.ImpossibleTimes != 1 || app.Duration() != 0 || !strings.Contains(app.Quality.Issues[0].What, "application ends 16000 ms before it starts") {
		t.Errorf("quality %+v, duration %d", app.Quality, app.Duration())
	}
}

func TestLost(t *testing.T) {
	for _, c := range []struct {
		q    Quality
		lost bool
	}{
		{Quality{}, false},
		{Quality{BadLines: 1, Truncated: true, CutLastLine: true}, false},
		{Quality{BadLines: 2, Truncated: true, CutLastLine: true}, true},
		{Quality{BadLines: 1}, true},
		{Quality{LongLines: 1}, true},
		{Quality{Incomplete: 1}, true},
		{Quality{Duplicates: 5, ImpossibleTimes: 2, UnknownEvents: 3}, false},
	} {
		if c.q.Lost() != c.lost {
			t.Errorf("%+v: lost %v, want %v", c.q, c.q.Lost(), c.lost)
		}
	}
}
