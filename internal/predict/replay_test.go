package predict

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestSpreadKaplanMeier checks the product-limit estimate on a case worked
// by hand from Kaplan and Meier's definition: ratios 1, 2, 2+, 3, 4+, 5
// (+ censored) give S = 5/6 after 1, 5/6·4/5 after 2 (the censored 2 is at
// risk at 2, then leaves), 4/6·2/3 after 3 (three at risk), and 0 after 5
// (one at risk): F = 1/6, 1/3, 5/9, 1.
func TestSpreadKaplanMeier(t *testing.T) {
	s := newSpread([]ratioObs{{ratio: 5}, {ratio: 2, censored: true}, {ratio: 1}, {ratio: 4, censored: true}, {ratio: 3}, {ratio: 2}})
	wantX, wantP := []float64{1, 2, 3, 5}, []float64{1.0 / 6, 1.0 / 3, 5.0 / 9, 1}
	if !slices.Equal(s.X, wantX) || len(s.P) != 4 {
		t.Fatalf("X %v P %v, want X %v", s.X, s.P, wantX)
	}
	for i := range wantP {
		if math.Abs(s.P[i]-wantP[i]) > 1e-12 {
			t.Errorf("P[%d] = %v, want %v", i, s.P[i], wantP[i])
		}
	}
	if s.Observed != 4 || s.Censored != 2 {
		t.Errorf("observed %d censored %d, want 4 and 2", s.Observed, s.Censored)
	}
	mean := 1.0/6 + 2*(1.0/3-1.0/6) + 3*(5.0/9-1.0/3) + 5*(1-5.0/9)
	if math.Abs(s.Mean()-mean) > 1e-12 {
		t.Errorf("mean %v, want %v", s.Mean(), mean)
	}
	for u, want := range map[float64]float64{0: 1, 0.1: 1, 1.0 / 6: 2, 0.5: 3, 0.99: 5} {
		if got := s.Quantile(u); got != want {
			t.Errorf("Quantile(%v) = %v, want %v", u, got, want)
		}
	}
	// Censored beyond every finished attempt: the rest of the mass sits at
	// the longest censored ratio.
	s = newSpread([]ratioObs{{ratio: 1}, {ratio: 1.2}, {ratio: 7, censored: true}, {ratio: 9, censored: true}})
	if !slices.Equal(s.X, []float64{1, 1.2, 9}) || s.P[1] != 0.5 || s.P[2] != 1 || s.Beyond != 0.5 {
		t.Errorf("censored tail: X %v P %v beyond %v", s.X, s.P, s.Beyond)
	}
	if (&Spread{}).Quantile(0.7) != 1 || (&Spread{}).Mean() != 1 {
		t.Error("an empty spread should predict every task as is")
	}
}

// TestSpreadMatchesRedistributionToTheRight checks the estimate against
// Efron's redistribute-to-the-right algorithm (Efron, 1967), which gives
// the same distribution by another route: each censored attempt's mass
// goes in equal shares to every attempt longer than it.
func TestSpreadMatchesRedistributionToTheRight(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		n := 5 + rng.IntN(60)
		obs := make([]ratioObs, n)
		for i := range obs {
			// Integer-ish ratios so that ties occur.
			obs[i] = ratioObs{ratio: float64(1+rng.IntN(12)) / 4, censored: rng.Float64() < 0.3}
		}
		s := newSpread(obs)
		sorted := slices.Clone(obs)
		slices.SortStableFunc(sorted, func(a, b ratioObs) int {
			if a.ratio != b.ratio {
				return cmp.Compare(a.ratio, b.ratio)
			}
			if a.censored == b.censored {
				return 0
			}
			if a.censored {
				return 1
			}
			return -1
		})
		mass := make([]float64, n)
		for i := range mass {
			mass[i] = 1 / float64(n)
		}
		for i, o := range sorted {
			if !o.censored || i == n-1 {
				continue
			}
			share := mass[i] / float64(n-1-i)
			for j := i + 1; j < n; j++ {
				mass[j] += share
			}
			mass[i] = 0
		}
		// The distribution at each observed ratio, and the mass left on
		// censored attempts at the end (Spread puts it at the longest).
		for k, x := range s.X {
			cum := 0.0
			for i, o := range sorted {
				if o.ratio <= x && (!o.censored || k == len(s.X)-1) {
					cum += mass[i]
				}
			}
			if k == len(s.X)-1 {
				cum = 1
			}
			if math.Abs(cum-s.P[k]) > 1e-9 {
				t.Fatalf("trial %d: F(%v) = %v, redistribution to the right %v", trial, x, s.P[k], cum)
			}
		}
	}
}

func TestMixtureAndSpreadFor(t *testing.T) {
	a := Spread{X: []float64{1}, P: []float64{1}, Observed: 10, VariableMs: 1000}
	b := Spread{X: []float64{3}, P: []float64{1}, Observed: 30, VariableMs: 8000}
	m := mixture([]Spread{a, b}, []float64{1, 3})
	if !slices.Equal(m.X, []float64{1, 3}) || m.P[0] != 0.25 || m.P[1] != 1 || m.Observed != 40 {
		t.Errorf("mixture %+v", m)
	}
	if e := mixture([]Spread{a, b}, []float64{0, 0}); !e.Empty() {
		t.Errorf("nothing weighs: %+v", e)
	}
	// The own spread at the target's size weighs OwnWeight against the
	// others together; one of them four times the size weighs
	// exp(-ln(4)²/2) of one of the same size.
	opt := ReplayOptions{}.withDefaults()
	c := Spread{X: []float64{2}, P: []float64{1}, Observed: 5, VariableMs: 4000}
	got := spreadFor(a, []Spread{b, c}, 1000, opt)
	kb, kc := math.Exp(-math.Pow(math.Log(8), 2)/2)*30, math.Exp(-math.Pow(math.Log(4), 2)/2)*5
	want := []float64{1 / 2.0, (1 + kc/(kb+kc)) / 2, 1}
	for i := range want {
		if math.Abs(got.P[i]-want[i]) > 1e-12 {
			t.Errorf("spreadFor P %v, want %v", got.P, want)
			break
		}
	}
}

// TestExcessExponent checks the slope by hand: two stages of 100 and
// 10,000 ms with equal attempts, their 0.99 quantiles 1 + c above their
// medians, have ln lengths ±ln(100)/2 about their mean, so a weighted
// variance Sxx = ln(100)²/4; the slope of ln excess is b, shrunk toward the
// prior p as (Sxx·b + (ln 2)²·p) / (Sxx + (ln 2)²). Stages of one length
// leave the prior; a slope beyond [0, 1] is clipped.
func TestExcessExponent(t *testing.T) {
	stage := func(ms, c float64) Spread {
		return Spread{X: []float64{1, 1 + c}, P: []float64{0.6, 1}, Observed: 40, VariableMs: ms}
	}
	sxx, w := math.Pow(math.Log(100), 2)/4, math.Ln2*math.Ln2
	for _, b := range []float64{0, 0.3, 0.7, 1} {
		// excess (ms) = c·m ∝ m^b: c = m^(b−1)
		got := excessExponent([]Spread{stage(100, math.Pow(100, b-1)), stage(10000, math.Pow(10000, b-1))}, 0.5)
		if want := (sxx*b + w*0.5) / (sxx + w); math.Abs(got-want) > 1e-9 {
			t.Errorf("slope %v: got %v, want %v", b, got, want)
		}
	}
	if got := excessExponent([]Spread{stage(3000, 0.4), stage(3000, 0.9)}, 0.3); math.Abs(got-0.3) > 1e-12 {
		t.Errorf("stages of one length: %v, want the prior 0.3", got)
	}
	if got := excessExponent([]Spread{stage(100, 0.01), stage(10000, 5)}, 0.3); got != 1 {
		t.Errorf("a steeper slope than proportional: %v, want 1", got)
	}
	if got := excessExponent(nil, 0.3); got != 0.3 {
		t.Errorf("no stage: %v, want the prior", got)
	}
}

// TestLentTo: carried to tasks k times as long, a spread keeps its ratios
// when the excess is proportional (β = 1) and its excess in ms when it is
// additive (β = 0: the distance from the median divided by k); a ratio
// never goes below 0.
func TestLentTo(t *testing.T) {
	s := Spread{X: []float64{0.5, 1, 3}, P: []float64{0.2, 0.6, 1}, Observed: 5, VariableMs: 1000}
	if g := s.lentTo(4000, 1); !slices.Equal(g.X, s.X) {
		t.Errorf("proportional: %v", g.X)
	}
	if g := s.lentTo(4000, 0); !slices.Equal(g.X, []float64{0.875, 1, 1.5}) || g.VariableMs != 1000 || !slices.Equal(g.P, s.P) {
		t.Errorf("additive: %+v", g)
	}
	if g := s.lentTo(250, 0); !slices.Equal(g.X, []float64{0, 1, 9}) {
		t.Errorf("additive, to shorter tasks: %v", g.X)
	}
	if g := s.lentTo(1000, 0.3); !slices.Equal(g.X, s.X) {
		t.Errorf("the same length: %v", g.X)
	}
}

// TestCompleted: the probability censored attempts left at the last ratio
// becomes a Pareto tail beyond it, in tailAtoms equal parts at the tail's
// mid-quantiles; what finished there stays.
func TestCompleted(t *testing.T) {
	s := newSpread([]ratioObs{{ratio: 1}, {ratio: 1.1}, {ratio: 1.2}, {ratio: 1.3}, {ratio: 7, censored: true}, {ratio: 9, censored: true}})
	m := s.Quantile(0.5)
	g := s.completed(2)
	if m != 1.3 || len(g.X) != 4+tailAtoms || g.Beyond != 0 || g.P[len(g.P)-1] != 1 || math.Abs(g.P[3]-2.0/3) > 1e-12 {
		t.Fatalf("completed: median %v X %v P %v", m, g.X, g.P)
	}
	for j := range tailAtoms {
		u := (float64(tailAtoms-j) - 0.5) / tailAtoms
		if want := m + (9-m)*math.Pow(u, -0.5); math.Abs(g.X[4+j]-want) > 1e-12 {
			t.Errorf("atom %d at %v, want %v", j, g.X[4+j], want)
		}
		if want := 2.0/3 + 1.0/3*float64(j+1)/tailAtoms; math.Abs(g.P[4+j]-want) > 1e-12 {
			t.Errorf("atom %d cdf %v, want %v", j, g.P[4+j], want)
		}
	}
	if g.X[4] < 9 {
		t.Errorf("the tail starts below the censored ratio: %v", g.X[4])
	}
	// Censored where an attempt finished: 1, 1.2, 1.4, 1.6, 2, 2+ leave 1/6
	// at 2 finished and 1/6 beyond it.
	s = newSpread([]ratioObs{{ratio: 1}, {ratio: 1.2}, {ratio: 1.4}, {ratio: 1.6}, {ratio: 2}, {ratio: 2, censored: true}})
	if math.Abs(s.Beyond-1.0/6) > 1e-12 {
		t.Fatalf("beyond %v, want 1/6", s.Beyond)
	}
	g = s.completed(1)
	if g.X[4] != 2 || math.Abs(g.P[4]-5.0/6) > 1e-12 || len(g.X) != 5+tailAtoms || g.X[5] <= 2 {
		t.Errorf("merged: X %v P %v", g.X, g.P)
	}
	if h := newSpread([]ratioObs{{ratio: 1}, {ratio: 2}}); !slices.Equal(h.completed(2).X, h.X) {
		t.Error("nothing censored: nothing to complete")
	}
}

// TestStageReplayWaves: with every task as predicted, n tasks on k slots
// take ⌈n/k⌉ waves, each slot idle the gap before a task that reuses it;
// speculation finds nothing to copy.
func TestStageReplayWaves(t *testing.T) {
	one := Spread{X: []float64{1}, P: []float64{1}, Observed: 1}
	rng := rand.New(rand.NewPCG(1, 1))
	var r stageReplay
	for _, c := range []struct{ n, k int }{{1, 1}, {10, 4}, {64, 64}, {65, 64}, {300, 7}} {
		st := &stageTasks{n: c.n, fixed: 200, variable: func(int) float64 { return 800 }, spread: &one, gapMs: 50}
		waves := float64((c.n + c.k - 1) / c.k)
		want := waves*1000 + (waves-1)*50
		for _, on := range []bool{false, true} {
			got := r.replay(st, c.k, Speculation{On: on}.withDefaults(), rng)
			if got != want {
				t.Errorf("%d tasks on %d slots, speculation %v: %v ms, want %v", c.n, c.k, on, got, want)
			}
			for i, e := range r.effective {
				if e != 1000 {
					t.Fatalf("task %d took %v ms, want 1000", i, e)
				}
			}
		}
	}
}

// TestStageReplaySpeculation: one wave of tasks of 1 s, 5% of them 10
// times as long. Without speculation a stage with a slow task takes 10 s.
// With Spark's rule the fast ones finish at 1 s (the median), a slow one
// has run longer than 1.5 s at the check at 1.6 s and gets a copy, which
// finishes at 2.6 s unless it is slow too (then the original wins at
// 10 s): every stage takes 1, 2.6 or 10 s.
func TestStageReplaySpeculation(t *testing.T) {
	sp := Spread{X: []float64{1, 10}, P: []float64{0.95, 1}, Observed: 20}
	st := &stageTasks{n: 40, variable: func(int) float64 { return 1000 }, spread: &sp}
	rng := rand.New(rand.NewPCG(5, 6))
	var r stageReplay
	counts := map[float64]int{}
	for range 400 {
		off := r.replay(st, 80, Speculation{}, rng)
		if off != 1000 && off != 10000 {
			t.Fatalf("without speculation: %v ms", off)
		}
		on := r.replay(st, 80, Speculation{On: true}.withDefaults(), rng)
		counts[on]++
		for i, e := range r.effective {
			if e != 1000 && e != 2600 && e != 10000 {
				t.Fatalf("task %d took %v ms", i, e)
			}
		}
	}
	if len(counts) != 3 || counts[1000]+counts[2600]+counts[10000] != 400 {
		t.Fatalf("stage times %v, want only 1, 2.6 and 10 s", counts)
	}
	// P(no slow task) = 0.95^40 ≈ 13%; a slow copy of some slow task
	// is rarer than a fast one.
	if counts[1000] < 20 || counts[1000] > 90 || counts[10000] >= counts[2600] {
		t.Errorf("stage times %v", counts)
	}
	// One slot, always busy: nothing is ever copied, the tasks run one
	// after another.
	for range 50 {
		got := r.replay(st, 1, Speculation{On: true}.withDefaults(), rng)
		sum := 0.0
		for _, e := range r.effective {
			if e != 1000 && e != 10000 {
				t.Fatalf("one slot: a task took %v ms", e)
			}
			sum += e
		}
		if got != sum {
			t.Fatalf("one slot: %v ms, the tasks' sum %v", got, sum)
		}
	}
}

func TestRunningMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var m runningMedian
	var all []float64
	for i := range 500 {
		v := math.Round(rng.NormFloat64() * 100)
		m.add(v)
		all = append(all, v)
		s := slices.Sorted(slices.Values(all))
		if got, want := m.median(), s[len(s)/2]; got != want {
			t.Fatalf("after %d values: median %v, want %v", i+1, got, want)
		}
	}
}

func TestSpeculationOf(t *testing.T) {
	spark := &model.App{Engine: model.Spark}
	if SpeculationOf(spark).On {
		t.Error("Spark speculates only when spark.speculation is set")
	}
	spark.Env.Spark = [][2]string{{"spark.speculation", "true"}, {"spark.speculation.interval", "2s"},
		{"spark.speculation.multiplier", "3"}, {"spark.speculation.quantile", "0.9"}}
	if s := SpeculationOf(spark); !s.On || s.IntervalMs != 2000 || s.Multiplier != 3 || s.Quantile != 0.9 {
		t.Errorf("Spark: %+v", s)
	}
	mr := &model.App{Engine: model.MapReduce}
	if !SpeculationOf(mr).On {
		t.Error("Hadoop speculates by default")
	}
	mr.Conf = [][2]string{{"mapreduce.map.speculative", "false"}, {"mapreduce.reduce.speculative", "false"}}
	if SpeculationOf(mr).On {
		t.Error("both kinds off in the job's configuration")
	}
	for v, want := range map[string]float64{"100ms": 100, "1s": 1000, "2min": 120000, "1.5m": 90000, "250": 250, " 3 s ": 3000, "x": 0, "-1s": 0} {
		if got := sparkTimeMs(v); got != want {
			t.Errorf("sparkTimeMs(%q) = %v, want %v", v, got, want)
		}
	}
}
