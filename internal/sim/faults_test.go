package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/summary"
)

// window returns a fault's window in truth.
func window(t *testing.T, res *Result, kind string) FaultTruth {
	t.Helper()
	for _, f := range res.Truth.Faults {
		if f.Kind == kind {
			return f
		}
	}
	t.Fatalf("no %s fault in truth", kind)
	return FaultTruth{}
}

// TestFaultsShowInMetrics checks that each injected fault is visible in the
// faulty node's metrics during its window, and not outside it.
func TestFaultsShowInMetrics(t *testing.T) {
	for _, seed := range seeds {
		res, m := simulateMetrics(t, mustNamed(t, "cpu-hog"), seed)
		f := window(t, res, FaultCPUHog)
		in := meanOf(m["cpu_usage"], f.Host, false, f.StartMs+5000, f.EndMs)
		out := meanOf(m["cpu_usage"], f.Host, false, f.EndMs+5000, f.EndMs+60000)
		peers := meanOf(m["cpu_usage"], f.Host, true, f.StartMs+5000, f.EndMs)
		if in < 90 || out > 60 || peers > 60 {
			t.Errorf("cpu-hog seed %d: cpu_usage %.1f in the window, %.1f after, peers %.1f", seed, in, out, peers)
		}
		if l := meanOf(m["load1"], f.Host, false, f.StartMs+60000, f.EndMs); l < 8 {
			t.Errorf("cpu-hog seed %d: load1 %.1f", seed, l)
		}

		res, m = simulateMetrics(t, mustNamed(t, "disk-hog"), seed)
		f = window(t, res, FaultDiskHog)
		in = meanOf(m["disk_write_bytes_per_s"], f.Host, false, f.StartMs+2000, f.EndMs)
		peers = meanOf(m["disk_write_bytes_per_s"], f.Host, true, f.StartMs+2000, f.EndMs)
		iow := meanOf(m["ioWaitRatio"], f.Host, false, f.StartMs+2000, f.EndMs)
		if in < 50e6 || in < 3*peers || iow < 20 {
			t.Errorf("disk-hog seed %d: writes %.0f B/s vs peers %.0f, iowait %.1f%%", seed, in, peers, iow)
		}

		res, m = simulateMetrics(t, mustNamed(t, "hang"), seed)
		f = window(t, res, FaultHang)
		in = meanOf(m["cpu_user_pct"], f.Host, false, f.StartMs+2000, f.EndMs)
		if in > 5 {
			t.Errorf("hang seed %d: cpu_user %.1f%% on the hung node", seed, in)
		}

		res, m = simulateMetrics(t, mustNamed(t, "memory-pressure"), seed)
		f = window(t, res, FaultMemory)
		if mu := meanOf(m["mem_usage"], f.Host, false, f.StartMs+2000, f.EndMs); mu < 90 {
			t.Errorf("memory-pressure seed %d: mem_usage %.1f", seed, mu)
		}
		if po := meanOf(m["pages_out_kb_per_s"], f.Host, false, f.StartMs+2000, f.EndMs); po < 10000 {
			t.Errorf("memory-pressure seed %d: pages out %.0f KB/s", seed, po)
		}
	}
}

// TestPacketLossSlowsPeers checks that 50% packet loss on one node slows
// the applications that exchange data with it (its peers' transfers too),
// and 5% less so.
func TestPacketLossSlowsPeers(t *testing.T) {
	for _, seed := range seeds {
		clean, _ := Simulate(mustNamed(t, "clean"), seed, nil)
		p5, _ := Simulate(mustNamed(t, "packet-loss-5"), seed, nil)
		p50, _ := Simulate(mustNamed(t, "packet-loss-50"), seed, nil)
		total := func(r *Result) (s int64) {
			for _, a := range r.Truth.Apps {
				s += a.EndMs - a.StartMs
			}
			return s
		}
		c, l5, l50 := total(clean), total(p5), total(p50)
		if !(l50 > c*12/10 && l50 > l5) {
			t.Errorf("seed %d: total app time clean %d ms, 5%% loss %d, 50%% loss %d", seed, c, l5, l50)
		}
		// Peers slowed: reduce tasks on other hosts of the TeraSort fetch from the lossy node.
		host := p50.Truth.Faults[0].Host
		if peers := p50.Truth.Faults[0].Peers; len(peers) == 0 || slices.Contains(peers, host) {
			t.Errorf("seed %d: peers %v of %s", seed, peers, host)
		}
		slow := func(r *Result) float64 {
			app := r.Apps[1]
			var sum, n float64
			for _, st := range app.Stages {
				if st.ID != 1 {
					continue
				}
				for i := range st.Tasks {
					if tk := &st.Tasks[i]; app.Hosts[tk.Host] != host {
						sum += float64(tk.Duration())
						n++
					}
				}
			}
			return sum / n
		}
		if slow(p50) < 1.5*slow(clean) {
			t.Errorf("seed %d: reduce tasks on other hosts took %.0f ms with 50%% loss, %.0f clean", seed, slow(p50), slow(clean))
		}
	}
}

// TestCPUFollowsTasks checks that a node's CPU use follows the tasks running on it.
func TestCPUFollowsTasks(t *testing.T) {
	res, m := simulateMetrics(t, mustNamed(t, "clean"), 1)
	busy := map[string]map[int64]float64{} // host -> second -> task-seconds
	for _, app := range res.Apps {
		for _, st := range app.Stages {
			for i := range st.Tasks {
				tk := &st.Tasks[i]
				h := app.Hosts[tk.Host]
				if busy[h] == nil {
					busy[h] = map[int64]float64{}
				}
				for s := tk.Launch / 1000; s <= tk.Finish/1000; s++ {
					lo, hi := max(tk.Launch, s*1000), min(tk.Finish, s*1000+1000)
					if hi > lo {
						busy[h][s+1] += float64(hi-lo) / 1000
					}
				}
			}
		}
	}
	var xs, ys []float64
	cores := map[string]float64{}
	for _, n := range res.Truth.Nodes {
		cores[n.Host] = float64(n.Cores)
	}
	for _, s := range m["cpu_usage"] {
		xs = append(xs, busy[s.host][s.ts/1000]/cores[s.host])
		ys = append(ys, s.value)
	}
	if r := pearson(xs, ys); r < 0.8 {
		t.Errorf("correlation of running tasks per core with cpu_usage = %.2f", r)
	}
}

func pearson(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// TestNetworkBytesFollowTransfers checks that the network bytes the nodes
// received add up to what the attempts moved: remote shuffle and input
// reads, and two replicas of every HDFS output.
func TestNetworkBytesFollowTransfers(t *testing.T) {
	for _, seed := range seeds {
		res, m := simulateMetrics(t, mustNamed(t, "clean"), seed)
		var want float64
		var tm model.TaskMetrics
		for _, app := range res.Apps {
			for _, st := range app.Stages {
				for i := range st.Tasks {
					tk := &st.Tasks[i]
					if tk.Status != model.TaskSuccess {
						continue
					}
					st.TaskMetrics(i, &tm)
					want += float64(tm[model.ShuffleRemoteBytesRead]) + 2*float64(tm[model.OutputBytes])
					if tk.Locality == model.RackLocal || tk.Locality == model.AnyLocality {
						want += float64(tm[model.InputBytes])
					}
				}
			}
		}
		var got float64
		for _, s := range m["net_rx_bytes_per_s"] {
			got += s.value // one-second samples: bytes per second = bytes
		}
		if r := got / want; r < 0.8 || r > 1.2 {
			t.Errorf("seed %d: nodes received %.3g bytes, attempts moved %.3g (ratio %.2f)", seed, got, want, r)
		}
		var sent float64
		for _, s := range m["net_tx_bytes_per_s"] {
			sent += s.value
		}
		if r := sent / got; r < 0.8 || r > 1.2 {
			t.Errorf("seed %d: nodes sent %.3g bytes and received %.3g (ratio %.2f)", seed, sent, got, r)
		}
	}
}

// TestFaultsAt50Nodes runs the CPU-hog scenario resized to 50 nodes with
// the faulty node drawn from the seed.
func TestFaultsAt50Nodes(t *testing.T) {
	hosts := map[string]bool{}
	for _, seed := range seeds {
		sc := mustNamed(t, "cpu-hog").WithNodes(50)
		sc.Faults[0].Node = -1
		res, m := simulateMetrics(t, sc, seed)
		f := window(t, res, FaultCPUHog)
		hosts[f.Host] = true
		if in := meanOf(m["cpu_usage"], f.Host, false, f.StartMs+5000, f.EndMs); in < 90 {
			t.Errorf("seed %d: cpu_usage %.1f on %s", seed, in, f.Host)
		}
		if len(res.Truth.Nodes) != 50 || res.Truth.Apps[0].Executors != 25 {
			t.Errorf("seed %d: %d nodes, %d executors", seed, len(res.Truth.Nodes), res.Truth.Apps[0].Executors)
		}
		for i, app := range res.Apps {
			checkCounts(t, summary.Build(app), res.Truth.Apps[i])
		}
	}
	if len(hosts) < 2 {
		t.Errorf("the fault landed on %v for every seed", hosts)
	}
}
