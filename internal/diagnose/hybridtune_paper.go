package diagnose

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Methods of the HybridTune detectors: clusterlens's reading (the default)
// or the paper's algorithm as written (Ren et al., "HybridTune:
// Spatio-temporal Data and Model Driven Performance Diagnosis for Big Data
// Systems", arXiv:1711.07639, §3.3.1–3.3.2). docs/PAPERS.md measures both
// on the simulator.
const (
	MethodSlots = "slots" // per task slot (clusterlens's; "" means it too)
	MethodPaper = "paper" // the paper's Algorithm as written
)

// imbalancePaper is HybridTune's Algorithm 1 as written (§3.3.1): per
// stage, ultrashort attempts removed, n_k is the number of attempts on
// node k (nodes that had executor slots during the stage and ran none
// count with 0), avg their mean over the N nodes, and Equation 1's
// tolerance BC·avg the number of imbalanced tasks tolerated; node k is
// imbalanced when |n_k − avg| exceeds it, and the stage when a node is.
// Equation 2's tilt degree (n_k − avg)/avg ranks the nodes; the finding
// names the overloaded ones, or the underloaded when none is. A job is
// imbalanced when the share of its stages that are, R, exceeds JobRatio.
// The paper counts tasks, not slots or time: on a heterogeneous cluster
// the fast nodes run more tasks by design (docs/PAPERS.md).
func imbalancePaper(in *Input, p WorkloadImbalanceParams) []Finding {
	app := in.App
	a, err := in.hiTune()
	if err != nil || len(app.Stages) == 0 {
		return nil
	}
	spans := a.Reconstruction.Executors
	var out []Finding
	stages, bad := map[int32]int{}, map[int32]int{}
	var jobs []int32
	for si, st := range app.Stages {
		if !workStage(st) {
			continue
		}
		recs := withoutUltrashort(stageRecords(app, si), p.UltrashortShare)
		if len(recs) == 0 {
			continue
		}
		loads := nodeLoads(app, spans, recs)
		f, imbalanced := imbalancePaperStage(st, loads, len(recs), p)
		if imbalanced {
			out = append(out, f)
		}
		for _, j := range st.JobIDs {
			if _, ok := stages[j]; !ok {
				jobs = append(jobs, j)
			}
			stages[j]++
			if imbalanced {
				bad[j]++
			}
		}
	}
	for _, j := range jobs {
		r := float64(bad[j]) / float64(stages[j])
		if bad[j] == 0 || r <= p.JobRatio {
			continue
		}
		out = append(out, Finding{
			Severity: Low,
			Scope:    Scope{Kind: ScopeJob, IDs: []string{strconv.Itoa(int(j))}},
			Summary: fmt.Sprintf("Job %d's task assignment is unbalanced: %d of its %d stages are (R = %.2f > %.2g).",
				j, bad[j], stages[j], r, p.JobRatio),
			Evidence: []Evidence{
				gate("imbalancedStageRatio", r, "ratio", ">", p.JobRatio),
				fact("job", float64(j), "id"),
				fact("stages", float64(stages[j]), "count"),
			},
			Recommendation: fmt.Sprintf("Spread job %d's work over the nodes: rebalance its input, repartition, or lower spark.locality.wait.", j),
		})
	}
	return out
}

// imbalancePaperStage is Algorithm 1's per-stage test (lines 3–16).
func imbalancePaperStage(st *model.Stage, loads []nodeLoad, tasks int, p WorkloadImbalanceParams) (Finding, bool) {
	if len(loads) < max(p.MinNodes, 2) {
		return Finding{}, false
	}
	var avg float64
	for _, l := range loads {
		avg += float64(l.tasks)
	}
	avg /= float64(len(loads))
	tol := p.BC * avg
	type node struct {
		host string
		tilt float64
	}
	var over, under []node
	tilt := 0.0
	for _, l := range loads {
		d := float64(l.tasks) - avg
		if math.Abs(d) <= tol {
			continue
		}
		n := node{l.host, d / avg}
		tilt = max(tilt, math.Abs(n.tilt))
		if d > 0 {
			over = append(over, n)
		} else {
			under = append(under, n)
		}
	}
	if len(over)+len(under) == 0 {
		return Finding{}, false
	}
	byTilt := func(a, b node) int {
		if c := cmp.Compare(math.Abs(b.tilt), math.Abs(a.tilt)); c != 0 {
			return c
		}
		return strings.Compare(a.host, b.host)
	}
	slices.SortFunc(over, byTilt)
	slices.SortFunc(under, byTilt)
	flagged, what := over, "overloaded"
	if len(over) == 0 {
		flagged, what = under, "underloaded"
	}
	var hosts, text []string
	for _, n := range flagged {
		hosts = append(hosts, n.host)
		if len(text) < 10 {
			text = append(text, fmt.Sprintf("%s %+.0f%%", n.host, 100*n.tilt))
		}
	}
	sev := max(p.Tilt.Ascending(tilt), Low)
	return Finding{
		Severity: sev,
		Scope:    Scope{Kind: ScopeNode, IDs: hosts},
		Summary: fmt.Sprintf("In %s the nodes ran %.1f tasks on average; %d ran more or fewer than the %.1f tolerated (BC %.2g): %s: %s.",
			stageLabel(st), avg, len(over)+len(under), tol, p.BC, what, strings.Join(text, ", ")),
		Evidence: []Evidence{
			graded("tiltDegree", tilt, "ratio", p.Tilt),
			gate("tiltOverBC", tilt, "ratio", ">", p.BC),
			fact("meanTasks", avg, "count"),
			fact("toleratedTasks", tol, "count"),
			fact("stage", float64(st.ID), "id"),
			fact("nodes", float64(len(loads)), "count"),
			fact("overloadedNodes", float64(len(over)), "count"),
			fact("underloadedNodes", float64(len(under)), "count"),
			fact("tasks", float64(tasks), "count"),
		},
		Recommendation: fmt.Sprintf("Spread %s's tasks over the nodes (%s): rebalance its input or repartition.", stageLabel(st), strings.Join(hosts, ", ")),
	}, true
}

// placementPaper is HybridTune's Algorithm 3 as written (§3.3.2, uneven
// data placement): per stage reading input with locality, the attempts'
// runtimes, their mean μ and standard deviation σ (line 1); an attempt's
// distance to μ over the mean distance makes it suspect (lines 2–9), and
// a suspect that ran longer than μ + σ has an abnormal runtime (lines
// 10–15; the comparison's symbols did not survive the text, this is
// clusterlens's reading of "the abnormal runtime is much longer than the
// normal runtime"). For node k and each locality category l weighted
// above 0, N_{k,l} counts its abnormal attempts of that locality, and
// Equation 3's ratio Σ_l w_l·N_{k,l} over the stage's attempts is the
// node's uneven-placement ratio; a ratio above 0 flags it (lines 16–25).
func placementPaper(in *Input, p UnevenPlacementParams) []Finding {
	app := in.App
	var out []Finding
	for si, st := range app.Stages {
		if !workStage(st) {
			continue
		}
		recs := stageRecords(app, si)
		if len(recs) < max(p.MinTasks, 2) || !slices.ContainsFunc(recs, func(r taskRec) bool { return r.loc != model.LocalityUnknown }) ||
			medianOf(recs, func(r *taskRec) float64 { return float64(r.input) }) <= 0 {
			continue
		}
		var mu, sd, meanDist float64
		for _, r := range recs {
			mu += float64(r.dur)
		}
		mu /= float64(len(recs))
		for _, r := range recs {
			d := float64(r.dur) - mu
			sd += d * d
			meanDist += math.Abs(d)
		}
		sd = math.Sqrt(sd / float64(len(recs)))
		meanDist /= float64(len(recs))
		ratio := map[string]float64{}
		cats := map[string][]string{}
		var hosts []string
		for _, r := range recs {
			d := float64(r.dur) - mu
			w := p.Weights.weight(r.loc)
			if math.Abs(d) <= meanDist || d <= sd || w <= 0 {
				continue
			}
			h := app.Host(r.host)
			if _, ok := ratio[h]; !ok {
				hosts = append(hosts, h)
			}
			ratio[h] += w / float64(len(recs))
			if !slices.Contains(cats[h], r.loc.String()) {
				cats[h] = append(cats[h], r.loc.String())
			}
		}
		if len(hosts) == 0 {
			continue
		}
		slices.Sort(hosts)
		var text []string
		top := 0.0
		for _, h := range hosts {
			top = max(top, ratio[h])
			if len(text) < 10 {
				text = append(text, fmt.Sprintf("%s [%s:%.4g]", h, strings.Join(cats[h], ","), ratio[h]))
			}
		}
		out = append(out, Finding{
			Severity: Low,
			Scope:    Scope{Kind: ScopeNode, IDs: hosts},
			Summary: fmt.Sprintf("In %s, %d nodes ran non-local attempts with abnormal runtimes (over μ + σ = %s): %s.",
				stageLabel(st), len(hosts), dur(int64(mu+sd)), strings.Join(text, ", ")),
			Evidence: []Evidence{
				gate("maxPlacementRatio", top, "ratio", ">", 0),
				fact("stage", float64(st.ID), "id"),
				fact("meanTaskMs", math.Round(mu), "ms"),
				fact("sdTaskMs", math.Round(sd), "ms"),
			},
			Recommendation: fmt.Sprintf("Place %s's input on the nodes that run it: run the HDFS balancer or raise its replication.", stageLabel(st)),
		})
	}
	return out
}
