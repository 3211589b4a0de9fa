package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/clusterlens/clusterlens/internal/codec"
)

// Scenario describes one simulation: the cluster, the work, the scheduler's
// options, the injected faults and data problems, and how node metrics are
// sampled. docs/SIMULATOR.md documents its JSON form. Zero fields take the
// defaults that Resolve fills in.
type Scenario struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// StartMs is the simulated wall-clock start (epoch ms).
	StartMs int64 `json:"startMs,omitempty"`
	// HorizonS is how long apps may arrive (random arrivals) and the least
	// time metrics cover, in seconds; the run lasts until the last app ends.
	HorizonS  float64       `json:"horizonS,omitempty"`
	Cluster   ClusterSpec   `json:"cluster"`
	Apps      []AppSpec     `json:"apps,omitempty"`
	Arrivals  *ArrivalSpec  `json:"arrivals,omitempty"`
	Scheduler SchedulerSpec `json:"scheduler"`
	Faults    []FaultSpec   `json:"faults,omitempty"`
	Problems  []ProblemSpec `json:"problems,omitempty"`
	Metrics   MetricsSpec   `json:"metrics"`
	Output    OutputSpec    `json:"output"`
	// CommonRandomNumbers draws each attempt's noise, each application's
	// plan and each driver pause from a stream of its own, keyed by the
	// seed and what it is drawn for (application, stage, partition,
	// attempt; application and job), instead of from one sequence shared
	// by the run: two runs of scenarios that differ in one respect (an
	// injected cause) then differ by that alone, not by every draw it
	// reordered (streams.go). Off by default: the shared sequence is what
	// every other scenario's seed-based output was made with.
	CommonRandomNumbers bool `json:"commonRandomNumbers,omitempty"`
}

// OutputSpec chooses what else is written and how Spark event logs are
// written: plain or compressed
// with one of Spark's codecs (SparkCodec: "", "zstd", "lz4", "snappy",
// "lzf"), in one file or as a rolling log of parts of RollingPartMB.
type OutputSpec struct {
	// Phases writes every attempt's phases to phases.csv.zst.
	Phases        bool   `json:"phases,omitempty"`
	SparkCodec    string `json:"sparkCodec,omitempty"`
	Rolling       bool   `json:"rolling,omitempty"`
	RollingPartMB int    `json:"rollingPartMB,omitempty"`
}

// ClusterSpec is the hardware: nodes spread over racks, each node of a
// hardware class chosen by the classes' shares.
type ClusterSpec struct {
	Nodes   int             `json:"nodes"`
	Racks   int             `json:"racks,omitempty"`
	Classes []HardwareClass `json:"classes,omitempty"`
	// BlockMB is the HDFS block size; Replicas the replication factor.
	BlockMB  int `json:"blockMB,omitempty"`
	Replicas int `json:"replicas,omitempty"`
	// Seed draws the nodes' classes (0: the run's seed), so that runs of
	// other seeds can run other work on the same hardware: the history of
	// one cluster.
	Seed uint64 `json:"seed,omitempty"`
	// Roles are other jobs some nodes do beside running tasks.
	Roles []RoleSpec `json:"roles,omitempty"`
	// Drained are nodes (indexes) the schedulers place no executor or
	// container on: drained for maintenance, still up and sampled, so
	// quieter than their history. No fault: no ground-truth culprit.
	Drained []int `json:"drained,omitempty"`
}

// RoleSpec is another role a node plays beside running tasks (a master's
// daemons, a gateway, a monitoring agent): a persistent load that is no
// fault, so that the node's peers are not alike.
type RoleSpec struct {
	// Node is the node's index; Name names the role.
	Node int    `json:"node"`
	Name string `json:"name"`
	// CPUShare is the share of the node's cores its processes keep busy
	// (user CPU); its tasks get the rest.
	CPUShare float64 `json:"cpuShare"`
	// Load is how many more processes it keeps runnable or blocked (the
	// load average's), Procs how many more it runs in all.
	Load  float64 `json:"load"`
	Procs int     `json:"procs"`
}

// HardwareClass is one kind of node. CPUSpeed is relative to the reference
// machine the job classes' costs are given for (1.0).
type HardwareClass struct {
	Name     string  `json:"name"`
	Share    float64 `json:"share"`
	Cores    int     `json:"cores"`
	CPUSpeed float64 `json:"cpuSpeed"`
	DiskMBps float64 `json:"diskMBps"`
	NetMBps  float64 `json:"netMBps"`
	MemoryGB float64 `json:"memoryGB"`
}

// AppSpec is one Spark application or MapReduce job.
type AppSpec struct {
	// Engine is "spark" or "mapreduce".
	Engine string `json:"engine"`
	// Class is the job class: wordcount (CPU-bound), sort and randomwriter
	// (IO-bound), terasort (shuffle-heavy), kmeans (iterative, Spark),
	// microbench (ICPE'13's benchmark: trivial map and reduce functions).
	Class   string  `json:"class"`
	Name    string  `json:"name,omitempty"`
	SubmitS float64 `json:"submitS"`
	InputGB float64 `json:"inputGB"`
	// Executors and Cores per executor (Spark); for MapReduce, Executors is
	// the number of containers (task slots) the job may hold at once.
	Executors int `json:"executors,omitempty"`
	Cores     int `json:"cores,omitempty"`
	// Partitions is the number of shuffle partitions (Spark) or reduces (MapReduce).
	Partitions int `json:"partitions,omitempty"`
	// Iterations of an iterative class (kmeans).
	Iterations int `json:"iterations,omitempty"`
	// Job names the recurring job this application is a run of ("" for
	// none): ground truth for grouping runs, written to truth.json.
	Job string `json:"job,omitempty"`
	// SplitMB is the input of each map task (the input file's block size;
	// default the cluster's blockMB): ICPE'13's input size per map task.
	SplitMB int `json:"splitMB,omitempty"`
	// MapSelectivity (map output / input bytes) and ReduceSelectivity
	// (reduce output / shuffle bytes), when positive, replace the class's:
	// ICPE'13's map and reduce selectivities, which its microbenchmarks
	// (class microbench) vary.
	MapSelectivity    float64 `json:"mapSelectivity,omitempty"`
	ReduceSelectivity float64 `json:"reduceSelectivity,omitempty"`
	// SQL makes each job of a Spark application a SQL query, with its
	// physical plan and operator metrics in the log (sql.go).
	SQL bool `json:"sql,omitempty"`
}

// ArrivalSpec adds random applications arriving as a Poisson process over
// the horizon, for large scenarios.
type ArrivalSpec struct {
	PerMinute float64 `json:"perMinute"`
	// SparkShare is the fraction of Spark applications (the rest are MapReduce).
	SparkShare float64 `json:"sparkShare"`
	// InputGB is the median input; sizes are log-normal around it.
	InputGB   float64 `json:"inputGB"`
	Executors int     `json:"executors"`
	Cores     int     `json:"cores"`
	// Recurring are jobs that run again and again; RecurringShare of the
	// arrivals are runs of one of them (drawn uniformly), the rest one-off
	// applications with names of their own.
	Recurring      []RecurringSpec `json:"recurring,omitempty"`
	RecurringShare float64         `json:"recurringShare,omitempty"`
}

// RecurringSpec is a job that runs repeatedly: each run has the job's
// engine, class and configuration, an input within ±50% of InputGB, 3 to 6
// iterations when its class iterates, and a
// name made from Name by replacing {date} (the run's submission day,
// 2006-01-02), {time} (15:04:05), {ts} (epoch milliseconds), {uuid} (a
// random UUID), {hex} (12 random hexadecimal digits) and {n} (a 4-digit
// run number): what changes between runs of real recurring jobs.
type RecurringSpec struct {
	Job        string  `json:"job"`
	Engine     string  `json:"engine"`
	Class      string  `json:"class"`
	Name       string  `json:"name"`
	InputGB    float64 `json:"inputGB"`
	Executors  int     `json:"executors,omitempty"`
	Cores      int     `json:"cores,omitempty"`
	Partitions int     `json:"partitions,omitempty"`
	// Fixed: every run reads InputGB exactly and iterates 3 times (a
	// fixed-size recurring job, as FlowBench's workflows are).
	Fixed bool `json:"fixed,omitempty"`
}

// SchedulerSpec holds the scheduler's options.
type SchedulerSpec struct {
	// LocalityWaitMs is the delay-scheduling wait per locality level (Spark's spark.locality.wait, 3 s).
	LocalityWaitMs int64 `json:"localityWaitMs,omitempty"`
	Speculation    bool  `json:"speculation,omitempty"`
	// DynamicAllocation lets Spark applications add executors while tasks wait and
	// drop executors idle for IdleTimeoutS.
	DynamicAllocation bool    `json:"dynamicAllocation,omitempty"`
	IdleTimeoutS      float64 `json:"idleTimeoutS,omitempty"`
	// TaskFailureRate is the chance that an attempt fails on its own (then retried).
	TaskFailureRate float64 `json:"taskFailureRate,omitempty"`
	// TimeoutS is how long a hung attempt runs before it is declared lost.
	TimeoutS float64 `json:"timeoutS,omitempty"`
	// SparkNoise and MapReduceNoise shape task-time noise per engine
	// (calibrated against real logs, see docs/SIMULATOR.md).
	SparkNoise     NoiseSpec `json:"sparkNoise"`
	MapReduceNoise NoiseSpec `json:"mapReduceNoise"`
}

// NoiseSpec is task-time noise: a log-normal factor with median 1 and
// log-sigma Sigma; with probability StragglerRate an attempt is slowed
// further by a Pareto factor of scale StragglerScale and shape StragglerAlpha
// (capped at 12), the heavy tail of real stages. The factor applies whole to
// an attempt whose reference length (its bytes at the median node's speeds,
// without noise) is at most LengthMs; a longer attempt gets the time it would
// add to one of LengthMs (a factor 1 + (f − 1)·LengthMs/length): real long
// tasks spread little, their stragglers being seconds added whatever the
// task (docs/SIMULATOR.md). LengthMs < 0: the factor applies whole always.
type NoiseSpec struct {
	Sigma          float64 `json:"sigma,omitempty"`
	StragglerRate  float64 `json:"stragglerRate,omitempty"`
	StragglerScale float64 `json:"stragglerScale,omitempty"`
	StragglerAlpha float64 `json:"stragglerAlpha,omitempty"`
	LengthMs       float64 `json:"lengthMs,omitempty"`
}

func (n *NoiseSpec) resolve(def NoiseSpec) {
	if n.Sigma == 0 {
		n.Sigma = def.Sigma
	}
	if n.StragglerRate == 0 {
		n.StragglerRate = def.StragglerRate
	}
	if n.StragglerScale == 0 {
		n.StragglerScale = def.StragglerScale
	}
	if n.StragglerAlpha == 0 {
		n.StragglerAlpha = def.StragglerAlpha
	}
	if n.LengthMs == 0 {
		n.LengthMs = def.LengthMs
	}
}

// FaultSpec is a node fault: kind, node index (-1: a node drawn from the
// seed), window (seconds from start) and, for packet loss, the loss rate.
type FaultSpec struct {
	Kind   string  `json:"kind"`
	Node   int     `json:"node"`
	StartS float64 `json:"startS"`
	EndS   float64 `json:"endS"`
	// Loss is the packet-loss rate (packet-loss faults).
	Loss float64 `json:"loss,omitempty"`
}

// ProblemSpec is a data problem injected into one stage of one application
// (index into the resolved application list; stage index in its plan).
type ProblemSpec struct {
	Kind  string `json:"kind"`
	App   int    `json:"app"`
	Stage int    `json:"stage"`
	// Zipf exponent for skew (default 1.2).
	Zipf float64 `json:"zipf,omitempty"`
	// Nodes concerned: for imbalance the nodes that hold the stage's data
	// (overloaded), for placement the nodes that hold none of its blocks.
	Nodes []int `json:"nodes,omitempty"`
	// Count tasks of the stage straggle by Factor, through garbage
	// collection (straggler; defaults 3 and 5).
	Count  int     `json:"count,omitempty"`
	Factor float64 `json:"factor,omitempty"`
	// LaunchesPerS caps how many tasks the scheduler launches per second in
	// the stage, leaving slots idle while tasks wait (scheduling-gap; default 1).
	LaunchesPerS float64 `json:"launchesPerS,omitempty"`
	// PauseS is how long the driver works before the job (driver-pause).
	PauseS float64 `json:"pauseS,omitempty"`
}

// MetricsSpec controls node metric samples.
type MetricsSpec struct {
	Off bool `json:"off,omitempty"`
	// IntervalS between samples (default 1).
	IntervalS int `json:"intervalS,omitempty"`
	// EveryNth node is sampled (default 1: all). Faulty nodes are always sampled.
	EveryNth int `json:"everyNth,omitempty"`
}

// Fault and problem kinds.
const (
	FaultCPUHog     = "cpu-hog"
	FaultDiskHog    = "disk-hog"
	FaultPacketLoss = "packet-loss"
	FaultHang       = "hang"
	FaultMemory     = "memory-pressure"
	FaultSlowDisk   = "slow-disk"

	ProblemSkew      = "skew"
	ProblemImbalance = "imbalance"
	ProblemPlacement = "placement"
	ProblemHungTask  = "hung-task"
	ProblemStraggler = "straggler"
	ProblemSchedGap  = "scheduling-gap"
)

// ReadScenario reads a scenario from a JSON file.
func ReadScenario(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	return ParseScenario(b)
}

// ParseScenario decodes a JSON scenario, rejecting unknown fields, and resolves it.
func ParseScenario(b []byte) (*Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var sc Scenario
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("parse scenario: %w", err)
	}
	if err := sc.Resolve(); err != nil {
		return nil, err
	}
	return &sc, nil
}

// ErrScenario marks an invalid scenario.
var ErrScenario = errors.New("invalid scenario")

// Resolve fills defaults and checks the scenario.
func (sc *Scenario) Resolve() error {
	if sc.StartMs == 0 {
		sc.StartMs = 1767225600000 // 2026-01-01T00:00:00Z
	}
	c := &sc.Cluster
	if c.Nodes <= 0 {
		return fmt.Errorf("%w: cluster.nodes must be positive", ErrScenario)
	}
	if c.Racks <= 0 {
		c.Racks = max(1, (c.Nodes+19)/20)
	}
	if c.Racks > c.Nodes {
		c.Racks = c.Nodes
	}
	if len(c.Classes) == 0 {
		c.Classes = []HardwareClass{{Name: "standard", Share: 1, Cores: 8, CPUSpeed: 1, DiskMBps: 150, NetMBps: 120, MemoryGB: 64}}
	}
	for i := range c.Classes {
		h := &c.Classes[i]
		if h.Share <= 0 || h.Cores <= 0 || h.CPUSpeed <= 0 || h.DiskMBps <= 0 || h.NetMBps <= 0 || h.MemoryGB <= 0 {
			return fmt.Errorf("%w: class %q needs positive share, cores, cpuSpeed, diskMBps, netMBps, memoryGB", ErrScenario, h.Name)
		}
	}
	for _, r := range c.Roles {
		if r.Node < 0 || r.Node >= c.Nodes || r.CPUShare < 0 || r.CPUShare >= 1 || r.Load < 0 || r.Procs < 0 {
			return fmt.Errorf("%w: role %q: node %d of %d, cpuShare %g, load %g, procs %d: want a node of the cluster, cpuShare in [0, 1) and no negative load",
				ErrScenario, r.Name, r.Node, c.Nodes, r.CPUShare, r.Load, r.Procs)
		}
	}
	for _, d := range c.Drained {
		if d < 0 || d >= c.Nodes {
			return fmt.Errorf("%w: drained node %d of %d: want a node of the cluster", ErrScenario, d, c.Nodes)
		}
	}
	if c.BlockMB <= 0 {
		c.BlockMB = 128
	}
	if c.Replicas <= 0 {
		c.Replicas = 3
	}
	s := &sc.Scheduler
	if s.LocalityWaitMs == 0 {
		s.LocalityWaitMs = 3000
	}
	if s.IdleTimeoutS == 0 {
		s.IdleTimeoutS = 60
	}
	if s.TimeoutS == 0 {
		s.TimeoutS = 120
	}
	s.SparkNoise.resolve(NoiseSpec{Sigma: 0.4, StragglerRate: 0.06, StragglerScale: 3, StragglerAlpha: 1.1, LengthMs: sparkNoiseLengthMs})
	s.MapReduceNoise.resolve(NoiseSpec{Sigma: 0.15, StragglerRate: 0.04, StragglerScale: 1.5, StragglerAlpha: 1.3, LengthMs: -1})
	if s.TaskFailureRate < 0 || s.TaskFailureRate > 0.2 {
		return fmt.Errorf("%w: scheduler.taskFailureRate must be in [0, 0.2]", ErrScenario)
	}
	if sc.Output.SparkCodec != "" {
		if _, ok := codec.ParseName(sc.Output.SparkCodec); !ok {
			return fmt.Errorf("%w: output.sparkCodec %q: want zstd, lz4, snappy or lzf", ErrScenario, sc.Output.SparkCodec)
		}
	}
	if sc.Output.Rolling && sc.Output.RollingPartMB <= 0 {
		sc.Output.RollingPartMB = 128
	}
	if sc.Metrics.IntervalS <= 0 {
		sc.Metrics.IntervalS = 1
	}
	if sc.Metrics.EveryNth <= 0 {
		sc.Metrics.EveryNth = 1
	}
	maxCores := 0
	for _, h := range c.Classes {
		maxCores = max(maxCores, h.Cores)
	}
	for i := range sc.Apps {
		if err := sc.Apps[i].resolve(); err != nil {
			return fmt.Errorf("app %d: %w", i, err)
		}
		if sc.Apps[i].Cores > maxCores {
			return fmt.Errorf("%w: app %d: %d cores per executor, but no node has more than %d", ErrScenario, i, sc.Apps[i].Cores, maxCores)
		}
	}
	if a := sc.Arrivals; a != nil {
		if a.PerMinute <= 0 || a.InputGB <= 0 {
			return fmt.Errorf("%w: arrivals need perMinute and inputGB", ErrScenario)
		}
		if a.Cores > maxCores {
			return fmt.Errorf("%w: arrivals: %d cores per executor, but no node has more than %d", ErrScenario, a.Cores, maxCores)
		}
		if sc.HorizonS <= 0 {
			return fmt.Errorf("%w: arrivals need horizonS", ErrScenario)
		}
	}
	if len(sc.Apps) == 0 && sc.Arrivals == nil {
		return fmt.Errorf("%w: no apps and no arrivals", ErrScenario)
	}
	for i, f := range sc.Faults {
		if f.Node < -1 || f.Node >= c.Nodes || f.EndS <= f.StartS || f.StartS < 0 {
			return fmt.Errorf("%w: fault %d: node in range and 0 <= startS < endS needed", ErrScenario, i)
		}
		switch f.Kind {
		case FaultCPUHog, FaultDiskHog, FaultHang, FaultMemory, FaultSlowDisk:
		case FaultPacketLoss:
			if f.Loss <= 0 || f.Loss >= 1 {
				return fmt.Errorf("%w: fault %d: loss must be in (0, 1)", ErrScenario, i)
			}
		default:
			return fmt.Errorf("%w: fault %d: unknown kind %q", ErrScenario, i, f.Kind)
		}
	}
	for i, p := range sc.Problems {
		if p.App < 0 || p.App >= len(sc.Apps) {
			return fmt.Errorf("%w: problem %d: app %d not among the listed apps", ErrScenario, i, p.App)
		}
		switch p.Kind {
		case ProblemSkew, ProblemImbalance, ProblemPlacement, ProblemHungTask, ProblemStraggler, ProblemSchedGap, ProblemMemoryStarved:
		case ProblemDriverPause:
			if p.PauseS <= 0 {
				return fmt.Errorf("%w: problem %d: driver-pause needs pauseS", ErrScenario, i)
			}
		case ProblemSQLNoPartialAgg:
			if !sc.Apps[p.App].SQL || sc.Apps[p.App].Engine != "spark" || sc.Apps[p.App].Class != "wordcount" {
				return fmt.Errorf("%w: problem %d: %s needs a Spark wordcount application with sql set", ErrScenario, i, p.Kind)
			}
		case ProblemSQLShouldBroadcast, ProblemSQLBroadcastLarge, ProblemSQLFullScan, ProblemSQLCartesian, ProblemSQLSmallFiles:
			if !sc.Apps[p.App].SQL || sc.Apps[p.App].Engine != "spark" {
				return fmt.Errorf("%w: problem %d: %s needs a Spark application with sql set", ErrScenario, i, p.Kind)
			}
		default:
			return fmt.Errorf("%w: problem %d: unknown kind %q", ErrScenario, i, p.Kind)
		}
		for _, n := range p.Nodes {
			if n < 0 || n >= c.Nodes {
				return fmt.Errorf("%w: problem %d: node %d out of range", ErrScenario, i, n)
			}
		}
		if p.Kind == ProblemSkew && sc.Problems[i].Zipf == 0 {
			sc.Problems[i].Zipf = 1.2
		}
		if p.Kind == ProblemStraggler {
			if sc.Problems[i].Count <= 0 {
				sc.Problems[i].Count = 3
			}
			if sc.Problems[i].Factor <= 1 {
				sc.Problems[i].Factor = 5
			}
		}
		if p.Kind == ProblemMemoryStarved && sc.Problems[i].Factor <= 1 {
			sc.Problems[i].Factor = 1.8
		}
		if p.Kind == ProblemSchedGap && sc.Problems[i].LaunchesPerS <= 0 {
			sc.Problems[i].LaunchesPerS = 1
		}
	}
	return nil
}

// WithNodes resizes the scenario to n nodes and scales each listed
// application's executors, input and partitions (and the racks) with the
// cluster, so that the same work covers the same share of it. Fault and
// problem nodes keep their indexes (they must stay below n). It returns sc.
func (sc *Scenario) WithNodes(n int) *Scenario {
	old := sc.Cluster.Nodes
	if old <= 0 || n <= 0 {
		sc.Cluster.Nodes = n
		return sc
	}
	f := float64(n) / float64(old)
	scale := func(v int) int { return max(1, int(math.Round(float64(v)*f))) }
	sc.Cluster.Nodes = n
	if sc.Cluster.Racks > 0 {
		sc.Cluster.Racks = scale(sc.Cluster.Racks)
	}
	for i := range sc.Apps {
		a := &sc.Apps[i]
		if a.Executors > 0 {
			a.Executors = scale(a.Executors)
		}
		if a.Partitions > 0 {
			a.Partitions = scale(a.Partitions)
		}
		a.InputGB = math.Round(a.InputGB*f*10) / 10
	}
	return sc
}

func (a *AppSpec) resolve() error {
	switch a.Engine {
	case "spark", "mapreduce":
	default:
		return fmt.Errorf("%w: engine %q: want spark or mapreduce", ErrScenario, a.Engine)
	}
	if _, ok := classes[a.Class]; !ok {
		return fmt.Errorf("%w: unknown class %q", ErrScenario, a.Class)
	}
	if a.Class == "kmeans" && a.Engine != "spark" {
		return fmt.Errorf("%w: kmeans is a Spark class", ErrScenario)
	}
	if a.Class == "microbench" && a.Engine != "mapreduce" {
		return fmt.Errorf("%w: microbench is a MapReduce class", ErrScenario)
	}
	if a.InputGB <= 0 {
		return fmt.Errorf("%w: inputGB must be positive", ErrScenario)
	}
	if a.SplitMB < 0 || a.MapSelectivity < 0 || a.ReduceSelectivity < 0 {
		return fmt.Errorf("%w: splitMB, mapSelectivity and reduceSelectivity must not be negative", ErrScenario)
	}
	if a.Executors <= 0 {
		a.Executors = 4
	}
	if a.Cores <= 0 {
		a.Cores = 4
		if a.Engine == "mapreduce" {
			a.Cores = 1
		}
	}
	if a.Partitions <= 0 {
		a.Partitions = max(1, a.Executors*a.Cores)
	}
	if a.Iterations <= 0 {
		a.Iterations = 5
	}
	if a.Name == "" {
		a.Name = a.Class
	}
	return nil
}
