package peer

import (
	"cmp"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Workload is what the application logs say every node was doing: the
// intervals its task attempts ran (Spark tasks, MapReduce attempts), per
// host. Ganesha assumes that peers do the same work; a cluster shared by
// applications of different sizes breaks that, and the logs say where.
type Workload struct {
	hosts  map[string][]span
	maxDur map[string]int64 // longest attempt per host, to start scans by binary search
	// modelled: attempts' slowdowns are against their nodes' own models.
	modelled bool
}

// Expect is a model of the nodes' speeds learned from other runs
// (diagnose.NodeModel's Expect; package hetero fits one from the run
// history): for an application, the expected duration of a host's tasks in
// a stage as a factor over the typical node's, ok false for a host it does
// not know.
type Expect = func(app *model.App) func(st model.StageKey, host string) (factor float64, ok bool)

type span struct {
	from, to int64
	slow     float32 // its duration over its stage's median attempt duration
	failed   bool
}

// NewWorkload collects the attempt intervals of apps (attempts still
// running end at the application's end, or are left out when unknown).
func NewWorkload(apps []*model.App) *Workload { return NewWorkloadModel(apps, nil) }

// NewWorkloadModel is NewWorkload with a model of the nodes' speeds (nil:
// none): every attempt's duration is divided by what the model expects of
// its host in its stage before it is compared with the stage's median, so
// the Slowdown of a node slow by design is about 1 and a degraded fast node
// shows its own slowdown.
func NewWorkloadModel(apps []*model.App, expect Expect) *Workload {
	w := &Workload{hosts: map[string][]span{}, maxDur: map[string]int64{}, modelled: expect != nil}
	for _, a := range apps {
		factor := func(model.StageKey, uint32) float64 { return 1 }
		if expect != nil {
			e := expect(a)
			factor = func(k model.StageKey, h uint32) float64 {
				if f, ok := e(k, a.Host(h)); ok && f > 0 {
					return f
				}
				return 1
			}
		}
		for _, st := range a.Stages {
			med := stageMedian(st, func(h uint32) float64 { return factor(st.Key(), h) })
			for i := range st.Tasks {
				t := &st.Tasks[i]
				end := t.Finish
				if end == 0 {
					end = a.End
				}
				if int(t.Host) >= len(a.Hosts) || t.Host == 0 || end <= t.Launch {
					continue
				}
				h := a.Hosts[t.Host]
				slow := float64(end-t.Launch) / factor(st.Key(), t.Host) / med
				w.hosts[h] = append(w.hosts[h], span{t.Launch, end, float32(slow), t.Status == model.TaskFailed})
			}
		}
	}
	for h, s := range w.hosts {
		slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.from, b.from) })
		for _, x := range s {
			w.maxDur[h] = max(w.maxDur[h], x.to-x.from)
		}
	}
	return w
}

// Modelled reports whether Slowdown is against the nodes' own models.
func (w *Workload) Modelled() bool { return w.modelled }

// Has reports whether the logs ran any attempt on host.
func (w *Workload) Has(host string) bool { return len(w.hosts[host]) > 0 }

// around returns host's attempts that may overlap [from, to): those
// launched after from minus its longest attempt and before to.
func (w *Workload) around(host string, from, to int64) []span {
	s := w.hosts[host]
	lo, _ := slices.BinarySearchFunc(s, from-w.maxDur[host], func(x span, t int64) int { return cmp.Compare(x.from, t) })
	hi, _ := slices.BinarySearchFunc(s, to, func(x span, t int64) int { return cmp.Compare(x.from, t) })
	return s[lo:max(lo, hi)]
}

// Load returns the mean number of attempts running on host over [from, to) (Unix ms).
func (w *Workload) Load(host string, from, to int64) float64 {
	if to <= from {
		return 0
	}
	var sum int64
	for _, s := range w.around(host, from, to) {
		if s.to > from {
			sum += min(s.to, to) - max(s.from, from)
		}
	}
	return float64(sum) / float64(to-from)
}

// Failed returns how many of host's attempts that failed (at any time)
// were running during [from, to): offline, the logs already tell which
// running attempts will be lost.
func (w *Workload) Failed(host string, from, to int64) int {
	n := 0
	for _, s := range w.around(host, from, to) {
		if s.failed && s.to > from {
			n++
		}
	}
	return n
}

// Any is the group of a node compared with every node (Detector.SetGroups).
const Any = -1

// Group is clusterlens's workload-aware peer group of host over [from, to):
// idle (under a quarter of an attempt running on average), light (under
// one) or busy, from the attempts the logs place there; Any while an
// attempt that failed was running there (a hung attempt until its timeout,
// one on an executor about to be lost: what the node did is not explained
// by the work it was given, so it is compared with every node, as Ganesha
// does).
func (w *Workload) Group(host string, from, to int64) int {
	if w.Failed(host, from, to) > 0 {
		return Any
	}
	return w.LoadGroup(host, from, to)
}

// LoadGroup is Group without the failed-attempt rule: the peers a node's
// metrics are judged against (its evidence) even while it is compared with
// every node.
func (w *Workload) LoadGroup(host string, from, to int64) int {
	switch l := w.Load(host, from, to); {
	case l < 0.25:
		return 0
	case l < 1:
		return 1
	}
	return 2
}

// stageMedian is the median duration (ms, at least 1) of a stage's
// finished attempts, each divided by its host's factor.
func stageMedian(st *model.Stage, factor func(host uint32) float64) float64 {
	var d []float64
	for i := range st.Tasks {
		if v := st.Tasks[i].Duration(); v > 0 {
			d = append(d, float64(v)/factor(st.Tasks[i].Host))
		}
	}
	if len(d) == 0 {
		return 1
	}
	return max(1, median(d))
}

// Slowdown returns the median, over host's attempts running during
// [from, to), of each attempt's duration over its stage's median attempt
// duration, and how many attempts that is: above 1 the node's tasks ran
// slower than the same stages' tasks elsewhere (with a model of the nodes,
// slower than their own models expect against the stages' medians).
func (w *Workload) Slowdown(host string, from, to int64) (float64, int) {
	var r []float64
	for _, s := range w.around(host, from, to) {
		if s.to > from {
			r = append(r, float64(s.slow))
		}
	}
	if len(r) == 0 {
		return 0, 0
	}
	return median(r), len(r)
}
