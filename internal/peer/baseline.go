package peer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
)

// BaselineKind and BaselineVersion identify a baseline file; a reader
// rejects other kinds and newer versions.
const (
	BaselineKind    = "clusterlens-peer-baseline"
	BaselineVersion = 2
)

// ErrBaseline is wrapped by every error about a malformed baseline.
var ErrBaseline = errors.New("invalid peer baseline")

// Baseline is each node's own history, for comparing a node with itself
// as well as with its peers (clusterlens's, beyond Ganesha): real peers
// are not alike — a node that also runs the master's daemons, an older
// machine, a node whose metrics the shared profile calls "unknown" all
// the time — and with few peers one odd node makes the others differ from
// most of theirs too. For every node it keeps Ganesha's own model (§4.2:
// normalisation, k-means with the elbow, a Gaussian mixture and its
// "unknown" likelihood) trained on that node's vectors alone, from
// fault-free runs of its cluster: what that node looks like when nothing
// is wrong, whatever its peers look like. A node differs from its own
// history when more than SelfShare of its histogram window is "unknown" to
// its own model, or when its window's decayed mean of a metric is more than
// LevelMargin above the highest its history reached (Levels); a node that
// always looks like that, beside any peers, is normal for that node.
type Baseline struct {
	Kind    string              `json:"kind"`
	Version int                 `json:"version"`
	Params  BaselineParams      `json:"params"`
	Hosts   map[string]*Profile `json:"hosts"`
	// Levels holds, per host with a model (from version 2), each metric's
	// highest decayed window mean over the host's fault-free history, in
	// its own model's normalised units (historyLevels). Ganesha judges a
	// node by a window of its states, not by one vector (§4.3): a disk hog
	// writes as much each second as the node's busiest fault-free seconds,
	// so each vector is known to its own model, but it keeps writing that
	// much for the whole window, as no fault-free window of the node did.
	// PARC (Gupta et al., DX 2012, §3 eq. 1–2) likewise judges a node
	// against the range of its own history, in units of its own deviation.
	Levels map[string][]float64 `json:"levels,omitempty"`
}

// BaselineParams tune the comparison of a node with its own history.
type BaselineParams struct {
	// SelfShare: a node differs from its own history when more than this
	// share of its (decayed) histogram window is unknown to its own model.
	SelfShare float64 `json:"selfShare"`
	// MinVectors is the fewest fault-free vectors a node needs for its own
	// model; a node with fewer is judged by its peers alone.
	MinVectors int `json:"minVectors"`
	// LevelMargin: a node differs from its own history too when its
	// window's decayed mean of a metric is more than this many of its own
	// standard deviations (of the metric's logarithm) above the highest
	// its history reached (Baseline.Levels).
	LevelMargin float64 `json:"levelMargin"`
}

// DefaultBaselineParams returns the defaults documented in docs/PEER.md.
func DefaultBaselineParams() BaselineParams {
	return BaselineParams{SelfShare: 0.4, MinVectors: 600, LevelMargin: 0.75}
}

// Validate checks every field.
func (p *BaselineParams) Validate() error {
	if !(p.SelfShare > 0 && p.SelfShare < 1) || p.MinVectors < 1 || !(p.LevelMargin >= 0 && !math.IsInf(p.LevelMargin, 1)) {
		return fmt.Errorf("%w: selfShare %g, minVectors %d, levelMargin %g: want (0, 1), ≥ 1 and finite ≥ 0",
			ErrBaseline, p.SelfShare, p.MinVectors, p.LevelMargin)
	}
	return nil
}

// BaselineTrainOptions are Train's options for the nodes' own models:
// Train's defaults with states up to 6 (one node's vectors need fewer
// than a cluster's), 5,000 vectors per node, and "unknown" below the 3%
// quantile of its own vectors' likelihoods (tuned: at the shared
// profile's 0.5% a disk hog's vectors stay within what a busy node
// writes).
func BaselineTrainOptions() TrainOptions {
	o := DefaultTrainOptions()
	o.MaxK, o.MaxVectors, o.UnknownQuantile = 6, 5000, 0.03
	return o
}

// TrainBaseline trains each node's own model on its vectors of metrics
// from fault-free runs (vectors by host, each host's in time order) and
// records its Levels; nodes with fewer than p.MinVectors are left out
// (judged by their peers alone) and named in the returned list.
func TrainBaseline(vectors map[string][][]float64, metrics []string, opt TrainOptions, p BaselineParams) (*Baseline, []string, error) {
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	b := &Baseline{Kind: BaselineKind, Version: BaselineVersion, Params: p, Hosts: map[string]*Profile{},
		Levels: map[string][]float64{}}
	var short []string
	for _, host := range slices.Sorted(maps.Keys(vectors)) {
		v := vectors[host]
		if len(v) < max(p.MinVectors, 10*max(opt.K, opt.MaxK)) {
			short = append(short, host)
			continue
		}
		prof, err := Train(v, metrics, opt, DefaultParams())
		if err != nil {
			return nil, nil, fmt.Errorf("baseline of %s: %w", host, err)
		}
		b.Hosts[host] = prof
		if top := historyLevels(prof, v); top != nil {
			b.Levels[host] = top
		}
	}
	return b, short, nil
}

// historyLevels returns, per metric, the highest decayed window mean of
// vectors (in time order, normalised by the node's own model p) over the
// windows a Detector judges: p's window and decay, from half a window of
// samples on. Where runs are concatenated a window spans two of them.
func historyLevels(p *Profile, vectors [][]float64) []float64 {
	d := len(p.MetricNames)
	m := newMeanWindow(d, p.Params.WindowS, p.Params.Decay)
	top := make([]float64, d)
	for j := range top {
		top[j] = math.Inf(-1)
	}
	z := make([]float64, d)
	judged := false
	for _, x := range vectors {
		p.Normalize(x, z)
		m.add(z)
		if m.n < halfWindow(p.Params.WindowS) {
			continue
		}
		judged = true
		for j := range top {
			top[j] = max(top[j], m.mean(j))
		}
	}
	if !judged {
		return nil
	}
	return top
}

// halfWindow is how many samples a window needs before it is judged.
func halfWindow(windowS int) int { return (windowS + 1) / 2 }

// beyond returns the metric (index) whose window mean m is farthest above
// host's Levels by more than LevelMargin, or -1 when none is (or host has
// no levels).
func (b *Baseline) beyond(host string, m *meanWindow) int {
	top := b.Levels[host]
	at, most := -1, b.Params.LevelMargin
	for j, t := range top {
		if e := m.mean(j) - t; e > most {
			at, most = j, e
		}
	}
	return at
}

// Check reports an error when the nodes' models are not over metrics, in
// order.
func (b *Baseline) Check(metrics []string) error {
	for host, p := range b.Hosts {
		if !slices.Equal(p.MetricNames, metrics) {
			return fmt.Errorf("%w: host %q's model is over %v, want %v", ErrBaseline, host, p.MetricNames, metrics)
		}
	}
	return nil
}

// Has reports whether host has its own model.
func (b *Baseline) Has(host string) bool { return b != nil && b.Hosts[host] != nil }

// Unknown reports whether host's raw vector x is unknown to the host's own
// model, and leaves x normalised by that model in z (of x's length); false
// for a host without one.
func (b *Baseline) Unknown(host string, x, z []float64) bool {
	p := b.Hosts[host]
	return p != nil && p.Label(x, z) == p.K
}

// Save writes the baseline as JSON.
func (b *Baseline) Save(w io.Writer) error { return json.NewEncoder(w).Encode(b) }

// SaveFile writes the baseline to path.
func (b *Baseline) SaveFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	if err := b.Save(f); err != nil {
		f.Close()
		return fmt.Errorf("write baseline %q: %w", path, err)
	}
	return f.Close()
}

// LoadBaseline reads a baseline from r; name labels errors.
func LoadBaseline(r io.Reader, name string) (*Baseline, error) {
	var b Baseline
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, ErrBaseline, err)
	}
	switch {
	case b.Kind != BaselineKind:
		return nil, fmt.Errorf("%s: %w: kind %q, want %q", name, ErrBaseline, b.Kind, BaselineKind)
	case b.Version < 1 || b.Version > BaselineVersion:
		return nil, fmt.Errorf("%s: %w: version %d, want 1..%d", name, ErrBaseline, b.Version, BaselineVersion)
	}
	if err := b.Params.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for host, p := range b.Hosts {
		if p == nil {
			return nil, fmt.Errorf("%s: %w: host %q has no model", name, ErrBaseline, host)
		}
		if err := p.validate(); err != nil {
			return nil, fmt.Errorf("%s: host %q: %w", name, host, err)
		}
	}
	for host, top := range b.Levels {
		p := b.Hosts[host]
		if p == nil {
			return nil, fmt.Errorf("%s: %w: host %q has levels but no model", name, ErrBaseline, host)
		}
		if len(top) != len(p.MetricNames) {
			return nil, fmt.Errorf("%s: %w: host %q has %d levels for %d metrics", name, ErrBaseline, host, len(top), len(p.MetricNames))
		}
		for j, v := range top {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: %w: host %q's level of %s is %g", name, ErrBaseline, host, p.MetricNames[j], v)
			}
		}
	}
	return &b, nil
}

// LoadBaselineFile reads the baseline at path.
func LoadBaselineFile(path string) (*Baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read baseline: %w", err)
	}
	defer f.Close()
	return LoadBaseline(f, path)
}
