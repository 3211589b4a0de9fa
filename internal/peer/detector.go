package peer

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Indictment is a node Ganesha blames: its exponentially weighted alarm
// count crossed Params.IndictThreshold at Time.
type Indictment struct {
	Host string `json:"host"`
	// Time is the end of the step (Unix ms) whose alarm crossed the threshold.
	Time int64 `json:"timeMs"`
	// AlarmCount is the weighted count then.
	AlarmCount float64 `json:"alarmCount"`
	// Differs is the share of compared peers farther than DistThreshold in that step.
	Differs float64 `json:"differs"`
	// SelfUnknown is, with a Baseline, the share of the node's window
	// unknown to its own model; Confidence says what the indictment rests
	// on (Confidence*).
	SelfUnknown float64 `json:"selfUnknown,omitempty"`
	Confidence  string  `json:"confidence"`
	// BeyondOwnRange is, with a Baseline, the metric whose window mean was
	// then above the highest its own history reached (by more than
	// BaselineParams.LevelMargin and its floor), "" for none; Busier the
	// metric most above its own history's mean (by at least its floor).
	BeyondOwnRange string `json:"beyondOwnRange,omitempty"`
	Busier         string `json:"busier,omitempty"`
	// Strength is, with a Baseline, how far the node left its own history,
	// in floors of the metric that left it most (BaselineParams.Floors).
	Strength float64 `json:"strength,omitempty"`
}

// Confidence of an indictment: how far the node left its own history,
// which separates faults from false alarms as measured (docs/PEER.md).
const (
	// ConfidenceHigh: it differed from its peers and left its own history
	// by at least HighStrength floors of a metric.
	ConfidenceHigh = "high"
	// ConfidenceMedium: it differed from its peers and left its own
	// history, by less.
	ConfidenceMedium = "medium"
	// ConfidenceLow: it differed from its peers, and no history of its
	// own (Baseline) said whether it always looks like that: Ganesha
	// alone.
	ConfidenceLow = "low"
)

// HighStrength is how many floors above its own history a node must be
// for a high-confidence indictment (BaselineParams.MinStrength for any):
// on the tuning seeds CPU hogs were 4.3–18 floors out of their history
// when indicted, disk hogs 65–268, and the false alarms before the rules
// of quieter nodes, more work and cluster-wide periods 1.2–5.8;
// docs/PEER.md measures the precision of each level.
const HighStrength = 8

// strengthConfidence is the confidence of an indictment of a node that
// left its own history by strength floors.
func strengthConfidence(strength float64) string {
	if strength >= HighStrength {
		return ConfidenceHigh
	}
	return ConfidenceMedium
}

// NodeStatus is one node's state after the steps seen so far.
type NodeStatus struct {
	Host string `json:"host"`
	// Steps it was compared in, and how many of them raised an alarm.
	Steps  int `json:"steps"`
	Alarms int `json:"alarms"`
	// AlarmCount is the current weighted count, MaxAlarmCount its largest value.
	AlarmCount    float64 `json:"alarmCount"`
	MaxAlarmCount float64 `json:"maxAlarmCount"`
	// Indicted says the count is above the threshold now; FirstIndicted is
	// when it first was (Unix ms, 0 for never).
	Indicted      bool  `json:"indicted"`
	FirstIndicted int64 `json:"firstIndictedMs,omitempty"`
	// Differs is the share of peers it differed from in the last step it was compared in.
	Differs float64 `json:"differs"`
	// OwnHistory says a Baseline held the node's own model; SelfUnknown
	// is then the share of its window unknown to it in the last step, and
	// Absolved how many of its steps differed from its peers but not from
	// itself (no alarm: it always looks like that).
	OwnHistory  bool    `json:"ownHistory,omitempty"`
	SelfUnknown float64 `json:"selfUnknown,omitempty"`
	Absolved    int     `json:"absolvedSteps,omitempty"`
	// QuietSteps and WideSteps are the absolved steps in which its window
	// was unknown to its own model but busier in nothing (a quieter node),
	// and those of a cluster-wide period.
	QuietSteps int `json:"quietSteps,omitempty"`
	WideSteps  int `json:"wideSteps,omitempty"`
	// MoreWorkSteps are the absolved steps in which it ran more processes
	// than in any window of its history (BaselineParams.MinStrength of
	// procs_total's floor): more work than before, not a fault.
	MoreWorkSteps int `json:"moreWorkSteps,omitempty"`
	// Evidence compares its metrics with its peers' while it raised alarms.
	Evidence []MetricEvidence `json:"evidence,omitempty"`
}

// MetricEvidence is one metric of a node against its peers, averaged over
// the steps in which the node raised an alarm.
type MetricEvidence struct {
	Metric string `json:"metric"`
	// Node is the node's mean, Peers the mean of the peers' medians.
	Node  float64 `json:"node"`
	Peers float64 `json:"peers"`
	// Z is the mean difference in normalised units (the profile's scale).
	Z float64 `json:"z"`
}

// node is a Detector's per-node state.
type node struct {
	host          string
	hist          histogram
	last          int64
	count, maxCnt float64
	steps, alarms int
	indicted      bool
	firstIndict   int64
	differs       float64
	stamp         int64 // the last step it was compared in
	// own is the node's histogram of vectors unknown to its own model
	// (bin 1) or not (bin 0), with a Baseline; lvl its decayed window mean
	// of its vectors normalised by its own model, beyond the metric lvl
	// puts above its own history's range in the last step (-1 for none).
	own      histogram
	lvl      meanWindow
	beyond   int
	self     float64
	selfOK   bool
	absolved int
	// selfDiff says the node differs from its own history in the step
	// (busier than usual in a window unknown to its own model, or a metric
	// beyond its history's range, each by at least the metric's floor);
	// quiet that its window was unknown but busier in nothing (a quieter
	// node); busier the metric most above its own mean (-1: none);
	// strength how far it left its history, in floors.
	selfDiff, quiet       bool
	busier                int
	strength              float64
	quietSteps, wideSteps int
	moreWork              bool
	moreWorkSteps         int
	// sums over the current step: normalised and raw vectors
	zSum, xSum []float64
	nSum       int
	// sums over alarmed steps: the node's step means minus the peers' medians (z), raw node and peer medians
	devZ, devX, devPeer []float64
	nDev                int
}

// Detector runs Ganesha's deployment phase (§4.3) over labelled vectors:
// per-node decayed label histograms, peer distances every Params.StepS,
// alarms, weighted alarm counts and indictments. It is not safe for
// concurrent use (Online wraps it).
type Detector struct {
	p        Params
	bins     int
	dim      int
	nodes    []*node
	byHost   map[string]int
	next     int64 // the next step boundary (Unix ms), 0 before the first vector
	clock    int64
	rng      *rand.Rand
	onIndict func(Indictment)
	indicts  []Indictment
	// scratch
	ps       [][]float64
	ents     []float64
	elig     []int
	exceed   []int
	peersN   []int
	refs     map[int]peerRef
	medCol   []float64
	flatP    []float64
	zMeans   [][]float64
	xMeans   [][]float64
	metrics  []string
	group    func(host string, from, to int64) int
	refOf    func(host string, from, to int64) int
	evGroups []int // each compared node's evidence group
	onStep   func(end int64, alarmed, held []string)
	alarmed  []string
	held     []string // compared nodes without peers in the step
	groups   []int
	dist     []float64
	// base compares each node with its own history.
	base    *Baseline
	selfBuf []float64
	wide    []WidePeriod
}

// SetBaseline makes the detector compare each node with its own history
// too: a node differing from more than PeerFraction of its peers raises an
// alarm only when it also differs from itself (more than SelfShare of its
// window unknown to its own model, or a metric's window mean beyond its
// history's range: Baseline.Levels); a node without its own model is
// judged by its peers alone. b's models must be over the detector's
// metrics, in order (Baseline.Check). nil restores the peers alone.
func (d *Detector) SetBaseline(b *Baseline) { d.base = b }

// SetStepHook makes the detector call fn after each step with the step's
// end (Unix ms), the hosts that raised an alarm in it and those whose
// alarm count held because no peer did their work (both reused: copy to
// keep); nil removes it.
func (d *Detector) SetStepHook(fn func(end int64, alarmed, held []string)) { d.onStep = fn }

// SetGroups makes the detector compare each node only with the peers of
// its group over the histogram window (group returns a class for a host
// and [from, to) in Unix ms; Any: every node); a node whose group has
// fewer than Params.MinNodes members has no peers and raises no alarm. nil
// restores plain Ganesha.
func (d *Detector) SetGroups(group func(host string, from, to int64) int) {
	d.group, d.refOf = group, nil
}

// SetWorkload groups nodes by how many task attempts the logs say they ran
// over the histogram window (Workload.Group): clusterlens's workload-aware
// peers.
func (d *Detector) SetWorkload(w *Workload) {
	if w == nil {
		d.group, d.refOf = nil, nil
		return
	}
	d.group, d.refOf = w.Group, w.LoadGroup
}

// NewDetector returns a Detector for labels 0..bins-1 and vectors of the
// named metrics; onIndict (may be nil) is called at each new indictment.
func NewDetector(bins int, metrics []string, p Params, onIndict func(Indictment)) *Detector {
	return &Detector{p: p, bins: bins, dim: len(metrics), metrics: metrics, byHost: map[string]int{},
		rng: rand.New(rand.NewPCG(p.Seed, 0x9e3779b97f4a7c15)), onIndict: onIndict}
}

// Add records host's vector at time t (Unix ms): its label, normalised
// vector z and raw vector x. Steps whose grace period t passes are
// evaluated first.
func (d *Detector) Add(host string, t int64, label int, z, x []float64) {
	d.Advance(t)
	i, ok := d.byHost[host]
	if !ok {
		i = len(d.nodes)
		d.byHost[host] = i
		d.nodes = append(d.nodes, &node{host: host, hist: newHistogram(d.bins, d.p.WindowS, d.p.Decay),
			zSum: make([]float64, d.dim), xSum: make([]float64, d.dim),
			devZ: make([]float64, d.dim), devX: make([]float64, d.dim), devPeer: make([]float64, d.dim)})
	}
	n := d.nodes[i]
	n.hist.add(label)
	if d.base.Has(host) {
		if n.own.ring == nil {
			n.own = newHistogram(2, d.p.WindowS, d.p.Decay)
			n.lvl = newMeanWindow(len(x), d.p.WindowS, d.p.Decay)
		}
		d.selfBuf = grow(d.selfBuf, len(x))
		unknown := 0
		if d.base.Unknown(host, x, d.selfBuf) {
			unknown = 1
		}
		n.own.add(unknown)
		n.lvl.add(d.selfBuf) // Unknown left x normalised by the node's own model there
	}
	n.last = max(n.last, t)
	for j := range d.dim {
		n.zSum[j] += z[j]
		n.xSum[j] += x[j]
	}
	n.nSum++
}

// Advance moves the clock to t (Unix ms) and evaluates every step whose
// end plus the grace period is at or before t.
func (d *Detector) Advance(t int64) {
	step := int64(d.p.StepS) * 1000
	if d.next == 0 {
		d.next = (t/step + 1) * step
	}
	d.clock = max(d.clock, t)
	if pending := (d.clock-int64(d.p.GraceS)*1000-d.next)/step + 1; pending > maxCatchUp {
		// A long silence (or a clock jump): no node is eligible in the
		// steps in between, so they only decay the alarm counts.
		skip := pending - 1
		f := math.Pow(d.p.AlarmDecay, float64(skip))
		for _, n := range d.nodes {
			n.count *= f
			n.indicted = n.count > d.p.IndictThreshold
			n.resetStep()
		}
		d.next += skip * step
	}
	for d.next+int64(d.p.GraceS)*1000 <= d.clock {
		d.evaluate(d.next)
		d.next += step
	}
}

// maxCatchUp is how many pending steps Advance evaluates one by one; more
// are skipped at once.
const maxCatchUp = 1000

// Flush evaluates the step in progress, as at the end of a recording.
func (d *Detector) Flush() {
	if d.next != 0 && d.clock > d.next-int64(d.p.StepS)*1000 {
		d.evaluate(d.next)
		d.next += int64(d.p.StepS) * 1000
	}
}

// evaluate compares the nodes at the step ending at end.
func (d *Detector) evaluate(end int64) {
	stale := end - 2*int64(d.p.StepS)*1000
	d.elig = d.elig[:0]
	for i, n := range d.nodes {
		if n.hist.n >= (d.p.WindowS+1)/2 && n.last > stale && n.nSum > 0 {
			d.elig = append(d.elig, i)
		}
	}
	m := len(d.elig)
	if m < d.p.MinNodes {
		for _, n := range d.nodes {
			n.count *= d.p.AlarmDecay
			n.indicted = n.count > d.p.IndictThreshold
			n.resetStep()
		}
		return
	}
	d.prepare(m)
	for k, i := range d.elig {
		d.ents[k] = d.nodes[i].hist.normalize(d.ps[k])
	}
	clear(d.exceed[:m])
	clear(d.peersN[:m])
	switch {
	case d.group != nil:
		d.compareGroups(m, end)
	case m <= d.p.MaxPairwise:
		for a := 0; a < m; a++ {
			for b := a + 1; b < m; b++ {
				if jsDistance(d.ps[a], d.ps[b], d.ents[a], d.ents[b]) > d.p.DistThreshold {
					d.exceed[a]++
					d.exceed[b]++
				}
			}
			d.peersN[a] = m - 1
		}
	default:
		// Each node against SampledPeers peers drawn uniformly: the share of
		// sampled peers it differs from estimates the share of all peers, so
		// "more than half of the peers" is kept in expectation (docs/PEER.md).
		for a := 0; a < m; a++ {
			for range d.p.SampledPeers {
				b := d.rng.IntN(m - 1)
				if b >= a {
					b++
				}
				if jsDistance(d.ps[a], d.ps[b], d.ents[a], d.ents[b]) > d.p.DistThreshold {
					d.exceed[a]++
				}
			}
			d.peersN[a] = d.p.SampledPeers
		}
	}
	clear(d.refs)
	d.alarmed, d.held = d.alarmed[:0], d.held[:0]
	own, away := d.selfCompare()
	wide := own >= d.p.MinNodes && float64(away) > d.base.clusterShare()*float64(own)
	if wide {
		d.markWide(end, away, own)
	} else if k := len(d.wide) - 1; k >= 0 && end-d.wide[k].To <= int64(d.p.WindowS)*1000 {
		// A window after a cluster-wide period the nodes' windows still
		// hold it: the last of its work ends on some nodes before others.
		wide = true
	}
	for k, i := range d.elig {
		n := d.nodes[i]
		n.stamp = end
		n.steps++
		n.differs = 0
		if d.peersN[k] > 0 {
			n.differs = float64(d.exceed[k]) / float64(d.peersN[k])
		}
		if d.peersN[k] > 0 {
			n.count *= d.p.AlarmDecay
		} else {
			// A step without peers doing its work (compareGroups) is no
			// evidence either way: its count holds, as if the step were not there.
			d.held = append(d.held, n.host)
		}
		differs := n.differs > d.p.PeerFraction
		if differs && n.selfOK && (!n.selfDiff || wide) {
			// It always looks like that beside such peers, or it is quieter
			// than its history, or the whole cluster left its history.
			differs = false
			n.absolved++
			if n.quiet {
				n.quietSteps++
			}
			if n.moreWork {
				n.moreWorkSteps++
			}
			if wide {
				n.wideSteps++
			}
		}
		if differs {
			d.alarmed = append(d.alarmed, n.host)
			n.alarms++
			n.count++
			ref := d.reference(k, m)
			for j := range d.dim {
				n.devZ[j] += d.zMeans[k][j] - ref.z[j]
				n.devX[j] += d.xMeans[k][j]
				n.devPeer[j] += ref.x[j]
			}
			n.nDev++
		}
		n.maxCnt = max(n.maxCnt, n.count)
		was := n.indicted
		n.indicted = n.count > d.p.IndictThreshold
		if n.indicted && !was {
			if n.firstIndict == 0 {
				n.firstIndict = end
			}
			in := Indictment{Host: n.host, Time: end, AlarmCount: n.count, Differs: n.differs, Confidence: ConfidenceLow}
			if n.selfOK {
				in.SelfUnknown, in.Strength = n.self, n.strength
				in.Confidence = strengthConfidence(n.strength)
				if n.beyond >= 0 {
					in.BeyondOwnRange = d.metrics[n.beyond]
				}
				if n.busier >= 0 {
					in.Busier = d.metrics[n.busier]
				}
			}
			d.indicts = append(d.indicts, in)
			if d.onIndict != nil {
				d.onIndict(in)
			}
		}
	}
	for _, n := range d.nodes {
		if n.stamp != end {
			n.count *= d.p.AlarmDecay
			n.indicted = n.count > d.p.IndictThreshold
		}
		n.resetStep()
	}
	if d.onStep != nil {
		d.onStep(end, d.alarmed, d.held)
	}
}

func (n *node) resetStep() {
	clear(n.zSum)
	clear(n.xSum)
	n.nSum = 0
}

// prepare sizes the scratch space for m compared nodes and fills each
// one's step means.
func (d *Detector) prepare(m int) {
	if cap(d.flatP) < m*d.bins {
		d.flatP = make([]float64, 2*m*d.bins)
	}
	d.ps = d.ps[:0]
	for k := range m {
		d.ps = append(d.ps, d.flatP[k*d.bins:(k+1)*d.bins])
	}
	d.ents = grow(d.ents, m)
	d.exceed = growInt(d.exceed, m)
	d.peersN = growInt(d.peersN, m)
	for len(d.zMeans) < m {
		d.zMeans = append(d.zMeans, make([]float64, d.dim))
		d.xMeans = append(d.xMeans, make([]float64, d.dim))
	}
	for k, i := range d.elig {
		n := d.nodes[i]
		inv := 1 / float64(n.nSum)
		for j := range d.dim {
			d.zMeans[k][j] = n.zSum[j] * inv
			d.xMeans[k][j] = n.xSum[j] * inv
		}
	}
}

// compareGroups counts, for each node, the peers of its workload group it
// differs from: every one up to MaxPairwise compared nodes, else
// SampledPeers drawn from the group (all of it when smaller). A node whose
// group has fewer than MinNodes members is not compared (peersN 0): late in
// a run the busy group may shrink to the culprit and one other node.
func (d *Detector) compareGroups(m int, end int64) {
	from := end - int64(d.p.WindowS)*1000
	d.groups = growInt(d.groups, m)
	d.evGroups = growInt(d.evGroups, m)
	members := map[int][]int{}
	for k, i := range d.elig {
		g := d.group(d.nodes[i].host, from, end)
		d.groups[k], d.evGroups[k] = g, g
		if d.refOf != nil && g == Any {
			d.evGroups[k] = d.refOf(d.nodes[i].host, from, end)
		}
		members[g] = append(members[g], k)
	}
	all := make([]int, m)
	for k := range all {
		all[k] = k
	}
	pairwise := m <= d.p.MaxPairwise
	if pairwise {
		d.dist = grow(d.dist, m*m)
		for a := 0; a < m; a++ {
			for b := a + 1; b < m; b++ {
				v := jsDistance(d.ps[a], d.ps[b], d.ents[a], d.ents[b])
				d.dist[a*m+b], d.dist[b*m+a] = v, v
			}
		}
	}
	for a := 0; a < m; a++ {
		peers := all
		if g := d.groups[a]; g != Any {
			peers = members[g]
		}
		if len(peers) < d.p.MinNodes {
			continue // no peers doing the same work: nothing to compare with
		}
		if pairwise || len(peers)-1 <= d.p.SampledPeers {
			for _, b := range peers {
				if b == a {
					continue
				}
				d.peersN[a]++
				var v float64
				if pairwise {
					v = d.dist[a*m+b]
				} else {
					v = jsDistance(d.ps[a], d.ps[b], d.ents[a], d.ents[b])
				}
				if v > d.p.DistThreshold {
					d.exceed[a]++
				}
			}
			continue
		}
		for range d.p.SampledPeers {
			b := peers[d.rng.IntN(len(peers))]
			for b == a {
				b = peers[d.rng.IntN(len(peers))]
			}
			d.peersN[a]++
			if jsDistance(d.ps[a], d.ps[b], d.ents[a], d.ents[b]) > d.p.DistThreshold {
				d.exceed[a]++
			}
		}
	}
}

// peerRef is the typical peer of a group in one step: per metric, the
// median over the group's nodes of their step means, raw and normalised.
type peerRef struct{ x, z []float64 }

// reference returns the typical peer of compared node k's group (every
// compared node without groups, or for group Any), computed once per step.
func (d *Detector) reference(k, m int) peerRef {
	g := Any
	if d.group != nil {
		g = d.evGroups[k]
	}
	if r, ok := d.refs[g]; ok {
		return r
	}
	if d.refs == nil {
		d.refs = map[int]peerRef{}
	}
	d.medCol = grow(d.medCol, m)
	r := peerRef{x: make([]float64, d.dim), z: make([]float64, d.dim)}
	for j := range d.dim {
		for _, means := range [2][][]float64{d.xMeans, d.zMeans} {
			col := d.medCol[:0]
			for b := range m {
				if g == Any || d.evGroups[b] == g {
					col = append(col, means[b][j])
				}
			}
			if &means[0] == &d.xMeans[0] {
				r.x[j] = median(col)
			} else {
				r.z[j] = median(col)
			}
		}
	}
	d.refs[g] = r
	return r
}

// median returns the median of v, reordering it.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return 0.5 * (v[n/2-1] + v[n/2])
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func growInt(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// Indictments returns every indictment so far, in time order.
func (d *Detector) Indictments() []Indictment { return slices.Clone(d.indicts) }

// Statuses returns every node's state, in the order the nodes appeared.
func (d *Detector) Statuses() []NodeStatus {
	out := make([]NodeStatus, 0, len(d.nodes))
	for _, n := range d.nodes {
		st := NodeStatus{Host: n.host, Steps: n.steps, Alarms: n.alarms, AlarmCount: n.count,
			MaxAlarmCount: n.maxCnt, Indicted: n.indicted, FirstIndicted: n.firstIndict, Differs: n.differs,
			OwnHistory: d.base.Has(n.host), SelfUnknown: n.self, Absolved: n.absolved, QuietSteps: n.quietSteps, WideSteps: n.wideSteps, MoreWorkSteps: n.moreWorkSteps}
		if n.nDev > 0 {
			inv := 1 / float64(n.nDev)
			for j, name := range d.metrics {
				st.Evidence = append(st.Evidence, MetricEvidence{Metric: name, Node: n.devX[j] * inv,
					Peers: n.devPeer[j] * inv, Z: n.devZ[j] * inv})
			}
		}
		out = append(out, st)
	}
	return out
}

// IndictmentType is the sample type under which indictments are stored
// (the collector's online peer diagnosis, docs/PEER.md): Host the
// indicted node, Time the step's end, Value the weighted alarm count,
// Text the indictment as JSON.
const IndictmentType = "peer_indictment"

// Sample is the indictment as it is stored, a sample of IndictmentType.
func (in Indictment) Sample() model.Sample {
	text, _ := json.Marshal(in)
	return model.Sample{Time: in.Time, Host: in.Host, Type: IndictmentType, Value: in.AlarmCount, Text: string(text)}
}

// selfCompare compares every compared node that has its own model with its
// history for the step (n.selfDiff), and returns how many have one and
// how many of those differ from it.
func (d *Detector) selfCompare() (own, away int) {
	for _, i := range d.elig {
		n := d.nodes[i]
		n.selfOK = n.own.n >= halfWindow(d.p.WindowS)
		n.beyond, n.busier, n.selfDiff, n.quiet, n.moreWork, n.strength = -1, -1, false, false, false, 0
		if !n.selfOK {
			continue
		}
		own++
		var p [2]float64
		n.own.normalize(p[:])
		n.self = p[1]
		var over float64
		n.beyond, over = d.base.beyond(n.host, &n.lvl)
		busier, up := d.base.busier(n.host, &n.lvl)
		n.busier = busier
		unknown := n.self > d.base.Params.SelfShare
		n.quiet = unknown && busier < 0
		if n.beyond < 0 {
			over = 0
		}
		if !unknown || busier < 0 {
			up = 0
		}
		n.strength = max(over, up)
		left := n.strength >= max(d.base.Params.MinStrength, 1)
		// More processes than in any window of its history: it was given
		// more work (more executors or containers), and runs above its
		// busiest window for that; a hog adds a process or a few threads.
		// It left its history all the same (cluster-wide periods count it).
		n.moreWork = left && d.base.moreWork(n.host, &n.lvl)
		n.selfDiff = left && !n.moreWork
		if left {
			away++
		}
	}
	return own, away
}

// WidePeriod is a stretch of steps in which more than ClusterShare of the
// nodes with their own history differed from it: the cluster as a whole
// left its history (a busier period, a new workload), which is no node's
// fault.
type WidePeriod struct {
	From int64 `json:"fromMs"`
	To   int64 `json:"toMs"`
	// Away is the most nodes away from their history in one of its steps,
	// Of how many had one.
	Away int `json:"away"`
	Of   int `json:"of"`
}

// markWide records the step ending at end as cluster-wide.
func (d *Detector) markWide(end int64, away, of int) {
	step := int64(d.p.StepS) * 1000
	if k := len(d.wide) - 1; k >= 0 && d.wide[k].To == end-step {
		w := &d.wide[k]
		w.To, w.Away, w.Of = end, max(w.Away, away), max(w.Of, of)
		return
	}
	d.wide = append(d.wide, WidePeriod{From: end - step, To: end, Away: away, Of: of})
}

// WidePeriods returns the cluster-wide periods so far.
func (d *Detector) WidePeriods() []WidePeriod { return slices.Clone(d.wide) }

// clusterShare is the baseline's ClusterShare (1 without a baseline:
// never cluster-wide).
func (b *Baseline) clusterShare() float64 {
	if b == nil {
		return 1
	}
	return b.Params.ClusterShare
}
