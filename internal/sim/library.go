package sim

import (
	"fmt"
	"math"
	"sort"
)

// library holds the named scenarios. Each constructor returns a fresh,
// unresolved scenario, so callers may change it (for example the node
// count) before simulating.
var library = map[string]func() *Scenario{
	"clean": func() *Scenario {
		return base("clean", "a healthy heterogeneous 12-node cluster running four applications")
	},
	"heterogeneous": heterogeneous,
	"cpu-hog": func() *Scenario {
		return withFault("cpu-hog", FaultSpec{Kind: FaultCPUHog, Node: 3, StartS: 30, EndS: 200})
	},
	"disk-hog": func() *Scenario {
		return withFault("disk-hog", FaultSpec{Kind: FaultDiskHog, Node: 5, StartS: 30, EndS: 200})
	},
	"packet-loss-5": func() *Scenario {
		return withFault("packet-loss-5", FaultSpec{Kind: FaultPacketLoss, Node: 7, StartS: 10, EndS: 200, Loss: 0.05})
	},
	"packet-loss-50": func() *Scenario {
		return withFault("packet-loss-50", FaultSpec{Kind: FaultPacketLoss, Node: 7, StartS: 10, EndS: 200, Loss: 0.5})
	},
	"hang": func() *Scenario { return withFault("hang", FaultSpec{Kind: FaultHang, Node: 2, StartS: 20, EndS: 140}) },
	"memory-pressure": func() *Scenario {
		return withFault("memory-pressure", FaultSpec{Kind: FaultMemory, Node: 4, StartS: 30, EndS: 200})
	},
	"slow-disk": func() *Scenario {
		return withFault("slow-disk", FaultSpec{Kind: FaultSlowDisk, Node: 6, StartS: 0, EndS: 300})
	},
	"skew": func() *Scenario {
		return withProblem("skew", ProblemSpec{Kind: ProblemSkew, App: 0, Stage: 1, Zipf: 1.2},
			ProblemSpec{Kind: ProblemSkew, App: 1, Stage: 1, Zipf: 1.0})
	},
	"imbalance": func() *Scenario {
		return withProblem("imbalance", ProblemSpec{Kind: ProblemImbalance, App: 0, Stage: 0, Nodes: []int{0, 1, 2}})
	},
	"placement": func() *Scenario {
		return withProblem("placement", ProblemSpec{Kind: ProblemPlacement, App: 0, Stage: 0, Nodes: []int{4, 5, 6, 7, 8, 9}})
	},
	"hung-task": func() *Scenario {
		return withProblem("hung-task", ProblemSpec{Kind: ProblemHungTask, App: 0, Stage: 0})
	},
	"straggler": func() *Scenario {
		return withProblem("straggler", ProblemSpec{Kind: ProblemStraggler, App: 0, Stage: 0, Count: 3, Factor: 5},
			ProblemSpec{Kind: ProblemStraggler, App: 1, Stage: 0, Count: 2, Factor: 4})
	},
	"scheduling-gap": func() *Scenario {
		return withProblem("scheduling-gap", ProblemSpec{Kind: ProblemSchedGap, App: 1, Stage: 0, LaunchesPerS: 1})
	},
	"speculation": func() *Scenario {
		sc := withFault("speculation", FaultSpec{Kind: FaultCPUHog, Node: 3, StartS: 0, EndS: 300})
		sc.Scheduler.Speculation = true
		sc.Description = "a CPU hog all run long, with speculative execution on"
		return sc
	},
	"dynamic": func() *Scenario {
		sc := base("dynamic", "dynamic allocation of Spark executors, failures and retries")
		sc.Scheduler.DynamicAllocation = true
		sc.Scheduler.IdleTimeoutS = 10
		sc.Scheduler.TaskFailureRate = 0.01
		return sc
	},
	"demo":       demo,
	"large":      large,
	"recurring":  recurring,
	"asymmetric": asymmetric,
	"parc":       func() *Scenario { return parc(14) },
	"parc-50":    func() *Scenario { return parc(50) },
	"sql-clean": func() *Scenario {
		return sqlBase("sql-clean", "four Spark SQL applications (joins and aggregates) on a healthy cluster")
	},
	"sql-skew": func() *Scenario {
		return withSQLProblem("sql-skew", ProblemSpec{Kind: ProblemSkew, App: 0, Stage: 2, Zipf: 1.2},
			ProblemSpec{Kind: ProblemSkew, App: 1, Stage: 2, Zipf: 1.3})
	},
	"sql-should-broadcast": func() *Scenario {
		return withSQLProblem("sql-should-broadcast", ProblemSpec{Kind: ProblemSQLShouldBroadcast, App: 0, Stage: 2},
			ProblemSpec{Kind: ProblemSQLShouldBroadcast, App: 1, Stage: 2})
	},
	"sql-broadcast-large": func() *Scenario {
		return withSQLProblem("sql-broadcast-large", ProblemSpec{Kind: ProblemSQLBroadcastLarge, App: 0, Stage: 2},
			ProblemSpec{Kind: ProblemSQLBroadcastLarge, App: 1, Stage: 2})
	},
	"sql-full-scan": func() *Scenario {
		return withSQLProblem("sql-full-scan", ProblemSpec{Kind: ProblemSQLFullScan, App: 2, Stage: 0},
			ProblemSpec{Kind: ProblemSQLFullScan, App: 3, Stage: 0})
	},
	"sql-cartesian": func() *Scenario {
		return withSQLProblem("sql-cartesian", ProblemSpec{Kind: ProblemSQLCartesian, App: 1, Stage: 2})
	},
	"sql-small-files": func() *Scenario {
		return withSQLProblem("sql-small-files", ProblemSpec{Kind: ProblemSQLSmallFiles, App: 2, Stage: 0},
			ProblemSpec{Kind: ProblemSQLSmallFiles, App: 0, Stage: 1})
	},
	"sql-idle-cores": func() *Scenario {
		return withSQLProblem("sql-idle-cores", ProblemSpec{Kind: ProblemSchedGap, App: 2, Stage: 0, LaunchesPerS: 1})
	},
}

// sqlBase is a workload of Spark SQL applications: two join applications
// (a sampling query and a join query each), an aggregate and an iterative
// one, on the clean cluster.
func sqlBase(name, desc string) *Scenario {
	sc := base(name, desc)
	sc.Apps = []AppSpec{
		{Engine: "spark", Class: "terasort", Name: "SQLJoin", SubmitS: 0, InputGB: 8, Executors: 6, Cores: 4, Partitions: 48, SQL: true},
		{Engine: "spark", Class: "sort", Name: "SQLJoin2", SubmitS: 20, InputGB: 6, Executors: 6, Cores: 4, Partitions: 48, SQL: true},
		{Engine: "spark", Class: "wordcount", Name: "SQLAggregate", SubmitS: 40, InputGB: 10, Executors: 6, Cores: 4, Partitions: 48, SQL: true},
		{Engine: "spark", Class: "kmeans", Name: "SQLIterate", SubmitS: 60, InputGB: 4, Executors: 4, Cores: 4, Partitions: 16, Iterations: 3, SQL: true},
	}
	return sc
}

func withSQLProblem(name string, ps ...ProblemSpec) *Scenario {
	sc := sqlBase(name, "the SQL workload with a "+ps[0].Kind+" problem")
	sc.Problems = ps
	return sc
}

// Names lists the named scenarios.
func Names() []string {
	var out []string
	for n := range library {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Named returns a fresh copy of the named scenario, unresolved.
func Named(name string) (*Scenario, error) {
	f, ok := library[name]
	if !ok {
		return nil, fmt.Errorf("%w: no scenario named %q (known: %v)", ErrScenario, name, Names())
	}
	return f(), nil
}

// classesHetero are three generations of machines, as clusters grow.
func classesHetero() []HardwareClass {
	return []HardwareClass{
		{Name: "gen3-16c", Share: 0.34, Cores: 16, CPUSpeed: 1.3, DiskMBps: 400, NetMBps: 1100, MemoryGB: 128},
		{Name: "gen2-8c", Share: 0.33, Cores: 8, CPUSpeed: 1.0, DiskMBps: 160, NetMBps: 115, MemoryGB: 64},
		{Name: "gen1-8c", Share: 0.33, Cores: 8, CPUSpeed: 0.7, DiskMBps: 100, NetMBps: 110, MemoryGB: 32},
	}
}

// base is the 12-node heterogeneous cluster and the four applications most
// scenarios share: a CPU-bound Spark WordCount, a shuffle-heavy MapReduce
// TeraSort, an iterative Spark KMeans and an IO-bound MapReduce Sort.
func base(name, desc string) *Scenario {
	return &Scenario{
		Name: name, Description: desc, HorizonS: 240,
		Cluster: ClusterSpec{Nodes: 12, Racks: 2, Classes: classesHetero()},
		Output:  OutputSpec{Phases: true},
		Apps: []AppSpec{
			{Engine: "spark", Class: "wordcount", Name: "WordCount", SubmitS: 0, InputGB: 12, Executors: 6, Cores: 4, Partitions: 48},
			{Engine: "mapreduce", Class: "terasort", Name: "TeraSort", SubmitS: 5, InputGB: 6, Executors: 24, Partitions: 24},
			{Engine: "spark", Class: "kmeans", Name: "KMeans", SubmitS: 60, InputGB: 4, Executors: 4, Cores: 4, Partitions: 16, Iterations: 4},
			{Engine: "mapreduce", Class: "sort", Name: "Sort", SubmitS: 90, InputGB: 4, Executors: 16, Partitions: 16},
		},
	}
}

func withFault(name string, f FaultSpec) *Scenario {
	sc := base(name, "the clean workload with a "+f.Kind+" fault on one node")
	sc.Faults = []FaultSpec{f}
	return sc
}

func withProblem(name string, ps ...ProblemSpec) *Scenario {
	sc := base(name, "the clean workload with a "+ps[0].Kind+" data problem")
	sc.Problems = ps
	return sc
}

// heterogeneous mixes four hardware generations with very different speeds.
func heterogeneous() *Scenario {
	sc := base("heterogeneous", "four hardware generations, from 0.5x to 1.6x CPU speed, on 16 nodes")
	sc.Cluster.Nodes = 16
	sc.Cluster.Racks = 4
	sc.Cluster.Classes = append(classesHetero(), HardwareClass{Name: "gen0-4c", Share: 0.25, Cores: 4, CPUSpeed: 0.5, DiskMBps: 70, NetMBps: 100, MemoryGB: 16})
	sc.Cluster.Classes[0].CPUSpeed = 1.6
	return sc
}

// demo is `clusterlens demo`'s scenario: 12 heterogeneous nodes, a Spark
// application and a MapReduce job, a CPU hog on one node, a disk hog on
// another, and a skewed stage.
func demo() *Scenario {
	sc := base("demo", "12 heterogeneous nodes; a CPU hog on node 4, a disk hog on node 6, a skewed Spark stage")
	sc.Apps = sc.Apps[:2]
	sc.Apps[0].Name, sc.Apps[1].Name = "clusterlens-demo-wordcount", "clusterlens-demo-terasort"
	sc.HorizonS = 150
	sc.Faults = []FaultSpec{{Kind: FaultCPUHog, Node: 3, StartS: 20, EndS: 120}, {Kind: FaultDiskHog, Node: 5, StartS: 20, EndS: 120}}
	sc.Problems = []ProblemSpec{{Kind: ProblemSkew, App: 0, Stage: 1, Zipf: 1.2}}
	return sc
}

// recurring is a fleet running recurring jobs among one-off applications:
// runs of one job differ in name (dates, times, ids), size and cluster
// share; two jobs share the generic name "Spark shell" and run different
// code; two run the same code under names that differ in a query number.
// truth.json names each run's job, for checking how runs are grouped.
func recurring() *Scenario {
	return &Scenario{
		Name: "recurring", Description: "recurring jobs with dated and numbered names among one-off applications on 30 nodes",
		HorizonS: 5400,
		Cluster:  ClusterSpec{Nodes: 30, Racks: 3, Classes: classesHetero()},
		Arrivals: &ArrivalSpec{PerMinute: 2, SparkShare: 0.6, InputGB: 4, Executors: 6, Cores: 4, RecurringShare: 0.8,
			Recurring: []RecurringSpec{
				{Job: "daily-sales", Engine: "spark", Class: "wordcount", Name: "daily_sales_etl_{date}", InputGB: 6, Executors: 6},
				{Job: "sessions", Engine: "spark", Class: "sort", Name: "user-sessions-{ts}", InputGB: 4, Executors: 4},
				{Job: "shell-kmeans", Engine: "spark", Class: "kmeans", Name: "Spark shell", InputGB: 3, Executors: 4},
				{Job: "shell-terasort", Engine: "spark", Class: "terasort", Name: "Spark shell", InputGB: 3, Executors: 4},
				{Job: "ad-clicks", Engine: "mapreduce", Class: "wordcount", Name: "ad_clicks_hourly {date} {time}", InputGB: 5, Executors: 16},
				{Job: "reindex", Engine: "mapreduce", Class: "sort", Name: "reindex-{uuid}", InputGB: 4, Executors: 16},
				{Job: "ml-features", Engine: "spark", Class: "kmeans", Name: "ml-features job {n}", InputGB: 5, Executors: 6},
				{Job: "terasort-nightly", Engine: "mapreduce", Class: "terasort", Name: "nightly_terasort_{hex}", InputGB: 6, Executors: 16},
				{Job: "q12", Engine: "spark", Class: "wordcount", Name: "TPC-DS q12 report", InputGB: 3, Executors: 4},
				{Job: "q64", Engine: "spark", Class: "wordcount", Name: "TPC-DS q64 report", InputGB: 3, Executors: 4},
				{Job: "random-data", Engine: "spark", Class: "randomwriter", Name: "generate test data {date}T{time}", InputGB: 2, Executors: 4},
			}},
	}
}

// large is the scale benchmark: 10,000 nodes in 250 racks for an hour of
// applications arriving at random, node metrics for every 100th node. Its
// files use 512 MB blocks, as big production files do.
func large() *Scenario {
	return &Scenario{
		Name: "large", Description: "10,000 nodes, one hour of a random Spark and MapReduce job mix", HorizonS: 3600,
		Cluster:  ClusterSpec{Nodes: 10000, Racks: 250, Classes: classesHetero(), BlockMB: 512},
		Arrivals: &ArrivalSpec{PerMinute: 20, SparkShare: 0.5, InputGB: 300, Executors: 150, Cores: 4},
		Faults: []FaultSpec{{Kind: FaultCPUHog, Node: 17, StartS: 600, EndS: 1800}, {Kind: FaultDiskHog, Node: 4242, StartS: 900, EndS: 2400},
			{Kind: FaultPacketLoss, Node: 777, StartS: 1200, EndS: 2000, Loss: 0.05}},
		Metrics: MetricsSpec{EveryNth: 100},
	}
}

// asymmetric is clean with peers that are not alike beyond their hardware:
// node001 also runs the cluster's master daemons (a quarter of its cores
// busy and six more processes runnable or blocked all the time: about 7×
// an idle peer's load), as in a real 4-node Spark cluster whose fault-free
// runs plain Ganesha indicted (issue 13). Resized to 4 and 10 nodes (with
// faults added) it is the evaluation of the peer diagnosis against its own
// history (docs/PEER.md).
func asymmetric() *Scenario {
	sc := base("asymmetric", "clean, with node001 also running the master daemons (a quarter of its CPU, load +6)")
	sc.Cluster.Roles = []RoleSpec{{Node: 0, Name: "master", CPUShare: 0.25, Load: 6, Procs: 150}}
	return sc
}

// ParcFaultS is when the parc scenarios' faults start: the runs that end
// before it are the clean history, those that start after it run beside
// the faults.
const ParcFaultS = 2400

// parc is the evaluation of Gupta et al., "Diagnosing heterogeneous Hadoop
// clusters" (PARC, DX 2012), at the given size: nodes of three hardware
// generations (classesHetero) running recurring CPU-heavy jobs (WordCount,
// Spark and MapReduce) and IO-heavy ones (RandomWriter, Sort), clean until
// ParcFaultS (the history the per-node models are learned from), then a
// disk hog on one node and a CPU hog on another, both drawn from the seed,
// until the end. Across seeds the degraded nodes fall in every class.
func parc(nodes int) *Scenario {
	scale := float64(nodes) / 14
	ex := func(n int) int { return max(1, int(math.Round(float64(n)*scale))) }
	return &Scenario{
		Name:        map[bool]string{true: "parc", false: fmt.Sprintf("parc-%d", nodes)}[nodes == 14],
		Description: fmt.Sprintf("%d heterogeneous nodes in 3 classes; recurring CPU- and IO-heavy jobs; a disk hog and a CPU hog from %d s", nodes, ParcFaultS),
		HorizonS:    ParcFaultS + 1200,
		Cluster:     ClusterSpec{Nodes: nodes, Racks: max(1, nodes/10), Classes: classesHetero()},
		Arrivals: &ArrivalSpec{PerMinute: 3, SparkShare: 0.6, InputGB: 3, Executors: ex(4), Cores: 4, RecurringShare: 1,
			Recurring: []RecurringSpec{
				{Job: "wordcount", Engine: "spark", Class: "wordcount", Name: "daily_words_{date}", InputGB: 3 * scale, Executors: ex(4)},
				{Job: "randomwriter", Engine: "spark", Class: "randomwriter", Name: "generate data {date}T{time}", InputGB: 3 * scale, Executors: ex(4)},
				{Job: "mr-wordcount", Engine: "mapreduce", Class: "wordcount", Name: "ad_clicks_hourly {date} {time}", InputGB: 3 * scale, Executors: ex(16)},
				{Job: "mr-randomwriter", Engine: "mapreduce", Class: "randomwriter", Name: "random-writer-{uuid}", InputGB: 3 * scale, Executors: ex(16)},
				{Job: "mr-sort", Engine: "mapreduce", Class: "sort", Name: "reindex-{hex}", InputGB: 2 * scale, Executors: ex(16)},
			}},
		Faults: []FaultSpec{{Kind: FaultDiskHog, Node: -1, StartS: ParcFaultS, EndS: 3 * ParcFaultS},
			{Kind: FaultCPUHog, Node: -1, StartS: ParcFaultS, EndS: 3 * ParcFaultS}},
		Metrics: MetricsSpec{IntervalS: 10},
	}
}
