package correlate

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// BenchmarkCorrelateSim correlates every application of the simulator's
// class mix (9 applications, 12 nodes, 1,400 s of 1 s samples) with its
// samples: host matching, indexing, profiles, stage and job matrices.
func BenchmarkCorrelateSim(b *testing.B) {
	r := runSim(b, "", 1)
	rows := r.frames.Rows()
	b.ReportAllocs()
	b.SetBytes(int64(rows * NumMetrics * 4))
	b.ResetTimer()
	for range b.N {
		for _, app := range r.apps {
			Correlate(app, r.frames, Options{})
		}
	}
	b.ReportMetric(float64(rows*len(r.apps))*float64(b.N)/b.Elapsed().Seconds(), "host-samples/s")
}

// syntheticApp is one Spark application of nTasks tasks of 5–60 s over
// hosts nodes for an hour, in stages of 1,000 tasks submitted one after
// the other (each stage's tasks launched within a minute of its start, so
// about ten stages overlap), and a frame of 1 s samples per host.
func syntheticApp(nTasks, hosts int) (*model.App, *Frames) {
	rng := rand.New(rand.NewPCG(7, 8))
	const start, hour = int64(1_700_000_000_000), int64(3_600_000)
	app := &model.App{ID: "app", Engine: model.Spark, Start: start, End: start + hour, Hosts: []string{""}}
	for h := range hosts {
		app.Hosts = append(app.Hosts, "node"+strconv.Itoa(h)+".example.com")
	}
	var st *model.Stage
	var m model.TaskMetrics
	for i := range nTasks {
		if i%1000 == 0 {
			st = &model.Stage{ID: int32(len(app.Stages)), JobIDs: []int32{int32(len(app.Stages) / 10)}}
			app.Stages = append(app.Stages, st)
		}
		stages := (nTasks + 999) / 1000
		l := start + int64(len(app.Stages)-1)*(hour-120_000)/int64(stages) + rng.Int64N(60_000)
		d := 5_000 + rng.Int64N(55_000)
		m[model.ExecutorRunTime], m[model.ExecutorCPUNanos], m[model.OutputBytes] = d, d*600_000, d*20_000
		st.AddTask(model.Task{ID: int64(i), Launch: l, Finish: l + d, Host: uint32(1 + rng.IntN(hosts)),
			Status: model.TaskSuccess, HasMetrics: true}, &m)
	}
	for j := 0; j*10 < len(app.Stages); j++ {
		app.Jobs = append(app.Jobs, &model.Job{ID: int32(j)})
	}
	fs := NewFrames(0, 0)
	s := model.Sample{}
	for h := 1; h <= hosts; h++ {
		s.Host = app.Hosts[h]
		for t := start; t <= start+hour; t += 1000 {
			s.Time = t
			for mi, name := range model.NodeMetricNames {
				s.Type, s.Value = name, float64(mi)+rng.Float64()
				fs.Add(&s)
			}
		}
	}
	fs.Finish()
	return app, fs
}

// BenchmarkCorrelateScale correlates 500,000 tasks with an hour of 1 s
// samples on 100 hosts (360,000 sample rows of 22 metrics; about 45 tasks
// and 10 stages open per host at a time).
func BenchmarkCorrelateScale(b *testing.B) {
	app, fs := syntheticApp(500_000, 100)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		Correlate(app, fs, Options{})
	}
	b.ReportMetric(float64(app.NumTasks())*float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
	b.ReportMetric(float64(fs.Rows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkFramesAdd adds an hour of 1 s samples of the 22 metrics of 10
// hosts (792,000 samples) in time order (as files and the agent give them)
// and in store order (host, metric, time), then finishes the frames.
func BenchmarkFramesAdd(b *testing.B) {
	const hosts, secs = 10, 3600
	var samples []model.Sample
	for h := range hosts {
		for t := range secs {
			for _, name := range model.NodeMetricNames {
				samples = append(samples, model.Sample{Time: int64(t) * 1000, Host: "node" + strconv.Itoa(h), Type: name, Value: float64(t)})
			}
		}
	}
	storeOrder := slices.Clone(samples)
	slices.SortStableFunc(storeOrder, func(x, y model.Sample) int {
		return cmp.Or(cmp.Compare(x.Host, y.Host), cmp.Compare(x.Type, y.Type), cmp.Compare(x.Time, y.Time))
	})
	for _, tc := range []struct {
		name string
		s    []model.Sample
	}{{"time-order", samples}, {"store-order", storeOrder}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				fs := NewFrames(0, 0)
				for i := range tc.s {
					fs.Add(&tc.s[i])
				}
				fs.Finish()
			}
			b.ReportMetric(float64(len(tc.s))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// BenchmarkEstimateOffsetsScale times the clock alignment of
// BenchmarkCorrelateScale's 100 hosts (an hour of 1 s samples, 500,000
// tasks): 82 candidate shifts per host.
func BenchmarkEstimateOffsetsScale(b *testing.B) {
	app, fs := syntheticApp(500_000, 100)
	apps := []*model.App{app}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		EstimateOffsets(apps, fs, Options{})
	}
}
