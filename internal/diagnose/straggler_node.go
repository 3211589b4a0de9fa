package diagnose

import (
	"cmp"
	"fmt"
	"slices"
)

func init() {
	mustRegister(Func[StragglerParams]{
		ID:       "straggler-nodes",
		Heading:  "Straggler nodes",
		Cite:     "BDTune (Ren et al.), straggler nodes with Th_D = 1.5 and cause attribution; HybridTune (JCST 2019) §4",
		Defaults: DefaultStragglerParams,
		Fn:       stragglerNodes,
	})
}

// stragglerNodes reports nodes whose attempts run ThD times their stages'
// medians or more (the median over the node's data-normal attempts of
// duration over stage median, nodeSlowness), judged over the whole
// application so that one slow task does not indict a node. The likeliest
// cause sums, over the node's attempts, the time each cause explains
// (stageProfile.explained without the node term); when the named causes
// explain less than half the node's excess, the node itself (its hardware
// or what else runs on it) is the likeliest cause.
func stragglerNodes(in *Input, p StragglerParams) []Finding {
	app := in.App
	slow, counts := nodeSlownessOf(app, p.ThD, p.MinTasks, p.MinNodeTasks)
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
	expl := map[uint32]map[string]float64{}
	excess := map[uint32]float64{}
	for si, st := range app.Stages {
		if !workStage(st) {
			continue
		}
		recs := stageRecords(app, si)
		if len(recs) < p.MinTasks {
			continue
		}
		prof := stageProfileOf(app, si, recs)
		for _, r := range recs {
			if slow[r.host] < p.ThD || float64(r.dur) <= prof.medDur {
				continue
			}
			if expl[r.host] == nil {
				expl[r.host] = map[string]float64{}
			}
			for c, v := range prof.explained(&r, 0, p.ThD) {
				expl[r.host][c] += v
			}
			excess[r.host] += float64(r.dur) - prof.medDur
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
		for _, v := range expl[h] {
			named += v
		}
		if named < excess[h]/2 {
			cause = causeNode
		}
		name := app.Host(h)
		out = append(out, Finding{
			Severity: sev,
			Scope:    Scope{Kind: ScopeNode, IDs: []string{name}},
			Summary: fmt.Sprintf("Node %s's tasks ran %.1fx their stages' median durations (median over %d tasks with ordinary data); likeliest cause: %s.",
				name, s, counts[h], cause),
			Evidence: []Evidence{
				graded("medianDurationRatio", s, "ratio", p.Ratio),
				gate("tasks", float64(counts[h]), "count", ">=", float64(p.MinNodeTasks)),
				fact("excessMs", excess[h], "ms"),
				fact("explainedByNamedCausesMs", named, "ms"),
				fact("nodes", float64(len(counts)), "count"),
			},
			Recommendation: causeAdvice(cause, "node "+name),
		})
	}
	return out
}
