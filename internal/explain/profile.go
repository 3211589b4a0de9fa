package explain

import (
	"cmp"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/history"
)

// group is a run's stages of one signature (a recurring stage; an
// iterative job runs it several times) with what the decomposition needs,
// summed over its stage attempts. Times are in ms.
type group struct {
	sig  string
	name string
	ids  []int32 // the run's stage ids in the group, in order
	occ  int     // stage attempts that ran tasks
	// wall is the group's share of the run's wall clock (concurrent
	// stages split it); dur its stages' own durations.
	wall, dur float64
	// ok and failed are the successful and the failed attempts' time;
	// wait the slot time idle while tasks waited to be launched; slot the
	// slot time alive; tasks the successful tasks; bytes what they read
	// and wrote; gc and spill their garbage collection and spilled bytes.
	ok, failed, wait, slot, tasks, bytes, gc, spill float64
	// The attempts the stages ended with: their time, the time of their
	// failed attempts before them, bytes, GC; medBytes the stages' median
	// task bytes.
	lastMs, lastRetry, lastBytes, lastGC, medBytes float64
	lastHosts                                      []string
	timed                                          bool // the history has the stages' times (schema 3)
}

// slots is K, the cores the group could use: slot time over duration, at
// most its tasks per stage.
func (g *group) slots() float64 {
	if g.dur <= 0 || g.occ == 0 {
		return 0
	}
	return min(g.slot/g.dur, g.tasks/float64(g.occ))
}

// avail is the executor cores alive on average during the group.
func (g *group) avail() float64 {
	if g.dur <= 0 {
		return 0
	}
	return g.slot / g.dur
}

// perStage is the group's tasks per stage attempt.
func (g *group) perStage() float64 { return g.tasks / float64(max(g.occ, 1)) }

// waiting is the time the usable slots (K of the cores alive) sat idle
// while tasks waited to be launched: the idle cores' time scaled to K.
func (g *group) waiting() float64 {
	if a := g.avail(); a > 0 {
		return g.wait * g.slots() / a
	}
	return 0
}

// tail is the idle slot time of the group's tails: K × duration less the
// attempts' and the waiting time, at least 0.
func (g *group) tail() float64 {
	return max(0, g.slots()*g.dur-g.ok-g.failed-g.waiting())
}

// chain is how long the last attempts' tasks took from their first
// attempt's launch: the failed attempts before them and their own time.
func (g *group) chain() float64 { return g.lastMs + g.lastRetry }

// profile is a run seen by the decomposition: its groups by signature and
// the driver's time.
type profile struct {
	run             *history.Run
	groups          map[string]*group
	order           []string // signatures in the run's stage order
	driver, waitExe float64  // driver time with and without executors
	input           float64  // the run's input bytes
}

// profileOf groups run's stages by signature, with each group's share of
// the wall clock.
func profileOf(run *history.Run) *profile {
	p := &profile{run: run, groups: map[string]*group{}, driver: float64(run.DriverMs - run.ExecutorWaitMs),
		waitExe: float64(run.ExecutorWaitMs), input: float64(run.Totals.InputBytes)}
	type key struct{ id, attempt int32 }
	hostOf := map[key][]*history.HostStage{}
	for i := range run.Hosts {
		h := &run.Hosts[i]
		k := key{h.Stage, h.Attempt}
		hostOf[k] = append(hostOf[k], h)
	}
	wall := attributedWall(run)
	for i := range run.Stages {
		st := &run.Stages[i]
		g := p.groups[st.Signature]
		if g == nil {
			g = &group{sig: st.Signature, name: st.Name}
			p.groups[st.Signature] = g
			p.order = append(p.order, st.Signature)
		}
		g.ids = append(g.ids, st.ID)
		t := &st.Times
		if t.SubmitMs > 0 && t.CompleteMs >= t.SubmitMs {
			g.timed = true
			g.dur += float64(t.CompleteMs - t.SubmitMs)
		}
		g.wall += wall[i]
		for _, h := range hostOf[key{st.ID, st.Attempt}] {
			g.ok += h.SumMs
			g.tasks += float64(h.Tasks)
			g.bytes += float64(h.Bytes)
		}
		if st.Tasks > 0 {
			g.occ++
		}
		g.failed += float64(t.FailedMs)
		g.wait += float64(t.WaitMs)
		g.slot += float64(t.SlotMs)
		g.gc += float64(st.GCTimeMs)
		g.spill += float64(st.SpillBytes)
		g.lastMs += float64(t.Last.Ms)
		g.lastRetry += float64(t.Last.RetryMs)
		g.lastBytes += float64(t.Last.Bytes)
		g.lastGC += float64(t.Last.GCMs)
		g.medBytes += float64(t.TaskBytesMedian)
		if t.Last.Host != "" {
			g.lastHosts = append(g.lastHosts, t.Last.Host)
		}
	}
	return p
}

// attributedWall is each stage's share of the run's wall clock: every
// instant some stages run is split equally among them (the driver's time
// is the rest).
func attributedWall(run *history.Run) []float64 {
	out := make([]float64, len(run.Stages))
	type ev struct {
		t     int64
		stage int
		start bool
	}
	var evs []ev
	for i := range run.Stages {
		t := &run.Stages[i].Times
		a, b := max(t.SubmitMs, run.Start), t.CompleteMs
		if run.End > 0 {
			b = min(b, run.End)
		}
		if t.SubmitMs > 0 && b > a {
			evs = append(evs, ev{a, i, true}, ev{b, i, false})
		}
	}
	slices.SortFunc(evs, func(x, y ev) int { return cmp.Compare(x.t, y.t) })
	active := map[int]bool{}
	var prev int64
	for _, e := range evs {
		if n := len(active); n > 0 && e.t > prev {
			share := float64(e.t-prev) / float64(n)
			for i := range active {
				out[i] += share
			}
		}
		prev = e.t
		if e.start {
			active[e.stage] = true
		} else {
			delete(active, e.stage)
		}
	}
	return out
}

// lmean is the logarithmic mean of a and b (positive), L(a, a) = a.
func lmean(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return (a + b) / 2
	}
	if math.Abs(a-b) < 1e-9*max(a, b) {
		return a
	}
	return (a - b) / (math.Log(a) - math.Log(b))
}

// ratio is a/b, 1 when either is not positive (a factor that cannot be
// measured does not move).
func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 1
	}
	return a / b
}
