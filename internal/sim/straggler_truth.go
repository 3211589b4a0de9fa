package sim

import (
	"cmp"
	"math"
	"slices"
)

// StragglerThD is the slowdown over its stage's typical attempt from which
// truth.json lists an attempt as a straggler (SlowAttempts) and a node as a
// straggler node of an application (SlowNodes): BDTune's Th_D (Ren et al.),
// whose default is 1.5.
const StragglerThD = 1.5

// MinTypicalAttempts is the fewest successful attempts a stage needs for
// its typical attempt to be defined; smaller stages have no stragglers in
// truth.json and do not count towards straggler nodes.
const MinTypicalAttempts = 5

// NearThD is how close to StragglerThD (as a share of it) a node's
// slowdown must be for SlowNodes to list it as near (Straggler false),
// and an attempt's for NearAttempts to list it: within the error of a
// median over a few noisy attempts, so that an evaluation can leave such
// nodes and attempts out.
const NearThD = 0.9

// MinNodeAttempts is the fewest such attempts a node needs to be judged a
// straggler node.
const MinNodeAttempts = 3

// stragglerTruth lists the stage's stragglers by cause. An attempt's time
// is its reference time (refMs: its data on the median node class, read
// locally, alone, without faults, noise or GC) times its non-data factors
// (locality, node, fault, noise, gc). The stage's typical attempt has the
// median reference time and the median product of non-data factors over
// the stage's successful attempts; an attempt whose reference time and
// non-data product, over the typical ones, multiply to StragglerThD or
// more is a straggler. Its cause is the factor furthest above that
// factor's median over the stage (data size: reference time over the
// median). It also keeps, per node, its attempts' node × fault product
// over the typical attempt's non-data product for slowNodes. The stage's causes are freed.
func (e *engine) stragglerTruth(st *stageRun) {
	cs := st.causes
	st.causes = nil
	if len(cs) < MinTypicalAttempts {
		return
	}
	a := st.app
	var typ [numCauses]float64
	v := make([]float64, len(cs))
	for c := range numCauses {
		for i := range cs {
			if c == causeData {
				v[i] = cs[i].refMs
			} else {
				v[i] = cs[i].f[c]
			}
		}
		typ[c] = median(v)
	}
	for i := range cs {
		v[i] = nonData(&cs[i].f)
	}
	typND := median(v)
	if a.nodeSlow == nil {
		a.nodeSlow = map[int][][2]float64{}
	}
	for i := range cs {
		x := &cs[i]
		env := x.f[causeNode] * x.f[causeFault]
		a.nodeSlow[x.node] = append(a.nodeSlow[x.node], [2]float64{env / typND, x.f[causeFault] / typ[causeFault]})
		data := x.refMs / typ[causeData]
		prod := data * nonData(&x.f) / typND
		if typ[causeData] <= 0 || typND <= 0 || prod < NearThD*StragglerThD {
			continue
		}
		if prod < StragglerThD {
			a.truth.NearAttempts = append(a.truth.NearAttempts, NearAttemptTruth{Stage: st.modelID(), Task: x.index, Attempt: x.attempt, Slowdown: round3(prod)})
			continue
		}
		best, bestRel := 0, data
		for c := causeData + 1; c < numCauses; c++ {
			if rel := x.f[c] / typ[c]; rel > bestRel {
				best, bestRel = c, rel
			}
		}
		a.truth.SlowAttempts = append(a.truth.SlowAttempts, SlowAttemptTruth{
			Stage: st.modelID(), Task: x.index, Attempt: x.attempt, Host: e.cl.nodes[x.node].name,
			Slowdown: round3(prod), Cause: CauseNames[best], StageAttempts: len(cs), Typical: round3(typND),
			DataSize: round3(data), Locality: round3(x.f[causeLocality]), Node: round3(x.f[causeNode]),
			Fault: round3(x.f[causeFault]), Noise: round3(x.f[causeNoise]), GC: round3(x.f[causeGC]),
		})
	}
}

// nonData is the product of an attempt's factors but data size.
func nonData(f *[numCauses]float64) float64 {
	p := 1.0
	for c := causeData + 1; c < numCauses; c++ {
		p *= f[c]
	}
	return p
}

// slowNodes lists the application's straggler nodes (and those near, at
// NearThD × StragglerThD or more): those where the
// median over its attempts there (in stages with a typical attempt, at
// least MinNodeAttempts of them) of node × fault factor over its stage's
// typical attempt's non-data product (Typical) reaches StragglerThD:
// attempts on the node run that much slower than the stage's typical
// attempt, their own noise and data aside. The cause is
// "fault" when the node's faults account for more of it than its hardware
// and load (median fault factor over the stage's median above the square
// root of the slowdown), else "node".
func slowNodes(a *appRun, cl *cluster) []SlowNodeTruth {
	out := []SlowNodeTruth{}
	for n, v := range a.nodeSlow {
		if len(v) < MinNodeAttempts {
			continue
		}
		env, fault := make([]float64, len(v)), make([]float64, len(v))
		for i, x := range v {
			env[i], fault[i] = x[0], x[1]
		}
		s := median(env)
		if f := median(fault); f > FaultedMin {
			a.truth.FaultedNodes = append(a.truth.FaultedNodes, FaultedNodeTruth{Host: cl.nodes[n].name, Slowdown: round3(f),
				Attempts: len(v), Resources: faultResources(cl.nodes[n], a.truth.StartMs, a.truth.EndMs)})
		}
		if s < NearThD*StragglerThD {
			continue
		}
		cause := "node"
		if f := median(fault); f*f > s {
			cause = "fault"
		}
		out = append(out, SlowNodeTruth{Host: cl.nodes[n].name, Slowdown: round3(s), Attempts: len(v), Cause: cause, Straggler: s >= StragglerThD})
	}
	slices.SortFunc(out, func(x, y SlowNodeTruth) int { return cmp.Compare(x.Host, y.Host) })
	slices.SortFunc(a.truth.FaultedNodes, func(x, y FaultedNodeTruth) int { return cmp.Compare(x.Host, y.Host) })
	a.nodeSlow = nil
	return out
}

// FaultedMin is the median fault factor above which truth.json lists a
// node as faulted in an application (FaultedNodes).
const FaultedMin = 1.05

// faultResources are the resources of n's faults overlapping [from, to].
func faultResources(n *node, from, to int64) []string {
	var out []string
	for _, f := range n.faults {
		if r := faultResource(f.spec.Kind); f.start <= to && f.end >= from && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
