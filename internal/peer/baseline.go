package peer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
)

// BaselineKind and BaselineVersion identify a baseline file; a reader
// rejects other kinds and newer versions.
const (
	BaselineKind    = "clusterlens-peer-baseline"
	BaselineVersion = 1
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
// its own model; a node that always looks like that, beside any peers, is
// normal for that node.
type Baseline struct {
	Kind    string              `json:"kind"`
	Version int                 `json:"version"`
	Params  BaselineParams      `json:"params"`
	Hosts   map[string]*Profile `json:"hosts"`
}

// BaselineParams tune the comparison of a node with its own history.
type BaselineParams struct {
	// SelfShare: a node differs from its own history when more than this
	// share of its (decayed) histogram window is unknown to its own model.
	SelfShare float64 `json:"selfShare"`
	// MinVectors is the fewest fault-free vectors a node needs for its own
	// model; a node with fewer is judged by its peers alone.
	MinVectors int `json:"minVectors"`
}

// DefaultBaselineParams returns the defaults documented in docs/PEER.md.
func DefaultBaselineParams() BaselineParams {
	return BaselineParams{SelfShare: 0.4, MinVectors: 600}
}

// Validate checks every field.
func (p *BaselineParams) Validate() error {
	if !(p.SelfShare > 0 && p.SelfShare < 1) || p.MinVectors < 1 {
		return fmt.Errorf("%w: selfShare %g, minVectors %d: want (0, 1) and ≥ 1", ErrBaseline, p.SelfShare, p.MinVectors)
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
// from fault-free runs (vectors by host); nodes with fewer than
// p.MinVectors are left out (judged by their peers alone) and named in
// the returned list.
func TrainBaseline(vectors map[string][][]float64, metrics []string, opt TrainOptions, p BaselineParams) (*Baseline, []string, error) {
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	b := &Baseline{Kind: BaselineKind, Version: BaselineVersion, Params: p, Hosts: map[string]*Profile{}}
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
	}
	return b, short, nil
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
// model (z is scratch of the vector's length); false for a host without
// one.
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
