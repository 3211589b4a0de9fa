package diagnose

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/model"
)

// WorkloadImbalanceParams tune the workload-imbalance detector, HybridTune's
// Algorithm 1 (Ren et al., "HybridTune: Spatio-temporal Data and Model
// Driven Performance Diagnosis for Big Data Systems", arXiv:1711.07639,
// §3.3.1, Algorithm 1, Equations 1–2; docs/PAPERS.md).
type WorkloadImbalanceParams struct {
	// BC is the balance coefficient: a node whose workload deviates from
	// the mean of the nodes by more than BC (a share of the mean,
	// Equation 1) is imbalanced. The paper's evaluation sets 0.1 (§5.3).
	BC float64
	// UltrashortShare removes ultrashort tasks before the workloads are
	// summed: attempts shorter than this share of their stage's median
	// attempt. The paper removes ultrashort tasks without fixing the cut;
	// 0.1 is clusterlens's.
	UltrashortShare float64
	// Tilt grades the tilt degree (the largest absolute deviation). Its low
	// limit is BC; the others are clusterlens's.
	Tilt Limits
	// MinNodes is the fewest nodes a comparison needs.
	MinNodes int
	// MinTasksPerNode is the fewest (non-ultrashort) attempts per node on
	// average: with fewer, task granularity alone makes nodes uneven
	// (clusterlens's gate).
	MinTasksPerNode float64
	// MinExcessMs is the least time an imbalanced node's slots worked
	// beyond (or short of) the mean: what balancing would move
	// (clusterlens's gate).
	MinExcessMs int64
	// Method is MethodSlots (clusterlens's, "" too) or MethodPaper
	// (Algorithm 1 as written: tasks per node, imbalancePaper).
	Method string
	// JobRatio is MethodPaper's threshold on the share of a job's stages
	// that are imbalanced (the paper's user-set threshold; §5.3 lists 0.6
	// beside BC = 0.1, its symbol lost in the text).
	JobRatio float64
}

// DefaultWorkloadImbalanceParams are the defaults.
var DefaultWorkloadImbalanceParams = WorkloadImbalanceParams{BC: 0.1, UltrashortShare: 0.1, Tilt: Limits{0.1, 0.25, 0.5, 1},
	MinNodes: 2, MinTasksPerNode: 3, MinExcessMs: 10_000, JobRatio: 0.6}

func init() {
	mustRegister(Func[WorkloadImbalanceParams]{
		ID:       "workload-imbalance",
		Heading:  "Workload imbalance across nodes",
		Cite:     "HybridTune (Ren et al., arXiv:1711.07639), §3.3.1, Algorithm 1 (workload imbalance: ultrashort tasks removed, balance coefficient BC = 0.1, per-node deviation, tilt degree)",
		Defaults: DefaultWorkloadImbalanceParams,
		Fn:       workloadImbalance,
	})
}

// workloadImbalance follows HybridTune's Algorithm 1 at stage and job level.
// For a set of attempts (a stage's, or a job's over its stages) it removes
// ultrashort attempts and measures each node's workload per task slot (the
// HiTune reconstruction's executor slots alive while the attempts ran) in
// two ways: attempts per slot and attempt time per slot. With the mean over
// the nodes, node n deviates by (x_n - mean) / mean in each; its deviation
// d_n is the smaller of the two when both lean the same way, else 0. The
// set is imbalanced when the tilt degree max |d_n| exceeds BC. The paper
// compares per-node workloads without saying how nodes of different sizes
// and speeds count; the per-slot measures and the two-way test are
// clusterlens's: counting tasks alone calls fast nodes of a heterogeneous
// cluster overloaded, summing time alone calls nodes with straggling tasks
// overloaded, while a node that really receives more of the work (its
// data lives there) has both more tasks and more busy time per slot. Nodes
// that had slots but ran none of the attempts count with zero workload.
// The finding names the overloaded nodes (d_n > BC), or the underloaded
// ones when none is.
func workloadImbalance(in *Input, p WorkloadImbalanceParams) []Finding {
	if p.Method == MethodPaper {
		return imbalancePaper(in, p)
	}
	app := in.App
	a, err := in.hiTune()
	if err != nil || len(app.Stages) == 0 {
		return nil
	}
	spans := a.Reconstruction.Executors
	var out []Finding
	byJob := map[int32][][]taskRec{} // each job's stages' records
	stagesOfJob := map[int32]int{}
	var jobs []int32
	for si, st := range app.Stages {
		if !workStage(st) {
			continue
		}
		recs := withoutUltrashort(stageRecords(app, si), p.UltrashortShare)
		if len(recs) == 0 {
			continue
		}
		if f, ok := imbalanceFinding(app, spans, [][]taskRec{recs}, p, "stage", stageName(st), stageLabel(st)); ok {
			out = append(out, f)
		}
		for _, j := range st.JobIDs {
			if _, ok := byJob[j]; !ok {
				jobs = append(jobs, j)
			}
			byJob[j] = append(byJob[j], recs)
			stagesOfJob[j]++
		}
	}
	for _, j := range jobs {
		if stagesOfJob[j] < 2 {
			continue
		}
		id := strconv.Itoa(int(j))
		if f, ok := imbalanceFinding(app, spans, byJob[j], p, "job", id, "job "+id); ok {
			out = append(out, f)
		}
	}
	return out
}

// withoutUltrashort drops attempts shorter than share of the median: recs
// itself when none is, else a new slice (recs may be shared).
func withoutUltrashort(recs []taskRec, share float64) []taskRec {
	med := medianOf(recs, func(r *taskRec) float64 { return float64(r.dur) })
	short := func(r taskRec) bool { return float64(r.dur) < share*med }
	if !slices.ContainsFunc(recs, short) {
		return recs
	}
	return slices.DeleteFunc(slices.Clone(recs), short)
}

// nodeLoad is one node's workload in a set of attempts.
type nodeLoad struct {
	host      string
	slots     int
	taskMs    int64
	tasks     int
	perSlot   float64 // ms per slot
	tasksSlot float64 // attempts per slot
	devTime   float64 // (perSlot - mean) / mean
	devTasks  float64 // (tasksSlot - mean) / mean
	deviation float64 // d_n: the smaller of devTime and devTasks when they share a sign, else 0
}

// nodeLoads sums attempt time per node over the slots each node had while
// the attempts of recs (one slice or several) ran.
func nodeLoads(app *model.App, spans []dataflow.ExecutorSpan, recs ...[]taskRec) []nodeLoad {
	start, end := int64(math.MaxInt64), int64(math.MinInt64)
	for _, part := range recs {
		for _, r := range part {
			start, end = min(start, r.launch), max(end, r.finish)
		}
	}
	idx := map[string]int{}
	var loads []nodeLoad
	node := func(h string) *nodeLoad {
		i, ok := idx[h]
		if !ok {
			i = len(loads)
			idx[h] = i
			loads = append(loads, nodeLoad{host: h})
		}
		return &loads[i]
	}
	for _, s := range spans {
		if s.Host != "" && s.Start < end && s.End > start {
			node(s.Host).slots += s.Slots
		}
	}
	byHost := make([]int, len(app.Hosts)) // host index → 1 + its load's index, 0 until seen
	for _, part := range recs {
		for _, r := range part {
			var n *nodeLoad
			if int(r.host) < len(byHost) && byHost[r.host] > 0 {
				n = &loads[byHost[r.host]-1]
			} else {
				n = node(app.Host(r.host))
				if int(r.host) < len(byHost) {
					byHost[r.host] = idx[app.Host(r.host)] + 1
				}
			}
			n.taskMs += r.dur
			n.tasks++
		}
	}
	var sumT, sumC float64
	for i := range loads {
		slots := float64(max(loads[i].slots, 1))
		loads[i].perSlot = float64(loads[i].taskMs) / slots
		loads[i].tasksSlot = float64(loads[i].tasks) / slots
		sumT += loads[i].perSlot
		sumC += loads[i].tasksSlot
	}
	n := float64(max(len(loads), 1))
	meanT, meanC := sumT/n, sumC/n
	for i := range loads {
		l := &loads[i]
		if meanT > 0 && meanC > 0 {
			l.devTime, l.devTasks = (l.perSlot-meanT)/meanT, (l.tasksSlot-meanC)/meanC
		}
		switch {
		case l.devTime > 0 && l.devTasks > 0:
			l.deviation = min(l.devTime, l.devTasks)
		case l.devTime < 0 && l.devTasks < 0:
			l.deviation = max(l.devTime, l.devTasks)
		}
	}
	slices.SortFunc(loads, func(a, b nodeLoad) int { return strings.Compare(a.host, b.host) })
	return loads
}

// imbalanceFinding applies Algorithm 1's test to one set of attempts: the
// records of one stage, or of a job's stages.
func imbalanceFinding(app *model.App, spans []dataflow.ExecutorSpan, recs [][]taskRec, p WorkloadImbalanceParams, kind, id, label string) (Finding, bool) {
	loads := nodeLoads(app, spans, recs...)
	tasks := 0
	for _, part := range recs {
		tasks += len(part)
	}
	if len(loads) < max(p.MinNodes, 2) || float64(tasks) < p.MinTasksPerNode*float64(len(loads)) {
		return Finding{}, false
	}
	var tilt, mean, maxW float64
	for _, l := range loads {
		tilt = max(tilt, math.Abs(l.deviation))
		mean += l.perSlot / float64(len(loads))
	}
	var excessF float64
	for _, l := range loads {
		maxW = max(maxW, l.perSlot)
		if math.Abs(l.deviation) > p.BC {
			excessF = max(excessF, math.Abs(l.perSlot-mean))
		}
	}
	excess := int64(math.Round(excessF))
	sev := p.Tilt.Ascending(tilt)
	if tilt <= p.BC || sev == None || excess < p.MinExcessMs {
		return Finding{}, false
	}
	var over, under []string
	var overDev, underDev []string
	for _, l := range loads {
		switch {
		case l.deviation > p.BC:
			over = append(over, l.host)
			overDev = append(overDev, fmt.Sprintf("%s %+.0f%%", l.host, 100*l.deviation))
		case l.deviation < -p.BC:
			under = append(under, l.host)
			underDev = append(underDev, fmt.Sprintf("%s %+.0f%%", l.host, 100*l.deviation))
		}
	}
	hosts, what := over, "overloaded"
	if len(over) == 0 {
		hosts, what = under, "underloaded"
	}
	devs := append(overDev, underDev...)
	if len(devs) > 10 {
		devs = append(devs[:10], fmt.Sprintf("and %d more", len(devs)-10))
	}
	num, _ := strconv.Atoi(strings.SplitN(id, ".", 2)[0])
	summary := fmt.Sprintf("In %s the nodes' slots worked %s on average but the busiest node's %s: tilt degree %.2f > BC %.2g over %d nodes; %s: %s",
		label, dur(int64(mean)), dur(int64(maxW)), tilt, p.BC, len(loads), what, strings.Join(devs, ", "))
	return Finding{
		Severity: sev,
		Scope:    Scope{Kind: ScopeNode, IDs: hosts},
		Summary:  summary + ".",
		Evidence: []Evidence{
			graded("tiltDegree", tilt, "ratio", p.Tilt),
			gate("balanceCoefficient", tilt, "ratio", ">", p.BC),
			fact(kind, float64(num), "id"),
			fact("nodes", float64(len(loads)), "count"),
			fact("overloadedNodes", float64(len(over)), "count"),
			fact("underloadedNodes", float64(len(under)), "count"),
			fact("meanSlotMs", math.Round(mean), "ms"),
			fact("maxSlotMs", math.Round(maxW), "ms"),
			gate("excessMs", float64(excess), "ms", ">=", float64(p.MinExcessMs)),
			fact("tasks", float64(tasks), "count"),
		},
		Recommendation: fmt.Sprintf("Spread %s's work over the nodes: its input sits on or is scheduled to few nodes (%s). "+
			"Rebalance the data (hdfs balancer, more replicas of hot files), repartition so every node gets tasks, "+
			"lower spark.locality.wait if tasks wait for busy data-local nodes, or give the underloaded nodes' executors other work.", label, strings.Join(hosts, ", ")),
	}, true
}
