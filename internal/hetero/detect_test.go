package hetero

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDetectableSlowdown measures the smallest slowdown of one host that
// the joint model finds against the number of past runs: a 14-node
// cluster of three classes runs short one-stage jobs on 4 hosts with 3
// tasks each (per run 2–3 tasks a host: no contrast within a run), with
// the simulator's Spark noise (log-normal σ 0.4, 6% of the tasks slowed
// by a Pareto tail). After a history of H runs, one host is slowed s× on
// its CPU and the next detectWindow (60) runs are judged; the rate is over
// 20 seeds (CLUSTERLENS_EVAL_SEED and CLUSTERLENS_EVAL_N choose others,
// CLUSTERLENS_EVAL_Z the threshold), and the false indictments are counted
// on the other hosts. docs/NODES.md has the curves, on seeds 100–199 too.
// With 60 runs judged 1.3x is found in about a third of the seeds,
// whatever the history; the second curve judges longer windows after 200
// past runs: 1.3x needs about 200 of the victim's tasks (240 runs). The
// test holds the measured floors on seeds 1–20: from 200 past runs, 1.5x
// found in ≥ 85% of seeds (80% before a class's nodes were pooled,
// poolClasses), 2x in all, an innocent called a culprit in at most one
// 60-run window of 100; with 120 runs judged, 1.3x in ≥ 90% (75% before
// the pooling); with 240, 1.3x in ≥ 95%, at most one window of 60 with an
// innocent culprit. (The model before the
// tail's calibration found 1.5x in 90–95%: its z was about 15% too large,
// its innocents' z-scores 1.14 wide; at matched innocent rates the two
// find the same, docs/NODES.md.)
func TestDetectableSlowdown(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 1,120 models")
	}
	slowdowns := []float64{1.1, 1.2, 1.3, 1.5, 2}
	var b strings.Builder
	fmt.Fprintf(&b, "| past runs | %s | windows with an innocent culprit | smallest found in ≥ 95%% |\n|---|---|---|---|---|---|---|---|\n", strings.Join(func() []string {
		var h []string
		for _, s := range slowdowns {
			h = append(h, fmt.Sprintf("%.1fx found", s))
		}
		return h
	}(), " | "))
	first, reported := evalFirstSeed(t)
	n := float64(evalSeeds)
	params := evalParams(t)
	reported = reported && params.Z == DefaultParams.Z
	for _, past := range []int{10, 25, 50, 100, 200, 400} {
		found := make([]int, len(slowdowns))
		innocent, windows := 0, 0
		for seed := first; seed < first+uint64(evalSeeds); seed++ {
			for si, slow := range slowdowns {
				rng := rand.New(rand.NewPCG(seed, uint64(si)))
				s := newSynth(14, rng)
				s.tail, s.stages = true, 1
				m, err := Fit(s.runs(rng, past, 4, 3, 0.4, 0), params)
				if err != nil {
					t.Fatal(err)
				}
				victim := s.nodes[int(seed)%14]
				s.degrade[victim] = [2]float64{math.Log(slow), 0}
				windows++
				bad := false
				for _, v := range m.Judge(s.runs(rng, detectWindow, 4, 3, 0.4, 1e9)) {
					if v.Host == victim && v.Culprit() {
						found[si]++
					}
					if v.Host != victim && v.Culprit() {
						bad = true
					}
				}
				if bad {
					innocent++
				}
			}
		}
		row := fmt.Sprintf("| %d |", past)
		smallest := "–"
		for si, s := range slowdowns {
			row += fmt.Sprintf(" %.2f |", float64(found[si])/n)
			if float64(found[si]) >= 0.95*n && smallest == "–" {
				smallest = fmt.Sprintf("%.1fx", s)
			}
		}
		fmt.Fprintf(&b, "%s %.3f | %s |\n", row, float64(innocent)/float64(windows), smallest)
		if reported && past >= 200 && (found[3] < 17 || found[4] < 20 || innocent > 1) {
			t.Errorf("%d past runs: 1.5x found in %d of 20 seeds (want ≥ 17), 2x in %d (want 20), innocent culprits in %d of %d windows (want ≤ 1)",
				past, found[3], found[4], innocent, windows)
		}
	}
	// The window judged: with 200 past runs, how many runs after the
	// slowdown it takes to find 1.3x (the victim runs in 4 of 14 hosts'
	// places, 3 tasks each: about 50 tasks per 60 runs).
	fmt.Fprintf(&b, "\n| runs judged (200 past) | victim's tasks judged | 1.2x found | 1.3x found | 1.5x found | windows with an innocent culprit |\n|---|---|---|---|---|---|\n")
	for _, window := range []int{60, 120, 240} {
		var found [3]int
		innocent, windows, tasks := 0, 0, 0
		for seed := first; seed < first+uint64(evalSeeds); seed++ {
			for si, slow := range []float64{1.2, 1.3, 1.5} {
				rng := rand.New(rand.NewPCG(seed, uint64(10+si)))
				s := newSynth(14, rng)
				s.tail, s.stages = true, 1
				m, err := Fit(s.runs(rng, 200, 4, 3, 0.4, 0), params)
				if err != nil {
					t.Fatal(err)
				}
				victim := s.nodes[int(seed)%14]
				s.degrade[victim] = [2]float64{math.Log(slow), 0}
				windows++
				bad := false
				for _, v := range m.Judge(s.runs(rng, window, 4, 3, 0.4, 1e9)) {
					if v.Host == victim {
						tasks += v.Tasks
						if v.Culprit() {
							found[si]++
						}
					}
					if v.Host != victim && v.Culprit() {
						bad = true
					}
				}
				if bad {
					innocent++
				}
			}
		}
		fmt.Fprintf(&b, "| %d | %d | %.2f | %.2f | %.2f | %.3f |\n", window, tasks/windows, float64(found[0])/n, float64(found[1])/n, float64(found[2])/n, float64(innocent)/float64(windows))
		if reported && window == 240 && (found[1] < 19 || innocent > 1) {
			t.Errorf("240 runs judged: 1.3x found in %d of 20 seeds (want ≥ 19), innocent culprits in %d of 60 windows (measured 1)", found[1], innocent)
		}
		if reported && window == 120 && found[1] < 18 {
			t.Errorf("120 runs judged: 1.3x found in %d of 20 seeds (want ≥ 18: 19 with a class's nodes pooled, 15 without)", found[1])
		}
	}
	t.Log("\n" + b.String())
}

// detectWindow is how many runs after the slowdown are judged at once.
const detectWindow = 60
