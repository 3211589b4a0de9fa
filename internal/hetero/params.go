package hetero

// Params tune the models. DefaultParams gives the defaults; for the paper's
// model the defaults are the paper's where it gives one (base classes CPU
// and IO), else clusterlens's, measured in docs/NODES.md.
type Params struct {
	// Rank is the number of latent resources of the joint model (2: the
	// paper's CPU and IO; the factors start at those classes).
	Rank int
	// Iterations of alternating least squares.
	Iterations int
	// NodePrior is the ridge on a node's log factors (a prior N(0, 1/
	// NodePrior)): it keeps a node with few tasks near the average node.
	NodePrior float64
	// JobPrior pulls a job class's loadings towards its resource class's
	// (cpu: (1, 0); io: (0, 1); shuffle and unknown: (½, ½)), so that the
	// latent resources keep their names.
	JobPrior float64
	// Trim is the ratio over the geometric mean of a cell's other tasks
	// from which its longest task is left out of the log-space moments
	// (0: never): the noise's heavy tail.
	Trim float64
	// Z is the one-sided z-score of a node's slowdown over what its model
	// expects from which it is degraded; MinSlowdown the least slowdown.
	Z           float64
	MinSlowdown float64
	// ResourceZ is the z-score from which a latent resource's slowdown
	// counts when the resource is named.
	ResourceZ float64
	// NodeShare: when two resources' slowdowns are significant and the
	// smaller is at least this share of the larger (in log), the node as a
	// whole is named rather than one resource.
	NodeShare float64
	// Expect is what a run-stage's size is expected from: ExpectHistory
	// (the default: the job class's own history runs, combined with the
	// run's other nodes) or ExpectPeers (the run's other nodes alone,
	// PARC's α*, eq. 5).
	Expect string
	// MinHistoryRuns is the fewest history runs of a job class for its
	// own level to be an expectation.
	MinHistoryRuns int
	// SuspectZ: a peer slower than its own history by this z-score is
	// left out of the others' expectation.
	SuspectZ float64
	// MinHistoryTasks is the fewest history tasks a node needs to be
	// judged; with fewer it is unknown.
	MinHistoryTasks int
	// ClassGap is the least log-speed gap between two node classes (0.1:
	// about 10% apart).
	ClassGap float64
	// SlowClass is the factor over the cluster's median node from which a
	// class is slow by design.
	SlowClass float64
	// LikelihoodRatio is, for the paper's model, how far below the other
	// nodes' average a node's relative likelihood (eq. 8, Gupta et al.
	// §4.5's "≪") must be, as a geometric mean over its stages of a base
	// class, for it to be degraded; the paper gives no number.
	LikelihoodRatio float64
	// BaseJobs names, for the paper's model, the base job class per
	// resource class ("cpu", "io"): a substring of the job's normalized
	// name or of a stage signature; empty: the job class of that resource
	// class covering the most nodes.
	BaseJobs map[string]string
	// calibrated: the fit is the tail model's calibration (no further
	// calibration).
	calibrated bool
}

// DefaultParams are the defaults.
var DefaultParams = Params{
	Rank: 2, Iterations: 25, NodePrior: 1, JobPrior: 20, Trim: 3,
	Z: 3.5, MinSlowdown: 1.15, ResourceZ: 2.5, NodeShare: 0.75,
	Expect: ExpectHistory, MinHistoryRuns: 5, SuspectZ: 2,
	MinHistoryTasks: 10, ClassGap: 0.1, SlowClass: 1.15, LikelihoodRatio: 0.1,
}

// Expectations (Params.Expect).
const (
	ExpectHistory = "history"
	ExpectPeers   = "peers"
)
