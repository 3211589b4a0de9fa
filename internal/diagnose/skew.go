package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/model"
)

// DataSkewParams tune the data-skew detector, HybridTune's Algorithm 2
// (Ren et al., arXiv:1711.07639, §3.3.2, Algorithm 2; docs/PAPERS.md).
type DataSkewParams struct {
	// Threshold is the ratio of a task's (or node's) data size to the
	// stage's median above which it is skewed (Algorithm 2). The paper's
	// text lost the value's symbol; 1.5, its Th_D (§5.3, §6.1), is
	// clusterlens's choice.
	Threshold float64
	// Ratio grades the largest ratio; the low limit is Threshold, the others
	// are clusterlens's.
	Ratio Limits
	// MinTasks is the fewest successful attempts a stage needs for its
	// median to mean anything (clusterlens's gate).
	MinTasks int
	// MinBytes is the least data the largest skewed task (or node) must
	// hold: a 2 KB partition beside 1 KB ones is no problem (clusterlens's
	// gate).
	MinBytes int64
	// MinTasksPerNode is the fewest attempts per node, on average, for the
	// per-node test: with one or two tasks a node, node totals differ by
	// whole tasks (clusterlens's gate).
	MinTasksPerNode float64
	// MaxListed caps the task ids or hosts a finding's scope lists (0:
	// all); the evidence counts all of them.
	MaxListed int
}

// DefaultDataSkewParams are the defaults.
var DefaultDataSkewParams = DataSkewParams{Threshold: 1.5, Ratio: Limits{1.5, 2, 4, 8}, MinTasks: 5, MinBytes: 16 << 20, MinTasksPerNode: 3, MaxListed: 100}

func init() {
	mustRegister(Func[DataSkewParams]{
		ID:       "data-skew",
		Heading:  "Data-size skew across tasks or nodes",
		Cite:     "HybridTune (Ren et al., arXiv:1711.07639), §3.3.2, Algorithm 2 (data skew: data size over the stage median, threshold 1.5)",
		Defaults: DefaultDataSkewParams,
		Fn:       dataSkew,
	})
}

// dataSkew follows HybridTune's Algorithm 2: per stage, each successful
// attempt's data size (input bytes plus shuffle bytes read; for MapReduce
// HDFS bytes read and reduce shuffle bytes) is divided by the stage's median
// (the mean of the two middle values for an even count); attempts above
// Threshold are skewed. The same test runs on each node's data in the stage
// per task slot (the HiTune reconstruction's executor slots) against the
// median node: the paper compares nodes' data sizes; dividing by slots, so
// that a 16-core node reading twice an 8-core one's data is not skewed, is
// clusterlens's. A stage yields at most two findings: one
// scoped to its skewed tasks, one to its skewed nodes.
func dataSkew(in *Input, p DataSkewParams) []Finding {
	app := in.App
	var spans []dataflow.ExecutorSpan
	if a, err := in.hiTune(); err == nil {
		spans = a.Reconstruction.Executors
	}
	var out []Finding
	for si, st := range app.Stages {
		if !workStage(st) {
			continue
		}
		recs := stageRecords(app, si)
		if len(recs) < p.MinTasks {
			continue
		}
		prof := stageProfileOf(app, si, recs) // its median bytes and duration, shared with the straggler detectors
		med := prof.medBytes
		if med <= 0 {
			continue
		}
		var skewed []taskRec
		var maxBytes int64
		for _, r := range recs {
			if float64(r.bytes) > p.Threshold*med {
				skewed = append(skewed, r)
				maxBytes = max(maxBytes, r.bytes)
			}
		}
		if f, ok := taskSkewFinding(st, recs, skewed, med, prof.medDur, maxBytes, p); ok {
			out = append(out, f)
		}
		if f, ok := nodeSkewFinding(app, spans, st, recs, p); ok {
			out = append(out, f)
		}
	}
	return out
}

func taskSkewFinding(st *model.Stage, recs, skewed []taskRec, med, allDur float64, maxBytes int64, p DataSkewParams) (Finding, bool) {
	if len(skewed) == 0 || maxBytes < p.MinBytes {
		return Finding{}, false
	}
	ratio := float64(maxBytes) / med
	sev := p.Ratio.Ascending(ratio)
	if sev == None {
		return Finding{}, false
	}
	slices.SortFunc(skewed, func(a, b taskRec) int { return cmp.Compare(b.bytes, a.bytes) })
	var skewedMs, allMs int64
	for _, r := range skewed {
		skewedMs += r.dur
	}
	for _, r := range recs {
		allMs += r.dur
	}
	medDur := medianOf(skewed, func(r *taskRec) float64 { return float64(r.dur) })
	return Finding{
		Severity: sev,
		Scope:    Scope{Kind: ScopeTask, IDs: taskIDs(skewed, p.MaxListed)},
		Summary: fmt.Sprintf("In %s, %d of %d tasks read more than %.3gx the median %s; the largest (task %d) read %s, %.1fx.",
			stageLabel(st), len(skewed), len(recs), p.Threshold, bytesText(med), skewed[0].id, bytesText(float64(maxBytes)), ratio),
		Evidence: []Evidence{
			graded("maxDataRatio", ratio, "ratio", p.Ratio),
			gate("maxBytes", float64(maxBytes), "bytes", ">=", float64(p.MinBytes)),
			fact("stage", float64(st.ID), "id"),
			fact("skewedTasks", float64(len(skewed)), "count"),
			fact("tasks", float64(len(recs)), "count"),
			fact("medianBytes", med, "bytes"),
			fact("skewedTaskMsShare", float64(skewedMs)/float64(max(allMs, 1)), "share"),
			fact("skewedMedianMs", medDur, "ms"),
			fact("medianMs", allDur, "ms"),
		},
		Recommendation: fmt.Sprintf("Split %s's large partitions: salt or pre-aggregate the hot keys, raise the partition count "+
			"(spark.sql.shuffle.partitions, mapreduce.job.reduces), use a custom partitioner, or let adaptive execution split skewed partitions "+
			"(spark.sql.adaptive.skewJoin.enabled); for file input, make splits even (spark.sql.files.maxPartitionBytes, mapreduce.input.fileinputformat.split.maxsize).", stageLabel(st)),
	}, true
}

func nodeSkewFinding(app *model.App, spans []dataflow.ExecutorSpan, st *model.Stage, recs []taskRec, p DataSkewParams) (Finding, bool) {
	loads := nodeLoads(app, spans, recs)
	per := map[string]int64{}
	for _, r := range recs {
		per[app.Host(r.host)] += r.bytes
	}
	if len(loads) < 2 || float64(len(recs)) < p.MinTasksPerNode*float64(len(loads)) {
		return Finding{}, false
	}
	hosts := make([]string, 0, len(loads))
	vs := make([]float64, 0, len(loads))
	perSlot := map[string]float64{}
	for _, l := range loads {
		hosts = append(hosts, l.host)
		perSlot[l.host] = float64(per[l.host]) / float64(max(l.slots, 1))
		vs = append(vs, perSlot[l.host])
	}
	med := median(vs)
	if med <= 0 {
		return Finding{}, false
	}
	var skewed []string
	var maxBytes int64
	var ratio float64
	for _, h := range hosts {
		if perSlot[h] > p.Threshold*med {
			skewed = append(skewed, h)
			maxBytes = max(maxBytes, per[h])
			ratio = max(ratio, perSlot[h]/med)
		}
	}
	if len(skewed) == 0 || maxBytes < p.MinBytes {
		return Finding{}, false
	}
	sev := p.Ratio.Ascending(ratio)
	if sev == None {
		return Finding{}, false
	}
	var text []string
	for _, h := range listed(skewed, 10) {
		text = append(text, fmt.Sprintf("%s %s per slot", h, bytesText(perSlot[h])))
	}
	if len(skewed) > 10 {
		text = append(text, fmt.Sprintf("and %d more", len(skewed)-10))
	}
	return Finding{
		Severity: sev,
		Scope:    Scope{Kind: ScopeNode, IDs: listed(skewed, p.MaxListed)},
		Summary: fmt.Sprintf("In %s, %d of %d nodes processed more than %.3gx the median node's %s per task slot: %s.",
			stageLabel(st), len(skewed), len(hosts), p.Threshold, bytesText(med), strings.Join(text, ", ")),
		Evidence: []Evidence{
			graded("maxNodeDataRatio", ratio, "ratio", p.Ratio),
			gate("maxNodeBytes", float64(maxBytes), "bytes", ">=", float64(p.MinBytes)),
			fact("stage", float64(st.ID), "id"),
			fact("skewedNodes", float64(len(skewed)), "count"),
			fact("nodes", float64(len(hosts)), "count"),
			fact("medianNodeBytesPerSlot", med, "bytes"),
		},
		Recommendation: fmt.Sprintf("Even out the data %s's nodes read: rebalance HDFS blocks (hdfs balancer), raise the replication of hot input, "+
			"or repartition so that the skewed nodes' partitions are split.", stageLabel(st)),
	}, true
}

// listed returns the first limit of ids (all when limit <= 0).
func listed(ids []string, limit int) []string {
	if limit > 0 && len(ids) > limit {
		return ids[:limit]
	}
	return ids
}

// bytesText formats a byte count ("1.5 GiB", "12 KiB", "300 B").
func bytesText(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}
