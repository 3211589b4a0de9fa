package nodediag

import (
	"github.com/clusterlens/clusterlens/internal/anomaly"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/peer"
)

// Options are the underlying methods' parameters.
type Options struct {
	// View chooses how each stage's hosts are summarised for the
	// abnormal-node test (HybridTune §3.3.3; correlate.StageViews); Nodes
	// and Stage are its parameters on them (anomaly.StageNodes), Outliers
	// the outlier-metric diagnosis' (§3.3.4: PCA, Algorithms 4 and 5).
	View     correlate.StageOptions
	Nodes    anomaly.NodeParams
	Stage    anomaly.StageParams
	Outliers anomaly.OutlierParams
	// Profile is a trained Ganesha profile (peer train) and ProfileName
	// its file; nil trains one on the application's own samples
	// (SelfTrained) with Train.
	Profile     *peer.Profile
	ProfileName string
	Train       peer.TrainOptions
	// Peer are Ganesha's deployment parameters (the profile's by default).
	Peer peer.Params
	// Workload is what every loaded application ran on each node (nil:
	// plain Ganesha, every node compared with every other).
	Workload *peer.Workload
	// Baseline is the nodes' own fault-free models (peer baseline): a node
	// is then indicted only when it differs from its peers and from
	// itself (nil: its peers alone).
	Baseline *peer.Baseline
}

// DefaultOptions returns the underlying packages' defaults.
func DefaultOptions() Options {
	return Options{View: correlate.DefaultStageOptions(), Nodes: anomaly.DefaultStageNodeParams(),
		Stage: anomaly.DefaultStageParams(), Outliers: anomaly.DefaultOutlierParams(),
		Train: selfTrainOptions(), Peer: peer.DefaultParams()}
}

// Result is the node diagnosis of one application.
type Result struct {
	// StagesCompared is how many stage attempts ran on at least three
	// sampled hosts; Stages are those with an abnormal node.
	StagesCompared int          `json:"stagesCompared"`
	Stages         []StageNodes `json:"stages"`
	// Peers is Ganesha's comparison (nil when it could not run: Notes say why).
	Peers *Peers   `json:"peers,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// Diagnose diagnoses the nodes of c's application from the samples fs
// (the frames c was built from: every sample host takes part in the peer
// comparison, over the application's span).
func Diagnose(c *correlate.Correlation, fs *correlate.Frames, opt Options) *Result {
	r := &Result{Stages: []StageNodes{}}
	n, st, err := Stages(c, opt.View, opt.Nodes, opt.Stage, opt.Outliers)
	r.StagesCompared, r.Stages = n, append(r.Stages, st...)
	if err != nil {
		r.Notes = append(r.Notes, "abnormal nodes: "+err.Error())
	}
	app := c.App()
	if app.Start <= 0 || app.End < app.Start {
		r.Notes = append(r.Notes, "peer comparison: the application's span is unknown")
		return r
	}
	names, offsets := map[string]string{}, map[string]int64{}
	for _, m := range c.Matches() {
		names[m.SampleHost] = m.Host
		offsets[m.SampleHost] = m.OffsetMs
	}
	// One histogram window on either side: histograms are full from the
	// application's start, and a fault that began during it has time to
	// be confirmed by consecutive alarms.
	margin := int64(opt.Peer.WindowS) * 1000
	p, err := ganesha(fs, names, offsets, app.Start-margin, app.End+margin, opt.Profile, opt.ProfileName, opt)
	if err != nil {
		r.Notes = append(r.Notes, "peer comparison: "+err.Error())
		return r
	}
	r.Peers = p
	return r
}

// Findings turns the result into findings of at least min severity.
func (r *Result) Findings(min finding.Severity) []finding.Finding {
	var out []finding.Finding
	for _, f := range append(abnormalFindings(r), peerFindings(r.Peers)...) {
		if f.Severity >= min {
			out = append(out, f)
		}
	}
	return out
}

// SelfTrainVectors caps the vectors a self-trained profile learns from
// (peer.TrainOptions.MaxVectors, a uniform sample): 5,000 instead of peer
// train's 20,000 keeps the training, which dominates the node diagnosis's
// cost, near half a second on 50 nodes (docs/REPORT.md).
const SelfTrainVectors = 5000

// selfTrainOptions are peer's training defaults with SelfTrainVectors.
func selfTrainOptions() peer.TrainOptions {
	o := peer.DefaultTrainOptions()
	o.MaxVectors = SelfTrainVectors
	return o
}
