package explain

import (
	"math"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
)

// TestVerdicts: a run is judged only against enough finished history, and
// one within its usual variation is called usual with no causes.
func TestVerdicts(t *testing.T) {
	_, usual := simHistory(t, 100)
	run, _, _ := simRun(t, "sort", usualDays, "", 100)
	p := DefaultParams

	if e := Explain(run, usual[:4], p, nil); e.Verdict != Unknown || !strings.Contains(e.Why, "4 comparable earlier runs, 5 needed") {
		t.Errorf("4 usual runs: %s, %q", e.Verdict, e.Why)
	}
	running := *run
	running.Status = history.StatusRunning
	if e := Explain(&running, usual, p, nil); e.Verdict != Unknown || !strings.Contains(e.Why, "running") {
		t.Errorf("a running run: %s, %q", e.Verdict, e.Why)
	}
	e := Explain(run, usual, p, nil)
	if e.Verdict != Usual || len(e.Causes) != 0 || !strings.Contains(e.Summary, "within its usual") {
		t.Errorf("a clean run: %s with %d causes: %s", e.Verdict, len(e.Causes), e.Summary)
	}
	if e.Usual.LowMs > e.Usual.MedianMs || e.Usual.HighMs < e.Usual.MedianMs || e.Usual.MinMs > e.Usual.MaxMs || len(e.Usual.Runs) != len(usual) {
		t.Errorf("usual time %+v", e.Usual)
	}
	// The band is the wider of Spread robust deviations and MinChange.
	if band := float64(e.Usual.HighMs - e.Usual.MedianMs); math.Abs(band-max(p.Spread*float64(e.Usual.SpreadMs), p.MinChange*float64(e.Usual.MedianMs))) > 1 {
		t.Errorf("band %v ms for spread %d and median %d", band, e.Usual.SpreadMs, e.Usual.MedianMs)
	}
}

// TestShares: a slower run's causes and unexplained rest add up to its
// extra time, causes are ordered by share, and every cause names what it
// blames with evidence.
func TestShares(t *testing.T) {
	for _, c := range simCases(t, 101, 0, DefaultParams, nil) {
		e := c.e
		if e.Verdict != Slower {
			continue
		}
		sum := float64(e.UnexplainedMs)
		for i, k := range e.Causes {
			sum += k.Seconds * 1000
			if i > 0 && k.Share > e.Causes[i-1].Share {
				t.Errorf("%s: causes out of order: %v", c.cause, e.Causes)
			}
			if len(k.Items) == 0 || k.Summary == "" {
				t.Errorf("%s: cause %s names nothing", c.cause, k.Kind)
			}
			for _, it := range k.Items {
				if it.Evidence == "" || (k.Kind == KindNode) != (it.Node != "") || (k.Kind == KindConfig) != (it.Key != "") {
					t.Errorf("%s: item %+v of %s", c.cause, it, k.Kind)
				}
			}
		}
		if math.Abs(sum-float64(e.ExtraMs)) > float64(len(e.Causes))*100+1 { // seconds are rounded to 0.1 s
			t.Errorf("%s: causes and rest add to %.0f ms, extra %d", c.cause, sum, e.ExtraMs)
		}
	}
}

// TestUntimedHistory: runs indexed before the history kept stage times
// (schema 2) are judged, and what they cannot explain is said to be
// unexplained, not blamed on anything.
func TestUntimedHistory(t *testing.T) {
	_, usual := simHistory(t, 102)
	run, _, _ := simRun(t, "wordcount-sql", usualDays, "skew", 102)
	strip := func(r *history.Run) *history.Run {
		c := *r
		c.Stages = append([]history.Stage(nil), r.Stages...)
		for i := range c.Stages {
			c.Stages[i].Times = history.StageTimes{}
		}
		return &c
	}
	var old []*history.Run
	for _, u := range usual {
		old = append(old, strip(u))
	}
	e := Explain(strip(run), old, DefaultParams, nil)
	if e.Verdict != Slower || e.UnexplainedShare < 0.9 {
		t.Errorf("untimed: %s, unexplained %.2f: %s", e.Verdict, e.UnexplainedShare, e.Summary)
	}
}

// TestChangedSettings: a setting the usual runs agree on and the run does
// not is a change; one they do not agree on is not.
func TestChangedSettings(t *testing.T) {
	conf := func(parts, mem string) [][2]string {
		return [][2]string{{"spark.executor.memory", mem}, {"spark.sql.shuffle.partitions", parts}}
	}
	var usual []*history.Run
	for i := range 10 {
		usual = append(usual, &history.Run{Config: conf("200", []string{"4g", "8g"}[i%2])})
	}
	got := changedSettings(&history.Run{Config: conf("8", "16g")}, usual, DefaultParams)
	if len(got) != 1 || got[0].key != "spark.sql.shuffle.partitions" || got[0].from != "200" || got[0].to != "8" || got[0].moves != KindPartitioning {
		t.Errorf("changes %+v, want spark.sql.shuffle.partitions 200 → 8 driving partitioning", got)
	}
	if got := changedSettings(&history.Run{Config: conf("200", "4g")}, usual, DefaultParams); len(got) != 0 {
		t.Errorf("unchanged run: %+v", got)
	}
}

// TestChangedPlans: a query whose plan differs from the one the usual runs
// agree on marks its stages; its operators' count changes say how.
func TestChangedPlans(t *testing.T) {
	q := func(plan ...string) []history.Query {
		return []history.Query{{ID: 0, Description: "SELECT k, count(*) FROM t GROUP BY k", Stages: []int32{0, 1}, Plan: plan}}
	}
	stages := []history.Stage{{ID: 0, Signature: "a"}, {ID: 1, Signature: "b"}}
	var usual []*history.Run
	for range 6 {
		usual = append(usual, &history.Run{Queries: q("HashAggregate", "Exchange", "HashAggregate", "Scan")})
	}
	run := &history.Run{Stages: stages, Queries: q("HashAggregate", "Exchange", "Scan")}
	got := changedPlans(run, usual, DefaultParams)
	if pc := got["a"]; pc == nil || got["b"] != pc || len(pc.changes) != 1 || !strings.Contains(pc.describe(), "HashAggregate 2→1") {
		t.Fatalf("plan changes %v", got)
	}
	same := &history.Run{Stages: stages, Queries: q("HashAggregate", "Exchange", "HashAggregate", "Scan")}
	if got := changedPlans(same, usual, DefaultParams); len(got) != 0 {
		t.Errorf("same plan: %v", got)
	}
}

// TestShapley: the change of the usable slots splits exactly between cores
// and tasks, and all goes to the one that moved.
func TestShapley(t *testing.T) {
	for _, c := range [][4]float64{{48, 96, 16, 96}, {48, 96, 48, 12}, {48, 96, 16, 12}, {48, 20, 24, 30}} {
		e, p := shapley(c[0], c[1], c[2], c[3])
		want := math.Log(min(c[2], c[3]) / min(c[0], c[1]))
		if math.Abs(e+p-want) > 1e-12 {
			t.Errorf("%v: %g + %g, want %g", c, e, p, want)
		}
	}
	if e, p := shapley(48, 96, 16, 96); p != 0 || e >= 0 {
		t.Errorf("fewer cores: executors %g, partitioning %g", e, p)
	}
	if e, p := shapley(48, 96, 48, 12); e != 0 || p >= 0 {
		t.Errorf("fewer tasks: executors %g, partitioning %g", e, p)
	}
}

// TestLMean: the logarithmic mean makes the decomposition exact: L(a,b)
// ln(a/b) = a − b.
func TestLMean(t *testing.T) {
	for _, ab := range [][2]float64{{1, 2}, {5, 5}, {1e-3, 1e3}, {7, 6.9999999}} {
		if got := lmean(ab[0], ab[1]) * math.Log(ab[0]/ab[1]); math.Abs(got-(ab[0]-ab[1])) > 1e-9*max(ab[0], ab[1]) {
			t.Errorf("L(%g, %g) ln(a/b) = %g, want %g", ab[0], ab[1], got, ab[0]-ab[1])
		}
	}
}

// TestFinding: a slower run's explanation is a finding graded by its ratio
// to the usual time, with the causes' shares as evidence; a usual run
// makes none.
func TestFinding(t *testing.T) {
	var slower, usual *Explanation
	for _, c := range simCases(t, 104, 1, DefaultParams, nil) {
		switch {
		case c.cause == "failures":
			slower = c.e
		case c.cause == "" && c.e.Verdict == Usual:
			usual = c.e
		}
	}
	if slower == nil || usual == nil || slower.Verdict != Slower {
		t.Fatal("the seed lost its cases")
	}
	f := Finding(slower)
	if f == nil || f.ID != FindingID || f.Severity != RatioLimits.Ascending(slower.Ratio) || f.Summary != slower.Summary {
		t.Fatalf("finding %+v for a run %.2f× its usual time", f, slower.Ratio)
	}
	shares := 0
	for _, ev := range f.Evidence {
		if strings.HasPrefix(ev.Name, "share: ") {
			shares++
		}
	}
	if shares != len(slower.Causes)+1 || f.Recommendation == "" {
		t.Errorf("%d shares in the evidence for %d causes, recommendation %q", shares, len(slower.Causes), f.Recommendation)
	}
	if Finding(usual) != nil {
		t.Error("a usual run made a finding")
	}
}

// TestJudge: judging a job's runs from durations alone gives each run the
// verdict, ratio and usual time Explain gives it, and too few earlier runs
// are unknown.
func TestJudge(t *testing.T) {
	_, usual := simHistory(t, 105)
	var runs []*history.Run
	for i := len(usual) - 1; i >= 0; i-- {
		runs = append(runs, usual[i])
	}
	for _, cause := range []string{"", "failures", "input"} {
		r, _, _ := simRun(t, "sort", usualDays, cause, 105)
		r.Start = runs[len(runs)-1].Start + 86_400_000
		runs = append(runs, r)
	}
	briefs := make([]*history.Brief, len(runs))
	for i, r := range runs {
		briefs[i] = &history.Brief{Key: r.Key, Status: r.Status, Start: r.Start, End: r.End, DurationMs: r.DurationMs}
	}
	p := DefaultParams
	judged := Judge(briefs, p)
	for i, j := range judged {
		before := []*history.Run{}
		for k := i - 1; k >= 0 && len(before) < p.Usual; k-- {
			before = append(before, runs[k])
		}
		e := Explain(runs[i], before, p, nil)
		if j.Verdict != e.Verdict || e.Verdict != Unknown && (j.UsualMs != e.Usual.MedianMs || math.Abs(j.Ratio-e.Ratio) > 1e-9) {
			t.Errorf("run %d: judged %+v, explained %s %.3f× of %d", i, j, e.Verdict, e.Ratio, e.Usual.MedianMs)
		}
	}
	if judged[0].Verdict != Unknown || judged[p.MinUsual].Verdict == Unknown || judged[len(judged)-2].Verdict != Slower {
		t.Errorf("verdicts %v", judged)
	}
}
