package loadtest

import (
	"fmt"
	"hash/fnv"
	"math"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// series is one (type, target) a synthetic node reports every tick.
type series struct{ typ, target string }

// nodeSeries are what a synthetic node reports: the 22 canonical node
// metrics plus per-device and per-CPU ones, 40 samples per tick, about
// what the proc sampler reports on a 12-core node with two disks and
// one network interface.
var nodeSeries = func() []series {
	var s []series
	for _, n := range model.NodeMetricNames {
		s = append(s, series{n, ""})
	}
	for _, d := range []string{"sda", "sdb"} {
		s = append(s, series{"disk_read_bytes_per_s", d}, series{"disk_write_bytes_per_s", d})
	}
	s = append(s, series{"net_rx_bytes_per_s", "eth0"}, series{"net_tx_bytes_per_s", "eth0"})
	for c := 0; c < 12; c++ {
		s = append(s, series{"cpu_usage", fmt.Sprintf("cpu%d", c)})
	}
	return s
}()

// SamplesPerTick is how many samples a synthetic node produces per tick.
var SamplesPerTick = len(nodeSeries)

// valueOf is the value a synthetic node reports for a key: a hash of the
// key, so the verifier can recompute it for every stored sample without
// remembering what was produced.
func valueOf(host, typ, target string, t int64) float64 {
	h := fnv.New64a()
	h.Write([]byte(host))
	h.Write([]byte{0})
	h.Write([]byte(typ))
	h.Write([]byte{0})
	h.Write([]byte(target))
	var b [8]byte
	for i := range b {
		b[i] = byte(t >> (8 * i))
	}
	h.Write(b[:])
	return math.Round(float64(h.Sum64()%1_000_000)) / 100
}

// node is a synthetic sampler for one host; it records the times it
// sampled at.
type node struct {
	host  string
	mu    sync.Mutex
	times []int64
}

// Sample implements sampler.Sampler.
func (n *node) Sample(now time.Time, dst []model.Sample) ([]model.Sample, error) {
	t := now.UnixMilli()
	n.mu.Lock()
	if k := len(n.times); k > 0 && t <= n.times[k-1] {
		t = n.times[k-1] + 1 // keys must stay distinct
	}
	n.times = append(n.times, t)
	n.mu.Unlock()
	for _, s := range nodeSeries {
		dst = append(dst, model.Sample{Time: t, Host: n.host, Type: s.typ, Target: s.target, Value: valueOf(n.host, s.typ, s.target, t)})
	}
	return dst, nil
}

// sampled returns the times n sampled at, ascending.
func (n *node) sampled() []int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]int64(nil), n.times...)
}
