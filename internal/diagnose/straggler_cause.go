package diagnose

import (
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Straggler causes, in the order ties are broken.
const (
	causeData      = "data size"
	causeLocality  = "locality"
	causeGC        = "GC"
	causeFetchWait = "shuffle fetch wait"
	causeSpill     = "spill"
	causeNode      = "node"
	causeUnknown   = "unknown"
)

// stragglerCauses lists the causes in tie-break order.
var stragglerCauses = []string{causeData, causeLocality, causeGC, causeFetchWait, causeSpill, causeNode}

// stageProfile holds a stage's medians and the typical slowdowns that the
// BDTune cause attribution compares a straggler against.
type stageProfile struct {
	medDur, medBytes, medGC, medFetch float64
	// gcShare and fetchShare are the median shares of GC and shuffle fetch
	// wait in an attempt's duration.
	gcShare, fetchShare float64
	// localSlow is the median duration of non-local attempts over that of
	// local ones (0 when either group is empty); spillSlow likewise for
	// spilling attempts over non-spilling ones.
	localSlow, spillSlow float64
	// dataDrives is 1 when the stage's durations grow with its tasks'
	// data (dataSlowdown at least minDataSlowdown), -1 when not, 0
	// until asked (drivenByData): only then does reading more than the
	// median explain a straggler (a slow task that read less than fast
	// ones is not slow for its data).
	dataDrives int8
	recs       []taskRec
}

// drivenByData reports whether the stage's durations grow with its data,
// computed on first use.
func (p *stageProfile) drivenByData() bool {
	if p.dataDrives == 0 {
		p.dataDrives = -1
		if dataSlowdown(p.recs, p.medBytes) >= minDataSlowdown {
			p.dataDrives = 1
		}
	}
	return p.dataDrives > 0
}

// minDataSlowdown is how much slower, at the median, the stage's tasks
// reading more than the median data must run than those reading less for
// data size to explain its stragglers (clusterlens's).
const minDataSlowdown = 1.1

// dataSlowdown is the median duration of the tasks reading more than the
// stage's median data over that of the others (0 when either is empty).
func dataSlowdown(recs []taskRec, medBytes float64) float64 {
	var hi, lo []float64
	for i := range recs {
		if float64(recs[i].bytes) > medBytes {
			hi = append(hi, float64(recs[i].dur))
		} else {
			lo = append(lo, float64(recs[i].dur))
		}
	}
	ml := medianInPlace(lo)
	if len(hi) == 0 || ml <= 0 {
		return 0
	}
	return medianInPlace(hi) / ml
}

func newStageProfile(recs []taskRec) *stageProfile {
	p := &stageProfile{recs: recs}
	buf := make([]float64, len(recs)) // one buffer for the six medians
	med := func(f func(*taskRec) float64) float64 {
		for i := range recs {
			buf[i] = f(&recs[i])
		}
		return medianInPlace(buf)
	}
	p.medDur = med(func(r *taskRec) float64 { return float64(r.dur) })
	p.medBytes = med(func(r *taskRec) float64 { return float64(r.bytes) })
	p.medGC = med(func(r *taskRec) float64 { return float64(r.gcMs) })
	p.medFetch = med(func(r *taskRec) float64 { return float64(r.fetchWaitMs) })
	p.gcShare = med(func(r *taskRec) float64 { return share(r.gcMs, r.dur) })
	p.fetchShare = med(func(r *taskRec) float64 { return share(r.fetchWaitMs, r.dur) })
	p.localSlow = slowdown(recs, buf, func(r *taskRec) bool { return remote(r.loc) }, func(r *taskRec) bool { return local(r.loc) })
	p.spillSlow = slowdown(recs, buf, func(r *taskRec) bool { return r.spill > 0 }, func(r *taskRec) bool { return r.spill == 0 })
	return p
}

// share is ms over dur, 0 when dur is not positive.
func share(ms, dur int64) float64 {
	if dur <= 0 {
		return 0
	}
	return float64(ms) / float64(dur)
}

func remote(l model.Locality) bool { return l == model.RackLocal || l == model.AnyLocality }
func local(l model.Locality) bool {
	return l == model.ProcessLocal || l == model.NodeLocal || l == model.NoPref
}

// slowdown is the median duration of the attempts in a over that of the
// attempts in b, 0 when either is empty. buf, as long as recs, holds the
// durations: a's from its start, b's from its end.
func slowdown(recs []taskRec, buf []float64, a, b func(*taskRec) bool) float64 {
	na, nb := 0, 0
	for i := range recs {
		switch {
		case a(&recs[i]):
			buf[na] = float64(recs[i].dur)
			na++
		case b(&recs[i]):
			nb++
			buf[len(buf)-nb] = float64(recs[i].dur)
		}
	}
	mb := medianInPlace(buf[len(buf)-nb:])
	if na == 0 || mb <= 0 {
		return 0
	}
	return medianInPlace(buf[:na]) / mb
}

// explained estimates how many milliseconds of a straggler's excess over
// the stage median each cause accounts for (BDTune's attribution, with
// clusterlens's estimates where the logs do not time a cause):
//
//   - data size: the median time scaled by the data beyond the median,
//     medDur × (bytes/medBytes − 1), when the ratio reaches thD;
//   - locality: for a rack-local or off-rack attempt, the stage's typical
//     slowdown of non-local over local attempts, medDur × (slow − 1);
//   - GC and shuffle fetch wait: the attempt's time beyond the stage's
//     median GC and fetch-wait time (both are timed by the logs), when
//     their share of the attempt's duration is over the stage's median
//     share: GC and fetch time grow with any slowdown of the work (GC
//     with CPU time, fetches with a slow node's network), and a cause that
//     grew no faster than the attempt did is not why it is slow;
//   - spill: for a spilling attempt, the stage's typical slowdown of
//     spilling over non-spilling attempts;
//   - node: medDur × (nodeSlow − 1), where nodeSlow is how much slower than
//     their stage medians the node's data-normal attempts ran (nodeSlowness).
//
// Each estimate is capped at the excess.
func (p *stageProfile) explained(r *taskRec, nodeSlow, thD float64) map[string]float64 {
	excess := float64(r.dur) - p.medDur
	out := make(map[string]float64, len(stragglerCauses))
	capAt := func(c string, v float64) {
		out[c] = max(0, min(excess, v))
	}
	if p.medBytes > 0 && float64(r.bytes) > p.medBytes && p.drivenByData() {
		capAt(causeData, p.medDur*(float64(r.bytes)/p.medBytes-1))
	}
	if remote(r.loc) && p.localSlow > 1 {
		capAt(causeLocality, p.medDur*(p.localSlow-1))
	}
	if share(r.gcMs, r.dur) > p.gcShare {
		capAt(causeGC, float64(r.gcMs)-p.medGC)
	}
	if share(r.fetchWaitMs, r.dur) > p.fetchShare {
		capAt(causeFetchWait, float64(r.fetchWaitMs)-p.medFetch)
	}
	if r.spill > 0 && p.spillSlow > 1 {
		capAt(causeSpill, p.medDur*(p.spillSlow-1))
	}
	if nodeSlow > 1 {
		capAt(causeNode, p.medDur*(nodeSlow-1))
	}
	return out
}

// likeliest is the cause with the most explained time, causeUnknown when
// none explains at least half of excess (0: any time): a cause that
// explains less than half of a straggler's excess is not why it straggled.
func likeliest(ex map[string]float64, excess float64) string {
	best, bestV := causeUnknown, max(0, excess/2-1e-9)
	for _, c := range stragglerCauses {
		if ex[c] > bestV {
			best, bestV = c, ex[c]
		}
	}
	return best
}

// nodeSlowness returns, per host index, the median over the host's
// data-normal attempts (data below thD times the stage median) of duration
// over the stage's median duration, counting stages with at least minTasks
// attempts, and each host's count of such attempts. Hosts with fewer than
// minNodeTasks such attempts get no ratio. An attempt killed because
// another attempt of its task succeeded (lostRace) counts with its elapsed
// time, a lower bound, when the winner read ordinary data. It also returns the spread of
// those ratios within a host, pooled over the hosts (logSpread). With a
// node model's expectation (nil: none), every attempt's duration is first
// divided by what the model expects of its host in that stage (1 for a
// host it does not know), so that the ratio is against the node's own
// expected speed: a node slow by design runs at 1.
func nodeSlowness(app *model.App, thD float64, minTasks, minNodeTasks int, expect Expectation) (map[uint32]float64, map[uint32]int, float64) {
	ratios := map[uint32][]float64{}
	var norm []float64
	for si, st := range app.Stages {
		if !workStage(st) {
			continue
		}
		recs := stageRecords(app, si)
		if len(recs) < minTasks {
			continue
		}
		p := stageProfileOf(app, si, recs)
		med := p.medDur
		norm = norm[:0]
		for _, r := range recs {
			norm = append(norm, float64(r.dur)/expected(expect, app, st, r.host))
		}
		if expect != nil {
			med = median(norm)
		}
		if med <= 0 {
			continue
		}
		normal := func(r *taskRec) bool { return p.medBytes <= 0 || float64(r.bytes) < thD*p.medBytes }
		for i := range recs {
			if normal(&recs[i]) {
				ratios[recs[i].host] = append(ratios[recs[i].host], norm[i]/med)
			}
		}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if !lostRace(app, t) {
				continue
			}
			// Its task's winning attempt must have read ordinary data.
			if j := slices.IndexFunc(recs, func(r taskRec) bool { return r.index == t.Index }); j >= 0 && normal(&recs[j]) {
				ratios[t.Host] = append(ratios[t.Host], float64(t.Duration())/expected(expect, app, st, t.Host)/med)
			}
		}
	}
	out := map[uint32]float64{}
	counts := map[uint32]int{}
	for h, rs := range ratios {
		counts[h] = len(rs)
		if len(rs) >= minNodeTasks {
			out[h] = median(rs)
		}
	}
	return out, counts, logSpread(ratios, out)
}

// lostRace reports whether t was killed because another attempt of its
// task succeeded first (a speculative copy, or the original a copy beat):
// it ran at least its elapsed time, so that time is a lower bound of its
// duration. Leaving such attempts out would keep only the faster of a slow
// node's attempts where speculation is on.
func lostRace(app *model.App, t *model.Task) bool {
	return t.Status == model.TaskKilled && t.Duration() > 0 && int(t.Reason) < len(app.Reasons) &&
		app.Reasons[t.Reason].Message == "another attempt succeeded"
}

// expected is the node model's expected duration factor of host's
// attempts in st, 1 without a model or when it does not know the host.
func expected(expect Expectation, app *model.App, st *model.Stage, host uint32) float64 {
	if expect == nil {
		return 1
	}
	if f, ok := expect(st.Key(), app.Host(host)); ok && f > 0 {
		return f
	}
	return 1
}

// logSpread is a robust standard deviation of the natural log of a host's
// duration ratios around the host's median, pooled over the judged hosts
// (those in med): 1.4826 times the median absolute deviation of
// log(ratio / host median), leaving out the zero deviation of an odd
// count's middle attempt. Pooling is what makes it usable: a node has only
// a few attempts, the hosts of an application many together. 0 when no
// host has two attempts that differ.
func logSpread(ratios map[uint32][]float64, med map[uint32]float64) float64 {
	n := 0
	for h := range med {
		n += len(ratios[h])
	}
	dev := make([]float64, 0, n)
	for h, m := range med {
		if m <= 0 {
			continue
		}
		for _, r := range ratios[h] {
			if d := math.Abs(math.Log(r / m)); d > 0 && r > 0 {
				dev = append(dev, d)
			}
		}
	}
	if len(dev) == 0 {
		return 0
	}
	return 1.4826 * medianInPlace(dev) // dev is this call's own
}
