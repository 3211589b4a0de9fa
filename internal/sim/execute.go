package sim

import (
	"math"

	"github.com/clusterlens/clusterlens/internal/model"
)

// work is what executing one attempt produced: its end, outcome, the bytes
// it moved and the times of its phases.
type work struct {
	finish     int64
	failed     bool
	nodeHung   bool
	hungTask   bool
	shuffleOut int64
	m          model.TaskMetrics
	// phase ends (epoch ms): map function (MapReduce maps), shuffle and merge (reduces)
	mapEnd, shuffleEnd, sortEnd int64
}

// phases lays out an attempt's phases one after another from its launch and
// records the resources each uses for node metrics.
type phases struct {
	cur  int64
	ivs  []interval
	name string // of the phase being laid out
	// overhead marks phases bound by no resource of the work (scheduling,
	// deserialization, JVM start, result serialization).
	overhead bool
	// recs are the attempt's phases, kept when phases are written.
	recs []phaseRec
	keep bool
	// byRes is the time spent in phases bound by CPU, disk and network.
	byRes [numRes]int64
	// sd is the slowdown of the phase added next (note), acc the attempt's
	// phase times peeled of their causes (causes.go).
	sd  slowdown
	acc causeAcc
}

// Resources a phase is bound by.
const (
	resCPU = iota
	resDisk
	resNet
	numRes
)

// boundBy says which resource a phase with these uses waits on: the
// network when it moves bytes between nodes, else the disk when it reads or
// writes, else the CPU when it computes; -1 for overheads.
func boundBy(us []use) int {
	res := -1
	for _, u := range us {
		switch {
		case u.ch == chRx || u.ch == chTx:
			return resNet
		case u.ch == chDiskR || u.ch == chDiskW:
			res = resDisk
		case u.ch == chUser && u.amount >= 0.9 && res < 0:
			res = resCPU
		}
	}
	return res
}

// use is a resource a phase uses on a node: cores for CPU channels, bytes
// for byte channels, seconds of disk time for chBusy.
type use struct {
	n      *node
	ch     int
	amount float64
}

// add appends a phase of ms milliseconds using us.
func (p *phases) add(ms float64, us ...use) {
	d := int64(math.Round(ms))
	if d <= 0 {
		p.sd = noSlowdown
		return
	}
	p.account(d)
	r := boundBy(us)
	if p.overhead {
		r = -1
	}
	if r >= 0 {
		p.byRes[r] += d
	}
	if p.keep {
		n := len(p.recs)
		if n == 0 || p.recs[n-1].name != p.name || p.recs[n-1].end != p.cur {
			p.recs = append(p.recs, phaseRec{name: p.name, start: p.cur, end: p.cur})
			n++
		}
		p.recs[n-1].end += d
		if r >= 0 {
			p.recs[n-1].resMs[r] += d
		}
	}
	for _, u := range us {
		if u.n == nil || u.amount == 0 || !u.n.sampled {
			continue
		}
		rate := u.amount
		if u.ch != chUser && u.ch != chSys {
			rate = u.amount / (float64(d) / 1000)
		}
		p.ivs = append(p.ivs, interval{n: u.n, ch: u.ch, start: p.cur, end: p.cur + d, rate: rate})
	}
	p.cur += d
}

// begin names the phases added next.
func (p *phases) begin(name string) {
	p.name = name
	switch name {
	case "scheduler-delay", "deserialize", "jvm-start", "result-serialize":
		p.overhead = true
	default:
		p.overhead = false
	}
}

// phaseRec is one phase of an attempt: name, window and the time its parts
// waited on each resource.
type phaseRec struct {
	name       string
	start, end int64
	resMs      [numRes]int64
}

// resource names the resource the phase mostly waited on ("" for overheads).
func (r *phaseRec) resource() string {
	best, name := int64(0), ""
	for i, ms := range r.resMs {
		if ms > best {
			best, name = ms, [...]string{"cpu", "disk", "network"}[i]
		}
	}
	return name
}

// cut drops resource use after t (a failure or hang).
func (p *phases) cut(t int64) {
	p.recs = cutRecs(p.recs, t)
	out := p.ivs[:0]
	for _, iv := range p.ivs {
		if iv.start >= t {
			continue
		}
		iv.end = min(iv.end, t)
		out = append(out, iv)
	}
	p.ivs = out
}

// resources are a node's speeds for one attempt at its launch: the
// concurrency it shares the node with is fixed then, faults may start or
// end during the attempt (see span).
type resources struct {
	cpu  float64 // relative CPU speed at launch
	disk float64 // bytes/s of disk this attempt gets at launch
}

func (e *engine) resourcesOf(n *node) resources {
	return resources{cpu: e.cpuAt(n, e.now), disk: e.diskAt(n, e.now)}
}

func (e *engine) cpuAt(n *node, t int64) float64 {
	f := n.class.CPUSpeed * n.cpuFactor(t)
	if n.role != nil {
		f *= 1 - n.role.CPUShare // the role's processes keep that share of the cores
	}
	return f
}

func (e *engine) diskAt(n *node, t int64) float64 {
	return n.class.DiskMBps * mb * n.diskFactor(t) / math.Max(1, e.load(n)/2)
}

// load is how many attempts share n's disk and network with the attempt
// being laid out: the cores its application holds there. (Other
// applications' attempts are left out: they mostly compute or wait.)
func (e *engine) load(n *node) float64 {
	if e.cur == nil || e.cur.coresOn == nil {
		return 1
	}
	return float64(e.cur.coresOn[n.idx])
}

// netRateAt is the throughput of one transfer between a and b at t (bytes/s).
func (e *engine) netRateAt(a, b *node, t int64) float64 {
	ra := a.netMBps(t) * mb / math.Max(1, e.load(a)/4)
	rb := b.netMBps(t) * mb / math.Max(1, e.load(b)/4)
	return math.Min(ra, rb)
}

// span is how long (ms) a phase starting at start lasts when, under the
// conditions at time t, it would take msAt(t): progress follows the faults of
// the nodes involved as they start and end during the phase.
func span(start int64, msAt func(t int64) float64, nodes ...*node) float64 {
	t := float64(start)
	left := 1.0
	for range 64 {
		ms := msAt(int64(t))
		if ms <= 0 {
			return t - float64(start)
		}
		next := math.Inf(1)
		for _, n := range nodes {
			for _, f := range n.faults {
				for _, b := range [2]int64{f.start, f.end} {
					if fb := float64(b); fb > t && fb < next {
						next = fb
					}
				}
			}
		}
		if t+left*ms <= next {
			return t + left*ms - float64(start)
		}
		left -= (next - t) / ms
		t = next
	}
	return t - float64(start)
}

// diskMs is the time to move bytes through n's disk from p's current time.
func (e *engine) diskMs(p *phases, n *node, bytes float64, noise float64) float64 {
	return span(p.cur, func(t int64) float64 { return bytes / e.diskAt(n, t) * 1000 * noise }, n)
}

// netMs is the time to move bytes from a to b from p's current time,
// bounded by a's disk when fromDisk.
func (e *engine) netMs(p *phases, a, b *node, bytes float64, fromDisk bool, noise float64) float64 {
	return span(p.cur, func(t int64) float64 {
		r := e.netRateAt(a, b, t)
		if fromDisk {
			r = math.Min(r, e.diskAt(a, t))
		}
		return bytes / r * 1000 * noise
	}, a, b)
}

// readInput adds the phase reading a task's input: from the local disk, a
// cached partition, or a replica over the network.
func (e *engine) readInput(p *phases, t *taskRun, loc model.Locality, r resources, noise float64) int64 {
	st, sp, nd := t.st, t.st.plan, t.exec.node
	if sp.input != inHDFS && sp.input != inCached {
		return 0
	}
	b := sp.inBytes[t.index]
	switch sp.input {
	case inHDFS:
		if loc == model.NodeLocal || containsNode(sp.prefs[t.index], nd.idx) {
			ms := e.diskMs(p, nd, float64(b), noise)
			p.note(e.diskSlow(nd, float64(b), noise, noise, ms))
			ref := p.acc.ref
			p.add(ms, use{nd, chDiskR, float64(b)}, use{nd, chBusy, float64(b) / r.disk},
				use{nd, chUser, 0.15}, use{nd, chSys, 0.1})
			p.acc.readRef += p.acc.ref - ref
			p.acc.readLocal += p.acc.ref - ref
			return b
		}
		src := e.cl.nodes[sp.prefs[t.index][0]]
		for _, c := range sp.prefs[t.index] {
			if e.cl.nodes[c].rack == nd.rack {
				src = e.cl.nodes[c]
				break
			}
		}
		rs := e.resourcesOf(src)
		ms := e.netMs(p, src, nd, float64(b), true, noise)
		notePeers(src, nd, p.cur, p.cur+int64(ms))
		p.note(e.netSlow(src, nd, float64(b), true, noise, ms))
		ref := p.acc.ref
		defer func() {
			p.acc.readRef += p.acc.ref - ref
			p.acc.readLocal += float64(b) / e.ref.disk * 1000
		}()
		p.add(ms, use{src, chDiskR, float64(b)}, use{src, chBusy, float64(b) / rs.disk},
			use{src, chTx, float64(b)}, use{nd, chRx, float64(b)}, use{nd, chUser, 0.15}, use{nd, chSys, 0.15})
		return b
	case inCached:
		ref := p.acc.ref
		local := float64(b) / (2000 * mb) * 1000
		defer func() {
			p.acc.readRef += p.acc.ref - ref
			p.acc.readLocal += local
		}()
		if loc == model.ProcessLocal {
			p.add(local, use{nd, chUser, 1})
			local = p.acc.ref - ref // the same phase, rounded
			return b
		}
		var src *node
		if int(t.index) < len(st.app.cachedAt) && st.app.cachedAt[t.index] != nil {
			src = st.app.cachedAt[t.index].node
		}
		if src == nil || src == nd {
			ms := e.diskMs(p, nd, float64(b), noise)
			p.note(e.diskSlow(nd, float64(b), noise, noise, ms))
			p.add(ms, use{nd, chDiskR, float64(b)}, use{nd, chBusy, float64(b) / r.disk})
			return b
		}
		ms := e.netMs(p, src, nd, float64(b), false, noise)
		notePeers(src, nd, p.cur, p.cur+int64(ms))
		p.note(e.netSlow(src, nd, float64(b), false, noise, ms))
		p.add(ms, use{src, chTx, float64(b)}, use{nd, chRx, float64(b)},
			use{nd, chUser, 0.2})
		return b
	}
	return 0
}

// fetchShuffle adds the phase fetching a reduce task's share of the parents'
// shuffle output from every node holding some; transfers to or from a node
// with packet loss are slow, so a lossy node slows its peers too. It returns
// the bytes read, the remote bytes and the phase's length in ms.
func (e *engine) fetchShuffle(p *phases, t *taskRun, r resources, noise float64) (total, remote int64, ms float64) {
	st, nd := t.st, t.exec.node
	if st.shuffleIn == 0 || len(st.sources) == 0 {
		return 0, 0, 0
	}
	total = int64(t.shuffleShare())
	srcs := st.sources
	stride := 1
	if len(srcs) > 64 {
		stride = len(srcs) / 64
	}
	var seen float64
	for k := 0; k < len(srcs); k += stride {
		seen += srcs[k].share
		if srcs[k].node != nd {
			remote += int64(srcs[k].share * float64(total))
		}
	}
	lossy := st.lossy(e)
	var extra []shuffleSource
	for _, s := range lossy {
		if indexOf(srcs, s)%stride != 0 {
			extra = append(extra, s)
		}
	}
	// secsAt sums each source's bytes over the rate between it and this
	// node at t; sources without packet loss keep the rate they had when the
	// stage was submitted.
	secsAt := func(at int64) float64 {
		var secs float64
		dst := nd.netMBps(at) * mb / math.Max(1, e.load(nd)/4)
		for k := 0; k < len(srcs); k += stride {
			s := srcs[k]
			bytes := s.share * float64(total)
			switch {
			case s.node == nd:
				secs += bytes / e.diskAt(nd, at)
			case s.lossy:
				secs += bytes / e.netRateAt(s.node, nd, at)
			default:
				secs += bytes / math.Min(s.rate, dst)
			}
		}
		for _, s := range extra {
			secs += s.share * float64(total) / e.netRateAt(s.node, nd, at)
		}
		if all := seen + sumShares(extra); all > 0 && all < 1 {
			secs /= all
		}
		return secs
	}
	if seen > 0 && seen < 1 {
		remote = int64(float64(remote) / seen)
	}
	involved := []*node{nd}
	for _, s := range lossy {
		involved = append(involved, s.node)
	}
	ms = span(p.cur, func(at int64) float64 { return secsAt(at) * 1000 * noise }, involved...)
	sd := e.shuffleSlow(nd, srcs, stride, extra, len(lossy) > 0, seen+sumShares(extra), total, noise, ms)
	us := []use{{nd, chRx, float64(remote)}, {nd, chUser, 0.3}, {nd, chSys, 0.15}}
	// Attribute the sent bytes to up to 8 sources (scaled), and always to lossy ones.
	step := max(1, len(srcs)/8)
	var attributed float64
	for k := 0; k < len(srcs); k += step {
		attributed += srcs[k].share
	}
	for k := 0; k < len(srcs); k += step {
		if s := srcs[k]; s.node != nd && attributed > 0 && !s.faulty {
			us = append(us, use{s.node, chTx, float64(remote) * s.share / attributed})
		}
	}
	end := p.cur + int64(ms)
	for _, s := range st.faultySrc {
		if s.node != nd {
			us = append(us, use{s.node, chTx, float64(total) * s.share})
			notePeers(s.node, nd, p.cur, end)
		}
	}
	if len(nd.faults) > 0 {
		for k := 0; k < len(srcs); k += stride {
			notePeers(nd, srcs[k].node, p.cur, end)
		}
	}
	p.note(sd)
	p.add(ms, us...)
	return total, remote, ms
}

func sumShares(s []shuffleSource) float64 {
	var v float64
	for _, x := range s {
		v += x.share
	}
	return v
}

func indexOf(srcs []shuffleSource, s shuffleSource) int {
	for i := range srcs {
		if srcs[i].node == s.node {
			return i
		}
	}
	return 0
}

// lossy returns the stage's sources on nodes that ever lose packets.
func (st *stageRun) lossy(_ *engine) []shuffleSource { return st.lossySrc }

// writeHDFS adds the phase writing output to HDFS: the local disk and two
// replicas on other nodes through the network.
func (e *engine) writeHDFS(p *phases, t *taskRun, r resources, bytes int64, noise float64) {
	if bytes <= 0 {
		return
	}
	nd := t.exec.node
	peers := e.cl.nodes
	a, b := peers[e.rng.IntN(len(peers))], peers[e.rng.IntN(len(peers))]
	f := float64(bytes)
	dms, ams, bms := e.diskMs(p, nd, f, noise), e.netMs(p, nd, a, f, false, noise), e.netMs(p, nd, b, f, false, noise)
	ms := math.Max(dms, math.Max(ams, bms))
	switch ms {
	case dms:
		p.note(e.diskSlow(nd, f, noise, noise, ms))
	case ams:
		p.note(e.netSlow(nd, a, f, false, noise, ms))
	default:
		p.note(e.netSlow(nd, b, f, false, noise, ms))
	}
	us := []use{{nd, chDiskW, f}, {nd, chBusy, f / r.disk}, {nd, chUser, 0.2}, {nd, chSys, 0.15}}
	notePeers(nd, a, p.cur, p.cur+int64(ms))
	notePeers(nd, b, p.cur, p.cur+int64(ms))
	if a != nd {
		us = append(us, use{nd, chTx, f}, use{a, chRx, f}, use{a, chDiskW, f})
	}
	if b != nd && b != a {
		us = append(us, use{nd, chTx, f}, use{b, chRx, f}, use{b, chDiskW, f})
	}
	p.add(ms, us...)
}

// compute adds a CPU phase of bytes at nsPerByte on the node's CPU.
func (e *engine) compute(p *phases, nd *node, r resources, bytes int64, nsPerByte, noise float64) float64 {
	ms := span(p.cur, func(t int64) float64 { return float64(bytes) * nsPerByte / 1e6 / e.cpuAt(nd, t) * noise }, nd)
	p.note(e.cpuSlow(nd, float64(bytes)*nsPerByte/1e6, noise, ms))
	p.add(ms, use{nd, chUser, 0.95}, use{nd, chSys, 0.05})
	return ms
}

// noise is attempt t's multiplicative time noise (NoiseSpec of its
// engine), and the straggler factor within it (1 when none).
func (e *engine) noise(t *taskRun) (float64, float64) {
	s := &e.sc.Scheduler.SparkNoise
	if t.st.app.plan.engine == model.MapReduce {
		s = &e.sc.Scheduler.MapReduceNoise
	}
	n := lognormal(e.rng, s.Sigma)
	f := 1.0
	if e.rng.Float64() < s.StragglerRate {
		u := 1 - e.rng.Float64() // (0, 1]
		f = math.Min(stragglerCap, s.StragglerScale*math.Pow(u, -1/s.StragglerAlpha))
	}
	if ms := e.refMs(t); s.LengthMs > 0 && ms > s.LengthMs {
		d := s.LengthMs / ms
		return 1 + (n*f-1)*d, 1 + (f-1)*d
	}
	return n * f, f
}

// refMs is attempt t's length on the median node without noise: its bytes
// computed at the stage's cost and read once from disk.
func (e *engine) refMs(t *taskRun) float64 {
	sp := t.st.plan
	var b float64
	switch {
	case sp.input == inShuffle:
		b = t.shuffleShare()
	case int(t.index) < len(sp.inBytes):
		b = float64(sp.inBytes[t.index])
	}
	return b*sp.nsPerByte/1e6/e.ref.cpu + b/e.ref.disk*1000
}

// shuffleShare is the bytes of its stage's shuffle input task t reads.
func (t *taskRun) shuffleShare() float64 {
	return float64(t.st.shuffleIn) / float64(t.st.plan.tasks) * t.st.plan.weights[t.index]
}

// sparkNoiseLengthMs is Spark's NoiseSpec.LengthMs, fitted to the real
// stages of long tasks (TestCalibration, docs/SIMULATOR.md).
const sparkNoiseLengthMs = 700

// stragglerCap bounds a straggler's slowdown.
const stragglerCap = 12

// cutRecs drops the phases after t and ends the one running at t.
func cutRecs(recs []phaseRec, t int64) []phaseRec {
	out := recs[:0]
	for _, r := range recs {
		if r.start >= t {
			continue
		}
		r.end = min(r.end, t)
		out = append(out, r)
	}
	return out
}
