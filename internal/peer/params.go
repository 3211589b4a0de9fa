package peer

import (
	"errors"
	"fmt"
)

// ErrParams is wrapped by every invalid-parameter error.
var ErrParams = errors.New("invalid peer parameters")

// Params are the deployment parameters of Ganesha's peer comparison
// (Pan et al., 2009, §4.1 "Deployment"): the paper gives the structure — a
// histogram of each node's labels whose counts decay exponentially, the
// square root of the Jensen–Shannon divergence between nodes, an alarm
// when a node is farther than a threshold from more than (n−1)/2 of its
// n−1 peers, an exponentially weighted alarm count that indicts above a
// threshold — and no number for the decay, the thresholds or the window;
// the defaults were tuned on simulated runs disjoint from the evaluation's
// (docs/PEER.md, §Parameters; docs/PAPERS.md). The paper's histogram has
// no window (every label seen so far, decayed): WindowS 3600 with Decay
// 0.97 is that to 1e-48.
type Params struct {
	// WindowS is the histogram window in samples (seconds at 1 Hz).
	WindowS int `json:"windowS"`
	// Decay is the weight factor per sample of age within the window.
	Decay float64 `json:"decay"`
	// StepS is how often (seconds) nodes are compared: one alarm decision per node and step.
	StepS int `json:"stepS"`
	// DistThreshold is the square-root JS distance beyond which two nodes differ.
	DistThreshold float64 `json:"distThreshold"`
	// PeerFraction: a node alarms when it differs from more than this share of its peers (Ganesha: half).
	PeerFraction float64 `json:"peerFraction"`
	// AlarmDecay is the exponential weight of the alarm count: c ← AlarmDecay·c + alarm.
	AlarmDecay float64 `json:"alarmDecay"`
	// IndictThreshold: a node whose alarm count exceeds it is indicted.
	IndictThreshold float64 `json:"indictThreshold"`
	// MaxPairwise is the largest cluster compared pair by pair; above it each
	// node is compared with SampledPeers peers drawn at random per step.
	MaxPairwise int `json:"maxPairwise"`
	// SampledPeers is the number of peers sampled per node and step above MaxPairwise.
	SampledPeers int `json:"sampledPeers"`
	// GraceS is how long (seconds) a step waits for late samples before nodes are compared.
	GraceS int `json:"graceS"`
	// MinNodes is the fewest nodes with a full enough window for a comparison.
	MinNodes int `json:"minNodes"`
	// Seed drives the peer sampling.
	Seed uint64 `json:"seed"`
}

// DefaultParams returns the defaults documented in docs/PEER.md.
func DefaultParams() Params {
	return Params{WindowS: 60, Decay: 0.97, StepS: 10, DistThreshold: 0.5, PeerFraction: 0.5,
		AlarmDecay: 0.9, IndictThreshold: 4.0, MaxPairwise: 256, SampledPeers: 64, GraceS: 2, MinNodes: 3, Seed: 1}
}

// Validate checks every field.
func (p *Params) Validate() error {
	switch {
	case p.WindowS < 2 || p.WindowS > 3600:
		return fmt.Errorf("%w: windowS %d: want 2..3600", ErrParams, p.WindowS)
	case !(p.Decay > 0 && p.Decay <= 1):
		return fmt.Errorf("%w: decay %g: want (0, 1]", ErrParams, p.Decay)
	case p.StepS < 1:
		return fmt.Errorf("%w: stepS %d: want ≥ 1", ErrParams, p.StepS)
	case !(p.DistThreshold > 0 && p.DistThreshold < 1):
		return fmt.Errorf("%w: distThreshold %g: want (0, 1)", ErrParams, p.DistThreshold)
	case !(p.PeerFraction > 0 && p.PeerFraction < 1):
		return fmt.Errorf("%w: peerFraction %g: want (0, 1)", ErrParams, p.PeerFraction)
	case !(p.AlarmDecay >= 0 && p.AlarmDecay < 1):
		return fmt.Errorf("%w: alarmDecay %g: want [0, 1)", ErrParams, p.AlarmDecay)
	case !(p.IndictThreshold > 0):
		return fmt.Errorf("%w: indictThreshold %g: want > 0", ErrParams, p.IndictThreshold)
	case p.MaxPairwise < 2 || p.SampledPeers < 1:
		return fmt.Errorf("%w: maxPairwise %d, sampledPeers %d: want ≥ 2 and ≥ 1", ErrParams, p.MaxPairwise, p.SampledPeers)
	case p.GraceS < 0 || p.MinNodes < 2:
		return fmt.Errorf("%w: graceS %d, minNodes %d: want ≥ 0 and ≥ 2", ErrParams, p.GraceS, p.MinNodes)
	}
	return nil
}
