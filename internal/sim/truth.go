package sim

// Truth is what the simulator knows and analyses must find: the cluster,
// the injected faults and data problems, and per application the counts
// that reading its logs back must give. docs/SIMULATOR.md documents truth.json.
type Truth struct {
	Scenario string         `json:"scenario"`
	Seed     uint64         `json:"seed"`
	StartMs  int64          `json:"startMs"`
	EndMs    int64          `json:"endMs"`
	Nodes    []NodeTruth    `json:"nodes"`
	Faults   []FaultTruth   `json:"faults"`
	Problems []ProblemTruth `json:"problems"`
	Apps     []AppTruth     `json:"apps"`
	Metrics  MetricsTruth   `json:"metrics"`
	// PhasesPath is the attempts' phases file, "" when not written.
	PhasesPath string `json:"phases,omitempty"`
}

// NodeTruth describes a node.
type NodeTruth struct {
	Host    string `json:"host"`
	Rack    string `json:"rack"`
	Class   string `json:"class"`
	Cores   int    `json:"cores"`
	Sampled bool   `json:"sampled"` // node metrics were written for it
	// Role is the other role the node plays (RoleSpec.Name), "" for none.
	Role string `json:"role,omitempty"`
}

// FaultTruth is an injected node fault.
type FaultTruth struct {
	Kind    string  `json:"kind"`
	Host    string  `json:"host"`
	StartMs int64   `json:"startMs"`
	EndMs   int64   `json:"endMs"`
	Loss    float64 `json:"loss,omitempty"`
	// Resource is what the fault affects: cpu, disk, network or memory ("none" for a hang).
	Resource string `json:"resource"`
	// Peers are the hosts that exchanged data with the faulty host during the
	// fault (shuffle fetches, replica reads, output replication): the
	// innocent nodes a network or disk fault slows down too.
	Peers []string `json:"peers"`
}

// ProblemTruth is an injected data problem in one stage of one application.
type ProblemTruth struct {
	Kind  string `json:"kind"`
	App   string `json:"app"`
	Stage int32  `json:"stage"`
	// Hosts: for imbalance the overloaded hosts holding all the stage's data;
	// for placement the hosts holding none of its blocks.
	Hosts []string `json:"hosts,omitempty"`
	// Tasks: for skew the task indexes whose data is over 1.5x the stage's
	// median (HybridTune's threshold); for a hung task its index; for
	// stragglers the slowed task indexes (first attempts, cause gc).
	Tasks   []int32 `json:"tasks,omitempty"`
	StartMs int64   `json:"startMs,omitempty"`
	EndMs   int64   `json:"endMs,omitempty"`
	// Cause is "" for an injected problem, and for imbalance the workload
	// made itself CauseCache (a stage reading cached partitions that the
	// caching stage left unevenly spread over the executors' slots) or
	// CauseBlocks (an HDFS-input stage whose blocks' replicas are unevenly
	// spread over them); Hosts are then the overloaded hosts, or the
	// underloaded ones when none is.
	Cause string `json:"cause,omitempty"`
	// Under lists, for a derived imbalance (Cause set) whose Hosts are the
	// overloaded hosts, the underloaded ones.
	Under []string `json:"under,omitempty"`
	// Query is, in a SQL application, the execution id of the query whose
	// job ran the stage (nil otherwise).
	Query *int64 `json:"query,omitempty"`
}

// CauseCache marks a ProblemTruth the simulator derived rather than
// injected: imbalance from where a cached RDD's partitions live.
const CauseCache = "cached-partitions"

// CauseBlocks marks a derived imbalance of an HDFS-input stage: its blocks'
// replicas spread unevenly over the application's slots
// (blockImbalance).
const CauseBlocks = "block-placement"

// AppTruth is what one application did, as its logs must show.
type AppTruth struct {
	ID     string `json:"id"`
	Engine string `json:"engine"`
	Class  string `json:"class"`
	Name   string `json:"name"`
	// Dominant is the class's dominant resource: cpu, disk or network.
	Dominant string `json:"dominant"`
	// Job is the recurring job the application is a run of ("" for a
	// one-off): runs with the same Job are the same job.
	Job string `json:"job,omitempty"`
	// Path is where its log was written, relative to the output folder.
	Path     string `json:"path"`
	StartMs  int64  `json:"startMs"`
	EndMs    int64  `json:"endMs"`
	Jobs     int    `json:"jobs"`
	Stages   int    `json:"stages"`
	Attempts int    `json:"taskAttempts"` // finished attempts, any outcome
	Failed   int    `json:"failedAttempts"`
	Killed   int    `json:"killedAttempts"`
	Hosts    int    `json:"hosts"` // hosts that ran attempts
	// Executors is the number of executors (Spark) or containers (MapReduce) used.
	Executors int `json:"executors"`
	// Stragglers are the attempts the noise slowed 2x or more (cause
	// "noise"); injected stragglers are problems.
	Stragglers []StragglerTruth `json:"stragglers"`
	// StageProfiles say, per completed stage, which resource its attempts waited on.
	StageProfiles []StageProfile `json:"stageProfiles"`
	// SlowAttempts are the stragglers by cause: successful attempts whose
	// slowdown over their stage's typical attempt, as the product of the
	// simulator's causes, reaches StragglerThD (straggler_truth.go).
	SlowAttempts []SlowAttemptTruth `json:"slowAttempts"`
	// NearAttempts are the successful attempts just short of a straggler:
	// a slowdown from NearThD × StragglerThD up to StragglerThD.
	NearAttempts []NearAttemptTruth `json:"nearAttempts,omitempty"`
	// SlowNodes are the application's straggler nodes by cause, and the
	// nodes near being one (Straggler false).
	SlowNodes []SlowNodeTruth `json:"slowNodes"`
	// FaultedNodes are the nodes a fault slowed in this application: the
	// median over their attempts (in stages with a typical attempt) of the
	// fault factor over the stage's median fault factor is above 1.05,
	// whatever their hardware. The truth for models that compare a node
	// with itself (PARC) rather than with its peers.
	FaultedNodes []FaultedNodeTruth `json:"faultedNodes,omitempty"`
}

// FaultedNodeTruth is a node a fault slowed in one application.
type FaultedNodeTruth struct {
	Host string `json:"host"`
	// Slowdown is the median fault factor of its attempts over their
	// stages' median (1.3: the fault made them 30% slower).
	Slowdown float64 `json:"slowdown"`
	Attempts int     `json:"attempts"`
	// Resources are the resources of the faults active on the node during
	// the application (cpu, disk, network, memory).
	Resources []string `json:"resources"`
}

// NearAttemptTruth is an attempt whose slowdown over its stage's typical
// attempt (as SlowAttemptTruth's) is within NearThD below StragglerThD.
type NearAttemptTruth struct {
	Stage    int32   `json:"stage"`
	Task     int32   `json:"task"`
	Attempt  int32   `json:"attempt"`
	Slowdown float64 `json:"slowdown"`
}

// SlowAttemptTruth is one straggler by cause: its time is its reference
// time (its data on the median node class, read locally, alone, without
// faults, noise or injected GC) times Locality × Node × Fault × Noise × GC;
// over the stage's typical attempt (median reference time, median product
// of those factors, Typical) it is Slowdown = DataSize × Locality × Node ×
// Fault × Noise × GC / Typical ≥ StragglerThD.
type SlowAttemptTruth struct {
	Stage   int32  `json:"stage"`
	Task    int32  `json:"task"` // task index
	Attempt int32  `json:"attempt"`
	Host    string `json:"host"`
	// Slowdown is the attempt's time over its stage's typical attempt's.
	Slowdown float64 `json:"slowdown"`
	// Cause is the factor furthest above its median over the stage:
	// data-size, locality, node, fault, noise or gc (CauseNames).
	Cause string `json:"cause"`
	// StageAttempts is the number of successful attempts of the stage.
	StageAttempts int `json:"stageAttempts"`
	// Typical is the median over the stage's successful attempts of the
	// product Locality × Node × Fault × Noise × GC.
	Typical float64 `json:"typical"`
	// DataSize is the attempt's reference time over the stage's median
	// reference time.
	DataSize float64 `json:"dataSize"`
	// Locality is its input read as done over a local read (process-local
	// for cached partitions), both on the reference hardware.
	Locality float64 `json:"locality"`
	// Node is its node's hardware class and the application's own
	// concurrency there (attempts sharing the disk and network) against the
	// median node class running it alone, weighted by the time of each
	// phase on the resource it uses (a shuffle fetch or remote read counts
	// the other nodes' hardware too).
	Node float64 `json:"node"`
	// Fault is the slowdown the node faults (CPU or disk hog, slow disk,
	// packet loss, memory pressure) active during its phases caused.
	Fault float64 `json:"fault"`
	// Noise is the task-time noise (log-normal × Pareto; its square root
	// on I/O phases).
	Noise float64 `json:"noise"`
	// GC is the stretch of an injected straggler's GC pauses.
	GC float64 `json:"gc"`
}

// SlowNodeTruth is a straggler node of one application: the median over
// its attempts of their node × fault factor over their stage's Typical.
type SlowNodeTruth struct {
	Host     string  `json:"host"`
	Slowdown float64 `json:"slowdown"`
	Attempts int     `json:"attempts"`
	// Cause is "fault" when the node's faults slowed its attempts more
	// than its hardware and load, else "node".
	Cause string `json:"cause"`
	// Straggler is Slowdown ≥ StragglerThD; false for a node listed as
	// near (Slowdown ≥ NearThD × StragglerThD).
	Straggler bool `json:"straggler"`
}

// StageProfile is the share of a stage's attempt time spent in phases bound
// by CPU, disk and network (overheads such as JVM start left out), and the
// largest of them.
type StageProfile struct {
	Stage    int32   `json:"stage"`
	CPU      float64 `json:"cpu"`
	Disk     float64 `json:"disk"`
	Network  float64 `json:"network"`
	Dominant string  `json:"dominant"`
}

// StragglerTruth is one attempt slowed by a factor for a cause.
type StragglerTruth struct {
	Stage   int32   `json:"stage"`
	Task    int32   `json:"task"` // task index
	Attempt int32   `json:"attempt"`
	Factor  float64 `json:"factor"`
	Cause   string  `json:"cause"`
}

// MetricsTruth says what metrics were written.
type MetricsTruth struct {
	Path       string `json:"path,omitempty"`
	IntervalS  int    `json:"intervalS"`
	Samples    int64  `json:"nodeSamples"`
	Rows       int64  `json:"rows"`
	Metrics    int    `json:"metricsPerSample"`
	SampledOf  int    `json:"sampledNodes"`
	TotalNodes int    `json:"totalNodes"`
}

func faultResource(kind string) string {
	switch kind {
	case FaultCPUHog:
		return "cpu"
	case FaultDiskHog, FaultSlowDisk:
		return "disk"
	case FaultPacketLoss:
		return "network"
	case FaultMemory:
		return "memory"
	}
	return "none"
}
