package sim

import "math"

// faultRun is a fault on one node over [start, end) simulated epoch ms.
type faultRun struct {
	spec       FaultSpec
	start, end int64
	peers      map[int]bool // nodes that exchanged data with the faulty node during the fault
}

// notePeers records that a and b exchanged data over [start, end): each
// becomes a peer of the other's faults active then.
func notePeers(a, b *node, start, end int64) {
	if a == b || a == nil || b == nil {
		return
	}
	for _, f := range a.faults {
		if f.start < end && f.end > start {
			f.peers[b.idx] = true
		}
	}
	for _, f := range b.faults {
		if f.start < end && f.end > start {
			f.peers[a.idx] = true
		}
	}
}

func (f *faultRun) active(t int64) bool { return t >= f.start && t < f.end }

// Effects of faults on the work of a node. A CPU hog runs as many busy
// threads as the node has cores, so tasks get half the CPU (Ganesha's
// oversubscription); a disk hog takes about two thirds of the disk
// bandwidth; a slow disk delivers a fifth of it; memory pressure makes the
// JVMs collect garbage and the kernel page, slowing CPU and disk work; packet
// loss p caps every TCP transfer to or from the node (see lossCapMBps).
const (
	cpuHogFactor    = 0.5
	diskHogFactor   = 0.35
	slowDiskFactor  = 0.2
	memoryCPUFactor = 0.7
	memoryIOFactor  = 0.8
	hogDiskShare    = 0.65 // of the node's disk bandwidth, written by the disk hog
)

// lossCapMBps is the throughput of one TCP flow at packet-loss rate p in a
// LAN: retransmission timeouts (200 ms minimum) dominate, as in Padhye et
// al.'s model, so the flow gets about 0.2/p^1.3 MB/s whatever the link
// speed: about 10 MB/s at 5% loss, 0.5 MB/s at 50%.
func lossCapMBps(p float64) float64 { return 0.2 / math.Pow(p, 1.3) }

// cpuFactor is the share of normal CPU speed a task gets on n at t.
func (n *node) cpuFactor(t int64) float64 {
	f := 1.0
	for _, fr := range n.faults {
		if !fr.active(t) {
			continue
		}
		switch fr.spec.Kind {
		case FaultCPUHog:
			f *= cpuHogFactor
		case FaultMemory:
			f *= memoryCPUFactor
		}
	}
	return f
}

// diskFactor is the share of normal disk bandwidth a task gets on n at t.
func (n *node) diskFactor(t int64) float64 {
	f := 1.0
	for _, fr := range n.faults {
		if !fr.active(t) {
			continue
		}
		switch fr.spec.Kind {
		case FaultDiskHog:
			f *= diskHogFactor
		case FaultSlowDisk:
			f *= slowDiskFactor
		case FaultMemory:
			f *= memoryIOFactor
		}
	}
	return f
}

// netMBps is the network throughput of a transfer to or from n at t.
func (n *node) netMBps(t int64) float64 {
	r := n.class.NetMBps
	for _, fr := range n.faults {
		if fr.spec.Kind == FaultPacketLoss && fr.active(t) {
			r = math.Min(r*(1-fr.spec.Loss), lossCapMBps(fr.spec.Loss))
		}
	}
	return r
}

// hangIn returns the start of a hang of n that begins before until while
// covering or following from, or -1.
func (n *node) hangIn(from, until int64) int64 {
	best := int64(-1)
	for _, fr := range n.faults {
		if fr.spec.Kind != FaultHang || fr.end <= from || fr.start >= until {
			continue
		}
		s := max(fr.start, from)
		if best < 0 || s < best {
			best = s
		}
	}
	return best
}

// hungAt reports whether n is hung at t, and until when.
func (n *node) hungAt(t int64) (bool, int64) {
	for _, fr := range n.faults {
		if fr.spec.Kind == FaultHang && fr.active(t) {
			return true, fr.end
		}
	}
	return false, 0
}
