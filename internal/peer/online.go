package peer

import (
	"log/slog"
	"slices"
	"sync"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// Labeler turns a raw metric vector into a Ganesha state label: the most
// likely mixture component of a trained Profile, or its "unknown" bin.
type Labeler interface {
	// Metrics names the vector's components, in order.
	Metrics() []string
	// Bins is the number of labels, "unknown" included.
	Bins() int
	// Label writes x's normalised form into z and returns its label in 0..Bins()-1.
	Label(x, z []float64) int
}

// Online is Ganesha's deployment phase fed sample by sample, as the
// collector receives them: it assembles each node's vectors, labels them,
// and runs the Detector. It is safe for concurrent use; indictments are
// logged, kept for Indictments and Statuses, and exported to Prometheus
// by Collector.
type Online struct {
	mu  sync.Mutex
	lab Labeler
	asm *Assembler
	det *Detector
	z   []float64
	log *slog.Logger
	// vectors counts the labelled vectors, unknowns those labelled unknown.
	vectors, unknowns int64
	// onIndict, when set, receives each indictment after it is logged.
	onIndict func(Indictment)
}

// NewOnline returns an Online detector labelling with lab and comparing
// with p; log (nil: slog.Default) receives one record per indictment.
func NewOnline(lab Labeler, p Params, log *slog.Logger) (*Online, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	o := &Online{lab: lab, asm: NewAssembler(lab.Metrics()), z: make([]float64, len(lab.Metrics())), log: log}
	o.det = NewDetector(lab.Bins(), lab.Metrics(), p, func(in Indictment) {
		log.Warn("peer: node indicted", "host", in.Host, "timeMs", in.Time,
			"alarmCount", in.AlarmCount, "differsFromPeers", in.Differs)
		if o.onIndict != nil {
			o.onIndict(in)
		}
	})
	return o, nil
}

// OnIndict sets fn to receive every indictment (for example to store it),
// called with Online's lock held: fn must not call back into o and should
// hand slow work to another goroutine. Set it before observing samples.
func (o *Online) OnIndict(fn func(Indictment)) { o.onIndict = fn }

// Observe adds samples (of any host, in time order per host).
func (o *Online) Observe(samples []model.Sample) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range samples {
		o.add(&samples[i])
	}
}

// ObserveBatch adds an agent's batch; it has the collector's OnBatch signature.
func (o *Online) ObserveBatch(b *wire.Batch) {
	if b != nil {
		o.Observe(b.Samples)
	}
}

// ObserveSample adds one sample.
func (o *Online) ObserveSample(s *model.Sample) {
	o.mu.Lock()
	o.add(s)
	o.mu.Unlock()
}

func (o *Online) add(s *model.Sample) {
	o.asm.Add(s, o.vector)
}

// vector labels one complete vector and hands it to the detector.
func (o *Online) vector(host string, t int64, x []float64) {
	l := o.lab.Label(x, o.z)
	o.vectors++
	if l == o.lab.Bins()-1 {
		o.unknowns++
	}
	o.det.Add(host, t, l, o.z, x)
}

// ObserveVector adds host's complete vector x of the labeler's metrics at
// time t (Unix ms), for callers that assembled vectors themselves (Table).
func (o *Online) ObserveVector(host string, t int64, x []float64) {
	o.mu.Lock()
	o.vector(host, t, x)
	o.mu.Unlock()
}

// Advance moves the clock to t (Unix ms) without a sample, so that steps
// are evaluated while nodes are silent.
func (o *Online) Advance(t int64) {
	o.mu.Lock()
	o.det.Advance(t)
	o.mu.Unlock()
}

// Flush evaluates the step in progress (at the end of a recording).
func (o *Online) Flush() {
	o.mu.Lock()
	o.det.Flush()
	o.mu.Unlock()
}

// Indictments returns every indictment so far, in time order.
func (o *Online) Indictments() []Indictment {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.det.Indictments()
}

// WidePeriods returns the cluster-wide periods so far (Detector.WidePeriods).
func (o *Online) WidePeriods() []WidePeriod {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.det.WidePeriods()
}

// Statuses returns every node's state, most alarmed first.
func (o *Online) Statuses() []NodeStatus {
	o.mu.Lock()
	st := o.det.Statuses()
	o.mu.Unlock()
	slices.SortStableFunc(st, func(a, b NodeStatus) int {
		switch {
		case a.MaxAlarmCount > b.MaxAlarmCount:
			return -1
		case a.MaxAlarmCount < b.MaxAlarmCount:
			return 1
		}
		return 0
	})
	return st
}

// Counts returns how many vectors were labelled, how many of them
// "unknown", and how many incomplete vectors were dropped.
func (o *Online) Counts() (vectors, unknowns, dropped int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.vectors, o.unknowns, o.asm.Dropped()
}

// SetBaseline makes the detector compare each node with its own history
// too (Detector.SetBaseline); b must be over the labeler's metrics.
func (o *Online) SetBaseline(b *Baseline) error {
	if b != nil {
		if err := b.Check(o.lab.Metrics()); err != nil {
			return err
		}
	}
	o.mu.Lock()
	o.det.SetBaseline(b)
	o.mu.Unlock()
	return nil
}

// SetWorkload makes the comparison workload-aware (Detector.SetWorkload);
// nil restores plain Ganesha.
func (o *Online) SetWorkload(w *Workload) {
	o.mu.Lock()
	o.det.SetWorkload(w)
	o.mu.Unlock()
}
