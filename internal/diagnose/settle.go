package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
)

// settle turns the detectors' findings into what a user reads:
//
//  1. every finding gets its impact (the detectors that do not measure it
//     themselves get it here, from the replay), and a finding whose premise
//     the run contradicts is dropped (placement advice for a stage whose
//     tasks had no data locality to lose);
//  2. its severity follows from the impact (grade), the detector's own
//     grade kept as RuleSeverity, and the impact's numbers join the
//     evidence (ImpactText says it in a sentence);
//  3. findings about the same stage, and the failures an executor churn
//     explains, are folded under one root cause, the others listed as its
//     symptoms;
//  4. findings are ranked by impact: wall time saved, then core time.
func settle(in *Input, fs []Finding, l ImpactLimits) []Finding {
	out := fs[:0]
	for i := range fs {
		f := &fs[i]
		if !premiseHolds(in, f) {
			continue
		}
		if f.Impact == nil {
			if m := impactOf[f.ID]; m != nil {
				f.Impact = m(in, f)
			}
		}
		if a := adviceOf[f.ID]; a != nil {
			a(in, f)
		}
		grade(f, l)
		if f.Impact != nil {
			f.Evidence = append(f.Evidence,
				graded("impactShare", f.Impact.Share, "share", l.Share),
				graded("impactWallMs", float64(f.Impact.WallMs), "ms", l.WallMs),
				graded("impactCoreMs", float64(f.Impact.CoreMs), "core-ms", l.CoreMs),
				graded("impactCoreShare", f.Impact.CoreShare, "share", l.CoreShare))
		}
		out = append(out, *f)
	}
	out = fold(in, out)
	Rank(out)
	return out
}

// Rank orders findings by impact: wall time saved, then core time, then
// severity, most first; findings without an impact come after those with
// one.
func Rank(fs []Finding) { slices.SortStableFunc(fs, byImpact) }

// byImpact orders findings by wall time saved, then core time, then
// severity, most first.
func byImpact(a, b Finding) int {
	return cmp.Or(cmp.Compare(wallOf(b), wallOf(a)), cmp.Compare(coreOf(b), coreOf(a)), cmp.Compare(b.Severity, a.Severity))
}

func wallOf(f Finding) int64 {
	if f.Impact == nil {
		return -1
	}
	return f.Impact.WallMs
}

func coreOf(f Finding) int64 {
	if f.Impact == nil {
		return -1
	}
	return f.Impact.CoreMs
}

// impactOf measures the impact of the findings whose detectors leave it to
// settle: HybridTune's data-problem detectors.
var impactOf = map[string]func(in *Input, f *Finding) *Impact{
	"data-skew":          skewImpact,
	"uneven-placement":   placementImpact,
	"workload-imbalance": imbalanceImpact,
}

// evidenceOf is the value of the named evidence and whether it is there.
func evidenceOf(f *Finding, name string) (float64, bool) {
	for _, e := range f.Evidence {
		if e.Name == name {
			return e.Value, true
		}
	}
	return 0, false
}

// skewImpact: had the stage's data been spread evenly, each task reading
// more than the mean would have read the mean: the replay with those
// tasks' durations scaled down by their data's excess (a task slow for
// another reason stays slow).
func skewImpact(in *Input, f *Finding) *Impact {
	id, ok := evidenceOf(f, "stage")
	w, err := in.Workload()
	si := in.wlStage(int32(id))
	if !ok || err != nil || si < 0 {
		return nil
	}
	bytes := map[int64]float64{}
	var sum float64
	n := 0
	for ai, st := range in.App.Stages {
		if st.ID != int32(id) {
			continue
		}
		for _, r := range stageRecords(in.App, ai) {
			bytes[r.id] = float64(r.bytes)
			sum += float64(r.bytes)
			n++
		}
	}
	if n == 0 || sum <= 0 {
		return nil
	}
	mean := sum / float64(n)
	s := &w.Stages[si]
	return in.replayedStage(si, perfmodel.Edit{Duration: func(stage, k int, d int64) int64 {
		if stage != si || k >= len(s.TaskIDs) {
			return d
		}
		if b := bytes[s.TaskIDs[k]]; b > mean {
			return int64(float64(d) * mean / b)
		}
		return d
	}}, "the stage's data spread evenly: each task over the mean "+bytesText(mean)+" shortened in proportion", in.limits())
}

// placementImpact: had the flagged nodes held the stage's input, their
// attempts would have run as the stage's median one.
func placementImpact(in *Input, f *Finding) *Impact {
	id, ok := evidenceOf(f, "stage")
	w, err := in.Workload()
	si := in.wlStage(int32(id))
	if !ok || err != nil || si < 0 {
		return nil
	}
	flagged := map[uint32]bool{}
	for _, h := range f.Scope.IDs {
		for i, name := range in.App.Hosts {
			if name == h {
				flagged[uint32(i)] = true
			}
		}
	}
	hosts := in.hostsByTask()
	s := &w.Stages[si]
	med := int64(stageMedianMs(s))
	return in.replayedStage(si, perfmodel.Edit{Duration: func(stage, k int, d int64) int64 {
		if stage != si || k >= len(s.TaskIDs) || !flagged[hosts[s.TaskIDs[k]]] {
			return d
		}
		return min(d, med)
	}}, "the flagged nodes' attempts run as the stage's median "+dur(med), in.limits())
}

// imbalanceImpact: the replay pools the slots, so the imbalance of the
// nodes is not in it; the estimate is the busiest node's work per slot
// beyond the mean (the time the stage waited for it), at most the stage's
// wall time.
func imbalanceImpact(in *Input, f *Finding) *Impact {
	excess, ok := evidenceOf(f, "excessMs")
	if !ok || excess <= 0 {
		return nil
	}
	wall := in.wallMs()
	if id, ok := evidenceOf(f, "stage"); ok {
		if e, err := in.Efficiency(); err == nil {
			for _, s := range e.Stages {
				if s.ID == int32(id) {
					wall = s.WallMs
				}
			}
		}
	}
	im := in.newImpact(min(int64(excess), wall), 0, MethodEstimate, "the busiest node's work per slot beyond the nodes' mean")
	return im
}

// premiseHolds says whether the run bears out what a finding rests on.
// Placement advice needs input with data locality: a stage whose tasks all
// ran with locality ANY (or without preference: data in an object store)
// had no local copies to lose. Failure rates need failures: jobs and
// stages cancelled (a user's cancel, the context stopped) and attempts
// killed with them are not. A read speed needs bytes read.
func premiseHolds(in *Input, f *Finding) bool {
	if failureIDs[f.ID] {
		return realFailures(in.App)
	}
	if f.ID == "drelephant-mapper-speed" {
		// A speed needs bytes: maps that read nothing the log records (a
		// Rumen trace's unknown counter, a job generating its data) are not
		// slow readers.
		v, ok := evidenceOf(f, "totalInputBytes")
		return ok && v > 0
	}
	if f.ID != "uneven-placement" {
		return true
	}
	id, ok := evidenceOf(f, "stage")
	if !ok {
		return true
	}
	for _, st := range in.App.Stages {
		if st.ID != int32(id) {
			continue
		}
		for i := range st.Tasks {
			switch st.Tasks[i].Locality {
			case model.ProcessLocal, model.NodeLocal, model.RackLocal:
				return true
			}
		}
	}
	return false
}

// stageKey names the stage a finding is about ("" for none): its "stage"
// evidence, a stage scope, or the phase a Dr. Elephant MapReduce heuristic
// grades.
func stageKey(in *Input, f *Finding) string {
	if v, ok := evidenceOf(f, "stage"); ok {
		return strconv.Itoa(int(v))
	}
	if f.Scope.Kind == ScopeStage && len(f.Scope.IDs) > 0 {
		id := f.Scope.IDs[0]
		if i := indexByte(id, '.'); i >= 0 {
			id = id[:i]
		}
		return id
	}
	if in.App.Engine == model.MapReduce {
		switch f.ID {
		case "drelephant-mapper-skew", "drelephant-mapper-gc", "drelephant-mapper-time", "drelephant-mapper-speed", "drelephant-mapper-spill", "drelephant-mapper-memory":
			return stageOfKind(in.App, model.StageMap)
		case "drelephant-reducer-skew", "drelephant-reducer-gc", "drelephant-reducer-time", "drelephant-reducer-memory", "drelephant-shuffle-sort":
			return stageOfKind(in.App, model.StageReduce)
		}
	}
	return ""
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func stageOfKind(app *model.App, k model.StageKind) string {
	for _, st := range app.Stages {
		if st.Kind == k {
			return strconv.Itoa(int(st.ID))
		}
	}
	return ""
}

// rootRank orders the findings of one stage as causes: the root is the
// highest rank, then the largest impact. Too few partitions explain their
// spills, stragglers and tails; a skew of the data explains the stragglers
// it makes; stragglers explain the stage's tail.
var rootRank = map[string]int{
	"too-few-partitions":      5,
	"data-skew":               4,
	"sql-skewed-join":         4,
	"straggler-tasks":         3,
	"critical-stage-tail":     2,
	"drelephant-mapper-skew":  1,
	"drelephant-reducer-skew": 1,
	"spill":                   1,
}

// failureIDs are the findings about failed jobs, stages and tasks that
// executors lost while the application ran explain.
var failureIDs = map[string]bool{"drelephant-spark-jobs": true, "drelephant-spark-stages": true}

// fold folds findings that see one cause under it: each finding about a
// stage under the highest-ranked (rootRank; at equal rank, the largest
// impact) finding about that stage that explains it; failures under the
// executor churn that caused them. Findings about different things stay
// apart.
func fold(in *Input, fs []Finding) []Finding {
	groups := map[string][]int{}
	var order []string
	for i := range fs {
		k := stageKey(in, &fs[i])
		if k == "" {
			continue
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	folded := make([]bool, len(fs))
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		// Likeliest causes first; each finding folds under the first
		// finding before it that explains it, else stays a cause itself.
		slices.SortStableFunc(g, func(a, b int) int {
			if better(&fs[a], &fs[b]) {
				return -1
			}
			if better(&fs[b], &fs[a]) {
				return 1
			}
			return 0
		})
		var roots []int
		for _, i := range g {
			r := slices.IndexFunc(roots, func(r int) bool { return foldable(&fs[i]) && explains(&fs[r], &fs[i]) })
			if r < 0 {
				roots = append(roots, i)
				continue
			}
			fs[roots[r]].Symptoms = append(fs[roots[r]].Symptoms, fs[i])
			folded[i] = true
		}
	}
	under := func(root string, ids map[string]bool) {
		r := slices.IndexFunc(fs, func(f Finding) bool { return f.ID == root })
		if r < 0 || folded[r] {
			return
		}
		for i := range fs {
			if ids[fs[i].ID] && !folded[i] && i != r {
				fs[r].Symptoms = append(fs[r].Symptoms, fs[i])
				folded[i] = true
			}
		}
	}
	under("executor-churn", failureIDs)
	// An interactive session's idle executors are what the replay finds
	// it could do without.
	under("idle-session", map[string]bool{"too-many-executors": true})
	out := fs[:0]
	for i := range fs {
		if !folded[i] {
			out = append(out, fs[i])
		}
	}
	return out
}

// better reports whether a is the likelier root of a stage's findings than b.
func better(a, b *Finding) bool {
	ra, rb := rootRank[a.ID], rootRank[b.ID]
	if ra != rb {
		return ra > rb
	}
	return byImpact(*a, *b) < 0
}

// explains reports whether a root explains a symptom: it must account for
// at least half of the symptom's cost (a data skew that explains a tenth
// of the stage's stragglers' time does not explain the stragglers).
func explains(root, symptom *Finding) bool {
	if symptom.Impact == nil || symptom.Impact.WallMs <= 0 {
		return true
	}
	return root.Impact != nil && 2*root.Impact.WallMs >= symptom.Impact.WallMs
}

// foldable reports whether a finding may be folded as a symptom: node
// findings (a slow or overloaded node is a cause of its own) stay apart.
func foldable(f *Finding) bool { return f.Scope.Kind != ScopeNode || f.ID == "data-skew" }

// cancelled reports whether a failure message says the work was cancelled
// or its context stopped rather than that it failed.
func cancelled(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "cancel") || strings.Contains(m, "sparkcontext was shut down") || strings.Contains(m, "shutdown")
}

// realFailures reports whether the application has a failure that is not a
// cancellation: a failed task attempt whose reason is not its stage's
// cancellation, a failed stage or job not cancelled.
func realFailures(app *model.App) bool {
	for _, j := range app.Jobs {
		if j.Status == model.JobFailed && !cancelled(j.Failure) {
			return true
		}
	}
	for _, st := range app.Stages {
		stageCancelled := st.Status == model.StageFailed && cancelled(st.Failure)
		if st.Status == model.StageFailed && !stageCancelled {
			return true
		}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if t.Status != model.TaskFailed {
				continue
			}
			var r model.Reason
			if int(t.Reason) < len(app.Reasons) {
				r = app.Reasons[t.Reason]
			}
			if r.Kind != "TaskKilled" && !cancelled(r.Message) && !stageCancelled {
				return true
			}
		}
	}
	return false
}

// adviceOf rewrites, for the run's engine, the recommendations of the
// detectors that leave it to settle (HybridTune's data-problem detectors
// give one sentence for Spark and MapReduce alike).
var adviceOf = map[string]func(in *Input, f *Finding){
	"data-skew":               skewAdvice,
	"workload-imbalance":      imbalanceAdvice,
	"uneven-placement":        placementAdvice,
	"drelephant-mapper-skew":  drTimeSkewAdvice,
	"drelephant-reducer-skew": drTimeSkewAdvice,
}

// drTimeSkewAdvice: Dr. Elephant's skew heuristics advise evening out the
// input whatever split the tasks; when the data did not split them
// (its deviation grades none) the skew is in time alone: stragglers.
func drTimeSkewAdvice(in *Input, f *Finding) {
	if v, ok := evidenceOf(f, "dataDeviation"); ok && drDefaultSkewParams.Deviation.Ascending(v) > None {
		return
	}
	f.Recommendation = "The tasks' input was even: the skew is in their time alone, stragglers; " + speculationAdvice(in)
}

// stageLabelOf names the stage of a finding's "stage" evidence.
func stageLabelOf(in *Input, f *Finding) string {
	id, ok := evidenceOf(f, "stage")
	if !ok {
		return "the stage"
	}
	for _, st := range in.App.Stages {
		if st.ID == int32(id) {
			return stageLabel(st)
		}
	}
	return "stage " + strconv.Itoa(int(id))
}

func skewAdvice(in *Input, f *Finding) {
	where := stageLabelOf(in, f)
	mr := in.App.Engine == model.MapReduce
	switch {
	case f.Scope.Kind == ScopeNode && mr:
		f.Recommendation = fmt.Sprintf("Even out the data %s's nodes read: rebalance HDFS blocks (hdfs balancer) or raise the replication of hot input.", where)
	case f.Scope.Kind == ScopeNode:
		f.Recommendation = fmt.Sprintf("Even out the data %s's nodes read: repartition so that the skewed nodes' partitions split; for HDFS input, rebalance the blocks (hdfs balancer).", where)
	case mr:
		f.Recommendation = fmt.Sprintf("Split %s's large inputs: for reduces, a partitioner that spreads the hot keys, a combiner, or more reduces (mapreduce.job.reduces); for maps, even splits (mapreduce.input.fileinputformat.split.maxsize).", where)
	default:
		f.Recommendation = fmt.Sprintf("Split %s's large partitions: salt or pre-aggregate the hot keys, raise the partition count (spark.sql.shuffle.partitions for SQL, the shuffle's numPartitions for RDDs), or use a custom partitioner%s.", where, aqeAdvice(in))
	}
}

func imbalanceAdvice(in *Input, f *Finding) {
	if in.App.Engine == model.MapReduce {
		f.Recommendation = "Spread the work over the nodes: its input sits on few nodes; rebalance the data (hdfs balancer, more replicas of hot files)."
		return
	}
	f.Recommendation = "Spread the work over the nodes: repartition so that every node gets tasks, rebalance HDFS input (hdfs balancer, more replicas of hot files)"
	if v, ok := in.conf("spark.locality.wait"); !ok || !sameValue(v, "0") {
		f.Recommendation += ", or lower spark.locality.wait (now " + in.setNow("spark.locality.wait") + ") if tasks waited for busy data-local nodes"
	}
	f.Recommendation += "."
}

func placementAdvice(in *Input, f *Finding) {
	where := stageLabelOf(in, f)
	f.Recommendation = fmt.Sprintf("Place %s's input on the nodes that run it: run the HDFS balancer, raise the replication of its input files, or run executors on the nodes holding the blocks", where)
	if in.App.Engine != model.MapReduce {
		f.Recommendation += "; a longer spark.locality.wait keeps tasks local when data-local slots free soon"
	}
	f.Recommendation += "."
}
