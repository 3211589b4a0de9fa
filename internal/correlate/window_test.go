package correlate

import (
	"cmp"
	"fmt"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// truthSpans are each (stage id, host)'s span of attempts by the
// simulator's phases: independent of the logs and of the window index.
func truthSpans(ph []phase, app string) map[string]map[int32][2]int64 {
	out := map[string]map[int32][2]int64{}
	for _, p := range ph {
		if p.app != app {
			continue
		}
		m := out[p.host]
		if m == nil {
			m = map[int32][2]int64{}
			out[p.host] = m
		}
		w, ok := m[p.stage]
		if !ok {
			w = [2]int64{p.start, p.end}
		}
		m[p.stage] = [2]int64{min(w[0], p.start), max(w[1], p.end)}
	}
	return out
}

// windowCheck counts, over every sample row of every matched host, rows
// whose assigned stages differ from the tolerant truth (the rule recomputed
// by brute force on the phases' spans), and rows missing a stage the
// unshifted sample truly overlapped.
type windowCheck struct {
	rows, inStage, wrong, missed int
	firstBad                     string
}

// checkStageWindows runs EachStage on samples whose host clocks are off by
// shift(host) ms and compares it with the truth for the samples' true
// times.
func checkStageWindows(t *testing.T, r *simRun, fs *Frames, shift func(string) int64, opts Options) windowCheck {
	t.Helper()
	var wc windowCheck
	for _, app := range r.apps {
		spans := truthSpans(r.phases, app.ID)
		c := New(app, fs, opts)
		if len(c.Unmatched()) > 0 {
			t.Fatalf("%s: hosts %v not matched", app.ID, c.Unmatched())
		}
		s := c.SkewMs()
		for k := range c.Hosts() {
			m, f, iv := c.Host(k)
			off := shift(m.SampleHost) - m.OffsetMs // the clock error left after alignment
			for si, st := range app.Stages {
				a, b, ok := c.StageWindow(k, int32(si))
				w, want := spans[m.Host][st.ID]
				if ok != want || (ok && (a != w[0] || b != w[1])) {
					wc.wrong++
					if wc.firstBad == "" {
						wc.firstBad = fmt.Sprintf("%s %s stage %d: window %d-%d (%v), phases %v (%v)", app.ID, m.Host, st.ID, a, b, ok, w, want)
					}
				}
			}
			got := make([]map[int32]bool, len(f.Times))
			c.EachStage(k, func(row int, si int32) {
				if got[row] == nil {
					got[row] = map[int32]bool{}
				}
				got[row][app.Stages[si].ID] = true
			})
			for row, ts := range f.Times {
				wc.rows++
				tol, exact := map[int32]bool{}, map[int32]bool{}
				for id, w := range spans[m.Host] {
					if ta := ts - m.OffsetMs; ta-iv-s < w[1] && w[0] < ta+s {
						tol[id] = true
					}
					if t0 := ts - m.OffsetMs - off; t0-iv < w[1] && w[0] < t0 {
						exact[id] = true
					}
				}
				if len(exact) > 0 {
					wc.inStage++
				}
				if !sameSet(got[row], tol) {
					wc.wrong++
					if wc.firstBad == "" {
						wc.firstBad = fmt.Sprintf("%s %s t=%d: assigned %v, truth %v", app.ID, m.Host, ts, got[row], tol)
					}
				}
				for id := range exact {
					if !got[row][id] {
						wc.missed++
						break
					}
				}
			}
		}
	}
	return wc
}

func sameSet(a, b map[int32]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// TestStageWindowsMatchTruth checks that every stage's window on every host
// is the span of its attempts' phases there, and that every sample lands in
// exactly the stage windows the simulator's phases put it in (with the default
// tolerance and with none), on every job class and on a run with failed
// and retried attempts and dynamic allocation.
func TestStageWindowsMatchTruth(t *testing.T) {
	for _, name := range []string{"", "dynamic"} {
		r := runSim(t, name, 1)
		for _, skew := range []int64{0, -1} {
			wc := checkStageWindows(t, r, r.frames, noShift, Options{SkewMs: skew})
			t.Logf("%s skew %d: %d sample rows, %d in a stage window, %d assigned wrongly, %d missed",
				cmp.Or(name, "classes"), skew, wc.rows, wc.inStage, wc.wrong, wc.missed)
			if wc.wrong > 0 || wc.missed > 0 || wc.inStage < 1000 {
				t.Errorf("%s skew %d: %d wrong, %d missed of %d rows (%d in stages); first: %s",
					name, skew, wc.wrong, wc.missed, wc.rows, wc.inStage, wc.firstBad)
			}
		}
	}
}

func noShift(string) int64 { return 0 }

func shiftAll(d int64) func(string) int64 { return func(string) int64 { return d } }

// shifted copies frames with every host's timestamps moved by d(host) ms
// (its clock off by d).
func shifted(fs *Frames, d func(string) int64) *Frames {
	out := NewFrames(0, 0)
	for _, f := range fs.Hosts() {
		for i, ts := range f.Times {
			for m, v := range f.Row(i) {
				if !isNaN(v) {
					out.Add(&model.Sample{Time: ts + d(f.Host), Host: f.Host, Type: model.NodeMetricNames[m], Value: float64(v)})
				}
			}
		}
	}
	out.Finish()
	return out
}

// TestClockSkew shifts the samples' clocks: within the tolerance (±1.5 s
// against 2 s) no sample misses a stage it truly overlapped; beyond it
// (±3.5 s), or with no tolerance, samples at the windows' edges do.
func TestClockSkew(t *testing.T) {
	r := runSim(t, "", 1)
	for _, tc := range []struct {
		shift, skew int64
		misses      bool
	}{
		{1500, 0, false}, {-1500, 0, false}, {1500, -1, true}, {3500, 0, true}, {-3500, 0, true},
	} {
		wc := checkStageWindows(t, r, shifted(r.frames, shiftAll(tc.shift)), shiftAll(tc.shift), Options{SkewMs: tc.skew})
		t.Logf("clock %+d ms, tolerance %d: %d of %d rows in a stage miss one", tc.shift, tc.skew, wc.missed, wc.inStage)
		if (wc.missed > 0) != tc.misses {
			t.Errorf("clock %+d ms, tolerance %d: %d rows miss a stage, want misses %v", tc.shift, tc.skew, wc.missed, tc.misses)
		}
	}
}
