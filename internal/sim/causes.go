package sim

import (
	"math"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// slowdown is how one phase's time departs from its reference time (the
// same work on a node of the median hardware class, running alone, without
// faults or noise): node is the node's hardware and the application's own
// concurrency on it (the disk and network shares of its attempts there),
// fault the faults active during the phase, noise the attempt's noise.
// Phase time = reference × node × noise × fault.
type slowdown struct{ node, fault, noise float64 }

// noSlowdown is a phase run at its reference speed (overheads such as JVM
// start, and phases not bound by the node's hardware).
var noSlowdown = slowdown{1, 1, 1}

// causeAcc sums an attempt's phase times as they are peeled of their
// causes: act is the phase times, noFault without the faults, clean
// without the noise either, ref on the median class alone as well. readRef
// and readLocal are the reference time of its input read as done and as a
// local read would take (locality).
type causeAcc struct {
	act, noFault, clean, ref float64
	readRef, readLocal       float64
}

// note sets the slowdown of the phase added next.
func (p *phases) note(s slowdown) { p.sd = s }

// account adds a phase of d ms with the noted slowdown and resets it.
func (p *phases) account(d int64) {
	s := p.sd
	p.sd = noSlowdown
	x := float64(d)
	p.acc.act += x
	x /= s.fault
	p.acc.noFault += x
	x /= s.noise
	p.acc.clean += x
	x /= s.node
	p.acc.ref += x
}

// refSpeeds are the median node class's speeds per resource (median over
// the cluster's nodes of each): the hardware the reference time assumes.
type refSpeeds struct{ cpu, disk, net float64 }

func medianSpeeds(cl *cluster) refSpeeds {
	n := len(cl.nodes)
	cpu, disk, net := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, nd := range cl.nodes {
		cpu[i], disk[i], net[i] = nd.class.CPUSpeed, nd.class.DiskMBps, nd.class.NetMBps
	}
	return refSpeeds{cpu: median(cpu), disk: median(disk) * mb, net: median(net) * mb}
}

// median returns the median of v (reordered), 0 when empty, in linear
// time (selection rather than a sort: it runs once per factor per stage).
func median(v []float64) float64 {
	n := len(v)
	if n == 0 {
		return 0
	}
	if allEqual(v) { // most factors of most stages (no fault, no GC, local reads)
		return v[0]
	}
	m := n / 2
	hi := stats.Select(v, m)
	if n%2 == 1 {
		return hi
	}
	lo := v[0]
	for _, x := range v[1:m] {
		lo = max(lo, x)
	}
	return (lo + hi) / 2
}

func allEqual(v []float64) bool {
	for _, x := range v[1:] {
		if x != v[0] {
			return false
		}
	}
	return true
}

// cleanDisk is the disk rate an attempt of the current application gets on
// n without faults (diskAt without diskFactor).
func (e *engine) cleanDisk(n *node) float64 {
	return n.class.DiskMBps * mb / math.Max(1, e.load(n)/2)
}

// cleanNet is one transfer's rate between a and b without faults.
func (e *engine) cleanNet(a, b *node) float64 {
	return math.Min(a.class.NetMBps*mb/math.Max(1, e.load(a)/4), b.class.NetMBps*mb/math.Max(1, e.load(b)/4))
}

// faultOf is the fault slowdown of a phase that took ms where clean ms were
// expected without faults (1 when nothing was expected).
func faultOf(ms, clean float64) float64 {
	if clean <= 0 || ms <= 0 {
		return 1
	}
	return ms / clean
}

// cpuSlow is the slowdown of compute() on nd: ms for base ms at speed 1.
func (e *engine) cpuSlow(nd *node, base, noise, ms float64) slowdown {
	return slowdown{node: e.ref.cpu / nd.class.CPUSpeed, fault: faultOf(ms, base/nd.class.CPUSpeed*noise), noise: noise}
}

// diskSlow is the slowdown of diskMs() moving bytes through n's disk with
// time factor k (the noise times any model constant) and noise.
func (e *engine) diskSlow(n *node, bytes, k, noise, ms float64) slowdown {
	rate := e.cleanDisk(n)
	return slowdown{node: e.ref.disk / rate, fault: faultOf(ms, bytes/rate*1000*k), noise: noise}
}

// netSlow is the slowdown of netMs() from a to b.
func (e *engine) netSlow(a, b *node, bytes float64, fromDisk bool, noise, ms float64) slowdown {
	rate, ref := e.cleanNet(a, b), e.ref.net
	if fromDisk {
		rate, ref = math.Min(rate, e.cleanDisk(a)), math.Min(ref, e.ref.disk)
	}
	return slowdown{node: ref / rate, fault: faultOf(ms, bytes/rate*1000*noise), noise: noise}
}

// attemptCauses are the factors one attempt's time is the product of:
// its reference time (RefMs: its data read locally on a node of the median
// class, alone, without faults, noise or injected GC) times Locality (its
// read as done over a local one, both on the reference hardware), Node
// (its node's hardware and the application's concurrency there, over the
// reference), Noise, Fault and GC (an injected straggler's stretch).
type attemptCauses struct {
	index, attempt int32
	node           int
	refMs          float64
	f              [numCauses]float64 // by cause, data size left 1 here
}

// Causes of a slow attempt, in truth.json's names.
const (
	causeData = iota
	causeLocality
	causeNode
	causeFault
	causeNoise
	causeGC
	numCauses
)

// CauseNames are truth.json's names of the causes a straggler's
// slowdown is the product of, in Factors order.
var CauseNames = [numCauses]string{"data-size", "locality", "node", "fault", "noise", "gc"}

// causesOf turns p's accumulated phases into the attempt's factors.
func causesOf(acc *causeAcc, gc float64) [numCauses]float64 {
	var f [numCauses]float64
	f[causeData] = 1
	f[causeLocality], f[causeNode], f[causeFault], f[causeNoise] = 1, 1, 1, 1
	refLocal := acc.ref - acc.readRef + acc.readLocal
	if refLocal > 0 && acc.ref > 0 {
		f[causeLocality] = acc.ref / refLocal
	}
	if acc.ref > 0 {
		f[causeNode] = acc.clean / acc.ref
	}
	if acc.clean > 0 {
		f[causeNoise] = acc.noFault / acc.clean
	}
	if acc.noFault > 0 {
		f[causeFault] = acc.act / acc.noFault
	}
	f[causeGC] = gc
	return f
}

// refLocalMs is the attempt's reference time with a local read.
func (acc *causeAcc) refLocalMs() float64 { return acc.ref - acc.readRef + acc.readLocal }

// shuffleSlow is the slowdown of fetchShuffle's phase of ms: the same sums
// as its secsAt over the sampled sources (and the lossy ones beyond them,
// all being their share), without faults, then on the reference hardware.
// Without faults on nd or lossy sources (lossy) the phase ran fault-free.
func (e *engine) shuffleSlow(nd *node, srcs []shuffleSource, stride int, extra []shuffleSource, lossy bool, all float64, total int64, noise, ms float64) slowdown {
	if len(nd.faults) == 0 && !lossy {
		var local float64
		for k := 0; k < len(srcs); k += stride {
			if srcs[k].node == nd {
				local += srcs[k].share
			}
		}
		remote := all - local
		if all > 0 && all < 1 {
			local, remote = local/all, remote/all
		}
		ref := float64(total) * (local/e.ref.disk + remote/e.ref.net) * 1000
		if ref <= 0 || ms <= 0 {
			return noSlowdown
		}
		return slowdown{node: ms / noise / ref, fault: 1, noise: noise}
	}
	var clean, local, remote float64 // clean in share/(bytes/s); local and remote shares
	dst := nd.class.NetMBps * mb / math.Max(1, e.load(nd)/4)
	disk := e.cleanDisk(nd)
	add := func(s *shuffleSource) {
		switch {
		case s.node == nd:
			clean += s.share / disk
			local += s.share
		case s.lossy:
			clean += s.share / e.cleanNet(s.node, nd)
			remote += s.share
		default:
			clean += s.share / math.Min(s.rate, dst)
			remote += s.share
		}
	}
	for k := 0; k < len(srcs); k += stride {
		add(&srcs[k])
	}
	for k := range extra {
		add(&extra[k])
	}
	clean *= float64(total)
	ref := float64(total) * (local/e.ref.disk + remote/e.ref.net)
	if all > 0 && all < 1 {
		clean, ref = clean/all, ref/all
	}
	if ref <= 0 || clean <= 0 {
		return noSlowdown
	}
	return slowdown{node: clean / ref, fault: faultOf(ms, clean*1000*noise), noise: noise}
}
