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
	BaselineVersion = 3
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
// history (Detector.selfCompare) when its window's decayed mean of a
// resource metric is more than LevelMargin above the highest its history
// reached (Levels), or more than SelfShare of its window is "unknown" to
// its own model while it is busier than its busiest window in a resource,
// each by at least the metric's floor; a node that always looks like that,
// beside any peers, is normal for that node.
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
	// PARC (Gupta et al., DX 2012, §4.3 eq. 1–2) likewise judges a node
	// against the range of its own history, in units of its own deviation.
	Levels map[string][]float64 `json:"levels,omitempty"`
	// Trained is, per host with a model (from version 3), the time range
	// and count of the vectors it was trained on: judging data of that
	// range against it compares the node with itself (Diagnose warns).
	Trained map[string]TrainedRange `json:"trained,omitempty"`
}

// TrainedRange is what a host's own model was trained on.
type TrainedRange struct {
	From    int64 `json:"fromMs"`
	To      int64 `json:"toMs"`
	Vectors int   `json:"vectors"`
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
	// ClusterShare: in a step where more than this share of the nodes with
	// their own history differ from it (at least MinNodes of them), the
	// whole cluster left its history — a busier period than any before, a
	// new workload — and no node's difference from itself counts: the
	// period is reported as cluster-wide instead (from version 3).
	ClusterShare float64 `json:"clusterShare,omitempty"`
	// Floors are, per metric, the least absolute change (in the metric's
	// units) that counts: above its history's highest window — a window
	// that is unknown to its own model but busier in no resource by its
	// floor is a quieter node, not a culprit (from version 3;
	// DefaultFloors).
	Floors map[string]float64 `json:"floors,omitempty"`
	// MinStrength is how many floors above its history a node must be to
	// differ from itself (from version 3).
	MinStrength float64 `json:"minStrength,omitempty"`
	// MoreWork: a node running more processes and threads than in any
	// window of its history by this many floors of procs_total was given
	// more work (more executors or containers), which its resources' rise
	// above its busiest window follows: it does not differ from itself
	// (from version 3).
	MoreWork float64 `json:"moreWork,omitempty"`
}

// DefaultFloors are the least changes of each of Ganesha's metrics that
// count as a node differing from itself: 5 percentage points of CPU time,
// a load of 1, a MiB/s of network or disk traffic, 1,024 KB/s of paging,
// 2,000 page faults or context switches per second, 2 runnable and 20 more
// processes. A node whose I/O wait is usually 0.1% and now 0.6% is five
// deviations above its history and no culprit.
func DefaultFloors() map[string]float64 {
	return map[string]float64{
		"cpu_user_pct": 5, "cpu_system_pct": 5, "cpu_iowait_pct": 5, "context_switches_per_s": 2000,
		"procs_runnable": 2, "procs_total": 20, "load1": 1, "net_rx_bytes_per_s": 1 << 20,
		"net_tx_bytes_per_s": 1 << 20, "pages_in_kb_per_s": 1024, "pages_out_kb_per_s": 1024,
		"page_faults_per_s": 2000, "disk_read_bytes_per_s": 1 << 20, "disk_write_bytes_per_s": 1 << 20,
	}
}

// DefaultBaselineParams returns the defaults documented in docs/PEER.md.
func DefaultBaselineParams() BaselineParams {
	return BaselineParams{SelfShare: 0.4, MinVectors: 600, LevelMargin: 0.75, ClusterShare: 0.5, Floors: DefaultFloors(), MinStrength: 1, MoreWork: 4}
}

// Validate checks every field.
func (p *BaselineParams) Validate() error {
	if !(p.SelfShare > 0 && p.SelfShare < 1) || p.MinVectors < 1 || !(p.LevelMargin >= 0 && !math.IsInf(p.LevelMargin, 1)) ||
		!(p.ClusterShare > 0 && p.ClusterShare <= 1) || !(p.MinStrength >= 0) || math.IsInf(p.MinStrength, 1) || !(p.MoreWork > 0) || math.IsInf(p.MoreWork, 1) {
		return fmt.Errorf("%w: selfShare %g, minVectors %d, levelMargin %g, clusterShare %g, minStrength %g, moreWork %g: want (0, 1), ≥ 1, finite ≥ 0, (0, 1], finite ≥ 0 and finite > 0",
			ErrBaseline, p.SelfShare, p.MinVectors, p.LevelMargin, p.ClusterShare, p.MinStrength, p.MoreWork)
	}
	for m, f := range p.Floors {
		if !(f >= 0) || math.IsInf(f, 1) {
			return fmt.Errorf("%w: floor of %s is %g, want finite ≥ 0", ErrBaseline, m, f)
		}
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
// from fault-free runs (vectors by host, each host's in time order, taken
// at times[host]) and records its Levels and training range; nodes with
// fewer than p.MinVectors are left out (judged by their peers alone) and
// returned with their counts.
func TrainBaseline(vectors map[string][][]float64, times map[string][]int64, metrics []string, opt TrainOptions, p BaselineParams) (*Baseline, map[string]int, error) {
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	b := &Baseline{Kind: BaselineKind, Version: BaselineVersion, Params: p, Hosts: map[string]*Profile{},
		Levels: map[string][]float64{}, Trained: map[string]TrainedRange{}}
	short := map[string]int{}
	for _, host := range slices.Sorted(maps.Keys(vectors)) {
		v := vectors[host]
		if len(v) < max(p.MinVectors, 10*max(opt.K, opt.MaxK)) {
			short[host] = len(v)
			continue
		}
		if ts := times[host]; len(ts) > 0 {
			b.Trained[host] = TrainedRange{From: slices.Min(ts), To: slices.Max(ts), Vectors: len(v)}
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
// host's Levels by more than LevelMargin (in its own deviations) and by at
// least the metric's floor (in its units), with that excess in floors; -1
// when none is (or host has no levels).
func (b *Baseline) beyond(host string, m *meanWindow) (int, float64) {
	top := b.Levels[host]
	p := b.Hosts[host]
	at, most, over := -1, b.Params.LevelMargin, 0.0

	for j, t := range top {
		e := m.mean(j) - t
		if e <= most || !resourceMetric(p.MetricNames[j]) {
			continue
		}
		if f, ok := b.floor(p, j, m.mean(j), t); ok {
			at, most, over = j, e, f
		}
	}
	return at, over
}

// busier returns the resource metric (index) whose window mean m is above
// the highest window of host's history (its Levels; without levels, its
// history's mean) by the most floors, at least one, with that excess in
// floors; -1 when the window is busier in no resource by its floor: a
// quieter node, or one doing what it did before.
func (b *Baseline) busier(host string, m *meanWindow) (int, float64) {
	p := b.Hosts[host]
	top := b.Levels[host]
	at, over := -1, 0.0
	for j, name := range p.MetricNames {
		if !resourceMetric(name) {
			continue
		}
		ref := 0.0
		if top != nil {
			ref = top[j]
		}
		if f, ok := b.floor(p, j, m.mean(j), ref); ok && f > over {
			at, over = j, f
		}
	}
	return at, over
}

// resourceMetric reports whether a metric measures the use of a resource
// (CPU time, I/O wait, disk, network, memory paging, context switches)
// rather than how many processes or threads a node runs (procs_total,
// procs_runnable, load1): a node given more tasks than usual runs more of
// them without any fault, so those counts alone do not make it differ
// from itself.
func resourceMetric(name string) bool {
	switch name {
	case "procs_total", "procs_runnable", "load1":
		return false
	}
	return true
}

// floor reports whether metric j at normalised value z is above the
// normalised value ref by at least its floor in raw units, and by how many
// floors (a metric without a floor counts with any rise).
func (b *Baseline) floor(p *Profile, j int, z, ref float64) (float64, bool) {
	d := p.Raw(j, z) - p.Raw(j, ref)
	f := b.Params.Floors[p.MetricNames[j]]
	if f <= 0 {
		return d, d > 0
	}
	return d / f, d >= f
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

// Overlap returns, per host whose own model was trained on vectors in
// [from, to] (Unix ms), how many seconds of that range it was trained on:
// judging that data against the baseline compares a node with itself.
func (b *Baseline) Overlap(from, to int64) map[string]int64 {
	out := map[string]int64{}
	for host, r := range b.Trained {
		if lo, hi := max(from, r.From), min(to, r.To); hi >= lo {
			out[host] = (hi-lo)/1000 + 1
		}
	}
	return out
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
	if b.Version < 3 {
		// Older files: no cluster-wide periods or floors were recorded.
		d := DefaultBaselineParams()
		b.Params.ClusterShare, b.Params.Floors, b.Params.MinStrength, b.Params.MoreWork = d.ClusterShare, d.Floors, d.MinStrength, d.MoreWork
	}
	if err := b.Params.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for host, r := range b.Trained {
		if b.Hosts[host] == nil || r.From > r.To || r.Vectors < 0 {
			return nil, fmt.Errorf("%s: %w: host %q's training range %d–%d (%d vectors) is not of a host with a model, or not a range", name, ErrBaseline, host, r.From, r.To, r.Vectors)
		}
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

// moreWork reports whether host's window runs more processes and threads
// than any window of its history by at least MoreWork floors of
// procs_total: it was given more work than ever (more executors or
// containers), which its resources' rise above its busiest window follows.
func (b *Baseline) moreWork(host string, m *meanWindow) bool {
	p, top := b.Hosts[host], b.Levels[host]
	if top == nil {
		return false
	}
	for j, name := range p.MetricNames {
		if name == "procs_total" {
			f, _ := b.floor(p, j, m.mean(j), top[j])
			return f >= b.Params.MoreWork
		}
	}
	return false
}
