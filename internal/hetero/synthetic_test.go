package hetero

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/clusterlens/clusterlens/internal/history"
)

// synth is a synthetic history with known truth: nodes of three classes
// with log slowness per resource (cpu, io), job classes with a resource
// class, and runs whose stages' tasks on each host take
// exp(offset + node·loading + σ·ε) ms.
type synth struct {
	// tail, when set, slows 6% of the tasks by a Pareto factor (scale 2,
	// shape 1.1, at most 12x): the simulator's Spark noise.
	tail   bool
	stages int // stages per run (0: 2)
	// fixed: every run has the same size (a recurring fixed-size job);
	// else a run's size varies log-normally (σ 0.5).
	fixed   bool
	nodes   []string
	slow    [][2]float64 // true log slowness per node (cpu, io)
	degrade map[string][2]float64
}

// synthClasses are three generations' log slowness (cpu, io).
var synthClasses = [][2]float64{{math.Log(0.77), math.Log(0.8)}, {0, 0}, {math.Log(1.43), math.Log(1.2)}}

func newSynth(nodes int, rng *rand.Rand) *synth {
	s := &synth{degrade: map[string][2]float64{}}
	for i := 0; i < nodes; i++ {
		s.nodes = append(s.nodes, fmt.Sprintf("host%04d", i))
		s.slow = append(s.slow, synthClasses[i%3])
	}
	return s
}

// runs draws n runs starting at start (ms), each of a job class of 2
// stages (one CPU-bound, one IO-bound) on hosts hosts with tasks tasks
// each, noise sigma.
func (s *synth) runs(rng *rand.Rand, n, hosts, tasks int, sigma float64, start int64) []*history.Run {
	out := make([]*history.Run, 0, n)
	for r := 0; r < n; r++ {
		job := rng.IntN(5)
		run := &history.Run{Key: fmt.Sprintf("spark/app-%d-%d/", start, r), Engine: "spark", Start: start + int64(r)*1000,
			NameKey: fmt.Sprintf("job %d", job)}
		size := math.Log(2000) + 0.5*rng.NormFloat64()
		if s.fixed {
			size = math.Log(2000) + 0.02*rng.NormFloat64()
		}
		for st := int32(0); st < int32(max(s.stages, 1)) || s.stages == 0 && st < 2; st++ {
			class := history.ClassCPU
			load := [2]float64{1, 0.1}
			if st == 1 {
				class, load = history.ClassIO, [2]float64{0.2, 1}
			}
			run.Stages = append(run.Stages, history.Stage{ID: st, Name: fmt.Sprintf("stage %d", st),
				Signature: fmt.Sprintf("stage %d|i---0", st), Class: class, RunTimeMs: 1000, CPUTimeMs: int64(1000 * load[0] / (load[0] + load[1]))})
			for _, i := range rng.Perm(len(s.nodes))[:hosts] {
				u := s.slow[i]
				if d, ok := s.degrade[s.nodes[i]]; ok {
					u[0] += d[0]
					u[1] += d[1]
				}
				h := history.HostStage{Stage: st, Host: s.nodes[i], MinMs: math.MaxInt64}
				for t := 0; t < tasks; t++ {
					d := math.Exp(size + u[0]*load[0] + u[1]*load[1] + sigma*rng.NormFloat64())
					if s.tail && rng.Float64() < 0.06 {
						d *= math.Min(12, 2*math.Pow(1-rng.Float64(), -1/1.1))
					}
					l := math.Log(d)
					h.Tasks++
					h.SumMs += d
					h.SumSqMs += d * d
					h.SumLog += l
					h.SumSqLog += l * l
					h.MinMs = min(h.MinMs, int64(d))
					h.MaxMs = max(h.MaxMs, int64(d))
				}
				run.Hosts = append(run.Hosts, h)
			}
		}
		out = append(out, run)
	}
	return out
}
