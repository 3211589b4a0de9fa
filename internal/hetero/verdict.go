package hetero

// Status is a node's verdict.
type Status string

// Statuses.
const (
	// StatusUnknown: the node has no history (or too little), or ran no
	// task in the runs judged: no verdict.
	StatusUnknown Status = "unknown"
	// StatusNormal: the node ran as its model expects.
	StatusNormal Status = "normal"
	// StatusSlowClass: the node ran as its model expects, and its class is
	// slow by design: not a culprit.
	StatusSlowClass Status = "slow-class"
	// StatusDegraded: the node ran slower than its own model expects.
	StatusDegraded Status = "degraded"
)

// Resources a degraded node is slow in.
const (
	ResourceCPU  = "cpu"
	ResourceIO   = "io"
	ResourceNode = "node" // both, or none that the classes tell apart
)

// Factor is a slowdown factor with its interval (1.3: 30% slower than the
// reference; Low and High bound it at the model's z).
type Factor struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// Verdict is one node judged on a set of runs.
type Verdict struct {
	Host   string `json:"host"`
	Status Status `json:"status"`
	// Resource is what a degraded node is slow in: cpu, io or node.
	Resource string `json:"resource,omitempty"`
	// Why says, for an unknown node, what is missing; for the others the
	// evidence in a sentence.
	Why string `json:"why"`
	// Class is the node's hardware class (Classes).
	Class string `json:"class,omitempty"`
	// Slowdown is how much slower than it should have taken the node ran
	// in the runs judged (geometric mean over its tasks, unclipped, with
	// its interval); Z its one-sided z-score; Basis what the expectation
	// came from (BasisHistory, BasisHistoryPeers, BasisPeers). Absent for
	// an unknown node.
	Slowdown *Factor `json:"slowdown,omitempty"`
	Z        float64 `json:"z"`
	Basis    string  `json:"basis,omitempty"`
	// VsHistory is the slowdown against the stages' own history alone
	// (the recurring job's level on this node, no peer), VsHistoryZ its
	// z-score; absent when no stage it ran has a history.
	VsHistory  *Factor `json:"vsHistory,omitempty"`
	VsHistoryZ float64 `json:"vsHistoryZ,omitempty"`
	// Stages are the job classes (stages by name) the node is slowed in
	// significantly, most significant first.
	Stages []StageSlowdown `json:"stages,omitempty"`
	// ByResource is the slowdown per latent resource (cpu, io), with Z.
	ByResource []ResourceSlowdown `json:"byResource,omitempty"`
	// Tasks the node ran in the runs judged; Runs how many of them used
	// it; HistoryTasks its tasks in the history the model was fitted on.
	Tasks        int `json:"tasks"`
	Runs         int `json:"runs"`
	HistoryTasks int `json:"historyTasks"`
}

// ResourceSlowdown is a degraded node's slowdown on one latent resource.
type ResourceSlowdown struct {
	Resource string  `json:"resource"`
	Slowdown Factor  `json:"slowdown"`
	Z        float64 `json:"z"`
}

// Culprit reports whether the verdict indicts the node.
func (v *Verdict) Culprit() bool { return v.Status == StatusDegraded }

// StageSlowdown is a node's slowdown in one job class (a recurring stage).
type StageSlowdown struct {
	Stage    string  `json:"stage"`
	Slowdown Factor  `json:"slowdown"`
	Z        float64 `json:"z"`
	Tasks    int     `json:"tasks"`
}
