package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// StragglerParams tune the straggler-tasks and straggler-nodes detectors
// (BDTune, Ren et al., IEEE BigData 2016; HybridTune, arXiv:1711.07639,
// uses its Th_D = 1.5 in §5.3 and §6.1).
type StragglerParams struct {
	// ThD is BDTune's straggler threshold Th_D: a task slower than ThD times
	// its stage's median duration is a straggler, and so is a node whose
	// tasks run ThD times their stages' medians. The paper's default is 1.5.
	ThD float64
	// Ratio grades the largest duration ratio (tasks) or the node's median
	// ratio (nodes); the low limit is ThD, the others are clusterlens's.
	Ratio Limits
	// MinTasks is the fewest successful attempts a stage needs for its
	// median to count (clusterlens's gate).
	MinTasks int
	// MinExcessMs is the least time a straggler must run beyond the median
	// (clusterlens's gate: a 40 ms task beside 20 ms ones is no problem).
	MinExcessMs int64
	// LowExcessMs caps a straggler-tasks finding's severity at low when
	// its slowest straggler ran less than this beyond the median: BDTune
	// calls it a straggler, but it costs the stage little.
	LowExcessMs int64
	// MinNodeTasks is the fewest attempts a node needs to be judged.
	MinNodeTasks int
	// NodeZ sets the interval around a node's median ratio, the normal
	// quantile for its coverage (1.645: 90% two-sided): the median's
	// standard error is taken as 1.2533 × the pooled log spread / √n. A
	// node whose interval reaches below ThD is reported as uncertain, at
	// most low (clusterlens's; BDTune decides on the point value).
	NodeZ float64
	// MaxListed caps the task ids a finding's scope lists (0: all).
	MaxListed int
}

// DefaultStragglerParams are the defaults.
var DefaultStragglerParams = StragglerParams{ThD: 1.5, Ratio: Limits{1.5, 2, 4, 8}, MinTasks: 5, MinExcessMs: 500, LowExcessMs: 5_000, MinNodeTasks: 3, NodeZ: 1.645, MaxListed: 100}

func init() {
	mustRegister(Func[StragglerParams]{
		ID:       "straggler-tasks",
		Heading:  "Straggler tasks",
		Cite:     "BDTune (Ren et al.), straggler detection with Th_D = 1.5 and cause attribution; HybridTune (arXiv:1711.07639) §5.3, §6.1",
		Defaults: DefaultStragglerParams,
		Fn:       stragglerTasks,
	})
}

// stragglerTasks reports, per stage, the attempts slower than ThD times the
// stage's median (and at least MinExcessMs beyond it), each attributed to
// its likeliest cause among data size, locality, GC, shuffle fetch wait,
// spill and the node itself (stageProfile.explained). One finding per
// stage, scoped to the straggler tasks, counts the causes and names the
// dominant one, whose remedy the recommendation gives.
func stragglerTasks(in *Input, p StragglerParams) []Finding {
	app := in.App
	slow, _, _ := nodeSlownessOf(app, p.ThD, p.MinTasks, p.MinNodeTasks, nil)
	var out []Finding
	for si, st := range app.Stages {
		if !workStage(st) {
			continue
		}
		recs := stageRecords(app, si)
		if len(recs) < p.MinTasks {
			continue
		}
		prof := stageProfileOf(app, si, recs)
		if prof.medDur <= 0 {
			continue
		}
		var strag []taskRec
		counts := map[string]int{}
		excess := map[string]float64{}
		for _, r := range recs {
			if float64(r.dur) <= p.ThD*prof.medDur || float64(r.dur)-prof.medDur < float64(p.MinExcessMs) {
				continue
			}
			strag = append(strag, r)
			c := likeliest(prof.explained(&r, slow[r.host], p.ThD), float64(r.dur)-prof.medDur)
			counts[c]++
			excess[c] += float64(r.dur) - p.ThD*prof.medDur
		}
		if f, ok := stragglerFinding(in, st, prof, strag, counts, excess, p); ok {
			if dominantCause(excess) == causeGC {
				in.photonGC(&f)
			}
			ids := make(map[int64]bool, len(strag))
			for _, r := range strag {
				ids[r.id] = true
			}
			// Without the problem the stragglers would have run as long as
			// an ordinary attempt may: Th_D times the median (a stage's
			// attempts scatter that much by themselves).
			capMs := int64(p.ThD * prof.medDur)
			what := fmt.Sprintf("the %d stragglers", len(strag))
			if len(strag) == 1 {
				what = "the straggler"
			}
			f.Impact = in.tailImpact(st.ID, ids, capMs, fmt.Sprintf("%s cut to %.3gx the stage's median, %s", what, p.ThD, dur(capMs)))
			out = append(out, f)
		}
	}
	return out
}

func stragglerFinding(in *Input, st *model.Stage, prof *stageProfile, strag []taskRec, counts map[string]int, excess map[string]float64, p StragglerParams) (Finding, bool) {
	app := in.App
	if len(strag) == 0 {
		return Finding{}, false
	}
	slices.SortFunc(strag, func(a, b taskRec) int { return cmp.Compare(b.dur, a.dur) })
	ratio := float64(strag[0].dur) / prof.medDur
	sev := p.Ratio.Ascending(ratio)
	if sev == None {
		return Finding{}, false
	}
	if float64(strag[0].dur)-prof.medDur < float64(p.LowExcessMs) {
		sev = min(sev, Low)
	}
	dominant := dominantCause(excess)
	var parts []string
	ev := []Evidence{
		graded("maxDurationRatio", ratio, "ratio", p.Ratio),
		gate("maxExcessMs", float64(strag[0].dur)-prof.medDur, "ms", ">=", float64(p.MinExcessMs)),
		fact("stage", float64(st.ID), "id"),
		fact("stragglers", float64(len(strag)), "count"),
		fact("tasks", float64(len(prof.recs)), "count"),
		fact("medianMs", prof.medDur, "ms"),
		fact("maxMs", float64(strag[0].dur), "ms"),
	}
	var total float64
	for _, x := range excess {
		total += x
	}
	for _, c := range append(slices.Clone(stragglerCauses), causeUnknown) {
		if counts[c] > 0 {
			part := fmt.Sprintf("%s %d", c, counts[c])
			if len(counts) > 1 && total > 0 {
				// Several causes: say which cost the most (the remedy's).
				of := ""
				if len(parts) == 0 {
					of = " of the excess time"
				}
				part += fmt.Sprintf(" (%.0f%%%s)", 100*excess[c]/total, of)
			}
			parts = append(parts, part)
			ev = append(ev, fact("cause."+causeKey(c), float64(counts[c]), "count"))
		}
	}
	return Finding{
		Severity: sev,
		Scope:    Scope{Kind: ScopeTask, IDs: taskIDs(strag, p.MaxListed)},
		Summary: fmt.Sprintf("In %s, %d of %d tasks ran over %.3gx the median %s; the slowest (task %d on %s) ran %s, %.1fx. Likeliest causes: %s.",
			stageLabel(st), len(strag), len(prof.recs), p.ThD, dur(int64(prof.medDur)), strag[0].id, hostOr(app.Host(strag[0].host)),
			dur(strag[0].dur), ratio, strings.Join(parts, ", ")),
		Evidence:       ev,
		Recommendation: causeAdvice(in, dominant, stageLabel(st)),
	}, true
}

// dominantCause is the cause of the most straggling time (the stragglers'
// time beyond Th_D times the median, summed per likeliest cause; ties by
// cause order, unknown last): the remedy goes to what cost the most, not
// to the cause of the most stragglers.
func dominantCause(excess map[string]float64) string {
	best, n := causeUnknown, excess[causeUnknown]
	for _, c := range stragglerCauses {
		if excess[c] > n {
			best, n = c, excess[c]
		}
	}
	return best
}

// causeKey turns a cause into an evidence name part ("shuffle fetch wait" → "shuffleFetchWait").
func causeKey(c string) string {
	w := strings.Fields(c)
	for i := range w {
		if i > 0 {
			w[i] = strings.ToUpper(w[i][:1]) + w[i][1:]
		} else {
			w[i] = strings.ToLower(w[i])
		}
	}
	return strings.Join(w, "")
}

// causeAdvice is the remedy for a straggler cause, in the settings of the
// application's engine.
func causeAdvice(in *Input, c, where string) string {
	mr := in.App.Engine == model.MapReduce
	pick := func(spark, mapreduce string) string {
		if mr {
			return mapreduce
		}
		return spark
	}
	switch c {
	case causeData:
		return fmt.Sprintf("The stragglers of %s read the most data: %s", where,
			pick("split large partitions (salt hot keys, more partitions, adaptive skew-join splitting).",
				"split large inputs (smaller splits: mapreduce.input.fileinputformat.split.maxsize; for reduces, a better partitioner or more reduces)."))
	case causeLocality:
		return fmt.Sprintf("The stragglers of %s read their data remotely: rebalance or re-replicate the input%s.", where,
			pick(", or raise spark.locality.wait so tasks wait for data-local slots", ""))
	case causeGC:
		return fmt.Sprintf("The stragglers of %s spent their extra time in GC: %s", where,
			pick("give executors more memory (spark.executor.memory), use more, smaller partitions, or tune the collector (G1).",
				"give the tasks more heap (mapreduce.map.java.opts / mapreduce.reduce.java.opts -Xmx, with mapreduce.map.memory.mb / mapreduce.reduce.memory.mb) or tune the collector."))
	case causeFetchWait:
		return fmt.Sprintf("The stragglers of %s waited for shuffle data: check the network and the serving nodes' disks, %s", where,
			pick("enable the external shuffle service, raise spark.reducer.maxSizeInFlight.",
				"raise mapreduce.reduce.shuffle.parallelcopies."))
	case causeSpill:
		return fmt.Sprintf("The stragglers of %s spilled to disk: %s", where,
			pick("raise execution memory (spark.executor.memory, spark.memory.fraction) or use more partitions.",
				"raise mapreduce.task.io.sort.mb (with the task heap) or split the work into more tasks."))
	case causeNode:
		return fmt.Sprintf("The stragglers of %s ran on nodes slow for every task: check those nodes' hardware and load, drain or exclude them; %s", where, speculationAdvice(in))
	}
	return fmt.Sprintf("No logged metric explains the stragglers of %s: check the nodes they ran on for contention (analyze --metrics); %s", where, speculationAdvice(in))
}

// speculationAdvice advises speculative execution as the run had it:
// Spark's is off unless spark.speculation says so; Hadoop's is on unless
// the job turned it off, and then it did not catch these stragglers.
func speculationAdvice(in *Input) string {
	if in.App.Engine == model.MapReduce {
		for _, k := range []string{"mapreduce.map.speculative", "mapreduce.reduce.speculative"} {
			if !in.boolConf(k, true) {
				return fmt.Sprintf("speculative execution was off: set %s=true so a copy races the straggler.", k)
			}
		}
		return "speculative execution (on by default in Hadoop) did not catch them: a slow node's copies may also have been slow."
	}
	if in.boolConf("spark.speculation", false) {
		return "spark.speculation was on and did not catch them: lower spark.speculation.multiplier (now " + in.setNow("spark.speculation.multiplier") + ") or spark.speculation.quantile."
	}
	return "enable speculative execution (spark.speculation=true) so a copy races the straggler."
}

func hostOr(h string) string {
	if h == "" {
		return "an unknown host"
	}
	return h
}
