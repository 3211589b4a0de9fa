package diagnose

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// sortedMedian is the reference median: sort, then the middle value or the
// mean of the two middle ones.
func sortedMedian(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// TestMedianMatchesSort checks the quickselect median against sorting on
// random slices of every small length, with many duplicates, sorted and
// reversed runs, and NaN, and that median leaves its input unchanged.
func TestMedianMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := range 300 {
		for _, shape := range []string{"random", "few values", "sorted", "reversed", "constant", "nan"} {
			vs := make([]float64, n)
			for i := range vs {
				switch shape {
				case "random":
					vs[i] = rng.NormFloat64() * 1e6
				case "few values":
					vs[i] = float64(rng.IntN(3))
				case "sorted":
					vs[i] = float64(i)
				case "reversed":
					vs[i] = float64(n - i)
				case "constant":
					vs[i] = 42
				case "nan":
					vs[i] = float64(rng.IntN(10))
					if rng.IntN(5) == 0 {
						vs[i] = math.NaN()
					}
				}
			}
			orig := slices.Clone(vs)
			got, want := median(vs), sortedMedian(vs)
			if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("%s n=%d: median %v, sorting gives %v", shape, n, got, want)
			}
			if !slices.EqualFunc(vs, orig, func(a, b float64) bool { return a == b || a != a && b != b }) {
				t.Fatalf("%s n=%d: median modified its input", shape, n)
			}
		}
	}
}

// TestSharedRecords checks that inside a run every caller gets the same
// cached records, not a copy, that the one detector filtering them
// (imbalance, through withoutUltrashort) leaves them intact, and that the
// cache is dropped with the last release.
func TestSharedRecords(t *testing.T) {
	st := &model.Stage{Kind: model.StageSpark}
	var m model.TaskMetrics
	for i := range 5 {
		m[model.InputBytes] = int64(100 * (i + 1))
		st.AddTask(model.Task{ID: int64(i), Index: int32(i), Launch: 1000, Finish: 2000 + int64(i)*1000, Status: model.TaskSuccess, HasMetrics: true}, &m)
	}
	st.AddTask(model.Task{ID: 9, Launch: 1000, Finish: 1500, Status: model.TaskFailed}, &model.TaskMetrics{})
	app := &model.App{Engine: model.Spark, Stages: []*model.Stage{st}}
	want := buildStageRecords(app, 0)
	if len(want) != 5 {
		t.Fatalf("%d records, want 5", len(want))
	}
	release := shareRecords(app)
	inner := shareRecords(app)
	first := stageRecords(app, 0)
	for range 3 {
		got := stageRecords(app, 0)
		if !slices.Equal(got, want) || &got[0] != &first[0] {
			t.Fatalf("records %v (at %p), want %v shared (at %p)", got, &got[0], want, &first[0])
		}
		// Durations 1–5 s, median 3 s: a share of 0.5 drops the 1 s attempt.
		if kept := withoutUltrashort(got, 0.5); len(kept) != 4 || kept[0].id != 1 {
			t.Fatalf("withoutUltrashort kept %v", kept)
		}
		if kept := withoutUltrashort(got, 0.1); &kept[0] != &got[0] || len(kept) != 5 {
			t.Fatal("withoutUltrashort copied records it kept whole")
		}
	}
	inner()
	if _, ok := recordsCache.m[app]; !ok {
		t.Fatal("cache dropped before the last release")
	}
	release()
	if _, ok := recordsCache.m[app]; ok {
		t.Fatal("cache kept after the last release")
	}
	if got := stageRecords(app, 0); !slices.Equal(got, want) {
		t.Fatalf("records after release %v, want %v", got, want)
	}
}

// TestSharedStageProfiles checks that inside a run the straggler detectors
// share a stage's profile, each copy holding the caller's records, and that
// it equals the profile computed afresh.
func TestSharedStageProfiles(t *testing.T) {
	st := &model.Stage{Kind: model.StageSpark}
	var m model.TaskMetrics
	for i := range 9 {
		m[model.JVMGCTime] = int64(10 * i)
		st.AddTask(model.Task{ID: int64(i), Launch: 1000, Finish: 2000 + 100*int64(i%4), Status: model.TaskSuccess,
			Locality: model.Locality(1 + i%5), HasMetrics: true}, &m)
	}
	app := &model.App{Engine: model.Spark, Stages: []*model.Stage{st}}
	fresh := newStageProfile(buildStageRecords(app, 0))
	defer shareRecords(app)()
	for range 3 {
		recs := stageRecords(app, 0)
		p := stageProfileOf(app, 0, recs)
		if &p.recs[0] != &recs[0] {
			t.Fatal("the profile does not hold the caller's records")
		}
		if p.medDur != fresh.medDur || p.medBytes != fresh.medBytes || p.medGC != fresh.medGC ||
			p.medFetch != fresh.medFetch || p.localSlow != fresh.localSlow || p.spillSlow != fresh.spillSlow {
			t.Fatalf("shared profile %+v, computed afresh %+v", *p, *fresh)
		}
	}
	if recordsCache.m[app].profiles[0] == nil {
		t.Fatal("the profile was not shared")
	}
}

// TestSharedNodeSlowness checks that inside a run nodeSlownessOf answers
// what nodeSlowness computes, with maps each caller may change.
func TestSharedNodeSlowness(t *testing.T) {
	app := &model.App{Engine: model.Spark, Hosts: []string{"", "a", "b", "c"}}
	var m model.TaskMetrics
	for s := range 3 {
		st := &model.Stage{ID: int32(s), Kind: model.StageSpark}
		for i := range 30 {
			h := uint32(1 + i%3)
			d := int64(1000)
			if h == 3 {
				d = 4000 // host c is slow
			}
			st.AddTask(model.Task{ID: int64(100*s + i), Launch: 1000, Finish: 1000 + d + int64(i), Host: h, Status: model.TaskSuccess, HasMetrics: true}, &m)
		}
		app.Stages = append(app.Stages, st)
	}
	wantR, wantC, wantS := nodeSlowness(app, 1.5, 10, 3, nil)
	if len(wantR) == 0 {
		t.Fatal("no node slowness in the test application")
	}
	defer shareRecords(app)()
	for range 3 {
		r, c, s := nodeSlownessOf(app, 1.5, 10, 3, nil)
		if !maps.Equal(r, wantR) || !maps.Equal(c, wantC) || s != wantS {
			t.Fatalf("shared %v %v %v, computed afresh %v %v %v", r, c, s, wantR, wantC, wantS)
		}
		clear(r)
		clear(c)
	}
}
