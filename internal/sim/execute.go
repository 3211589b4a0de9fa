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
	uses []use
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
		return
	}
	for _, u := range us {
		if u.n == nil || u.amount == 0 {
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

// cut drops resource use after t (a failure or hang).
func (p *phases) cut(t int64) {
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

// resources are a node's speeds for one attempt, at its launch.
type resources struct {
	cpu  float64 // relative CPU speed
	disk float64 // bytes/s of disk this attempt gets
}

func (e *engine) resourcesOf(n *node) resources {
	conc := math.Max(1, float64(n.running)/2)
	return resources{
		cpu:  n.class.CPUSpeed * n.cpuFactor(e.now),
		disk: n.class.DiskMBps * mb * n.diskFactor(e.now) / conc,
	}
}

// netRate is the throughput of one transfer between a and b now (bytes/s).
func (e *engine) netRate(a, b *node) float64 {
	ra := a.class.NetMBps * mb * a.netFactor(e.now) / math.Max(1, float64(a.running)/4)
	rb := b.class.NetMBps * mb * b.netFactor(e.now) / math.Max(1, float64(b.running)/4)
	return math.Min(ra, rb)
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
			p.add(float64(b)/r.disk*1000*noise, use{nd, chDiskR, float64(b)}, use{nd, chBusy, float64(b) / r.disk},
				use{nd, chUser, 0.15}, use{nd, chSys, 0.1})
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
		rate := math.Min(rs.disk, e.netRate(src, nd))
		p.add(float64(b)/rate*1000*noise, use{src, chDiskR, float64(b)}, use{src, chBusy, float64(b) / rs.disk},
			use{src, chTx, float64(b)}, use{nd, chRx, float64(b)}, use{nd, chUser, 0.15}, use{nd, chSys, 0.15})
		return b
	case inCached:
		if loc == model.ProcessLocal {
			p.add(float64(b)/(2000*mb)*1000, use{nd, chUser, 1})
			return b
		}
		var src *node
		if int(t.index) < len(st.app.cachedAt) && st.app.cachedAt[t.index] != nil {
			src = st.app.cachedAt[t.index].node
		}
		if src == nil || src == nd {
			p.add(float64(b)/r.disk*1000*noise, use{nd, chDiskR, float64(b)}, use{nd, chBusy, float64(b) / r.disk})
			return b
		}
		p.add(float64(b)/e.netRate(src, nd)*1000*noise, use{src, chTx, float64(b)}, use{nd, chRx, float64(b)},
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
	total = int64(float64(st.shuffleIn) / float64(st.plan.tasks) * st.plan.weights[t.index])
	var secs float64
	srcs := st.sources
	stride := 1
	if len(srcs) > 64 {
		stride = len(srcs) / 64
	}
	var seen float64
	for k := 0; k < len(srcs); k += stride {
		s := srcs[k]
		seen += s.share
		bytes := s.share * float64(total)
		if s.node == nd {
			secs += bytes / r.disk
			continue
		}
		secs += bytes / e.netRate(s.node, nd)
		remote += int64(bytes)
	}
	for _, s := range st.lossy(e) {
		if (indexOf(srcs, s) % stride) == 0 {
			continue
		}
		bytes := s.share * float64(total)
		secs += bytes / e.netRate(s.node, nd)
		seen += s.share
	}
	if seen > 0 && seen < 1 {
		secs /= seen
		remote = int64(float64(remote) / seen)
	}
	ms = secs * 1000 * noise
	us := []use{{nd, chRx, float64(remote)}, {nd, chUser, 0.3}, {nd, chSys, 0.15}}
	// Attribute the sent bytes to up to 8 sources (scaled), and always to lossy ones.
	step := max(1, len(srcs)/8)
	var attributed float64
	for k := 0; k < len(srcs); k += step {
		attributed += srcs[k].share
	}
	for k := 0; k < len(srcs); k += step {
		if s := srcs[k]; s.node != nd && attributed > 0 {
			us = append(us, use{s.node, chTx, float64(remote) * s.share / attributed})
		}
	}
	p.add(ms, us...)
	return total, remote, ms
}

func indexOf(srcs []source, s source) int {
	for i := range srcs {
		if srcs[i].node == s.node {
			return i
		}
	}
	return 0
}

// lossy returns the stage's sources on nodes that ever lose packets.
func (st *stageRun) lossy(_ *engine) []source { return st.lossySrc }

// writeHDFS adds the phase writing output to HDFS: the local disk and two
// replicas on other nodes through the network.
func (e *engine) writeHDFS(p *phases, t *taskRun, r resources, bytes int64, noise float64) {
	if bytes <= 0 {
		return
	}
	nd := t.exec.node
	peers := e.cl.nodes
	a, b := peers[e.rng.IntN(len(peers))], peers[e.rng.IntN(len(peers))]
	rate := math.Min(r.disk, math.Min(e.netRate(nd, a), e.netRate(nd, b)))
	f := float64(bytes)
	us := []use{{nd, chDiskW, f}, {nd, chBusy, f / r.disk}, {nd, chUser, 0.2}, {nd, chSys, 0.15}}
	if a != nd {
		us = append(us, use{nd, chTx, f}, use{a, chRx, f}, use{a, chDiskW, f})
	}
	if b != nd && b != a {
		us = append(us, use{nd, chTx, f}, use{b, chRx, f}, use{b, chDiskW, f})
	}
	p.add(f/rate*1000*noise, us...)
}

// compute adds a CPU phase of bytes at nsPerByte on the node's CPU.
func (e *engine) compute(p *phases, nd *node, r resources, bytes int64, nsPerByte, noise float64) float64 {
	ms := float64(bytes) * nsPerByte / 1e6 / r.cpu * noise
	p.add(ms, use{nd, chUser, 0.95}, use{nd, chSys, 0.05})
	return ms
}

// noise is an attempt's multiplicative time noise: log-normal with a rare
// straggler tail (the calibration is in docs/SIMULATOR.md).
func (e *engine) noise() float64 {
	s := &e.sc.Scheduler
	n := lognormal(e.rng, s.NoiseSigma)
	if e.rng.Float64() < s.StragglerRate {
		n *= s.StragglerFactor * (0.7 + 0.6*e.rng.Float64())
	}
	return n
}
