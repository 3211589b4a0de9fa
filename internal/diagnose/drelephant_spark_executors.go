package diagnose

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/shs"
)

// DrElephantExecutorsParams tune Dr. Elephant's Spark Executor Metrics
// heuristic (spark/heuristics/ExecutorsHeuristic.scala); the defaults are
// the object's.
type DrElephantExecutorsParams struct {
	// MaxToMedian grades each executor metric's max-to-median ratio
	// (max_to_median_ratio_severity_thresholds: 10^0.125, 10^0.25, 10^0.5, 10).
	MaxToMedian Limits
	// IgnoreMaxBytesLessThan skips a byte metric whose maximum is smaller
	// (ignore_max_bytes_less_than_threshold, 100 MB).
	IgnoreMaxBytesLessThan int64
	// IgnoreMaxMillisLessThan skips the task time whose maximum is smaller
	// (ignore_max_millis_less_than_threshold, 5 minutes).
	IgnoreMaxMillisLessThan int64
}

// DefaultDrElephantExecutorsParams are ExecutorsHeuristic's defaults.
var DefaultDrElephantExecutorsParams = DrElephantExecutorsParams{
	MaxToMedian:             Limits{math.Pow(10, 0.125), math.Pow(10, 0.25), math.Pow(10, 0.5), 10},
	IgnoreMaxBytesLessThan:  100 * drMiB,
	IgnoreMaxMillisLessThan: 5 * drMinuteMs,
}

func init() {
	mustRegister(Func[DrElephantExecutorsParams]{
		ID:       "drelephant-spark-executors",
		Heading:  "Executor load spread (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/spark/heuristics/ExecutorsHeuristic.scala",
		Defaults: DefaultDrElephantExecutorsParams,
		Fn:       drSparkExecutors,
	})
}

// drExecutorMetric is one distribution ExecutorsHeuristic grades.
type drExecutorMetric struct {
	name, unit string
	value      func(*shs.ExecutorSummary) int64
	bytes      bool
}

var drExecutorMetrics = []drExecutorMetric{
	{"storageMemoryUsed", "bytes", func(e *shs.ExecutorSummary) int64 { return e.MemoryUsed }, true},
	{"taskTime", "ms", func(e *shs.ExecutorSummary) int64 { return e.TotalDuration }, false},
	{"inputBytes", "bytes", func(e *shs.ExecutorSummary) int64 { return e.TotalInputBytes }, true},
	{"shuffleReadBytes", "bytes", func(e *shs.ExecutorSummary) int64 { return e.TotalShuffleRead }, true},
	{"shuffleWriteBytes", "bytes", func(e *shs.ExecutorSummary) int64 { return e.TotalShuffleWrite }, true},
}

// drSparkExecutors is ExecutorsHeuristic's Evaluator (app/com/linkedin/drelephant/spark/heuristics/ExecutorsHeuristic.scala): over every executor
// the History Server lists (allexecutors, the driver included), the
// distributions of storage memory used, total task time, input, shuffle
// read and shuffle write bytes; each is graded by max / median (a zero
// median counts as Long.MAX_VALUE) unless its max is below the ignore
// threshold; the severity is the worst. A zero median's ratio is reported
// capped at the critical limit, with a <metric>MedianZero flag, since the
// ratio itself is infinite.
func drSparkExecutors(in *Input, p DrElephantExecutorsParams) []Finding {
	r, err := fetchSparkREST(in)
	if err != nil {
		return nil
	}
	// Only the executors that ran tasks share the work: the driver of a
	// cluster application and executors that came after the last task
	// would put zeros under the median. Fewer than three is no spread.
	worked := *r
	worked.executors = nil
	for _, e := range r.executors {
		if e.TotalTasks > 0 {
			worked.executors = append(worked.executors, e)
		}
	}
	if len(worked.executors) < minSpreadExecutors {
		return nil
	}
	var out []Finding
	for _, f := range executorsFindings(&worked, p, in.appScope()) {
		// A ratio over a median of zero is not applicable (Dr. Elephant
		// grades it critical): only the metrics with a median grade.
		sev := None
		for i, e := range f.Evidence {
			if strings.HasSuffix(e.Name, "MedianZero") && i > 0 && strings.HasSuffix(f.Evidence[i-1].Name, "MaxToMedian") {
				f.Evidence[i-1] = fact(strings.TrimSuffix(f.Evidence[i-1].Name, "MaxToMedian")+"MaxToMedianNotApplicable", 1, "flag")
			}
		}
		for _, e := range f.Evidence {
			if strings.HasSuffix(e.Name, "MaxToMedian") && len(e.Limits) == 4 {
				sev = max(sev, p.MaxToMedian.Ascending(e.Value))
			}
		}
		if sev == None {
			continue
		}
		f.Severity = sev
		f.Summary = strings.Replace(f.Summary, "(the driver included, as the History Server lists it)", "that ran tasks", 1)
		out = append(out, f)
	}
	return out
}

// minSpreadExecutors is the fewest executors with tasks whose spread means
// anything (clusterlens's).
const minSpreadExecutors = 3

// executorsFindings grades the executor summaries of r; with none (where
// Dr. Elephant's Distribution throws) there is no finding.
func executorsFindings(r *sparkREST, p DrElephantExecutorsParams, scope Scope) []Finding {
	if len(r.executors) == 0 {
		return nil
	}
	sev := None
	worst, worstRatio := "", 0.0
	var ev []Evidence
	values := make([]int64, len(r.executors))
	for _, m := range drExecutorMetrics {
		for i := range r.executors {
			values[i] = m.value(&r.executors[i])
		}
		slices.Sort(values)
		maxV := values[len(values)-1]
		median, _ := drMedian(values)
		ignore := p.IgnoreMaxMillisLessThan
		if m.bytes {
			ignore = p.IgnoreMaxBytesLessThan
		}
		s, ratio := drDistributionSeverity(maxV, median, ignore, p.MaxToMedian)
		ev = append(ev, gate(m.name+"Max", float64(maxV), m.unit, ">=", float64(ignore)))
		if maxV < ignore {
			if median == 0 {
				ev = append(ev, fact(m.name+"Median", 0, m.unit))
			} else {
				ev = append(ev, fact(m.name+"MaxToMedian", ratio, "ratio"))
			}
			continue
		}
		if median == 0 {
			// Dr. Elephant grades a zero median as Long.MAX_VALUE (s
			// above); the evidence says so rather than carry 9.2e18: the
			// ratio capped at the critical limit, flagged.
			ev = append(ev, graded(m.name+"MaxToMedian", p.MaxToMedian[3], "ratio", p.MaxToMedian),
				fact(m.name+"MedianZero", 1, "flag"))
		} else {
			ev = append(ev, graded(m.name+"MaxToMedian", ratio, "ratio", p.MaxToMedian))
		}
		ev = append(ev, fact(m.name+"Median", float64(median), m.unit),
			fact(m.name+"P25", float64(drPercentile(values, 25)), m.unit),
			fact(m.name+"P75", float64(drPercentile(values, 75)), m.unit))
		if s > sev {
			sev, worst, worstRatio = s, m.name, ratio
		}
	}
	if sev == None {
		return nil
	}
	spread := fmt.Sprintf("%.1fx the median", worstRatio)
	if worstRatio >= math.MaxInt64 {
		spread = "above a median of zero"
	}
	return []Finding{{
		Severity: sev,
		Scope:    scope,
		Summary: fmt.Sprintf("Across %d executors (the driver included, as the History Server lists it) the largest %s is %s: the work was spread unevenly over the executors.",
			len(r.executors), worst, spread),
		Evidence:       append(ev, fact("executors", float64(len(r.executors)), "executors")),
		Recommendation: "Even out the partitions (repartition, salt skewed keys, spark.sql.shuffle.partitions) so each executor gets a similar share; with dynamic allocation, executors added late naturally do less.",
	}}
}

// drDistributionSeverity is Evaluator.severityOfDistribution: none when the
// max is below ignore, else max / median graded (a zero median grades
// Long.MAX_VALUE). ratio is max / median (Long.MAX_VALUE for a zero median).
func drDistributionSeverity(maxV, median, ignore int64, l Limits) (Severity, float64) {
	ratio := float64(math.MaxInt64)
	if median != 0 {
		ratio = float64(maxV) / float64(median)
	}
	if maxV < ignore {
		return None, ratio
	}
	return l.Ascending(ratio), ratio
}
