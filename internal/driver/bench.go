package driver

import (
	"github.com/clusterlens/clusterlens/internal/predict"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// BenchClass is the simulated node class the benchmarks run on.
var BenchClass = sim.HardwareClass{Name: "bench-8c", Share: 1, Cores: 8, CPUSpeed: 1, DiskMBps: 160, NetMBps: 115, MemoryGB: 64}

// BenchScenario is the microbenchmark plan for nodes × 8 slots as a
// simulator scenario: one job after another (two simulated hours apart),
// speculative execution on, no node metrics.
func BenchScenario(nodes int, grid string) *sim.Scenario {
	slots := nodes * BenchClass.Cores
	sc := &sim.Scenario{Name: "microbench", Description: "ICPE'13 microbenchmarks (clusterlens predict bench)",
		Cluster:   sim.ClusterSpec{Nodes: nodes, Classes: []sim.HardwareClass{BenchClass}},
		Scheduler: sim.SchedulerSpec{Speculation: true}, Metrics: sim.MetricsSpec{Off: true}}
	for i, b := range predict.Plan(predict.PlanOptions{Slots: slots, Grid: grid}) {
		sc.Apps = append(sc.Apps, sim.AppSpec{Engine: "mapreduce", Class: "microbench", Name: b.Name, SubmitS: float64(i) * 7200,
			InputGB: float64(b.InputMB()) / 1024, SplitMB: b.SplitMB, MapSelectivity: b.MapSelectivity,
			ReduceSelectivity: b.ReduceSelectivity, Executors: slots, Partitions: b.Reduces})
	}
	return sc
}
