package sim

import (
	"bufio"
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Resource channels recorded per node, as rates: cores for chUser and
// chSys, bytes/s for the byte channels, disk busy fraction for chBusy.
const (
	chUser = iota
	chSys
	chDiskR
	chDiskW
	chRx
	chTx
	chBusy
	numCh
)

// ringLen is how many sample buckets ahead a node's ring holds; resource
// use further ahead waits in an overflow map.
const ringLen = 256

// MetricNames are the node metrics written, in order: model.NodeMetricNames.
// Units are in docs/SIMULATOR.md.
var MetricNames = model.NodeMetricNames

// nodeSeries accumulates one sampled node's resource use as a difference
// array over sample buckets, so that adding an interval costs four writes
// whatever its length.
type nodeSeries struct {
	ring   [ringLen][numCh]float64
	cur    [numCh]float64
	over   map[int64]*[numCh]float64
	load   float64
	prefix []byte // ",host,"
}

// metricSink turns recorded resource use into per-node samples and streams
// them as CSV (timestamp_ms,host,metric,value), never holding more than the
// ring of future buckets.
type metricSink struct {
	off     bool
	width   int64 // bucket width in ms
	base    int64 // start of bucket 0
	next    int64 // next bucket to emit
	series  []*nodeSeries
	nodes   []*node
	w       *bufio.Writer
	rng     *rand.Rand
	rows    int64
	buf     []byte
	samples int64
}

func newMetricSink(sc *Scenario, cl *cluster, w io.Writer, rng *rand.Rand) *metricSink {
	s := &metricSink{off: sc.Metrics.Off || w == nil, width: int64(sc.Metrics.IntervalS) * 1000, base: sc.StartMs,
		nodes: cl.nodes, rng: rng}
	s.series = make([]*nodeSeries, len(cl.nodes))
	if s.off {
		return s
	}
	s.w = bufio.NewWriterSize(w, 1<<20)
	for i, n := range cl.nodes {
		if i%sc.Metrics.EveryNth == 0 || len(n.faults) > 0 {
			n.sampled = true
			s.series[i] = &nodeSeries{prefix: []byte("," + n.name + ",")}
		}
	}
	s.w.WriteString("timestamp_ms,host,metric,value\n")
	return s
}

// add records rate on channel ch of n over [start, end) ms.
func (s *metricSink) add(n *node, ch int, start, end int64, rate float64) {
	if s.off || end <= start || rate == 0 {
		return
	}
	ns := s.series[n.idx]
	if ns == nil {
		return
	}
	fs := float64(start-s.base) / float64(s.width)
	fe := float64(end-s.base) / float64(s.width)
	b0, b1 := math.Floor(fs), math.Floor(fe)
	f0, f1 := fs-b0, fe-b1
	s.put(ns, int64(b0), ch, rate*(1-f0))
	s.put(ns, int64(b0)+1, ch, rate*f0)
	s.put(ns, int64(b1), ch, -rate*(1-f1))
	s.put(ns, int64(b1)+1, ch, -rate*f1)
}

func (s *metricSink) put(ns *nodeSeries, b int64, ch int, v float64) {
	if v == 0 {
		return
	}
	if b < s.next {
		b = s.next // never rewrite emitted buckets (a kill at the current instant)
	}
	if b-s.next < ringLen {
		ns.ring[b%ringLen][ch] += v
		return
	}
	if ns.over == nil {
		ns.over = map[int64]*[numCh]float64{}
	}
	o := ns.over[b]
	if o == nil {
		o = new([numCh]float64)
		ns.over[b] = o
	}
	o[ch] += v
}

// memAdd changes the memory executors hold on n.
func (s *metricSink) memAdd(n *node, bytes float64) { n.mem += bytes }

// emit writes the samples of bucket s.next for every sampled node.
func (s *metricSink) emit() error {
	b := s.next
	ts := s.base + (b+1)*s.width
	var tsb []byte
	tsb = strconv.AppendInt(tsb, ts, 10)
	mid := s.base + b*s.width + s.width/2
	for i, ns := range s.series {
		if ns == nil {
			continue
		}
		slot := &ns.ring[b%ringLen]
		for c := range numCh {
			ns.cur[c] += slot[c]
			slot[c] = 0
		}
		if o, ok := ns.over[b]; ok {
			for c := range numCh {
				ns.cur[c] += o[c]
			}
			delete(ns.over, b)
		}
		// Move overflow entries that now fit into the ring.
		if len(ns.over) > 0 {
			for k, o := range ns.over {
				if k-b-1 < ringLen && k > b {
					for c := range numCh {
						ns.ring[k%ringLen][c] += o[c]
					}
					delete(ns.over, k)
				}
			}
		}
		var v [len(MetricNames)]float64
		s.derive(s.nodes[i], ns, mid, &v)
		s.buf = s.buf[:0]
		for k, name := range MetricNames {
			s.buf = append(s.buf, tsb...)
			s.buf = append(s.buf, ns.prefix...)
			s.buf = append(s.buf, name...)
			s.buf = append(s.buf, ',')
			s.buf = appendCenti(s.buf, v[k])
			s.buf = append(s.buf, '\n')
		}
		if _, err := s.w.Write(s.buf); err != nil {
			return err
		}
		s.rows += int64(len(MetricNames))
		s.samples++
	}
	s.next++
	return nil
}

// derive computes the metrics of node n for one bucket from its recorded
// resource use, the faults active at t and small measurement noise.
func (s *metricSink) derive(n *node, ns *nodeSeries, t int64, v *[len(MetricNames)]float64) {
	cores := float64(n.class.Cores)
	diskBW := n.class.DiskMBps * mb
	c := ns.cur
	user := math.Max(c[chUser], 0)
	sys := math.Max(c[chSys], 0) + 0.02*cores
	dr, dw := math.Max(c[chDiskR], 0), math.Max(c[chDiskW], 0)
	rx, tx := math.Max(c[chRx], 0), math.Max(c[chTx], 0)
	busy := math.Max(c[chBusy], 0)
	running := float64(n.running)
	memPct := (0.08*n.class.MemoryGB*1024*mb + n.mem) / (n.class.MemoryGB * 1024 * mb) * 100
	var hogCtx, faults, pin, pout float64
	blocked := 0.0
	for _, f := range n.faults {
		if !f.active(t) {
			continue
		}
		switch f.spec.Kind {
		case FaultCPUHog:
			user += cores
			hogCtx += 15000
		case FaultDiskHog:
			dw += hogDiskShare * diskBW
			busy += 1.2
		case FaultMemory:
			memPct = 97
			pin += 25 * 1024
			pout += 35 * 1024
			faults += 40000
			busy += 0.4
		case FaultSlowDisk:
			busy *= 1 / slowDiskFactor
		case FaultHang:
			blocked += running
		}
	}
	var roleLoad, roleProcs float64
	if r := n.role; r != nil {
		user += r.CPUShare * cores
		hogCtx += 2000 * r.CPUShare * cores
		roleLoad, roleProcs = r.Load, float64(r.Procs)
	}
	demand := user + sys
	scale := 1.0
	if demand > cores {
		scale = cores / demand
	}
	userPct := 100 * user * scale / cores
	sysPct := 100 * sys * scale / cores
	idle := math.Max(0, 100-userPct-sysPct)
	util := math.Min(1, busy)
	iowait := idle * util * 0.6
	r := s.rng.Uint64()
	j := func(k uint) float64 { return 0.95 + 0.1*float64((r>>(k*3))&0xff)/255 }
	runnable := demand + 1
	alpha := math.Exp(-float64(s.width) / 60000)
	ns.load = ns.load*alpha + (runnable+blocked+roleLoad+util*running*0.5)*(1-alpha)
	v[0] = userPct * j(0)
	v[1] = sysPct * j(1)
	v[2] = iowait * j(2)
	v[3] = (700 + 1800*running + (dr+dw)/mb*25 + (rx+tx)/mb*40 + hogCtx) * j(3)
	v[4] = math.Round(runnable * j(4))
	v[5] = math.Round(420 + roleProcs + 40*running + n.mem/memPerCore*60)
	v[6] = ns.load
	v[7] = rx * j(5)
	v[8] = tx * j(6)
	v[9] = (dr/1024 + pin) * j(7)
	v[10] = (dw/1024 + pout) * j(8)
	v[11] = (1500 + 900*running + faults) * j(9)
	v[12] = dr * j(7)
	v[13] = dw * j(8)
	v[14] = math.Min(100, v[0]+v[1])
	v[15] = math.Min(100, memPct*j(10))
	v[16] = v[2]
	v[17] = 1000 * busy * (1 + busy) * j(11)
	v[18] = v[12]
	v[19] = v[13]
	v[20] = v[8]
	v[21] = v[7]
}

// flush writes out what is buffered.
func (s *metricSink) flush() error {
	if s.off {
		return nil
	}
	return s.w.Flush()
}

// appendCenti appends v rounded to hundredths in its shortest decimal form
// ("12", "0.5", "3.25").
func appendCenti(b []byte, v float64) []byte {
	c := int64(math.Round(v * 100))
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	switch f := c % 100; {
	case f == 0:
	case f%10 == 0:
		b = append(b, '.', byte('0'+f/10))
	default:
		b = append(b, '.', byte('0'+f/10), byte('0'+f%10))
	}
	return b
}
