package nodediag

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// SelfTrained is Peers.Profile when no profile was given and one was
// trained on the analyzed metrics themselves.
const SelfTrained = "self-trained"

// Peers is Ganesha's peer comparison over one application's span.
type Peers struct {
	// Profile is the profile's file, or SelfTrained; K its states.
	Profile string `json:"profile"`
	K       int    `json:"k"`
	// Vectors were labelled (Unknown of them "unknown"); Dropped rows
	// lacked a Ganesha metric. Hosts is how many sample hosts took part.
	Vectors int         `json:"vectors"`
	Unknown int         `json:"unknownVectors"`
	Dropped int         `json:"droppedVectors"`
	Hosts   int         `json:"hosts"`
	Params  peer.Params `json:"params"`
	// WorkloadAware says peers were grouped by the attempts the logs place on them.
	WorkloadAware bool `json:"workloadAware"`
	// Steps are the comparison steps' ends (Unix ms).
	Steps []int64 `json:"steps"`
	// Culprits and Innocent are the indicted nodes judged culprit, and
	// those judged innocent peers disturbed by a culprit (peer.Attribute).
	Culprits []Indicted `json:"culprits"`
	Innocent []Indicted `json:"innocent"`
}

// Indicted is one indicted node's verdict with its evidence.
type Indicted struct {
	peer.Verdict
	// Distances are its square-root Jensen–Shannon distances to its peers
	// at its first indictment.
	Distances Distances `json:"distances"`
	// History is its weighted alarm count after every step (as Steps),
	// and Alarmed the steps in which it raised an alarm (indices into Steps).
	History []float64 `json:"alarmCount"`
	Alarmed []int     `json:"alarmedSteps"`
	// Confidence is its first indictment's (peer.Confidence*): low when no
	// history of its own said whether it always looks like that.
	Confidence string `json:"confidence"`
}

// Distances summarise a node's label-histogram distances to its peers at
// one instant (Ganesha §4.3: square-root JS divergence, nats, at most
// √ln 2 ≈ 0.833).
type Distances struct {
	AtMs int64 `json:"atMs"`
	// Peers is how many peers it was compared with (its workload group's
	// members when the comparison is workload-aware), Beyond how many of
	// them were farther than Threshold.
	Peers     int     `json:"peers"`
	Beyond    int     `json:"beyond"`
	Threshold float64 `json:"threshold"`
	// DetectorShare is the share of compared peers beyond the threshold
	// the detector itself recorded at the indictment (peer.Indictment's
	// Differs); Beyond/Peers recomputes it from the labels.
	DetectorShare float64        `json:"detectorShare"`
	Median        float64        `json:"median"`
	Min           float64        `json:"min"`
	Max           float64        `json:"max"`
	ToPeers       []PeerDistance `json:"toPeers"`
}

// PeerDistance is the distance to one peer.
type PeerDistance struct {
	Host     string  `json:"host"`
	Distance float64 `json:"distance"`
}

// hostLabels are one host's labels in time order.
type hostLabels struct {
	times  []int64
	labels []uint8
}

// entry is one row of one host's frame, in the merged time order.
type entry struct {
	t    int64
	host int32
	row  int32
}

// ganesha runs Ganesha's deployment phase over every sample host's rows in
// [from, to] (each host's rows shifted by its clock offset) with prof
// (nil: train one on those rows), workload-aware when w is not nil, and
// attributes the indictments.
func ganesha(fs *correlate.Frames, names map[string]string, offsets map[string]int64, from, to int64,
	prof *peer.Profile, profName string, opt Options) (*Peers, error) {
	p := opt.Peer
	if err := p.Validate(); err != nil {
		return nil, err
	}
	frames := fs.Hosts()
	hosts := make([]string, len(frames))
	for h, f := range frames {
		hosts[h] = f.Host
		if n, ok := names[f.Host]; ok {
			hosts[h] = n
		}
	}
	es := entries(frames, offsets, [][2]int64{{from, to}})
	dim := len(peer.GaneshaMetrics)
	vec := func(e entry, x []float64) bool { return vector(frames, e, x) }
	res := &Peers{Profile: profName, Params: p, WorkloadAware: opt.Workload != nil,
		Culprits: []Indicted{}, Innocent: []Indicted{}, Steps: []int64{}}
	if prof == nil {
		var err error
		if prof, err = selfTrain(frames, es, opt.Train, p); err != nil {
			return nil, err
		}
		res.Profile = SelfTrained
	}
	if !slices.Equal(prof.Metrics(), peer.GaneshaMetrics) {
		return nil, fmt.Errorf("peer profile %s: metrics %v, want Ganesha's %d", profName, prof.Metrics(), dim)
	}
	res.K = prof.K
	det := peer.NewDetector(prof.Bins(), prof.Metrics(), p, nil)
	if opt.Workload != nil {
		det.SetWorkload(opt.Workload)
	}
	if opt.Baseline != nil {
		if err := opt.Baseline.Check(prof.Metrics()); err != nil {
			return nil, err
		}
		det.SetBaseline(opt.Baseline)
	}
	var alarmed, held [][]string
	det.SetStepHook(func(end int64, a, h []string) {
		res.Steps = append(res.Steps, end)
		alarmed = append(alarmed, slices.Clone(a))
		held = append(held, slices.Clone(h))
	})
	labels := make([]hostLabels, len(frames))
	seen := make([]bool, len(frames))
	x, z := make([]float64, dim), make([]float64, dim)
	for _, e := range es {
		if !vec(e, x) {
			res.Dropped++
			continue
		}
		l := prof.Label(x, z)
		res.Vectors++
		if l == prof.Bins()-1 {
			res.Unknown++
		}
		seen[e.host] = true
		hl := &labels[e.host]
		hl.times, hl.labels = append(hl.times, e.t), append(hl.labels, uint8(l))
		det.Add(hosts[e.host], e.t, l, z, x)
	}
	det.Flush()
	for _, s := range seen {
		if s {
			res.Hosts++
		}
	}
	byHost := map[string]int{}
	for h, n := range hosts {
		byHost[n] = h
	}
	first := map[string]peer.Indictment{}
	for _, in := range det.Indictments() {
		if _, ok := first[in.Host]; !ok {
			first[in.Host] = in
		}
	}
	verdicts := peer.Attribute(det.Statuses(), opt.Workload, p)
	separateFaults(verdicts)
	for _, v := range verdicts {
		in := Indicted{Verdict: v, Alarmed: []int{}, Confidence: first[v.Host].Confidence}
		in.History, in.Alarmed = history(v.Host, res.Steps, alarmed, held, p.AlarmDecay)
		in.Distances = distances(byHost[v.Host], v.FirstIndicted, hosts, labels, prof.Bins(), p, opt.Workload)
		in.Distances.DetectorShare = first[v.Host].Differs
		if v.Role == "culprit" {
			res.Culprits = append(res.Culprits, in)
		} else {
			res.Innocent = append(res.Innocent, in)
		}
	}
	return res, nil
}

// history replays a host's exponentially weighted alarm count over the
// steps, c ← decay·c + alarm, exactly as the detector counts it (held: the
// steps it had no peers in, where its count holds).
func history(host string, steps []int64, alarmed, held [][]string, decay float64) ([]float64, []int) {
	h := make([]float64, len(steps))
	idx := []int{}
	c := 0.0
	for i := range steps {
		if !slices.Contains(held[i], host) {
			c *= decay
		}
		if slices.Contains(alarmed[i], host) {
			c++
			idx = append(idx, i)
		}
		h[i] = math.Round(c*1000) / 1000
	}
	return h, idx
}

// distances computes host k's decayed label histogram at time at (its
// last Params.WindowS labels up to the step's grace, a label a samples old
// weighing Decay^a, Ganesha §4.3) and its distance to every peer's: the
// hosts with at least half a window of labels and one within two steps,
// restricted to k's workload group when w is not nil (as the detector
// compares them).
func distances(k int, at int64, hosts []string, labels []hostLabels, bins int, p peer.Params, w *peer.Workload) Distances {
	d := Distances{AtMs: at, Threshold: p.DistThreshold, ToPeers: []PeerDistance{}}
	grace, step := int64(p.GraceS)*1000, int64(p.StepS)*1000
	cut := at + grace
	stale := at - 2*step
	hist := func(hl *hostLabels) ([]float64, bool) {
		end, _ := slices.BinarySearch(hl.times, cut)
		start := max(0, end-p.WindowS)
		// As the detector: half a window of labels, the last one recent,
		// and one since the previous step was evaluated.
		if end-start < (p.WindowS+1)/2 || hl.times[end-1] <= stale || hl.times[end-1] < at-step+grace {
			return nil, false
		}
		h := make([]float64, bins)
		wt, sum := 1.0, 0.0
		for i := end - 1; i >= start; i-- {
			h[hl.labels[i]] += wt
			sum += wt
			wt *= p.Decay
		}
		for i := range h {
			h[i] /= sum
		}
		return h, true
	}
	if k >= len(labels) {
		return d
	}
	own, ok := hist(&labels[k])
	if !ok {
		return d
	}
	from := at - int64(p.WindowS)*1000
	group := peer.Any
	if w != nil {
		group = w.Group(hosts[k], from, at)
	}
	var ds []float64
	for j := range labels {
		if j == k {
			continue
		}
		if w != nil && group != peer.Any && w.Group(hosts[j], from, at) != group {
			continue
		}
		h, ok := hist(&labels[j])
		if !ok {
			continue
		}
		v := stats.JSDistance(own, h)
		ds = append(ds, v)
		d.ToPeers = append(d.ToPeers, PeerDistance{Host: hosts[j], Distance: math.Round(v*1000) / 1000})
		if v > p.DistThreshold {
			d.Beyond++
		}
	}
	d.Peers = len(ds)
	if len(ds) > 0 {
		d.Min, d.Max = slices.Min(ds), slices.Max(ds)
		d.Median = median(ds)
	}
	slices.SortFunc(d.ToPeers, func(a, b PeerDistance) int { return cmp.Compare(b.Distance, a.Distance) })
	return d
}
