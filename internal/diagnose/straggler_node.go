package diagnose

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
)

func init() {
	mustRegister(Func[StragglerParams]{
		ID:       "straggler-nodes",
		Heading:  "Straggler nodes",
		Cite:     "BDTune (Ren et al.), straggler nodes with Th_D = 1.5 and cause attribution; HybridTune (arXiv:1711.07639) §5.3, §6.1",
		Defaults: DefaultStragglerParams,
		Fn:       stragglerNodes,
	})
}

// stragglerNodes reports nodes whose attempts run ThD times their stages'
// medians or more (the median over the node's data-normal attempts of
// duration over stage median, nodeSlowness), judged over the whole
// application so that one slow task does not indict a node. A node's
// median rests on a few noisy attempts, so each finding gives its interval
// (slownessInterval); when the interval reaches below ThD the finding says
// the node is possibly a straggler and is graded low at most. The likeliest
// cause sums, over the node's attempts, the time each cause explains
// (stageProfile.explained without the node term); when the named causes
// explain less than half the node's excess, the node itself (its hardware
// or what else runs on it) is the likeliest cause.
//
// With a node model (Input.NodeModel: PARC's per-node models from the run
// history), each attempt is first divided by what the model expects of its
// node in that stage, so a node is judged against its own expected speed:
// a node slow by design (an older generation) is not a straggler, and a
// fast node that degraded is one even when it is no slower than the
// median. Its excess is then over what its model expects.
func stragglerNodes(in *Input, p StragglerParams) []Finding {
	app := in.App
	expect := in.expectation()
	slow, counts, spread := nodeSlownessOf(app, p.ThD, p.MinTasks, p.MinNodeTasks, expect)
	if len(counts) < 2 {
		return nil
	}
	var hosts []uint32
	for h, s := range slow {
		if s >= p.ThD && app.Host(h) != "" {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return nil
	}
	slices.SortFunc(hosts, func(a, b uint32) int { return cmp.Compare(app.Host(a), app.Host(b)) })
	var raw map[uint32]float64
	if expect != nil {
		raw, _, _ = nodeSlownessOf(app, p.ThD, p.MinTasks, p.MinNodeTasks, nil)
	}
	expl := map[uint32]map[string]float64{}
	excess := map[uint32]float64{}
	known := map[uint32]bool{} // hosts the node model has an expectation for
	for si, st := range app.Stages {
		if !workStage(st) {
			continue
		}
		recs := stageRecords(app, si)
		if len(recs) < p.MinTasks {
			continue
		}
		prof := stageProfileOf(app, si, recs)
		usual := prof.medDur // what the node's attempts would take if it ran as expected
		if expect != nil {
			norm := make([]float64, len(recs))
			for i, r := range recs {
				norm[i] = float64(r.dur) / expected(expect, app, st, r.host)
				if _, ok := expect(st.Key(), app.Host(r.host)); ok {
					known[r.host] = true
				}
			}
			usual = median(norm)
		}
		for _, r := range recs {
			want := usual * expected(expect, app, st, r.host)
			if slow[r.host] < p.ThD || float64(r.dur) <= want {
				continue
			}
			if expl[r.host] == nil {
				expl[r.host] = map[string]float64{}
			}
			for c, v := range prof.explained(&r, 0, p.ThD) {
				expl[r.host][c] += v
			}
			excess[r.host] += float64(r.dur) - want
		}
	}
	var out []Finding
	for _, h := range hosts {
		s := slow[h]
		sev := p.Ratio.Ascending(s)
		if sev == None {
			continue
		}
		cause, named := likeliest(expl[h], 0), 0.0
		for _, c := range slices.Sorted(maps.Keys(expl[h])) { // in one order: the sum's last bit
			named += expl[h][c]
		}
		if named < excess[h]/2 {
			cause = causeNode
		}
		lo, hi := slownessInterval(s, counts[h], spread, p.NodeZ)
		name := app.Host(h)
		verdict, advice := "", causeAdvice(in, cause, "node "+name)
		uncertain := lo < p.ThD
		if uncertain {
			advice = "Confirm before acting: look at the node's tasks in other applications or at its metrics (analyze --metrics). If it is slow there too: " + advice
			sev = min(sev, Low)
			verdict = fmt.Sprintf(" Uncertain: with the spread of its stages' attempts the median could be %.2f–%.2f, either side of %.1f; possibly a straggler node.", lo, hi, p.ThD)
		}
		against := "their stages' median durations"
		if expect != nil {
			if known[h] {
				against = fmt.Sprintf("what its own model expects against their stages' medians (%.1fx the medians as they ran)", raw[h])
			} else {
				against += " (its model knows nothing of this node: no history)"
			}
		}
		ev := []Evidence{
			graded("medianDurationRatio", s, "ratio", p.Ratio),
			gate("tasks", float64(counts[h]), "count", ">=", float64(p.MinNodeTasks)),
			fact("medianDurationRatioLow", lo, "ratio"),
			fact("medianDurationRatioHigh", hi, "ratio"),
			fact("attemptSpread", math.Exp(spread), "ratio"),
			fact("excessMs", excess[h], "ms"),
			fact("explainedByNamedCausesMs", named, "ms"),
			fact("nodes", float64(len(counts)), "count"),
		}
		if expect != nil {
			ev = append(ev, fact("rawMedianDurationRatio", raw[h], "ratio"))
		}
		if uncertain {
			ev = append(ev, fact("uncertain", 1, "flag"))
		}
		out = append(out, Finding{
			Impact:   in.nodeImpact(h, s, fmt.Sprintf("node %s's attempts run %.1fx faster, as fast as its peers'", name, s)),
			Severity: sev,
			Scope:    Scope{Kind: ScopeNode, IDs: []string{name}},
			Summary: fmt.Sprintf("Node %s's tasks ran %.1fx %s (median over %d tasks with ordinary data); likeliest cause: %s.%s",
				name, s, against, counts[h], cause, verdict),
			Evidence:       ev,
			Recommendation: advice,
		})
	}
	return out
}

// slownessInterval is the interval around a node's median duration ratio m
// over n attempts: m × exp(±z × 1.2533 × spread / √n), the normal
// approximation to a median's standard error (1.2533 = √(π/2)) in log
// space, with spread the pooled log spread (logSpread).
func slownessInterval(m float64, n int, spread, z float64) (lo, hi float64) {
	if n <= 0 || m <= 0 {
		return m, m
	}
	w := z * 1.2533 * spread / math.Sqrt(float64(n))
	return m * math.Exp(-w), m * math.Exp(w)
}
