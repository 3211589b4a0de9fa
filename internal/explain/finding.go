package explain

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/finding"
)

// FindingID is the id of the finding an explanation makes.
const FindingID = "slower-than-usual"

// RatioLimits grade a slower run by its duration over its usual time.
var RatioLimits = finding.Limits{1.25, 1.5, 2, 3}

// Finding is a slower run's explanation as a finding: graded by how many
// times its usual time it took (RatioLimits), its summary the explanation's,
// its evidence the ratio, the usual time and spread, the extra time and
// each cause's share; nil when the run is not slower than usual (or the
// grade is none).
func Finding(e *Explanation) *finding.Finding {
	if e.Verdict != Slower {
		return nil
	}
	sev := RatioLimits.Ascending(e.Ratio)
	if sev == finding.None {
		sev = finding.Low
	}
	f := &finding.Finding{ID: FindingID, Title: "Slower than usual", Severity: sev,
		Scope:   finding.Scope{Kind: finding.ScopeApplication, IDs: []string{e.Run.ID}},
		Summary: e.Summary, Source: "clusterlens explain: the run against its recurring job's usual runs (docs/EXPLAIN.md)",
		Evidence: []finding.Evidence{
			{Name: "ratio to the usual time", Value: round3(e.Ratio), Unit: "ratio", Limits: RatioLimits[:]},
			{Name: "usual time (median)", Value: float64(e.Usual.MedianMs), Unit: "ms",
				Compare: fmt.Sprintf("%d usual runs, spread %d ms", len(e.Usual.Runs), e.Usual.SpreadMs)},
			{Name: "extra time", Value: float64(e.ExtraMs), Unit: "ms"},
		}}
	for _, c := range e.Causes {
		f.Evidence = append(f.Evidence, finding.Evidence{Name: "share: " + c.Kind, Value: round3(c.Share), Unit: "share", Compare: c.Summary})
	}
	f.Evidence = append(f.Evidence, finding.Evidence{Name: "share: unexplained", Value: round3(e.UnexplainedShare), Unit: "share"})
	if len(e.Causes) > 0 {
		f.Recommendation = recommendations[e.Causes[0].Kind]
	}
	return f
}

// recommendations are what to look at first for each kind of top cause.
var recommendations = map[string]string{
	KindInput:        "The job read more data than usual: check the input's size and the partitions it covers.",
	KindNode:         "The named nodes ran slower than their own history: check their disks, CPU and neighbours (clusterlens nodes).",
	KindSkew:         "One task got much more of the data than the others: check the key distribution or salt the hot keys.",
	KindPartitioning: "The tasks no longer fit the cores: repartition to a few times the executor cores.",
	KindSpillGC:      "Tasks collected garbage and spilled more than usual: check executor memory against the data per task.",
	KindFailures:     "Attempts failed and were retried: the failed attempts' reasons are in the application's log.",
	KindExecutors:    "The job ran on fewer executors, or waited for them: check the cluster's queue and allocation.",
	KindConfig:       "Settings changed from the usual runs': the changed keys are in the evidence.",
	KindPlan:         "A query's plan changed: compare it with a usual run's (clusterlens compare).",
	KindDriver:       "The driver worked longer with no stage running: check what the application does between jobs.",
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5*sign(v))) / 1000 }
