package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// flowRun is one judged FlowBench run with its labels.
type flowRun struct {
	run *history.Run
	// fault is the run's fault type ("" fault-free; cpu_2, cpu_3, hdd_5,
	// hdd_10), faulty its faulty workers.
	fault  string
	faulty map[string]bool
}

// loadFlowbench reads workflow wf of shared/data/labeled/flowbench as its
// MANIFEST's protocol says: runs ordered by start, the fault-free runs of
// the earlier half are the history, every run of the later half is judged
// on its own. It returns the usual runs (the history's newest p.Usual,
// newest first) and the judged runs.
func loadFlowbench(t *testing.T, wf string, p Params) ([]*history.Run, []flowRun) {
	t.Helper()
	dir := filepath.Join(sharedtest.Dir(t, "labeled/flowbench"), wf)
	res, err := decodelogs.Paths([]string{filepath.Join(dir, "logs")}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("%s: %v", wf, res.Problems)
	}
	byID := map[string]*history.Run{}
	for _, a := range res.Apps {
		byID[a.ID] = history.FromApp(a, a.Source, false, nil)
	}
	runs := sharedtest.ReadCSV(t, filepath.Join(dir, "runs.csv"))
	slices.SortStableFunc(runs, func(a, b map[string]string) int {
		x, _ := strconv.ParseInt(a["start_ms"], 10, 64)
		y, _ := strconv.ParseInt(b["start_ms"], 10, 64)
		return int(x - y)
	})
	faulty := map[string]map[string]bool{}
	for _, row := range sharedtest.ReadCSV(t, filepath.Join(dir, "truth.csv")) {
		if row["faulty"] == "1" {
			if faulty[row["app_id"]] == nil {
				faulty[row["app_id"]] = map[string]bool{}
			}
			faulty[row["app_id"]][row["worker"]] = true
		}
	}
	var hist []*history.Run
	var judged []flowRun
	for i, row := range runs {
		r := byID[row["app_id"]]
		if r == nil {
			t.Fatalf("%s: run %s has no log", wf, row["app_id"])
		}
		switch {
		case i < len(runs)/2 && row["faulty_workers"] == "":
			hist = append(hist, r)
		case i >= len(runs)/2:
			judged = append(judged, flowRun{run: r, fault: row["fault_types"], faulty: faulty[row["app_id"]]})
		}
	}
	usual := hist[max(0, len(hist)-p.Usual):]
	slices.Reverse(usual)
	return usual, judged
}

// evalFlowbench is the evaluation on real recurring runs with
// injected CPU and disk limits (shared/data/labeled/flowbench, both
// workflows), nodes judged by nodes: every run of the later half explained
// against the fault-free history of the earlier half. Floors: disk-slowed
// runs that are slower than usual get a node cause whose largest item is a
// slowed worker in at least 90%, and fault-free runs are called usual in
// at least 95%. Beside it the simple baseline: the host whose mean task
// time grew most in the stage whose time grew most.
func evalFlowbench(t *testing.T, nodes NodeModel) {
	p := DefaultParams
	var b strings.Builder
	fmt.Fprintf(&b, "\n| workflow | fault | runs | slower than usual | node cause naming a slowed worker | any slowed worker named | baseline names a slowed worker | called usual |\n|---|---|---|---|---|---|---|---|\n")
	var diskSlower, diskNamed, clean, cleanUsual int
	// Per (run, worker) over the disk-slowed runs slower than usual: the
	// workers the node cause names, and the baseline's one host, against
	// the faulty workers.
	type pr struct{ tp, fp, fn int }
	var mine, base pr
	score := func(s *pr, named map[string]bool, faulty map[string]bool) {
		for _, w := range []string{"poseidon-worker-1", "poseidon-worker-2"} {
			switch {
			case named[w] && faulty[w]:
				s.tp++
			case named[w]:
				s.fp++
			case faulty[w]:
				s.fn++
			}
		}
	}
	for _, wf := range []string{"eht_difmap", "somospie"} {
		usual, judged := loadFlowbench(t, wf, p)
		type tally struct{ runs, slower, named, anyNamed, base, usual int }
		byFault := map[string]*tally{}
		for _, j := range judged {
			e := Explain(j.run, usual, p, nodes)
			kind := j.fault
			if strings.HasPrefix(kind, "hdd") {
				kind = "disk (" + kind + ")"
			}
			if kind == "" {
				kind = "none"
			}
			tl := byFault[kind]
			if tl == nil {
				tl = &tally{}
				byFault[kind] = tl
			}
			tl.runs++
			if e.Verdict == Usual {
				tl.usual++
			}
			if e.Verdict != Slower {
				continue
			}
			tl.slower++
			if strings.HasPrefix(j.fault, "hdd") {
				named := map[string]bool{}
				for _, c := range e.Causes {
					if c.Kind == KindNode {
						for _, it := range c.Items {
							named[it.Node] = true
						}
					}
				}
				score(&mine, named, j.faulty)
				score(&base, map[string]bool{baseline(j.run, usual).host: true}, j.faulty)
			}
			for _, c := range e.Causes {
				if c.Kind != KindNode {
					continue
				}
				if j.faulty[c.Items[0].Node] {
					tl.named++
				}
				if slices.ContainsFunc(c.Items, func(it Item) bool { return j.faulty[it.Node] }) {
					tl.anyNamed++
				}
			}
			if j.faulty[baseline(j.run, usual).host] {
				tl.base++
			}
			if os.Getenv("FLOWBENCH_DEBUG") != "" && strings.HasPrefix(j.fault, "hdd") && !slices.ContainsFunc(e.Causes, func(c Cause) bool { return c.Kind == KindNode && j.faulty[c.Items[0].Node] }) {
				t.Logf("%s %s faulty %v: %s", j.run.ID, j.fault, j.faulty, e.Summary)
				for _, c := range e.Causes {
					t.Logf("   %s %.1fs %.2f %s", c.Kind, c.Seconds, c.Share, c.Summary)
				}
			}
		}
		kinds := make([]string, 0, len(byFault))
		for k := range byFault {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			tl := byFault[k]
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d |\n", wf, k, tl.runs, tl.slower, tl.named, tl.anyNamed, tl.base, tl.usual)
			if strings.HasPrefix(k, "disk") {
				diskSlower += tl.slower
				diskNamed += tl.named
			}
			if k == "none" {
				clean += tl.runs
				cleanUsual += tl.usual
			}
		}
	}
	named := float64(diskNamed) / float64(max(diskSlower, 1))
	usualRate := float64(cleanUsual) / float64(max(clean, 1))
	fmt.Fprintf(&b, "disk-slowed runs slower than usual with a node cause naming a slowed worker: %d of %d (%.3f); fault-free runs called usual: %d of %d (%.3f)\n",
		diskNamed, diskSlower, named, cleanUsual, clean, usualRate)
	prf := func(s pr) string {
		p, r := float64(s.tp)/float64(max(s.tp+s.fp, 1)), float64(s.tp)/float64(max(s.tp+s.fn, 1))
		return fmt.Sprintf("precision %.3f recall %.3f (TP %d FP %d FN %d)", p, r, s.tp, s.fp, s.fn)
	}
	fmt.Fprintf(&b, "per (run, worker) on those runs: node cause %s; baseline %s\n", prf(mine), prf(base))
	t.Log(b.String())
	if named < 0.9 {
		t.Errorf("node cause naming a slowed worker in %.3f of the disk-slowed runs slower than usual, want ≥ 0.9", named)
	}
	if usualRate < 0.95 {
		t.Errorf("fault-free runs called usual: %.3f, want ≥ 0.95", usualRate)
	}
	if diskSlower < 50 {
		t.Errorf("only %d disk-slowed runs slower than usual: the evaluation lost its cases", diskSlower)
	}
}
