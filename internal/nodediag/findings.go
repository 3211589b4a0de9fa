package nodediag

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/model"
)

// Finding IDs.
const (
	IDAbnormal = "abnormal-node"
	IDCulprit  = "culprit-node"
	IDInnocent = "innocent-peer"
)

// Sources cited by the findings.
const (
	sourceHybrid  = "HybridTune (Ren et al., arXiv:1711.07639), §3.3.3 abnormal node (Equations 4–5, average cosine similarity) and §3.3.4 outlier metrics (PCA, Algorithms 4–5)"
	sourceGanesha = "Ganesha (Pan et al., 2009), §4.3 peer comparison of label histograms; clusterlens's workload-aware peers and attribution (docs/PEER.md)"
)

// strengthLimits grade a culprit's largest |z| against its peers; a culprit
// is at least moderate (it was indicted).
var strengthLimits = finding.Limits{0.5, 1, 2, 4}

// abnormalFindings gives one finding per node abnormal in some stage: the
// stages, its lowest score, and the outlier metrics of its worst stage.
// It is low, or moderate when the peer comparison names the node culprit
// too: per stage node metrics mix every application on the node and the
// windows are short (docs/ANOMALY.md measures it), so on its own it only
// points where to look.
func abnormalFindings(r *Result) []finding.Finding {
	culprit := map[string]bool{}
	if r.Peers != nil {
		for _, c := range r.Peers.Culprits {
			culprit[c.Host] = true
		}
	}
	type worst struct {
		stages []string
		st     *StageNodes
		node   *AbnormalNode
	}
	by := map[string]*worst{}
	var hosts []string
	for si := range r.Stages {
		s := &r.Stages[si]
		for ni := range s.Abnormal {
			n := &s.Abnormal[ni]
			w := by[n.Host]
			if w == nil {
				w = &worst{}
				by[n.Host] = w
				hosts = append(hosts, n.Host)
			}
			w.stages = append(w.stages, stageName(s))
			if w.node == nil || s.MedianScore-n.Score > w.st.MedianScore-w.node.Score {
				w.st, w.node = s, n
			}
		}
	}
	slices.Sort(hosts)
	var out []finding.Finding
	for _, h := range hosts {
		w := by[h]
		gap := w.st.MedianScore - w.node.Score
		f := finding.Finding{ID: IDAbnormal, Title: "Node unlike its peers during stages", Severity: finding.Low,
			Scope: finding.Scope{Kind: finding.ScopeNode, IDs: []string{h}}, Source: sourceHybrid}
		named := 0.0
		if culprit[h] {
			f.Severity, named = finding.Moderate, 1
		}
		var what []string
		for _, r := range w.node.Slow {
			what = append(what, fmt.Sprintf("its tasks' %s throughput %.0f vs peers' %.0f bytes/ms", r.Rate, r.Value, r.PeerMedian))
		}
		for _, o := range w.node.Outliers {
			what = append(what, fmt.Sprintf("%s %s vs peers' %s", o.Metric, num(o.Value), num(o.PeerMedian)))
		}
		if len(w.node.Outliers) == 0 {
			for _, d := range w.node.Differing {
				what = append(what, fmt.Sprintf("%s %.2f vs peers' %.2f (normalised)", d.Metric, d.Value, d.PeerMedian))
			}
		}
		f.Summary = fmt.Sprintf("%s was abnormal in %d of %d compared stages (%s); in %s its average cosine similarity to the other %d nodes was %.2f (threshold %.2f, median %.2f): %s.",
			h, len(w.stages), r.StagesCompared, list(w.stages, 6), stageName(w.st), w.st.Compared-1, w.node.Score,
			w.st.Threshold, w.st.MedianScore, strings.Join(what, ", "))
		f.Evidence = []finding.Evidence{
			{Name: "stage", Value: float64(w.st.StageID), Unit: "id"},
			{Name: "stages where abnormal", Value: float64(len(w.stages)), Unit: "count"},
			{Name: "stages compared", Value: float64(r.StagesCompared), Unit: "count"},
			{Name: "lowest average cosine similarity", Value: round(w.node.Score), Unit: "ratio", Compare: "<=", Limits: []float64{w.st.Threshold}},
			{Name: "under the stage's median similarity", Value: round(gap), Unit: "ratio", Compare: ">=", Limits: []float64{w.st.Gap}},
			{Name: "also a culprit of the peer comparison", Value: named, Unit: "count"},
		}
		for _, r := range w.node.Slow {
			f.Evidence = append(f.Evidence,
				finding.Evidence{Name: r.Rate + " throughput", Value: round(r.Value), Unit: "bytes/ms"},
				finding.Evidence{Name: r.Rate + " throughput (peers' median)", Value: round(r.PeerMedian), Unit: "bytes/ms"})
		}
		for _, o := range w.node.Outliers {
			f.Evidence = append(f.Evidence,
				finding.Evidence{Name: o.Metric, Value: round(o.Value), Unit: unitOf(o.Metric)},
				finding.Evidence{Name: o.Metric + " (peers' median)", Value: round(o.PeerMedian), Unit: unitOf(o.Metric)})
		}
		f.Recommendation = fmt.Sprintf("Look at %s during %s: per stage this comparison is a hint (node metrics mix every application on the node); when a culprit-node finding names it too, act on that.", h, stageName(w.st))
		if culprit[h] {
			f.Recommendation = fmt.Sprintf("%s is also a culprit of the peer comparison: follow that finding's recommendation; these stages are where it slowed the application.", h)
		}
		out = append(out, f)
	}
	return out
}

// peerFindings gives one finding per culprit and per innocent peer.
func peerFindings(p *Peers) []finding.Finding {
	if p == nil {
		return nil
	}
	var out []finding.Finding
	for _, c := range p.Culprits {
		sev := max(finding.Moderate, strengthLimits.Ascending(c.Strength))
		f := finding.Finding{ID: IDCulprit, Title: "Culprit node: " + resourceTitle(c.Resource), Severity: sev,
			Scope: finding.Scope{Kind: finding.ScopeNode, IDs: []string{c.Host}}, Source: sourceGanesha}
		var ev []string
		for _, e := range c.Evidence {
			ev = append(ev, fmt.Sprintf("%s %s vs peers' %s (z %+.1f)", e.Metric, num(e.Node), num(e.Peers), e.Z))
		}
		f.Summary = fmt.Sprintf("%s behaved unlike its peers (%s profile): it raised %d alarms, its weighted alarm count reached %.1f (indictment above %.1f), at its indictment its label histogram was farther than %.2f from %d of %d peers (median distance %.2f); resource %s: %s.",
			c.Host, p.Profile, c.Alarms, c.MaxAlarmCount, p.Params.IndictThreshold, c.Distances.Threshold,
			c.Distances.Beyond, c.Distances.Peers, c.Distances.Median, c.Resource, strings.Join(ev, ", "))
		if c.Attempts > 0 {
			f.Summary += " Around then " + c.SlowdownText() + "."
		}
		f.Summary += " Confidence " + c.Confidence + "."
		f.Evidence = append(indictEvidence(&c, p),
			finding.Evidence{Name: "median distance to peers", Value: round(c.Distances.Median), Unit: "ratio", Compare: ">=", Limits: []float64{c.Distances.Threshold}},
			finding.Evidence{Name: "peers farther than the threshold", Value: float64(c.Distances.Beyond), Unit: "count"},
			finding.Evidence{Name: "peers compared", Value: float64(c.Distances.Peers), Unit: "count"},
			finding.Evidence{Name: "largest |z| against its peers", Value: round(c.Strength), Unit: "z", Compare: ">=", Limits: strengthLimits[:]},
		)
		for _, e := range c.Evidence {
			f.Evidence = append(f.Evidence,
				finding.Evidence{Name: e.Metric, Value: round(e.Node), Unit: unitOf(e.Metric)},
				finding.Evidence{Name: e.Metric + " (peers' median)", Value: round(e.Peers), Unit: unitOf(e.Metric)},
				finding.Evidence{Name: e.Metric + " z", Value: round(e.Z), Unit: "z"})
		}
		if c.Attempts > 0 {
			name := "attempt duration / stage median"
			if c.AgainstModel {
				name = "attempt duration / stage median, against its own model"
			}
			f.Evidence = append(f.Evidence, finding.Evidence{Name: name, Value: round(c.Slowdown), Unit: "ratio"})
		}
		f.Recommendation = recommendation(c.Host, c.Resource)
		if p.Profile == SelfTrained {
			f.Recommendation += " The profile was self-trained on this run: confirm with one trained on fault-free runs (clusterlens peer train, then --peer-profile)."
		}
		out = append(out, f)
	}
	for _, v := range p.Innocent {
		f := finding.Finding{ID: IDInnocent, Title: "Innocent peer of a culprit node", Severity: finding.Low,
			Scope: finding.Scope{Kind: finding.ScopeNode, IDs: []string{v.Host}}, Source: sourceGanesha}
		f.Summary = fmt.Sprintf("%s was indicted too (weighted alarm count %.1f, %d alarms, resource %s) but in the same episode as %s, whose fault explains it: it is judged an innocent peer disturbed by %s.",
			v.Host, v.MaxAlarmCount, v.Alarms, v.Resource, v.VictimOf, v.VictimOf)
		f.Evidence = indictEvidence(&v, p)
		f.Recommendation = fmt.Sprintf("No action on %s; fix %s.", v.Host, v.VictimOf)
		out = append(out, f)
	}
	return out
}

// indictEvidence is the alarm history's numbers.
func indictEvidence(c *Indicted, p *Peers) []finding.Evidence {
	return []finding.Evidence{
		{Name: "largest weighted alarm count", Value: round(c.MaxAlarmCount), Unit: "count", Compare: ">", Limits: []float64{p.Params.IndictThreshold}},
		{Name: "alarms", Value: float64(c.Alarms), Unit: "count"},
		{Name: "comparison steps", Value: float64(len(p.Steps)), Unit: "count"},
	}
}

// recommendation is what to do about a culprit by its resource.
func recommendation(h, resource string) string {
	switch resource {
	case "cpu":
		return fmt.Sprintf("Find what else uses CPU on %s (top, pidstat -u) and stop or move it; until then exclude the node from scheduling (YARN node labels or decommission, Spark's spark.excludeOnFailure.*) so tasks stop landing there.", h)
	case "disk":
		return fmt.Sprintf("Check %s's disks: what else reads or writes (iotop, pidstat -d), their health (iostat -x latency, smartctl -a); move the competing I/O or drain the node until its disks are back in line with its peers'.", h)
	case "network":
		return fmt.Sprintf("Check %s's network (ethtool -S errors and drops, netstat -s retransmissions, the switch port); drain the node: transfers to and from it slow every peer that fetches from it.", h)
	case "hang":
		return fmt.Sprintf("%s stopped working while it had tasks: look for processes stuck in D state, kernel messages (dmesg) and the executors' thread dumps; restart its services or drain the node.", h)
	}
	return fmt.Sprintf("Inspect %s and drain it from scheduling until it behaves like its peers.", h)
}

func resourceTitle(r string) string {
	switch r {
	case "cpu":
		return "CPU contention"
	case "disk":
		return "disk contention"
	case "network":
		return "network fault"
	case "hang":
		return "stopped working (hang)"
	}
	return r
}

// unitOf is a canonical metric's unit (model.NodeMetricUnits; "value"
// for a unitless one such as the load average).
func unitOf(metric string) string {
	if i := model.NodeMetricIndex(metric); i >= 0 && model.NodeMetricUnits[i] != "" {
		return model.NodeMetricUnits[i]
	}
	return "value"
}

func stageName(s *StageNodes) string {
	if s.Attempt > 0 {
		return fmt.Sprintf("stage %d.%d", s.StageID, s.Attempt)
	}
	return fmt.Sprintf("stage %d", s.StageID)
}

// list joins at most n names, with how many were left out.
func list(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + fmt.Sprintf(" and %d more", len(s)-n)
}

// num writes a metric value compactly.
func num(v float64) string {
	switch a := max(v, -v); {
	case a >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.1f", v)
}

// round keeps three decimals (NaN as 0: evidence is JSON).
func round(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*1000) / 1000
}
