package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Regression scenarios: the runs of a recurring job, one a day on the same
// cluster, each with its own data (±10%) and noise, and a run with one
// injected cause of a regression, of each kind package explain names.
// They are the ground truth of `clusterlens explain` (docs/EXPLAIN.md).

// Problems only the regression scenarios inject.
const (
	// ProblemMemoryStarved: the application's executors are short of
	// memory in every stage: each first attempt spends Factor−1 of its time
	// more in garbage collection (default 1.8) and spills what it
	// processed once.
	ProblemMemoryStarved = "memory-starved"
	// ProblemSQLNoPartialAgg: an aggregate query loses its partial
	// aggregation (the plan has one HashAggregate, not two): its map stage
	// shuffles every row it reads (shuffle output = input) and its reduce
	// stage aggregates them all.
	ProblemSQLNoPartialAgg = "sql-no-partial-agg"
	// ProblemDriverPause: the driver works PauseS seconds before the
	// problem's job (Stage is the job's index) is submitted, no stage
	// running (a file listing, a collect, a broadcast built on the driver).
	ProblemDriverPause = "driver-pause"
)

// RegressionCauses are the causes RegressionRun injects, named as package
// explain names its kinds.
var RegressionCauses = []string{"input", "node", "skew", "partitioning", "spill-gc", "failures", "executors", "config", "plan", "driver"}

// RegressionJobs are the recurring jobs of the regression scenarios: a
// Spark SQL aggregate (WordCount, CPU-bound), a Spark Sort (IO) and a
// Spark TeraSort (shuffle).
var RegressionJobs = []string{"wordcount-sql", "sort", "terasort"}

// RegressionTruth is what RegressionRun injected.
type RegressionTruth struct {
	// Job is the recurring job's name in truth.json (AppSpec.Job); Cause
	// the injected cause ("" for none).
	Job   string `json:"job"`
	Cause string `json:"cause"`
	// Node is the slowed node's index (node cause), -1 otherwise; Detail
	// says what was injected, with its magnitude.
	Node   int    `json:"node"`
	Detail string `json:"detail"`
}

// regressionStart is the first run's day.
const regressionStart = 1767225600000 // 2026-01-01

// RegressionRun returns run day (0, 1, ...) of recurring job (one of
// RegressionJobs) with cause injected ("" for none), its data and noise
// drawn from seed and day, the cause's magnitude from seed. ok is false
// for a cause the job cannot have (a plan change needs the SQL job). The
// job's application is the one whose truth has Job set.
func RegressionRun(job string, day int, cause string, seed uint64) (sc *Scenario, truth RegressionTruth, ok bool) {
	base, found := regressionJobs[job]
	if !found || cause == "plan" && job != "wordcount-sql" {
		return nil, RegressionTruth{}, false
	}
	app := base
	app.Job = job
	date := time.UnixMilli(regressionStart).UTC().AddDate(0, 0, day).Format("2006-01-02")
	app.Name = fmt.Sprintf(app.Name, date)
	data := rand.New(rand.NewPCG(seed, uint64(day)))
	app.InputGB = math.Round(app.InputGB*(0.9+0.2*data.Float64())*100) / 100
	sc = &Scenario{
		Name: "regression-" + job, Description: "one run of a recurring job on its day, " + orNone(cause),
		StartMs: regressionStart + int64(day)*86_400_000, HorizonS: 60,
		Cluster: ClusterSpec{Nodes: 12, Racks: 2, Classes: classesHetero(), Seed: 7},
		Apps:    []AppSpec{app},
		Scheduler: SchedulerSpec{SparkNoise: NoiseSpec{Sigma: 0.25, StragglerRate: 0.01, StragglerScale: 1.2, StragglerAlpha: 3},
			TimeoutS: 120},
		Metrics: MetricsSpec{Off: true},
		// The run with a cause and the same run without it differ by the
		// cause alone: the exact truth of its share.
		CommonRandomNumbers: true,
	}
	truth = RegressionTruth{Job: job, Cause: cause, Node: -1}
	rng := rand.New(rand.NewPCG(seed, 0x5eed^uint64(day)))
	u := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	a := &sc.Apps[0]
	reduce := 1 // the shuffle-reading stage in the plan
	if job != "wordcount-sql" {
		reduce = 2
	}
	switch cause {
	case "":
	case "input":
		f := u(1.6, 2.4)
		a.InputGB = math.Round(a.InputGB*f*100) / 100
		truth.Detail = fmt.Sprintf("input %.1fx", f)
	case "node":
		// A node whose CPU two busy processes take (CPU-bound job) or whose
		// disk fails (IO-bound jobs): its tasks run several times longer. A
		// node merely slower is mostly absorbed: it just runs fewer tasks.
		truth.Node = rng.IntN(sc.Cluster.Nodes)
		f := FaultSpec{Kind: FaultSlowDisk, Node: truth.Node, StartS: 0, EndS: 7200}
		if job == "wordcount-sql" {
			f.Kind = FaultCPUHog
			sc.Faults = append(sc.Faults, f)
		}
		sc.Faults = append(sc.Faults, f)
		truth.Detail = fmt.Sprintf("%d× %s on node %d", len(sc.Faults), f.Kind, truth.Node)
	case "skew":
		z := u(1.1, 1.5)
		sc.Problems = []ProblemSpec{{Kind: ProblemSkew, App: 0, Stage: reduce, Zipf: z}}
		truth.Detail = fmt.Sprintf("zipf %.2f in stage %d", z, reduce)
	case "partitioning":
		tasks := int(u(12, 24))
		a.SplitMB = int(math.Ceil(a.InputGB * 1024 / float64(tasks)))
		truth.Detail = fmt.Sprintf("input split into %d MB parts", a.SplitMB)
	case "spill-gc":
		f := u(1.6, 2.4)
		sc.Problems = []ProblemSpec{{Kind: ProblemMemoryStarved, App: 0, Factor: f}}
		truth.Detail = fmt.Sprintf("memory-starved %.1fx", f)
	case "failures":
		sc.Scheduler.TimeoutS = math.Round(u(30, 90))
		sc.Problems = []ProblemSpec{{Kind: ProblemHungTask, App: 0, Stage: 0}}
		truth.Detail = fmt.Sprintf("a hung task, lost after %.0f s", sc.Scheduler.TimeoutS)
	case "executors":
		// Another application holds most of the cluster when the job
		// starts: it gets what is left, topped up as that one ends.
		a.SubmitS = 1
		other := AppSpec{Engine: "spark", Class: "wordcount", Name: "adhoc-analysis", InputGB: math.Round(u(20, 40)),
			Executors: 28, Cores: 4, Partitions: 96}
		sc.Apps = append(sc.Apps, other)
		truth.Detail = fmt.Sprintf("another application of %d cores with %.0f GB", other.Executors*other.Cores, other.InputGB)
	case "config":
		if rng.IntN(2) == 0 {
			a.Partitions = int(u(6, 16))
			truth.Detail = fmt.Sprintf("spark.sql.shuffle.partitions %d", a.Partitions)
		} else {
			a.Executors = int(u(3, 7))
			truth.Detail = fmt.Sprintf("spark.executor.instances %d", a.Executors)
		}
	case "plan":
		sc.Problems = []ProblemSpec{{Kind: ProblemSQLNoPartialAgg, App: 0, Stage: 0}}
		truth.Detail = "no partial aggregation"
	case "driver":
		s := math.Round(u(15, 45))
		sc.Problems = []ProblemSpec{{Kind: ProblemDriverPause, App: 0, Stage: rng.IntN(2), PauseS: s}}
		truth.Detail = fmt.Sprintf("the driver paused %.0f s", s)
	default:
		return nil, RegressionTruth{}, false
	}
	return sc, truth, true
}

func orNone(cause string) string {
	if cause == "" {
		return "no injected cause"
	}
	return "with an injected " + cause
}

// regressionJobs are the recurring jobs' applications; %s in a name is
// the run's date.
var regressionJobs = map[string]AppSpec{
	"wordcount-sql": {Engine: "spark", Class: "wordcount", Name: "daily_wordcount_%s", InputGB: 12, Executors: 12, Cores: 4,
		Partitions: 96, SQL: true},
	"sort":     {Engine: "spark", Class: "sort", Name: "sessions-sort %s", InputGB: 12, Executors: 12, Cores: 4, Partitions: 96},
	"terasort": {Engine: "spark", Class: "terasort", Name: "nightly_terasort_%s", InputGB: 12, Executors: 12, Cores: 4, Partitions: 96},
}

// applyRegressionProblems applies the regression scenarios' own problems
// to an application's plan: every stage of a memory-starved one stretched
// by garbage collection and spilling.
func applyRegressionProblems(p *appPlan, probs []ProblemSpec) {
	for _, pr := range probs {
		switch pr.Kind {
		case ProblemMemoryStarved:
			for _, st := range p.stages {
				st.stragglers = map[int32]float64{}
				for k := range st.tasks {
					st.stragglers[int32(k)] = pr.Factor
				}
				st.spills = true
			}
		case ProblemSQLNoPartialAgg:
			if st := p.stages[p.problemStage(pr.Stage)]; st.outRatio > 0 {
				st.outRatio = 1
			}
		}
	}
}

// driverPause is how long a's driver works before its next job (ms).
func (e *engine) driverPause(a *appRun) int64 {
	var ms int64
	for _, p := range e.sc.Problems {
		if p.Kind == ProblemDriverPause && p.App == a.plan.index && p.Stage == a.job+1 {
			ms += int64(p.PauseS * 1000)
		}
	}
	return ms
}
