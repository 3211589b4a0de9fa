package peer

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sim"
)

// homogeneous is one hardware class for every node, as Ganesha's EC2
// clusters were (§5: "Each node consisted of an AMD Opteron 1220 dual-core
// CPU with 4GB of memory"; here 8 cores, so that the scenarios' executors
// fit).
var homogeneous = []sim.HardwareClass{{Name: "ec2", Share: 1, Cores: 8, CPUSpeed: 1, DiskMBps: 160, NetMBps: 115, MemoryGB: 64}}

// simulateHomogeneous is simulate on homogeneous hardware.
func simulateHomogeneous(tb testing.TB, name string, nodes int, seed uint64) simRun {
	tb.Helper()
	sc, err := sim.Named(name)
	if err != nil {
		tb.Fatal(err)
	}
	sc = sc.WithNodes(nodes)
	sc.Cluster.Classes = homogeneous
	sc.Metrics.EveryNth = 1
	for i := range sc.Faults {
		sc.Faults[i].Node = -1
	}
	var buf bytes.Buffer
	res, err := sim.SimulateTo(sc, seed, sim.Sinks{Metrics: &buf}, nil)
	if err != nil {
		tb.Fatalf("simulate %s/%d seed %d: %v", name, nodes, seed, err)
	}
	return simRun{res: res, csv: buf.Bytes()}
}

// ganeshaRatios are Ganesha's ratios (§5.1) over runs: TP the faulty nodes
// indicted of the nodes with injected faults, FP the nodes without faults
// indicted of the nodes without injected faults (per node, not per run).
type ganeshaRatios struct {
	faulty, found, innocent, falsely int
}

func (g *ganeshaRatios) add(o outcome, nodes int) {
	if o.culprit != "" {
		g.faulty++
		if o.culpritIndicted {
			g.found++
		}
		g.innocent += nodes - 1
	} else {
		g.innocent += nodes
	}
	g.falsely += len(o.innocents)
}

func (g ganeshaRatios) String() string {
	tp := "–"
	if g.faulty > 0 {
		tp = fmt.Sprintf("%.2f", float64(g.found)/float64(g.faulty))
	}
	return fmt.Sprintf("%s | %.3f", tp, float64(g.falsely)/float64(max(1, g.innocent)))
}

// TestGaneshaTable reproduces Ganesha's fault-injection results (Pan et
// al. §5.1, Figure 3, whose bars are not in the text): on homogeneous
// hardware, 20 traces per fault at 10 nodes and 6 at 50, TP and FP as the
// paper defines them per node, beside clusterlens with the run's logs.
// The paper's text: "almost perfect TP ratios of 1.0 and FP ratios of 0.0
// for CPUHog, DiskHog, and HANG-1036 on all cluster sizes"; "for
// PacketLoss50, Ganesha achieved high TP and FP ratios"; "both TP and FP
// ratios for HANG-1152 and PacketLoss5 were low"; "the false-alarm rate
// ... the proportion of slave nodes indicted in fault-free runs ... 0.03
// in both the 10-node and 50-node cases". HANG-1036 is a task that hangs
// at the start of its maps: the simulator's hang of a node running
// attempts (the first such seeds); HANG-1152, reduces that hang near
// their end, has no counterpart in the simulator. The profile is trained
// on clean homogeneous runs of seeds 9001–9003. Set CLUSTERLENS_PEER_EVAL=1
// (a few minutes); docs/PAPERS.md has the table.
func TestGaneshaTable(t *testing.T) {
	if os.Getenv("CLUSTERLENS_PEER_EVAL") == "" {
		t.Skip("set CLUSTERLENS_PEER_EVAL=1 for the reproduction of Ganesha's Figure 3")
	}
	var train []simRun
	for _, s := range trainSeeds {
		train = append(train, simulateHomogeneous(t, "clean", 10, s), simulateHomogeneous(t, "clean", 50, s))
	}
	prof, err := Train(trainingVectors(t, train), GaneshaMetrics, DefaultTrainOptions(), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| fault (paper) | scenario | nodes | traces | Ganesha TP | Ganesha FP | clusterlens TP | clusterlens FP |\n|---|---|---|---|---|---|---|---|\n")
	for _, size := range []struct{ nodes, traces int }{{10, 20}, {50, 6}} {
		for _, c := range []struct{ paper, name string }{
			{"CPUHog", "cpu-hog"}, {"DiskHog", "disk-hog"}, {"HANG-1036", "hang"},
			{"PacketLoss5", "packet-loss-5"}, {"PacketLoss50", "packet-loss-50"}, {"fault-free (false-alarm rate)", "clean"},
		} {
			var g, cl ganeshaRatios
			traces := 0
			for seed := uint64(1); traces < size.traces && seed <= uint64(4*size.traces); seed++ {
				r := simulateHomogeneous(t, c.name, size.nodes, seed)
				if f := r.res.Truth.Faults; c.name == "hang" && NewWorkload(r.res.Apps).Load(f[0].Host, f[0].StartMs, f[0].EndMs) == 0 {
					continue // a node hung while idle: not HANG-1036, a task that hangs
				}
				traces++
				v := labelRun(t, prof, r)
				og, _ := judge(prof, prof.Params, ganesha, r, v)
				oc, _ := judge(prof, prof.Params, clusterlens, r, v)
				g.add(og, size.nodes)
				cl.add(oc, size.nodes)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s |\n", c.paper, c.name, size.nodes, traces, g, cl)
		}
	}
	t.Logf("profile K=%d on homogeneous clean runs\n%s", prof.K, b.String())
}
