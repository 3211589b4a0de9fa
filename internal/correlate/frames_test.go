package correlate

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

func TestFramesOrderMergeDerive(t *testing.T) {
	fs := NewFrames(0, 0)
	add := func(ts int64, host, typ string, v float64) {
		fs.Add(&model.Sample{Time: ts, Host: host, Type: typ, Value: v})
	}
	add(3000, "h", "cpu_user_pct", 30)
	add(1000, "h", "cpu_user_pct", 10) // out of order
	add(2000, "h", "cpu_user_pct", 20)
	add(1000, "h", "cpu_system_pct", 5) // joins the 1000 row on sorting
	add(2000, "h", "disk_read_bw", 7)
	add(2000, "h", "unknown_metric", 1)
	fs.Add(&model.Sample{Time: 2000, Host: "h", Type: "cpu_user_pct", Target: "cpu0", Value: 99})
	fs.Finish()
	f := fs.Host("h")
	if f == nil || len(f.Times) != 3 || f.Times[0] != 1000 || f.Times[2] != 3000 || f.IntervalMs != 1000 {
		t.Fatalf("frame %+v", f)
	}
	if v := f.Value(0, mCPUUsage); v != 15 {
		t.Errorf("cpu_usage at 1000 = %v, want user 10 + system 5", v)
	}
	if v := f.Value(1, mDiskRead); v != 7 {
		t.Errorf("disk_read_bytes_per_s from disk_read_bw = %v", v)
	}
	if v := f.Value(2, mCPUSys); !math.IsNaN(float64(v)) {
		t.Errorf("missing value %v, want NaN", v)
	}
	if fs.Ignored() != 2 || fs.Rows() != 3 {
		t.Errorf("ignored %d, rows %d", fs.Ignored(), fs.Rows())
	}
}

// TestStageMatrixMeans recomputes every (stage, host) mean of cpu_usage and
// disk writes by brute force from the simulator's phases and the raw
// samples, and checks the matrices' shape.
func TestStageMatrixMeans(t *testing.T) {
	r := runSim(t, "", 1)
	for _, app := range r.apps {
		spans := truthSpans(r.phases, app.ID)
		c := New(app, r.frames, Options{})
		s := c.SkewMs()
		for i, sm := range c.StageMatrices() {
			if sm.Stage != app.Stages[i].Key() || len(sm.X) != len(sm.Hosts) || len(sm.Rows()) != len(sm.Hosts) || len(sm.Metrics) != NumMetrics {
				t.Fatalf("%s stage %d: matrix %v, %d rows for %d hosts, %d metrics", app.ID, i, sm.Stage, len(sm.X), len(sm.Hosts), len(sm.Metrics))
			}
			for j, host := range sm.Hosts {
				w, ok := spans[host][app.Stages[i].ID]
				if !ok {
					t.Fatalf("%s stage %d: host %s has no attempt in the phases", app.ID, i, host)
				}
				f := r.frames.Host(host)
				for _, name := range []string{"cpu_usage", "disk_write_bytes_per_s"} {
					m := model.NodeMetricIndex(name)
					var sum float64
					n := 0
					for row, ts := range f.Times {
						if ts-f.IntervalMs-s < w[1] && w[0] < ts+s {
							sum += float64(f.Value(row, m))
							n++
						}
					}
					got := sm.X[j][sm.Column(name)]
					if n != sm.Samples[j] || math.Abs(got-sum/float64(n)) > 1e-6*math.Max(1, math.Abs(got)) {
						t.Errorf("%s stage %d %s %s: %g over %d samples, brute force %g over %d", app.ID, i, host, name, got, sm.Samples[j], sum/float64(n), n)
					}
				}
			}
		}
	}
}

func TestFramesWithin(t *testing.T) {
	fs := NewFramesWithin([][2]int64{{5000, 6000}, {1000, 2000}, {1500, 3000}})
	for ts := int64(0); ts <= 7000; ts += 500 {
		fs.Add(&model.Sample{Time: ts, Host: "h", Type: "load1", Value: 1})
	}
	fs.Finish()
	// kept: 1000..3000 (5 samples) and 5000..6000 (3)
	if f := fs.Host("h"); f == nil || len(f.Times) != 8 || f.Times[0] != 1000 || f.Times[4] != 3000 || f.Times[5] != 5000 || fs.Ignored() != 7 {
		t.Fatalf("kept %v, ignored %d", f.Times, fs.Ignored())
	}
	// JVM thread samples are kept apart, within the same spans.
	for ts := int64(0); ts <= 7000; ts += 1000 {
		fs.Add(&model.Sample{Time: ts, Host: "h", Type: model.ThreadSampleType, Target: "1/2", Value: 3, Text: "1\tmain\tRUNNABLE\t"})
	}
	if th := fs.Threads(); len(th) != 5 || th[0].Time != 1000 || th[4].Time != 6000 || fs.Ignored() != 10 || len(fs.Host("h").Times) != 8 {
		t.Errorf("threads %v, ignored %d", th, fs.Ignored())
	}
	if fs := NewFrames(0, 0); !fs.keep(-5) || !fs.keep(1<<62) {
		t.Error("NewFrames(0, 0) does not keep everything")
	}
}

// TestFramesMetricByMetric feeds samples as a store returns them (by host,
// type, then time), and in a shuffled order: the same frame as in time
// order, with one row per instant.
func TestFramesMetricByMetric(t *testing.T) {
	var samples []model.Sample
	for _, typ := range []string{"cpu_usage", "load1", "disk_read_bw"} {
		for ts := int64(1000); ts <= 60_000; ts += 1000 {
			samples = append(samples, model.Sample{Time: ts, Host: "h", Type: typ, Value: float64(ts/1000) + float64(len(typ))})
		}
	}
	build := func(order []int) *Frame {
		fs := NewFrames(0, 0)
		for _, i := range order {
			fs.Add(&samples[i])
		}
		fs.Add(&model.Sample{Time: 5000, Host: "h", Type: "load1", Value: math.NaN()}) // ignored
		fs.Finish()
		return fs.Host("h")
	}
	byType := make([]int, len(samples))
	for i := range byType {
		byType[i] = i
	}
	byTime := slices.Clone(byType)
	slices.SortStableFunc(byTime, func(a, b int) int { return cmp.Compare(samples[a].Time, samples[b].Time) })
	shuffled := slices.Clone(byType)
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	want := build(byTime)
	for name, order := range map[string][]int{"by type": byType, "shuffled": shuffled} {
		got := build(order)
		same := slices.EqualFunc(got.Values, want.Values, func(a, b float32) bool { return a == b || (isNaN(a) && isNaN(b)) })
		if len(got.Times) != 60 || !slices.Equal(got.Times, want.Times) || !same {
			t.Errorf("%s: %d rows, want 60 equal to the time-ordered frame", name, len(got.Times))
		}
	}
}

// TestJobMatrices checks job-resource correlation against the stages': a
// job's hosts are its stages' hosts, and its window on a host (the span of
// its stages' windows) holds at least as many samples as any of them.
func TestJobMatrices(t *testing.T) {
	r := runSim(t, "", 1)
	jobs := 0
	for _, app := range r.apps {
		c := New(app, r.frames, Options{})
		sms := c.StageMatrices()
		for ji, jm := range c.JobMatrices() {
			job := app.Jobs[ji]
			want := map[string]int{} // host → most samples of a stage of the job
			for si, st := range app.Stages {
				if !slices.Contains(job.StageIDs, st.ID) && !slices.Contains(st.JobIDs, job.ID) {
					continue
				}
				for k, h := range sms[si].Hosts {
					want[h] = max(want[h], sms[si].Samples[k])
				}
			}
			if len(jm.Hosts) != len(want) {
				t.Fatalf("%s job %d: hosts %v, its stages ran on %v", app.ID, job.ID, jm.Hosts, want)
			}
			for k, h := range jm.Hosts {
				if jm.Samples[k] < want[h] {
					t.Errorf("%s job %d host %s: %d samples, a stage of it has %d", app.ID, job.ID, h, jm.Samples[k], want[h])
				}
			}
			jobs++
		}
	}
	if jobs < 9 {
		t.Errorf("%d jobs checked", jobs)
	}
}
