package hetero

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// paperFigureFaultS is when the faults of the reproduction of PARC's §4.6
// start, after its learning phase.
const paperFigureFaultS = 1500

// paperFigureScenario is PARC's evaluation (Gupta et al. §4.6) on the
// simulator: 14 nodes of three hardware generations; a learning phase of
// fault-free base jobs, MapReduce WordCount (C_CPU) and RandomWriter
// (C_IO), four runs each; then a disk hog on node 10 and a CPU hog on node
// 13 (§4.6: "disk I/O contention on Node 10 and CPU contention on Node
// 13"), and a new WordCount and a new RandomWriter whose map tasks take
// about twice their base job's (each map reads two blocks' worth: §4.6's
// jobs "repeated certain sub-tasks multiple times").
func paperFigureScenario() *sim.Scenario {
	sc := &sim.Scenario{Name: "parc-figure-7", HorizonS: paperFigureFaultS + 600,
		Cluster: sim.ClusterSpec{Nodes: 14, Racks: 2, Seed: 14},
		Faults: []sim.FaultSpec{{Kind: sim.FaultDiskHog, Node: 9, StartS: paperFigureFaultS, EndS: 3 * paperFigureFaultS},
			{Kind: sim.FaultCPUHog, Node: 12, StartS: paperFigureFaultS, EndS: 3 * paperFigureFaultS}},
		Metrics: sim.MetricsSpec{Off: true}}
	base, err := sim.Named("parc")
	if err == nil {
		sc.Cluster.Classes = base.Cluster.Classes
	}
	for i := range 4 {
		at := float64(i) * 340
		sc.Apps = append(sc.Apps,
			sim.AppSpec{Engine: "mapreduce", Class: "wordcount", Name: "base wordcount", SubmitS: at, InputGB: 7, Executors: 28, Partitions: 4},
			sim.AppSpec{Engine: "mapreduce", Class: "randomwriter", Name: "base randomwriter", SubmitS: at + 170, InputGB: 7, Executors: 28, Partitions: 4})
	}
	sc.Apps = append(sc.Apps,
		sim.AppSpec{Engine: "mapreduce", Class: "wordcount", Name: "new wordcount", SubmitS: paperFigureFaultS + 10, InputGB: 14, SplitMB: 256, Executors: 28, Partitions: 4},
		sim.AppSpec{Engine: "mapreduce", Class: "randomwriter", Name: "new randomwriter", SubmitS: paperFigureFaultS + 300, InputGB: 14, SplitMB: 256, Executors: 28, Partitions: 4})
	return sc
}

// figureRow is one node of the reproduced Figure 7.
type figureRow struct {
	host, class string
	rl, slow    map[string]float64 // per new job: relative likelihood, joint slowdown
	paper, jnt  map[string]string  // per new job: the verdicts' resource ("" normal)
}

// paperFigure simulates the scenario on the hardware of cluster seed cs
// and judges each new job on its own with the paper's model and the joint
// model, both learned on the base jobs.
func paperFigure(t *testing.T, cs uint64) map[string]*figureRow {
	t.Helper()
	sc := paperFigureScenario()
	sc.Cluster.Seed = cs
	res, err := sim.Simulate(sc, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	var hist []*history.Run
	judged := map[string]*history.Run{}
	for _, app := range res.Apps {
		r := history.FromApp(app, "", false, nil)
		if strings.HasPrefix(app.Name, "base ") {
			hist = append(hist, r)
		} else {
			judged[strings.TrimPrefix(app.Name, "new ")] = r
		}
	}
	p := DefaultParams
	p.BaseJobs = map[string]string{"cpu": "base wordcount", "io": "base randomwriter"}
	pm, err := FitPaper(hist, p)
	if err != nil {
		t.Fatal(err)
	}
	jm, err := Fit(hist, DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]*figureRow{}
	row := func(h string) *figureRow {
		if rows[h] == nil {
			rows[h] = &figureRow{host: h, rl: map[string]float64{}, slow: map[string]float64{}, paper: map[string]string{}, jnt: map[string]string{}}
		}
		return rows[h]
	}
	for _, n := range res.Truth.Nodes {
		row(n.Host).class = n.Class
	}
	for job, r := range judged {
		for _, v := range jm.Judge([]*history.Run{r}) {
			if v.Slowdown != nil {
				row(v.Host).slow[job] = v.Slowdown.Value
				row(v.Host).jnt[job] = v.Resource
			}
		}
		for _, v := range pm.Judge([]*history.Run{r}) {
			if v.Status != StatusUnknown {
				row(v.Host).rl[job] = math.Exp(v.Z)
				row(v.Host).paper[job] = v.Resource
			}
		}
	}
	return rows
}

// TestPaperFigure7 reproduces PARC's Figure 7 (Gupta et al. §4.6): the
// paper's model (--model paper) learned on the base jobs, each new job
// judged on its own, the relative likelihood of every node's average map
// duration against the other nodes' average (§4.5). The paper's figure
// itself is not in its text; the text says node 13's likelihood for the
// new WordCount is "significantly lower than the relative likelihoods for
// all other machines", node 10's for the new RandomWriter likewise, and
// that node 13 on RandomWriter and node 10 on WordCount are not noticeably
// affected. On the hardware of cluster seed 1 (node 10 of 8 cores and 160
// MB/s disks, node 13 of 16 cores) the table; over cluster seeds 1–20 how
// often each finding holds, for the paper's model and the joint model.
// docs/PAPERS.md has both.
func TestPaperFigure7(t *testing.T) {
	rows := paperFigure(t, 1)
	hosts := make([]string, 0, len(rows))
	for h := range rows {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	var b strings.Builder
	fmt.Fprintf(&b, "| node | hardware | WordCount: relative likelihood | RandomWriter: relative likelihood | WordCount: joint slowdown | RandomWriter: joint slowdown |\n|---|---|---|---|---|---|\n")
	for _, h := range hosts {
		r := rows[h]
		fmt.Fprintf(&b, "| %s | %s | %.3g | %.3g | %.2fx | %.2fx |\n", strings.TrimSuffix(h, ".sim.local"), r.class, r.rl["wordcount"], r.rl["randomwriter"], r.slow["wordcount"], r.slow["randomwriter"])
	}
	// Over cluster seeds: the hogged node least likely for its job (the
	// paper's reading), degraded with the right resource by each model,
	// and no other node degraded.
	var least, paperRight, jointRight, paperInnocent, jointInnocent, paperAny, jointAny [2]int
	seeds := 20
	if testing.Short() {
		seeds = 5
	}
	for cs := uint64(1); cs <= uint64(seeds); cs++ {
		rows := paperFigure(t, cs)
		for k, c := range []struct{ host, job, res string }{{"node013.sim.local", "wordcount", ResourceCPU}, {"node010.sim.local", "randomwriter", ResourceIO}} {
			r := rows[c.host]
			low := true
			for h, o := range rows {
				if h != c.host && o.rl[c.job] <= r.rl[c.job] {
					low = false
				}
				if h != "node013.sim.local" && h != "node010.sim.local" {
					if o.paper[c.job] != "" {
						paperInnocent[k]++
					}
					if o.jnt[c.job] != "" {
						jointInnocent[k]++
					}
				}
			}
			if low {
				least[k]++
			}
			if r.paper[c.job] == c.res {
				paperRight[k]++
			}
			if r.paper[c.job] != "" {
				paperAny[k]++
			}
			if r.jnt[c.job] != "" {
				jointAny[k]++
			}
			if r.jnt[c.job] == c.res {
				jointRight[k]++
			}
		}
	}
	fmt.Fprintf(&b, "\n| finding over %d cluster seeds | CPU hog (node 13), new WordCount | disk hog (node 10), new RandomWriter |\n|---|---|---|\n", seeds)
	fmt.Fprintf(&b, "| least relative likelihood of all nodes (paper's reading of Figure 7) | %d | %d |\n", least[0], least[1])
	fmt.Fprintf(&b, "| paper's model: degraded | %d | %d |\n", paperAny[0], paperAny[1])
	fmt.Fprintf(&b, "| paper's model: degraded, right resource | %d | %d |\n", paperRight[0], paperRight[1])
	fmt.Fprintf(&b, "| paper's model: innocent nodes degraded | %d | %d |\n", paperInnocent[0], paperInnocent[1])
	fmt.Fprintf(&b, "| joint model: degraded | %d | %d |\n", jointAny[0], jointAny[1])
	fmt.Fprintf(&b, "| joint model: degraded, right resource | %d | %d |\n", jointRight[0], jointRight[1])
	fmt.Fprintf(&b, "| joint model: innocent nodes degraded | %d | %d |\n", jointInnocent[0], jointInnocent[1])
	t.Log("\n" + b.String())
	// Measured on 20 seeds: the CPU hog least likely in all, the disk hog
	// in 12 (on the 400 MB/s disks of the fastest generation the hog
	// barely slows the writes); the joint model finds as many with one
	// innocent degraded in 40 judgments (cluster seed 2, node003 on the new
	// RandomWriter: 1.44x over 4 tasks, z 3.51, as much without the disk
	// hog: one run's noise over a history of 8 runs, too few to calibrate
	// the tail on; none while each cell's node factor variance was counted
	// twice).
	if seeds == 20 && (least[0] < 20 || least[1] < 12 || jointRight[0] < paperRight[0] || jointRight[1] < paperRight[1] ||
		jointInnocent[0]+jointInnocent[1] > 1) {
		t.Errorf("least likely %v of %d, right resource: paper %v, joint %v, innocents joint %v: want [20 ≥12], joint ≥ paper, at most 1", least, seeds, paperRight, jointRight, jointInnocent)
	}
}
