package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// LocalityWeights weight a slow task by where it ran relative to its data:
// 0 for a task that read locally, up to 1 for one that read across racks.
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
// Algorithm 3 (Ren et al., JCST 2019, §4, Algorithm 3).
type UnevenPlacementParams struct {
	// Weights weight the runtime outliers by locality category. The paper
	// weights the categories without publishing values; clusterlens's are
	// 0 for process- and node-local and no-preference tasks, 0.5 for
	// rack-local and 1 for off-rack (ANY) tasks.
	Weights LocalityWeights
	// MinSeparation is how much longer the outlier cluster's mean duration
	// must be than the normal cluster's for the split to count
	// (clusterlens's; the paper splits without such a test).
	MinSeparation float64
	// NodeRatio is the weighted share of a node's tasks that are non-local
	// runtime outliers above which the node lacks the stage's data
	// (clusterlens's).
	NodeRatio float64
	// Share grades the weighted outliers on the flagged nodes as a share of
	// the stage's tasks (clusterlens's limits).
	Share Limits
	// MaxOutlierShare is the largest share of the stage's tasks the outlier
	// cluster may hold: outliers are the exception (clusterlens's gate).
	MaxOutlierShare float64
	// MinTasks is the fewest successful attempts a stage needs.
	MinTasks int
	// MinExcessMs is the least difference between the clusters' mean
	// durations worth a finding (clusterlens's gate).
	MinExcessMs int64
}

// DefaultUnevenPlacementParams are the defaults.
var DefaultUnevenPlacementParams = UnevenPlacementParams{
	Weights:       LocalityWeights{RackLocal: 0.5, Any: 1},
	MinSeparation: 1.25, NodeRatio: 0.5, Share: Limits{0.05, 0.1, 0.2, 0.4}, MaxOutlierShare: 0.5, MinTasks: 5, MinExcessMs: 2_000,
}

func init() {
	mustRegister(Func[UnevenPlacementParams]{
		ID:       "uneven-placement",
		Heading:  "Uneven data placement",
		Cite:     "HybridTune (Ren et al., JCST 2019), §4, Algorithm 3 (uneven data placement: runtime outliers split by Euclidean distance, locality categories weighted, per-node ratio)",
		Defaults: DefaultUnevenPlacementParams,
		Fn:       unevenPlacement,
	})
}

// unevenPlacement follows HybridTune's Algorithm 3 per stage: the attempts'
// durations are split into a normal and an outlier cluster by the cut that
// minimises the within-cluster squared Euclidean distance (exact 1-D
// two-means); each outlier weighs by its locality category; a node whose
// weighted outliers exceed NodeRatio of its tasks holds too little of the
// stage's data, so its tasks read remotely. Stages whose attempts all have
// unknown locality are skipped (MapReduce reduces; maps carry the locality
// the history or the split locations give).
func unevenPlacement(in *Input, p UnevenPlacementParams) []Finding {
	app := in.App
	var out []Finding
	for si, st := range app.Stages {
		if !workStage(st) {
			continue
		}
		recs := stageRecords(app, si)
		if len(recs) < p.MinTasks || !slices.ContainsFunc(recs, func(r taskRec) bool { return r.loc != model.LocalityUnknown }) {
			continue
		}
		if f, ok := placementFinding(app, st, recs, p); ok {
			out = append(out, f)
		}
	}
	return out
}

// splitOutliers returns the duration cut (outliers have dur >= cut) that
// minimises the two clusters' summed squared distances to their means, and
// the clusters' means. ok is false when all durations are equal.
func splitOutliers(durs []int64) (cut int64, lowMean, highMean float64, ok bool) {
	s := slices.Clone(durs)
	slices.Sort(s)
	n := len(s)
	if n < 2 || s[0] == s[n-1] {
		return 0, 0, 0, false
	}
	pre, pre2 := make([]float64, n+1), make([]float64, n+1)
	for i, v := range s {
		f := float64(v)
		pre[i+1], pre2[i+1] = pre[i]+f, pre2[i]+f*f
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
	return s[bi], (pre[bi]) / float64(bi), (pre[n] - pre[bi]) / float64(n-bi), true
}

func placementFinding(app *model.App, st *model.Stage, recs []taskRec, p UnevenPlacementParams) (Finding, bool) {
	durs := make([]int64, len(recs))
	for i, r := range recs {
		durs[i] = r.dur
	}
	cut, lowMean, highMean, ok := splitOutliers(durs)
	if !ok || highMean < p.MinSeparation*lowMean || highMean-lowMean < float64(p.MinExcessMs) {
		return Finding{}, false
	}
	type node struct {
		host            string
		tasks, outliers int
		weighted        float64
	}
	idx := map[string]*node{}
	var nodes []*node
	var outliers int
	for _, r := range recs {
		h := app.Host(r.host)
		n := idx[h]
		if n == nil {
			n = &node{host: h}
			idx[h] = n
			nodes = append(nodes, n)
		}
		n.tasks++
		if r.dur >= cut {
			outliers++
			n.outliers++
			n.weighted += p.Weights.weight(r.loc)
		}
	}
	if float64(outliers) > p.MaxOutlierShare*float64(len(recs)) {
		return Finding{}, false
	}
	slices.SortFunc(nodes, func(a, b *node) int { return cmp.Compare(a.host, b.host) })
	var hosts, text []string
	var weighted, maxRatio float64
	for _, n := range nodes {
		ratio := n.weighted / float64(n.tasks)
		if n.host == "" || ratio <= p.NodeRatio {
			continue
		}
		hosts = append(hosts, n.host)
		if len(text) < 10 {
			text = append(text, fmt.Sprintf("%s %.0f%%", n.host, 100*ratio))
		}
		weighted += n.weighted
		maxRatio = max(maxRatio, ratio)
	}
	share := weighted / float64(len(recs))
	sev := p.Share.Ascending(share)
	if len(hosts) == 0 || sev == None {
		return Finding{}, false
	}
	if len(hosts) > len(text) {
		text = append(text, fmt.Sprintf("and %d more", len(hosts)-len(text)))
	}
	return Finding{
		Severity: sev,
		Scope:    Scope{Kind: ScopeNode, IDs: hosts},
		Summary: fmt.Sprintf("In %s, %d of %d tasks are runtime outliers (mean %s against %s); on %d nodes most tasks were slow and read their data remotely (weighted share of the node's tasks): %s.",
			stageLabel(st), outliers, len(recs), dur(int64(highMean)), dur(int64(lowMean)), len(hosts), strings.Join(text, ", ")),
		Evidence: []Evidence{
			graded("nonLocalOutlierShare", share, "share", p.Share),
			gate("maxNodeRatio", maxRatio, "ratio", ">", p.NodeRatio),
			gate("separation", highMean/lowMean, "ratio", ">=", p.MinSeparation),
			fact("stage", float64(st.ID), "id"),
			fact("outliers", float64(outliers), "count"),
			fact("tasks", float64(len(recs)), "count"),
			fact("outlierMeanMs", highMean, "ms"),
			fact("normalMeanMs", lowMean, "ms"),
			fact("cutMs", float64(cut), "ms"),
		},
		Recommendation: fmt.Sprintf("Place %s's input on the nodes that run it: run the HDFS balancer, raise the replication of its input files, "+
			"or add executors on the nodes holding the blocks; in Spark a longer spark.locality.wait keeps tasks local when data-local slots free soon.", stageLabel(st)),
	}, true
}
