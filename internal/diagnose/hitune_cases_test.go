package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// HiTune's experience (Dai et al., USENIX ATC'11, §6.2 and §7)
// reproduced on the simulator as closely as it allows; docs/PAPERS.md has
// the paper's numbers beside these.

// hituneApp runs one application of the clean scenario alone (its
// app-th: 1 TeraSort, 3 Sort) on nodes homogeneous nodes, edited by edit.
func hituneApp(t *testing.T, app, nodes int, seed uint64, edit func(*sim.Scenario)) *model.App {
	t.Helper()
	sc, err := sim.Named("clean")
	if err != nil {
		t.Fatal(err)
	}
	sc.WithNodes(nodes)
	c := sc.Cluster.Classes[1]
	c.Share = 1
	sc.Cluster.Classes = []sim.HardwareClass{c}
	a := sc.Apps[app]
	a.SubmitS = 0
	sc.Apps = []sim.AppSpec{a}
	sc.HorizonS = 7200
	if edit != nil {
		edit(sc)
	}
	res, err := sim.Simulate(sc, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) != 1 {
		t.Fatalf("%d applications, want 1", len(res.Apps))
	}
	return res.Apps[0]
}

// busyShare is the share of the application's allocated slot time its
// tasks were busy, and its wall time.
func busyShare(t *testing.T, app *model.App) (share float64, wallMs int64) {
	t.Helper()
	a, err := dataflow.Analyze(app, dataflow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := a.Breakdown
	return float64(b.App.Cause[dataflow.CauseBusy]) / float64(max(b.App.Total, 1)), b.WallMs
}

// shuffleGapShare is §7.2's gap: from the last map's end to the end of the
// first wave of reduces' shuffle, over the job's wall time.
func shuffleGapShare(app *model.App) float64 {
	var lastMap, firstReduce, shuffleEnd int64 = 0, 1 << 62, 0
	var m model.TaskMetrics
	var reduces [][2]int64
	for _, st := range app.Stages {
		for i, tk := range st.Tasks {
			if tk.Status != model.TaskSuccess {
				continue
			}
			switch st.Kind {
			case model.StageMap:
				lastMap = max(lastMap, tk.Finish)
			case model.StageReduce:
				st.TaskMetrics(i, &m)
				if m[model.ShufflePhaseFinish] > 0 {
					reduces = append(reduces, [2]int64{tk.Launch, m[model.ShufflePhaseFinish]})
					firstReduce = min(firstReduce, tk.Launch)
				}
			}
		}
	}
	for _, r := range reduces {
		if r[0] <= max(lastMap, firstReduce) {
			shuffleEnd = max(shuffleEnd, r[1])
		}
	}
	return float64(max(0, shuffleEnd-lastMap)) / float64(max(app.Duration(), 1))
}

// reduceTimeByNode is §7.3's Figure 20: each node's mean reduce running
// time over the mean of all reduces.
func reduceTimeByNode(app *model.App) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	var all float64
	var cnt int
	for _, st := range app.Stages {
		if st.Kind != model.StageReduce {
			continue
		}
		for _, tk := range st.Tasks {
			if tk.Status == model.TaskSuccess && tk.Finish > tk.Launch {
				d := float64(tk.Finish - tk.Launch)
				h := app.Host(tk.Host)
				sum[h] += d
				n[h]++
				all += d
				cnt++
			}
		}
	}
	out := map[string]float64{}
	for h, s := range sum {
		out[h] = s / float64(n[h]) / (all / float64(cnt))
	}
	return out
}

// TestHiTuneCases reproduces §7.1 (sorting many small files with one task
// launched per node per heartbeat), §7.2 (TeraSort's map-to-shuffle gap),
// §7.3 (reduces on nodes with a slow disk) and §6.2 (vertex instances per
// job), and checks what HiTune's analysis would show: the slots idle while
// tasks wait and the scheduling-gap finding; the slow-disk nodes' reduces
// the slowest.
func TestHiTuneCases(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 4 jobs")
	}
	var b strings.Builder
	// §7.1: 3200 small input files, 20 slave nodes; Hadoop 0.20.1's Fair
	// Scheduler launched one task per node at each 3 s heartbeat.
	small := func(sc *sim.Scenario) {
		sc.Apps[0].SplitMB, sc.Apps[0].InputGB, sc.Apps[0].Executors = 1, 3.125, 80
	}
	fixed := hituneApp(t, 3, 20, 1, small)
	slow := hituneApp(t, 3, 20, 1, func(sc *sim.Scenario) {
		small(sc)
		sc.Problems = []sim.ProblemSpec{{Kind: sim.ProblemSchedGap, App: 0, Stage: 0, LaunchesPerS: 20.0 / 3}}
	})
	fBusy, fWall := busyShare(t, fixed)
	sBusy, sWall := busyShare(t, slow)
	maps := 0
	for _, st := range slow.Stages {
		if st.Kind == model.StageMap {
			maps += len(st.Tasks)
		}
	}
	gap := Run(slow, Options{Only: []string{"scheduling-gap"}})
	noGap := Run(fixed, Options{Only: []string{"scheduling-gap"}})
	fmt.Fprintf(&b, "§7.1 small files (%d maps, 20 nodes): one launch per node per 3 s heartbeat: wall %.0f s, slots busy %.1f%%; unthrottled: wall %.0f s (%.1fx faster), busy %.1f%%; scheduling-gap findings %d (unthrottled %d)\n",
		maps, float64(sWall)/1000, 100*sBusy, float64(fWall)/1000, float64(sWall)/float64(fWall), 100*fBusy, len(gap), len(noGap))
	if len(gap) == 0 || len(noGap) > 0 || float64(sWall) < 2*float64(fWall) || sBusy > fBusy/2 {
		t.Errorf("§7.1: wall %d against %d ms, busy %.3f against %.3f, %d scheduling-gap findings: want the throttled run ≥ 2x slower, half as busy, found",
			sWall, fWall, sBusy, fBusy, len(gap))
	}

	// §7.2: TeraSort alone on 20 nodes.
	ts := hituneApp(t, 1, 20, 1, nil)
	share := shuffleGapShare(ts)
	sg := Run(ts, Options{Only: []string{"shuffle-gap"}})
	fmt.Fprintf(&b, "§7.2 TeraSort: last map end to the first wave's shuffle end %.1f%% of the job; shuffle-gap findings %d\n", 100*share, len(sg))
	if share <= 0 || len(sg) != 1 {
		t.Errorf("§7.2: gap share %.3f, %d shuffle-gap findings: want a gap, reported once", share, len(sg))
	}

	// §7.3: two of 8 nodes with a slow disk.
	sd := hituneApp(t, 1, 8, 1, func(sc *sim.Scenario) {
		sc.Faults = []sim.FaultSpec{{Kind: sim.FaultSlowDisk, Node: 2, StartS: 0, EndS: sc.HorizonS},
			{Kind: sim.FaultSlowDisk, Node: 6, StartS: 0, EndS: sc.HorizonS}}
	})
	byNode := reduceTimeByNode(sd)
	hosts := make([]string, 0, len(byNode))
	for h := range byNode {
		hosts = append(hosts, h)
	}
	slices.SortFunc(hosts, func(a, c string) int {
		switch {
		case byNode[a] > byNode[c]:
			return -1
		case byNode[a] < byNode[c]:
			return 1
		}
		return strings.Compare(a, c)
	})
	fmt.Fprintf(&b, "§7.3 TeraSort, slow disks on node003 and node007: reduce time over the mean by node:")
	for _, h := range hosts {
		fmt.Fprintf(&b, " %s %.2f", h, byNode[h])
	}
	b.WriteString("\n")
	if len(hosts) < 4 || !strings.HasPrefix(hosts[0], "node003") && !strings.HasPrefix(hosts[0], "node007") ||
		!strings.HasPrefix(hosts[1], "node003") && !strings.HasPrefix(hosts[1], "node007") {
		t.Errorf("§7.3: slowest reduce nodes %v, want node003 and node007 first", hosts)
	}

	// §6.2: vertex instances of a MapReduce job, 2M + 4R in the paper's
	// dataflow model, against the phases the job history lets us rebuild.
	a, err := dataflow.Analyze(ts, dataflow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var m, r, inst int
	for _, at := range a.Reconstruction.Attempts {
		switch at.Pool {
		case dataflow.PoolMap:
			m++
		case dataflow.PoolReduce:
			r++
		default:
			continue
		}
		for _, d := range at.Dur {
			if d > 0 {
				inst++
			}
		}
	}
	fmt.Fprintf(&b, "§6.2 TeraSort: %d maps, %d reduces: 2M+4R = %d vertex instances in the paper's model; %d rebuilt from the history (phases of non-zero length)\n",
		m, r, 2*m+4*r, inst)
	t.Log("\n" + b.String())
}
