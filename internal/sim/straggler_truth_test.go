package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// attemptDurations maps (app, stage, task index, attempt) to the logged
// duration of each successful attempt, and gives each stage's median.
func attemptDurations(res *Result) (map[[4]string]int64, map[[2]string]float64) {
	durs := map[[4]string]int64{}
	med := map[[2]string]float64{}
	for _, a := range res.Apps {
		for _, st := range a.Stages {
			sid := stageKey(a, st)
			var ds []float64
			for _, tk := range st.Tasks {
				if tk.Status != model.TaskSuccess {
					continue
				}
				d := tk.Finish - tk.Launch
				durs[[4]string{a.ID, sid, itoa(int64(tk.Index)), itoa(int64(tk.Attempt))}] = d
				ds = append(ds, float64(d))
			}
			med[[2]string{a.ID, sid}] = median(ds)
		}
	}
	return durs, med
}

func stageKey(a *model.App, st *model.Stage) string {
	if a.Engine == model.MapReduce {
		if st.Kind == model.StageReduce {
			return "1"
		}
		return "0"
	}
	return itoa(int64(st.ID))
}

func itoa(n int64) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int64) []byte {
	if n < 0 {
		return appendInt(append(b, '-'), -n)
	}
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// TestSlowAttemptsAgreeWithDurations checks the causal straggler truth
// against the logged durations it never reads: a listed straggler's
// product of causes must match its duration over its stage's median
// within the spread the stage median's own noise and the attempts' fixed
// overheads (scheduling, deserialization: not scaled by the causes) allow
// (5th-95th percentile within 0.85-1.4; 0.99-1.36 at worst, skew seed 3,
// since long attempts' noise adds time rather than a factor), and almost every
// attempt at 2.5x its stage's median or more must be listed.
func TestSlowAttemptsAgreeWithDurations(t *testing.T) {
	for _, name := range []string{"clean", "straggler", "skew", "heterogeneous", "cpu-hog", "slow-disk", "speculation"} {
		for _, seed := range seeds {
			res, err := Simulate(mustNamed(t, name), seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			durs, med := attemptDurations(res)
			listed := map[[4]string]bool{}
			var ratios []float64
			for _, at := range res.Truth.Apps {
				for _, s := range at.SlowAttempts {
					k := [4]string{at.ID, itoa(int64(s.Stage)), itoa(int64(s.Task)), itoa(int64(s.Attempt))}
					listed[k] = true
					d, ok := durs[k]
					if !ok {
						t.Fatalf("%s/%d: listed straggler %v is no successful attempt", name, seed, k)
					}
					prod := s.DataSize * s.Locality * s.Node * s.Fault * s.Noise * s.GC / s.Typical
					if math.Abs(prod-s.Slowdown) > 0.01*s.Slowdown {
						t.Errorf("%s/%d %v: factors over the typical give %.3f, slowdown %.3f", name, seed, k, prod, s.Slowdown)
					}
					ratios = append(ratios, s.Slowdown/(float64(d)/med[[2]string{k[0], k[1]}]))
					if name == "clean" && (s.Fault != 1 || s.GC != 1) {
						t.Errorf("clean/%d %v: fault %.3f gc %.3f without faults or injections", seed, k, s.Fault, s.GC)
					}
				}
			}
			slices.Sort(ratios)
			if len(ratios) > 0 {
				lo, hi := ratios[len(ratios)/20], ratios[len(ratios)*19/20]
				if lo < 0.85 || hi > 1.4 {
					t.Errorf("%s/%d: slowdown over observed duration ratio, 5th-95th percentile %.2f-%.2f, want within 0.85-1.4", name, seed, lo, hi)
				}
			}
			missed, far := 0, 0
			for k, d := range durs {
				m := med[[2]string{k[0], k[1]}]
				if float64(d) >= 2.5*m && m > 0 {
					far++
					if !listed[k] {
						missed++
					}
				}
			}
			if far > 0 && float64(missed) > 0.05*float64(far) {
				t.Errorf("%s/%d: %d of %d attempts at 2.5x their stage's median or more not listed", name, seed, missed, far)
			}
		}
	}
}

// TestSlowAttemptCauses checks the causes the truth names against what
// the scenarios inject: every injected GC straggler is listed with cause
// gc and its factor, and the CPU hog's host has slow attempts with a fault
// factor over 1.3 (the hog halves the CPU) while no other host has any.
func TestSlowAttemptCauses(t *testing.T) {
	for _, seed := range seeds {
		res, err := Simulate(mustNamed(t, "straggler"), seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Truth.Problems {
			if p.Kind != ProblemStraggler {
				continue
			}
			for _, ti := range p.Tasks {
				found := false
				for _, at := range res.Truth.Apps {
					for _, s := range at.SlowAttempts {
						if at.ID == p.App && s.Stage == p.Stage && s.Task == ti && s.Attempt == 0 {
							found = true
							if s.Cause != "gc" || s.GC < 3.9 || s.GC > 5.1 {
								t.Errorf("seed %d: injected straggler %s/%d/%d: cause %s, gc %.2f", seed, p.App, p.Stage, ti, s.Cause, s.GC)
							}
						}
					}
				}
				if !found {
					t.Errorf("seed %d: injected straggler %s/%d/%d not listed", seed, p.App, p.Stage, ti)
				}
			}
		}
		res, err = Simulate(mustNamed(t, "cpu-hog"), seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		hog := res.Truth.Faults[0].Host
		byFault := 0
		for _, at := range res.Truth.Apps {
			for _, s := range at.SlowAttempts {
				if s.Host != hog && s.Fault != 1 {
					t.Errorf("seed %d: %s/%d/%d on %s (not the hog's host) has fault %.3f", seed, at.ID, s.Stage, s.Task, s.Host, s.Fault)
				}
				if s.Host == hog && s.Fault > 1.3 {
					byFault++
				}
			}
		}
		if byFault == 0 {
			t.Errorf("seed %d: no straggler on the CPU hog's host %s has a fault factor over 1.3", seed, hog)
		}
	}
}

// TestBlockImbalanceLabels checks the block-placement imbalance labels:
// only on stages that read HDFS input no problem placed (the first stage
// of an application; TeraSort's and Sort's maps, WordCount's and KMeans's
// stage 0), hosts and underloaded hosts disjoint and among the hosts the
// application ran executors on, and none where an imbalance was injected.
func TestBlockImbalanceLabels(t *testing.T) {
	for _, name := range []string{"clean", "imbalance", "placement"} {
		for _, seed := range seeds {
			res, err := Simulate(mustNamed(t, name), seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			injected := map[string]bool{}
			for _, p := range res.Truth.Problems {
				if p.Cause == "" {
					injected[p.App] = true
				}
			}
			n := 0
			for _, p := range res.Truth.Problems {
				if p.Cause != CauseBlocks {
					continue
				}
				n++
				if p.Stage != 0 || injected[p.App] && (name == "imbalance" || name == "placement") {
					t.Errorf("%s/%d: block label on %s stage %d", name, seed, p.App, p.Stage)
				}
				var app *model.App
				for _, a := range res.Apps {
					if a.ID == p.App {
						app = a
					}
				}
				hosts := map[string]bool{}
				for _, x := range app.Executors {
					hosts[x.Host] = true
				}
				for _, h := range append(slices.Clone(p.Hosts), p.Under...) {
					if !hosts[h] && app.Engine == model.Spark {
						t.Errorf("%s/%d: %s stage %d labels %s, which ran no executor", name, seed, p.App, p.Stage, h)
					}
				}
				for _, h := range p.Under {
					if slices.Contains(p.Hosts, h) {
						t.Errorf("%s/%d: %s both over- and underloaded", name, seed, h)
					}
				}
			}
			if name == "clean" && n == 0 {
				t.Errorf("clean/%d: no block-placement label", seed)
			}
		}
	}
}

// TestMedian checks the selection median against sorting.
func TestMedian(t *testing.T) {
	rng := newRNG(1, 99)
	for n := 1; n < 200; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(rng.IntN(n/2 + 1)) // many ties
		}
		s := slices.Clone(v)
		slices.Sort(s)
		want := s[n/2]
		if n%2 == 0 {
			want = (s[n/2-1] + s[n/2]) / 2
		}
		if got := median(v); got != want {
			t.Fatalf("n %d: median %v, want %v", n, got, want)
		}
	}
}
