package hetero

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// flowbench is one FlowBench workflow of shared/data/labeled/flowbench
// split as its MANIFEST's protocol says: runs ordered by start, the
// history the fault-free runs of the earlier half, every run of the later
// half judged on its own.
type flowbench struct {
	name     string
	hist     []*history.Run
	judged   []*history.Run
	apps     map[string]*model.App // judged runs' applications by run key
	histApps []*model.App
	// fault is a (run key, worker)'s fault kind: "" fault-free, "cpu" or
	// "disk"; faultFree marks the judged runs without any fault.
	fault     map[[2]string]string
	faultFree map[string]bool
}

// loadFlowbench reads workflow wf (skipping when shared/data lacks it).
func loadFlowbench(t testing.TB, wf string) *flowbench {
	t.Helper()
	dir := filepath.Join(sharedtest.Dir(t, "labeled/flowbench"), wf)
	res, err := decodelogs.Paths([]string{filepath.Join(dir, "logs")}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	decodelogs.ByStart(res.Apps)
	fb := &flowbench{name: wf, apps: map[string]*model.App{}, fault: map[[2]string]string{}, faultFree: map[string]bool{}}
	byID := map[string]*model.App{}
	for _, a := range res.Apps {
		byID[a.ID] = a
	}
	runRows := sharedtest.ReadCSV(t, filepath.Join(dir, "runs.csv"))
	type runRow struct {
		app   string
		start string
		clean bool
	}
	var rows []runRow
	for _, r := range runRows {
		rows = append(rows, runRow{app: r["app_id"], start: r["start_ms"], clean: r["faulty_workers"] == ""})
	}
	slices.SortStableFunc(rows, func(a, b runRow) int {
		if len(a.start) != len(b.start) {
			return len(a.start) - len(b.start)
		}
		return strings.Compare(a.start, b.start)
	})
	keyOf := map[string]string{}
	for i, rr := range rows {
		a := byID[rr.app]
		if a == nil {
			t.Fatalf("%s: run %s has no log", wf, rr.app)
		}
		r := history.FromApp(a, a.Source, false, nil)
		keyOf[rr.app] = r.Key
		switch {
		case i < len(rows)/2 && rr.clean:
			fb.hist = append(fb.hist, r)
			fb.histApps = append(fb.histApps, a)
		case i >= len(rows)/2:
			fb.judged = append(fb.judged, r)
			fb.apps[r.Key] = a
			fb.faultFree[r.Key] = rr.clean
		}
	}
	for _, tr := range sharedtest.ReadCSV(t, filepath.Join(dir, "truth.csv")) {
		k := [2]string{keyOf[tr["app_id"]], tr["worker"]}
		kind := ""
		switch {
		case strings.HasPrefix(tr["fault_type"], "hdd"):
			kind = "disk"
		case strings.HasPrefix(tr["fault_type"], "cpu"):
			kind = "cpu"
		}
		if tr["faulty"] == "1" && (fb.fault[k] == "" || kind == "disk") {
			fb.fault[k] = kind
		}
	}
	return fb
}

// fbScore tallies per (run, worker) flags against the labels.
type fbScore struct {
	method                      string
	disk, diskFound             int
	cpu, cpuFlagged             int
	clean, cleanFlagged         int // workers without a fault (in any run)
	cleanRuns, cleanRunsAlarmed int
}

func (s *fbScore) add(fb *flowbench, r *history.Run, flagged map[string]bool) {
	hosts := map[string]bool{}
	for _, h := range r.Hosts {
		hosts[h.Host] = true
	}
	alarm := false
	for h := range hosts {
		f := flagged[h]
		alarm = alarm || f
		switch fb.fault[[2]string{r.Key, h}] {
		case "disk":
			s.disk++
			if f {
				s.diskFound++
			}
		case "cpu":
			s.cpu++
			if f {
				s.cpuFlagged++
			}
		default:
			s.clean++
			if f {
				s.cleanFlagged++
			}
		}
	}
	if fb.faultFree[r.Key] {
		s.cleanRuns++
		if alarm {
			s.cleanRunsAlarmed++
		}
	}
}

func (s *fbScore) row() string {
	p := float64(s.diskFound) / float64(max(1, s.diskFound+s.cleanFlagged))
	r := float64(s.diskFound) / float64(max(1, s.disk))
	return fmt.Sprintf("| %s | %d | %.3f | %.3f | %.3f | %d of %d | %d of %d (%.3f) | %d of %d (%.3f) |", s.method, s.disk, p, r, 2*p*r/max(p+r, 1e-9),
		s.cleanFlagged, s.clean, s.cleanRunsAlarmed, s.cleanRuns, float64(s.cleanRunsAlarmed)/float64(max(1, s.cleanRuns)),
		s.cpuFlagged, s.cpu, float64(s.cpuFlagged)/float64(max(1, s.cpu)))
}

// taskBaseline is the MANIFEST's plain baseline computed from the tasks
// themselves: a worker is flagged when the median over its tasks of
// (duration / the median duration of the same stage name in the
// fault-free history) is at least ratio.
func taskBaseline(hist []*model.App, ratio float64) func(*model.App) map[string]bool {
	durs := map[string][]float64{}
	for _, a := range hist {
		for _, st := range a.Stages {
			for i := range st.Tasks {
				if tk := &st.Tasks[i]; tk.Status == model.TaskSuccess {
					durs[st.Name] = append(durs[st.Name], float64(tk.Duration()))
				}
			}
		}
	}
	med := map[string]float64{}
	for k, v := range durs {
		med[k] = median(v)
	}
	return func(a *model.App) map[string]bool {
		per := map[string][]float64{}
		for _, st := range a.Stages {
			m := med[st.Name]
			if m <= 0 {
				continue
			}
			for i := range st.Tasks {
				if tk := &st.Tasks[i]; tk.Status == model.TaskSuccess {
					per[a.Hosts[tk.Host]] = append(per[a.Hosts[tk.Host]], float64(tk.Duration())/m)
				}
			}
		}
		out := map[string]bool{}
		for h, v := range per {
			out[h] = median(v) >= ratio
		}
		return out
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// TestFlowbench measures node diagnosis on FlowBench's labeled runs
// (shared/data/labeled/flowbench, protocol in its MANIFEST): per
// workflow, the history is the fault-free runs of the earlier half, every
// run of the later half is judged on its own, and each (run, worker) is
// scored: disk-limited workers are the faults to find; fault-free workers
// (of any run) the innocents; CPU-limited workers are reported apart (the
// limits barely change task durations). Beside the joint model with the
// history expectation: the same model with the run's other nodes alone
// (the method before, PARC's α*), PARC as the paper gives it, the plain
// baseline computed from the tasks as the MANIFEST states it and built in
// (nodes --model baseline, from the stored moments). The design and its
// parameters were set on the simulator; one fix came from looking at
// somospie's misses (a stage whose byte flags differ between runs is the
// same stage, Joint.job), so eht_difmap is the held-out workflow. The floors are
// the issue's: recall ≥ 0.95 at precision ≥ 0.95 for disk-limited workers,
// alarms on at most 1% of the fault-free runs judged. docs/NODES.md has
// the table.
func TestFlowbench(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "| workflow | method | disk-limited workers | precision | recall | F1 | fault-free workers flagged | fault-free runs with an alarm | CPU-limited workers flagged |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, wf := range []string{"eht_difmap", "somospie"} {
		fb := loadFlowbench(t, wf)
		m, err := Fit(fb.hist, DefaultParams)
		if err != nil {
			t.Fatal(err)
		}
		pp := DefaultParams
		pp.Expect = ExpectPeers
		mp, err := Fit(fb.hist, pp)
		if err != nil {
			t.Fatal(err)
		}
		pm, err := FitPaper(fb.hist, DefaultParams)
		if err != nil {
			t.Fatal(err)
		}
		bm, err := FitBaseline(fb.hist, DefaultParams)
		if err != nil {
			t.Fatal(err)
		}
		tb := taskBaseline(fb.histApps, BaselineRatio)
		type method struct {
			s     *fbScore
			judge func(*history.Run) map[string]bool
		}
		flags := func(vs []Verdict) map[string]bool {
			out := map[string]bool{}
			for _, v := range vs {
				out[v.Host] = v.Culprit()
			}
			return out
		}
		methods := []method{
			{&fbScore{method: "**joint, history expectation**"}, func(r *history.Run) map[string]bool { return flags(m.Judge([]*history.Run{r})) }},
			{&fbScore{method: "joint, --expect peers"}, func(r *history.Run) map[string]bool { return flags(mp.Judge([]*history.Run{r})) }},
			{&fbScore{method: "paper (PARC)"}, func(r *history.Run) map[string]bool { return flags(pm.Judge([]*history.Run{r})) }},
			{&fbScore{method: "baseline, tasks (MANIFEST)"}, func(r *history.Run) map[string]bool { return tb(fb.apps[r.Key]) }},
			{&fbScore{method: "baseline, built in"}, func(r *history.Run) map[string]bool { return flags(bm.Judge([]*history.Run{r})) }},
		}
		for _, r := range fb.judged {
			for _, x := range methods {
				x.s.add(fb, r, x.judge(r))
			}
		}
		for _, x := range methods {
			fmt.Fprintf(&b, "| %s (history %d runs, judged %d) %s\n", wf, len(fb.hist), len(fb.judged), x.s.row())
		}
		j := methods[0].s
		p := float64(j.diskFound) / float64(max(1, j.diskFound+j.cleanFlagged))
		r := float64(j.diskFound) / float64(max(1, j.disk))
		if r < 0.95 || p < 0.95 || float64(j.cleanRunsAlarmed) > 0.01*float64(j.cleanRuns) {
			t.Errorf("%s: disk-limited workers found %.3f at precision %.3f, alarms on %d of %d fault-free runs; want ≥ 0.95, ≥ 0.95, ≤ 1%%", wf, r, p, j.cleanRunsAlarmed, j.cleanRuns)
		}
	}
	t.Log("\n" + b.String())
}
