package explain

import (
	"math"

	"github.com/clusterlens/clusterlens/internal/history"
)

// baselineAnswer is what the simple baseline says of a run: the stage
// with the largest increase of its wall time over its usual one (or the
// driver, when its time grew most), the measure of that stage that grew
// most against its usual value, named as a cause kind, and the host whose
// mean task time in that stage grew most.
type baselineAnswer struct {
	kind  string
	stage string // signature
	host  string
}

// baseline is the evaluations' simple baseline: what a person does with
// the History Server's stage table and two runs side by side. It knows no
// configuration, plan or node history, so it can never name a changed
// setting or plan, and its node is a host that ran slower than the
// stage's usual mean, not than its own history.
func baseline(run *history.Run, usual []*history.Run) baselineAnswer {
	pr := profileOf(run)
	ups := make([]*profile, len(usual))
	for i, u := range usual {
		ups[i] = profileOf(u)
	}
	best, bestDelta := "", pr.driver-medianOf(ups, func(u *profile) float64 { return u.driver })
	for _, sig := range pr.order {
		w := medianOf(ups, func(u *profile) float64 {
			if g := u.groups[sig]; g != nil {
				return g.wall
			}
			return 0
		})
		if d := pr.groups[sig].wall - w; d > bestDelta {
			best, bestDelta = sig, d
		}
	}
	if best == "" {
		return baselineAnswer{kind: KindDriver}
	}
	g := pr.groups[best]
	med := func(f func(*group) float64) float64 {
		return medianOf(ups, func(u *profile) float64 {
			if ug := u.groups[best]; ug != nil {
				return f(ug)
			}
			return 0
		})
	}
	// Each measure's log change; the largest names the kind.
	up := func(now, usual float64) float64 { return math.Log((now + 1) / (usual + 1)) }
	hostMean := func(run *history.Run) map[string]float64 {
		out := map[string]float64{}
		for h, c := range cellsOf(run)[best] {
			out[h] = c.sumMs / float64(max(c.n, 1))
		}
		return out
	}
	mine := hostMean(run)
	var stageMean []float64
	for _, u := range usual {
		var s, n float64
		for _, c := range cellsOf(u)[best] {
			s += c.sumMs
			n += float64(c.n)
		}
		if n > 0 {
			stageMean = append(stageMean, s/n)
		}
	}
	typical := median(stageMean)
	host, hostUp := "", 0.0
	for h, m := range mine {
		if d := up(m, typical); host == "" || d > hostUp {
			host, hostUp = h, d
		}
	}
	measures := []struct {
		kind string
		v    float64
	}{
		{KindInput, up(g.bytes, med(func(u *group) float64 { return u.bytes }))},
		{KindPartitioning, math.Abs(up(g.perStage(), med((*group).perStage)))},
		{KindSkew, up(g.lastMs/math.Max(g.ok/math.Max(g.tasks, 1), 1), med(func(u *group) float64 { return u.lastMs / math.Max(u.ok/math.Max(u.tasks, 1), 1) }))},
		{KindSpillGC, up(g.gc, med(func(u *group) float64 { return u.gc }))},
		{KindFailures, up(g.failed, med(func(u *group) float64 { return u.failed }))},
		{KindExecutors, -up(g.avail(), med((*group).avail))},
		{KindNode, hostUp},
	}
	kind, v := "", math.Inf(-1)
	for _, m := range measures {
		if m.v > v {
			kind, v = m.kind, m.v
		}
	}
	return baselineAnswer{kind: kind, stage: best, host: host}
}
