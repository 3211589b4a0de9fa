package diagnose

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// LocalityWeights weight a task by where it ran relative to its data: 0
// for a task that read locally, up to 1 for one that read across racks.
type LocalityWeights struct {
	ProcessLocal, NodeLocal, NoPref, RackLocal, Any float64
}

// weight returns the weight of l; unknown locality weighs 0.
func (w LocalityWeights) weight(l model.Locality) float64 {
	switch l {
	case model.ProcessLocal:
		return w.ProcessLocal
	case model.NodeLocal:
		return w.NodeLocal
	case model.NoPref:
		return w.NoPref
	case model.RackLocal:
		return w.RackLocal
	case model.AnyLocality:
		return w.Any
	}
	return 0
}

// UnevenPlacementParams tune the uneven-placement detector, HybridTune's
// Algorithm 3 (Ren et al., arXiv:1711.07639, §3.3.2, Algorithm 3,
// Equation 3; docs/PAPERS.md).
type UnevenPlacementParams struct {
	// Weights weight each task by locality category. The paper weights the
	// categories without publishing values; clusterlens's are 0 for
	// process- and node-local and no-preference tasks, 0.5 for rack-local
	// and 1 for off-rack (ANY) tasks.
	Weights LocalityWeights
	// NodeRatio is the weighted non-local share of a runtime-outlier node's
	// tasks at or above which the node lacks the stage's data
	// (clusterlens's).
	NodeRatio float64
	// MinDistance is the least mean distance of an outlier cluster from
	// the median node for a split to count (clusterlens's; the paper splits
	// without such a test).
	MinDistance float64
	// MaxOutlierShare is the largest share of the nodes that may be
	// flagged: nodes without the data are the exception (clusterlens's).
	// It bounds the flagged nodes, not the runtime outliers: in a
	// heterogeneous cluster the slowest and fastest hardware are runtime
	// outliers too, and only the locality test tells them from the nodes
	// that lack the data.
	MaxOutlierShare float64
	// Share grades the flagged nodes' task slots as a share of the stage's
	// (clusterlens's limits).
	Share Limits
	// MinNodes is the fewest nodes a stage needs; MinTasks the fewest
	// successful attempts.
	MinNodes, MinTasks int
	// MinTasksPerNode is the fewest attempts per node on average: with one
	// or two a node, runtimes differ by whole tasks (clusterlens's gate).
	MinTasksPerNode float64
	// Method is MethodSlots (clusterlens's nodes clustered, "" too) or
	// MethodPaper (Algorithm 3 as written: attempts' runtimes,
	// placementPaper).
	Method string
}

// DefaultUnevenPlacementParams are the defaults.
var DefaultUnevenPlacementParams = UnevenPlacementParams{
	Weights:   LocalityWeights{RackLocal: 0.5, Any: 1},
	NodeRatio: 0.5, MinDistance: 0.25, MaxOutlierShare: 0.5, Share: Limits{0.05, 0.1, 0.2, 0.4}, MinNodes: 3, MinTasks: 5, MinTasksPerNode: 3,
}

func init() {
	mustRegister(Func[UnevenPlacementParams]{
		ID:       "uneven-placement",
		Heading:  "Uneven data placement",
		Cite:     "HybridTune (Ren et al., arXiv:1711.07639), §3.3.2, Algorithm 3 (uneven data placement: runtime outliers split by Euclidean distance, locality categories weighted, per-node ratio)",
		Defaults: DefaultUnevenPlacementParams,
		Fn:       unevenPlacement,
	})
}

// unevenPlacement follows HybridTune's Algorithm 3 per stage that reads
// input (its median attempt read input bytes) and whose attempts carry
// locality (Spark's, MapReduce maps' from the history or the split
// locations). Each node that ran the stage's attempts is a point of
// runtime: its slots' busy time (as in workload-imbalance) and its mean
// attempt duration, each over the stage's median node, so a node without
// the data shows up either way: its tasks read remotely and run long, or
// the scheduler waited for data-local slots and left it underloaded. The
// nodes are split by their Euclidean distance from the median node (1, 1)
// with the cut that minimises the clusters' squared distances to their
// means (exact 1-D two-means), repeated on the near cluster while the far
// one lies at least MinDistance away (peelOutliers); the far clusters hold
// the runtime outliers.
// An outlier whose tasks' locality weights average NodeRatio or more ran
// mostly non-local tasks: it holds too little of the stage's data. When
// more than MaxOutlierShare of the nodes are flagged, the data is not
// missing from a few nodes but sits on a few, and nothing is reported. The
// paper does not say which runtime it clusters; clustering nodes on both
// busy time and duration is clusterlens's reading.
func unevenPlacement(in *Input, p UnevenPlacementParams) []Finding {
	if p.Method == MethodPaper {
		return placementPaper(in, p)
	}
	app := in.App
	a, err := in.hiTune()
	if err != nil {
		return nil
	}
	var out []Finding
	for si, st := range app.Stages {
		if !workStage(st) {
			continue
		}
		recs := stageRecords(app, si)
		if len(recs) < p.MinTasks || !slices.ContainsFunc(recs, func(r taskRec) bool { return r.loc != model.LocalityUnknown }) ||
			medianOf(recs, func(r *taskRec) float64 { return float64(r.input) }) <= 0 {
			continue
		}
		if f, ok := placementFinding(app, st, recs, nodeLoads(app, a.Reconstruction.Executors, recs), p); ok {
			out = append(out, f)
		}
	}
	return out
}

// splitOutliers returns the cut (outliers have value >= cut) that minimises
// the two clusters' summed squared distances to their means, and the
// clusters' means. ok is false when all values are equal.
func splitOutliers(vs []float64) (cut, lowMean, highMean float64, ok bool) {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n < 2 || s[0] == s[n-1] {
		return 0, 0, 0, false
	}
	pre, pre2 := make([]float64, n+1), make([]float64, n+1)
	for i, v := range s {
		pre[i+1], pre2[i+1] = pre[i]+v, pre2[i]+v*v
	}
	sse := func(i, j int) float64 { // s[i:j]
		sum, k := pre[j]-pre[i], float64(j-i)
		return pre2[j] - pre2[i] - sum*sum/k
	}
	best, bi := -1.0, 0
	for i := 1; i < n; i++ {
		if s[i] == s[i-1] {
			continue
		}
		if e := sse(0, i) + sse(i, n); best < 0 || e < best {
			best, bi = e, i
		}
	}
	return s[bi], pre[bi] / float64(bi), (pre[n] - pre[bi]) / float64(n-bi), true
}

// peelOutliers splits vs by Euclidean distance (splitOutliers) again and
// again, each time on the near cluster of the last split, while the far
// cluster's mean reaches minFar: one extreme node (a straggler-ridden or
// slow one) must not hide the next ones. It returns the cut (outliers are
// >= cut) and whether any split counted.
func peelOutliers(vs []float64, minFar float64) (float64, bool) {
	rest := slices.Clone(vs)
	cut, found := 0.0, false
	for len(rest) >= 2 {
		c, _, far, ok := splitOutliers(rest)
		if !ok || far < minFar {
			break
		}
		near := rest[:0]
		for _, v := range rest {
			if v < c {
				near = append(near, v)
			}
		}
		cut, found, rest = c, true, near
	}
	return cut, found
}

// placementNode is one node of a stage in Algorithm 3.
type placementNode struct {
	nodeLoad
	meanMs, distance, ratio float64
}

func placementFinding(app *model.App, st *model.Stage, recs []taskRec, loads []nodeLoad, p UnevenPlacementParams) (Finding, bool) {
	weight, durSum := map[string]float64{}, map[string]float64{}
	for _, r := range recs {
		h := app.Host(r.host)
		weight[h] += p.Weights.weight(r.loc)
		durSum[h] += float64(r.dur)
	}
	var nodes []placementNode
	var ws, ds []float64
	for _, l := range loads {
		if l.tasks == 0 || l.host == "" {
			continue
		}
		n := placementNode{nodeLoad: l, meanMs: durSum[l.host] / float64(l.tasks), ratio: weight[l.host] / float64(l.tasks)}
		nodes = append(nodes, n)
		ws, ds = append(ws, n.perSlot), append(ds, n.meanMs)
	}
	if len(nodes) < max(p.MinNodes, 2) || float64(len(recs)) < p.MinTasksPerNode*float64(len(nodes)) {
		return Finding{}, false
	}
	mw, md := median(ws), median(ds)
	if mw <= 0 || md <= 0 {
		return Finding{}, false
	}
	dists := make([]float64, len(nodes))
	for i := range nodes {
		nodes[i].distance = math.Hypot(nodes[i].perSlot/mw-1, nodes[i].meanMs/md-1)
		dists[i] = nodes[i].distance
	}
	cut, ok := peelOutliers(dists, p.MinDistance)
	if !ok {
		return Finding{}, false
	}
	var outliers, totalSlots, flaggedSlots int
	var hosts, text []string
	maxRatio, minDist := 0.0, math.Inf(1)
	for _, n := range nodes {
		totalSlots += max(n.slots, 1)
		if n.distance < cut {
			continue
		}
		outliers++
		if n.ratio < p.NodeRatio {
			continue
		}
		hosts = append(hosts, n.host)
		flaggedSlots += max(n.slots, 1)
		maxRatio, minDist = max(maxRatio, n.ratio), min(minDist, n.distance)
		if len(text) < 10 {
			text = append(text, fmt.Sprintf("%s (busy %.0f%%, tasks %.0f%% of the median node's; %.0f%% non-local)", n.host, 100*n.perSlot/mw, 100*n.meanMs/md, 100*n.ratio))
		}
	}
	if len(hosts) == 0 || float64(len(hosts)) > p.MaxOutlierShare*float64(len(nodes)) {
		return Finding{}, false
	}
	share := float64(flaggedSlots) / float64(totalSlots)
	sev := p.Share.Ascending(share)
	if sev == None {
		return Finding{}, false
	}
	if len(hosts) > len(text) {
		text = append(text, fmt.Sprintf("and %d more", len(hosts)-len(text)))
	}
	return Finding{
		Severity: sev,
		Scope:    Scope{Kind: ScopeNode, IDs: hosts},
		Summary: fmt.Sprintf("In %s, %d of %d nodes are runtime outliers and %d of them ran mostly non-local tasks, so they hold too little of its input: %s.",
			stageLabel(st), outliers, len(nodes), len(hosts), strings.Join(text, ", ")),
		Evidence: []Evidence{
			graded("flaggedSlotShare", share, "share", p.Share),
			gate("maxNodeRatio", maxRatio, "ratio", ">=", p.NodeRatio),
			gate("outlierDistance", minDist, "ratio", ">=", p.MinDistance),
			fact("stage", float64(st.ID), "id"),
			fact("outlierNodes", float64(outliers), "count"),
			fact("nodes", float64(len(nodes)), "count"),
			fact("medianNodeSlotMs", mw, "ms"),
			fact("medianNodeTaskMs", md, "ms"),
		},
		Recommendation: fmt.Sprintf("Place %s's input on the nodes that run it: run the HDFS balancer, raise the replication of its input files, "+
			"or run executors on the nodes holding the blocks; in Spark a longer spark.locality.wait keeps tasks local when data-local slots free soon.", stageLabel(st)),
	}, true
}
