package perfmodel

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// synthetic builds a workload of jobs x stagesPerJob stages of tasksPerStage
// tasks each, run on executors of 4 cores: within a job every stage depends
// on the previous one and every third on the one before that as well; jobs
// follow each other with a 500 ms driver gap. Task durations are 100 ms to
// 10 s with a heavy tail, from a fixed seed.
func synthetic(jobs, stagesPerJob, tasksPerStage, executors int) *Workload {
	rng := rand.New(rand.NewPCG(1, 2))
	w := &Workload{AppID: "synthetic", Start: 1_000_000, TaskCPUs: 1, Complete: true}
	now := w.Start
	id := int32(0)
	for j := 0; j < jobs; j++ {
		now += 500
		job := Job{ID: int32(j), Submitted: now}
		for k := 0; k < stagesPerJob; k++ {
			s := Stage{ID: id, Job: j, Submitted: now, FirstLaunch: now + 5}
			if k > 0 {
				s.Parents = append(s.Parents, len(w.Stages)-1)
			}
			if k > 1 && k%3 == 0 {
				s.Parents = append(s.Parents, len(w.Stages)-2)
			}
			s.Durations = make([]int64, tasksPerStage)
			var sum, longest int64
			for t := range s.Durations {
				d := 100 + int64(rng.ExpFloat64()*900)
				if rng.IntN(100) == 0 {
					d *= 10
				}
				s.Durations[t] = d
				sum += d
				longest = max(longest, d)
			}
			span := max(longest, sum/int64(executors*4))
			s.LastFinish = s.FirstLaunch + span
			s.Completed = s.LastFinish + 2
			now = s.Completed
			job.Stages = append(job.Stages, len(w.Stages))
			w.Stages = append(w.Stages, s)
			id++
		}
		job.Completed = now + 3
		now = job.Completed
		w.Jobs = append(w.Jobs, job)
	}
	w.End = now + 1000
	for e := 0; e < executors; e++ {
		w.Executors = append(w.Executors, ExecutorSpan{ID: string(rune('a' + e%26)), Cores: 4, Added: w.Start, Ended: w.End})
	}
	return w
}

// TestWhatIfMillionTasksUnder10s is the scale target: a million tasks
// across 12 executor settings in under 10 s (on a shared 2-core machine).
func TestWhatIfMillionTasksUnder10s(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test")
	}
	w := synthetic(100, 10, 1000, 100)
	if n := w.NumTasks(); n != 1_000_000 {
		t.Fatalf("synthetic workload has %d tasks", n)
	}
	start := time.Now()
	wi, err := EstimateWhatIf(w, nil)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("what-if, 1e6 tasks, %d settings: %v", len(wi.Estimates), took)
	if took > 10*time.Second {
		t.Errorf("what-if took %v, want under 10 s", took)
	}
	// More executors never slow the replay down on this DAG, and fewer speed it up.
	for i := 1; i < len(wi.Estimates); i++ {
		if wi.Estimates[i].AppMs > wi.Estimates[i-1].AppMs {
			t.Errorf("%d%%: %d ms > %d%%: %d ms", wi.Estimates[i].Percent, wi.Estimates[i].AppMs, wi.Estimates[i-1].Percent, wi.Estimates[i-1].AppMs)
		}
	}
}

// BenchmarkWhatIfMillionTasks measures the what-if (12 settings plus the
// 100% model check) on a million synthetic tasks.
func BenchmarkWhatIfMillionTasks(b *testing.B) {
	w := synthetic(100, 10, 1000, 100)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := sharedtest.ProcessCPU()
	for b.Loop() {
		if _, err := EstimateWhatIf(w, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w.NumTasks()*13*b.N)/b.Elapsed().Seconds(), "tasks/s")
	b.ReportMetric(float64(w.NumTasks()*13*b.N)/(sharedtest.ProcessCPU()-cpu0).Seconds(), "tasks/cpu-s")
}
