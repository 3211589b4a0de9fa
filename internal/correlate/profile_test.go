package correlate

import (
	"math"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// attemptKey names an attempt as phases.csv.zst does.
type attemptKey struct {
	app              string
	stage, task, att int32
}

// truthDominant is each attempt's dominant resource by the simulator's
// phases: the resource its cpu, disk and network phases spent the most time
// on (ties as the simulator's stage profiles break them).
func truthDominant(ph []phase) map[attemptKey]string {
	sums := map[attemptKey]*[3]int64{}
	for _, p := range ph {
		k := attemptKey{p.app, p.stage, p.task, p.att}
		s := sums[k]
		if s == nil {
			s = &[3]int64{}
			sums[k] = s
		}
		switch p.res {
		case "cpu":
			s[0] += p.end - p.start
		case "disk":
			s[1] += p.end - p.start
		case "network":
			s[2] += p.end - p.start
		}
	}
	out := map[attemptKey]string{}
	for k, b := range sums {
		d := "cpu"
		if b[1] > b[0] && b[1] >= b[2] {
			d = "disk"
		} else if b[2] > b[0] && b[2] > b[1] {
			d = "network"
		}
		out[k] = d
	}
	return out
}

// TestProfilesAgainstPhases scores each stage's dominant resource against
// truth.json's stage profiles and each attempt's dominant resource
// against the simulator's phases (the resource the attempt's phases waited
// on longest), over every job class on both engines, and checks the
// classes: WordCount and KMeans CPU-bound, Sort and RandomWriter I/O-bound
// (disk and network, as HDFS replication makes RandomWriter's output
// network-bound in the simulator), TeraSort's reduce network-bound.
func TestProfilesAgainstPhases(t *testing.T) {
	r := runSim(t, "", 1)
	truth := truthDominant(r.phases)
	type score struct{ ok, n int }
	byClass := map[string]*score{}
	var all score
	stages, stagesOK := 0, 0
	for _, app := range r.apps {
		tr := r.appTruth(app.ID)
		c := New(app, r.frames, Options{})
		s := byClass[tr.Class]
		if s == nil {
			s = &score{}
			byClass[tr.Class] = s
		}
		var cpu, io float64
		sp := c.Profiles(func(tp *TaskProfile) {
			st := app.Stages[tp.Stage]
			tk := &st.Tasks[tp.Task]
			want, ok := truth[attemptKey{app.ID, st.ID, tk.Index, tk.Attempt}]
			if !ok || tp.Dominant == "" {
				return
			}
			s.n++
			all.n++
			if tp.Dominant == want {
				s.ok++
				all.ok++
			}
			cpu += tp.CPU * float64(tp.RunMs)
			io += (tp.Disk + tp.Network) * float64(tp.RunMs)
		})
		for i, st := range app.Stages {
			for _, want := range tr.StageProfiles {
				if want.Stage != st.ID || len(st.Tasks) == 0 {
					continue
				}
				stages++
				if sp[i].Dominant == want.Dominant {
					stagesOK++
				} else {
					t.Logf("%s stage %d: dominant %s (cpu %.2f disk %.2f network %.2f), truth %s (%.2f %.2f %.2f)", app.Name, st.ID,
						sp[i].Dominant, sp[i].CPU, sp[i].Disk, sp[i].Network, want.Dominant, want.CPU, want.Disk, want.Network)
				}
			}
		}
		switch tr.Class {
		case "wordcount", "kmeans":
			if cpu <= io {
				t.Errorf("%s (%s %s): CPU %.0f ms <= I/O %.0f ms", app.Name, tr.Engine, tr.Class, cpu, io)
			}
		case "sort", "randomwriter":
			if io <= cpu {
				t.Errorf("%s (%s %s): I/O %.0f ms <= CPU %.0f ms", app.Name, tr.Engine, tr.Class, io, cpu)
			}
		case "terasort":
			last := sp[len(sp)-1]
			if app.Stages[len(sp)-1].Kind == model.StageMap || last.Dominant != "network" {
				t.Errorf("%s (%s): last stage dominant %q (%+v), want network", app.Name, tr.Engine, last.Dominant, last.Profile)
			}
		}
	}
	for cl, s := range byClass {
		t.Logf("%-12s %4d/%4d attempts' dominant resource right (%.0f%%)", cl, s.ok, s.n, 100*float64(s.ok)/float64(s.n))
	}
	acc := float64(all.ok) / float64(all.n)
	t.Logf("all          %4d/%4d (%.1f%%)", all.ok, all.n, 100*acc)
	t.Logf("stages: %d/%d dominant resources as the simulator's stage profiles say", stagesOK, stages)
	if stagesOK < stages*9/10 {
		t.Errorf("%d of %d stages' dominant resource right, want 90%%", stagesOK, stages)
	}
	if all.n < 500 || acc < 0.85 {
		t.Errorf("%d of %d attempts right (%.1f%%), want at least 85%% of at least 500", all.ok, all.n, 100*acc)
	}
}

// TestNodeSharesBruteForce recomputes every attempt's share of its node
// (the mean over its samples of each value over the attempts running) by
// brute force over all (row, attempt) pairs, and compares.
func TestNodeSharesBruteForce(t *testing.T) {
	r := runSim(t, "", 1)
	checked := 0
	for _, app := range r.apps[:4] {
		c := New(app, r.frames, Options{})
		got := make([]NodeShare, len(c.taskRef))
		for k := range c.hosts {
			c.nodeShares(k, got)
			h := &c.hosts[k]
			f := h.frame
			for _, w := range h.tasks {
				var want NodeShare
				for row, ts := range h.times {
					if !member(ts, h.iv, c.skew, w) {
						continue
					}
					n := 0.0
					for _, o := range h.tasks {
						if member(ts, h.iv, c.skew, o) {
							n++
						}
					}
					want.Samples++
					want.Running += n
					want.CPUPct += float64(f.Value(row, mCPUUsage)) / n
					want.DiskBps += diskBps(f.Row(row)) / n
					want.NetBps += netBps(f.Row(row)) / n
				}
				s := got[w.id]
				if s.Samples != want.Samples {
					t.Fatalf("%s task window %+v: %d samples, brute force %d", app.ID, w, s.Samples, want.Samples)
				}
				if want.Samples == 0 {
					continue
				}
				n := float64(want.Samples)
				for _, p := range [][2]float64{{s.Running, want.Running / n}, {s.CPUPct, want.CPUPct / n}, {s.DiskBps, want.DiskBps / n}, {s.NetBps, want.NetBps / n}} {
					if math.Abs(p[0]-p[1]) > 1e-6*math.Max(1, math.Abs(p[1])) {
						t.Fatalf("%s task window %+v: share %+v, brute force %+v", app.ID, w, s, want)
					}
				}
				checked++
			}
		}
	}
	if checked < 300 {
		t.Errorf("%d attempts checked", checked)
	}
}
