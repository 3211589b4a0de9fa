package perfmodel

import (
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Edit describes the run without one problem, for Plan.Without: what each
// attempt, stage or job would have taken had the problem not been there.
// Nil functions keep the recorded values.
type Edit struct {
	// Duration is an attempt's duration without the problem, given its
	// stage index in Workload.Stages, its position in the stage's Durations
	// and its recorded duration; 0 means it would not have run (a failed
	// attempt never made). It may only shorten an attempt.
	Duration func(stage, k int, d int64) int64
	// StartDelay is a stage's delay from becoming ready to its first task
	// launch (the scheduler's).
	StartDelay func(stage int, d int64) int64
	// JobGap is a job's gap after the jobs before it completed (the
	// driver's time between actions).
	JobGap func(job int, d int64) int64
	// Steady replays on the recorded peak slots all along, as if no
	// executor had been lost or added late.
	Steady bool
	// Slots, when positive, replays on that many slots instead of the
	// recorded executors.
	Slots int
	// Keep names executors (by id) that would have lived to the end of the
	// run instead of being lost, when the replay follows the executors'
	// lives.
	Keep func(executor string) bool
}

// Saving is what the run would have saved without a problem: the replay
// without it against the replay of the recorded run at the recorded
// configuration (both by the same model, so its error largely cancels; the
// plan's Check gives that error).
type Saving struct {
	// WallMs is the wall-clock time saved; CoreMs the task time (core-ms,
	// times spark.task.cpus) the attempts would not have taken.
	WallMs int64 `json:"wallMs"`
	CoreMs int64 `json:"coreMs"`
	// BaseMs is the replay of the recorded run the saving is measured from.
	BaseMs int64 `json:"baseMs"`
}

// Without replays the run without a problem and returns what that saves.
//
// For a MapReduce job the replay knows that the reduces wait for the maps:
// each reduce attempt keeps only its part after the last map finished (the
// part before was the wait of slow-start, and its shuffle of the maps
// already done), and the reduce phase follows the map phase, so that maps
// finishing sooner bring the job's end forward by as much.
func (p *Plan) Without(e Edit) (Saving, error) {
	ip := p.impactPlan()
	slots := max(1, p.peak)
	if e.Slots > 0 {
		slots = e.Slots
	}
	if !ip.baseDone {
		ip.base, ip.baseErr = ip.Replay(max(1, p.peak))
		ip.baseDone = true
	}
	base, err := ip.base, ip.baseErr
	if err != nil {
		return Saving{}, err
	}
	w := ip.w
	edited := *w
	edited.Stages = slices.Clone(w.Stages)
	var coreMs int64
	if e.Duration != nil {
		orig := p.w
		for i := range edited.Stages {
			s := &edited.Stages[i]
			o := &orig.Stages[i]
			var durs []int64
			for k, d := range o.Durations {
				nd := max(0, min(d, e.Duration(i, k, d)))
				if nd == d {
					continue
				}
				if durs == nil {
					durs = slices.Clone(s.Durations)
				}
				// The replay's duration (for a reduce, the part after the
				// maps) shortens by what the attempt would have saved.
				durs[k] = max(0, s.Durations[k]-(d-nd))
				coreMs += d - nd
			}
			if durs != nil {
				s.Durations = durs
			}
		}
	}
	np := *ip
	np.w, np.memo = &edited, nil
	if e.StartDelay != nil {
		np.startDelay = slices.Clone(ip.startDelay)
		for i, d := range np.startDelay {
			np.startDelay[i] = max(0, min(d, e.StartDelay(i, d)))
		}
	}
	if e.JobGap != nil {
		np.jobGap = slices.Clone(ip.jobGap)
		for k, d := range np.jobGap {
			np.jobGap[k] = max(0, min(d, e.JobGap(k, d)))
		}
	}
	if e.Steady {
		np.steps = nil
	}
	if e.Keep != nil && np.lives != nil {
		np.lives = slices.Clone(ip.lives)
		for i := range np.lives {
			if e.Keep(np.lives[i].id) {
				np.lives[i].ended = max(np.lives[i].ended, w.End-w.Start)
			}
		}
	}
	t, err := np.Replay(slots)
	if err != nil {
		return Saving{}, err
	}
	return Saving{WallMs: base - t, CoreMs: coreMs * int64(max(1, w.TaskCPUs)), BaseMs: base}, nil
}

// impactPlan is the plan Without replays: the plan itself for Spark, and for
// a MapReduce job one whose reduces follow its maps (see Without). It is
// built once.
func (p *Plan) impactPlan() *Plan {
	if !p.w.MapReduce {
		return p
	}
	if p.impact != nil {
		return p.impact
	}
	w := *p.w
	w.Stages = slices.Clone(p.w.Stages)
	mapIdx, mapEnd := -1, int64(0)
	// The job's phases run in order: setup, map, reduce, cleanup; each
	// waits for the one before it.
	prev := -1
	for _, k := range []model.StageKind{model.StageSetup, model.StageMap, model.StageReduce, model.StageCleanup} {
		for i := range w.Stages {
			s := &w.Stages[i]
			if s.Kind != k {
				continue
			}
			if k == model.StageMap {
				mapIdx, mapEnd = i, s.LastFinish
			}
			if prev >= 0 && k != model.StageReduce {
				s.Parents = append(slices.Clone(s.Parents), prev)
			}
			prev = i
		}
	}
	for i := range w.Stages {
		s := &w.Stages[i]
		if s.Kind != model.StageReduce || mapIdx < 0 || len(s.Launches) != len(s.Durations) {
			continue
		}
		s.Parents = append(slices.Clone(s.Parents), mapIdx)
		s.Durations = slices.Clone(s.Durations)
		first := int64(-1)
		for k, d := range s.Durations {
			start := max(s.Launches[k], mapEnd)
			s.Durations[k] = max(0, s.Launches[k]+d-start)
			if first < 0 || start < first {
				first = start
			}
		}
		s.FirstLaunch = max(s.FirstLaunch, first)
		s.BusyAtSubmit = 0
	}
	p.impact = NewPlan(&w)
	p.impact.steps, p.impact.peak, p.impact.lives = p.steps, p.peak, p.lives
	return p.impact
}

// StageAlone is the quick bound on an edit that touches one stage: the
// stage's attempts replayed alone, in their order, on as many of the
// recorded slots as it has attempts, recorded against edited. The time the
// whole run saves is rarely more than the stage saves alone (only when
// its slots would have gone to other stages' waiting tasks), so a saving
// too small to matter here needs no replay of the whole run.
func (p *Plan) StageAlone(si int, e Edit) (recorded, edited int64) {
	s := &p.w.Stages[si]
	// The edited durations, and the first attempt the edit changes: the
	// replay alone goes the recorded way up to it, so it resumes from the
	// recorded replay's state kept at the last checkpoint before it.
	durs, first := s.Durations, len(s.Durations)
	if e.Duration != nil {
		for k, d := range s.Durations {
			if nd := max(0, min(d, e.Duration(si, k, d))); nd != d {
				if durs == nil || first == len(s.Durations) {
					durs, first = slices.Clone(s.Durations), k
				}
				durs[k] = nd
			}
		}
	}
	rec := p.stageAloneRecorded(si)
	if first == len(s.Durations) {
		return rec.end, rec.end
	}
	c := first / aloneEvery
	free := slices.Clone(rec.free[c])
	return rec.end, aloneRun(free, rec.ends[c], durs[c*aloneEvery:], nil)
}

// aloneEvery is how many attempts apart the recorded replay alone keeps
// its state (StageAlone).
const aloneEvery = 1024

// aloneRecorded is a stage's recorded replay alone: its end, and its
// state (the slots' free times and the end so far) before every
// aloneEvery-th attempt.
type aloneRecorded struct {
	end  int64
	free [][]int64
	ends []int64
}

// stageAloneRecorded is stage si's recorded replay alone, once per plan.
func (p *Plan) stageAloneRecorded(si int) *aloneRecorded {
	if m := p.memo; m != nil {
		m.mu.Lock()
		r := m.alone[si]
		m.mu.Unlock()
		if r != nil {
			return r
		}
	}
	s := &p.w.Stages[si]
	r := &aloneRecorded{}
	free := make([]int64, max(1, min(p.peak, len(s.Durations))))
	r.end = aloneRun(free, 0, s.Durations, r)
	if m := p.memo; m != nil {
		m.mu.Lock()
		m.alone[si] = r
		m.mu.Unlock()
	}
	return r
}

// aloneRun runs durs in order on the slots whose free times are the
// min-heap free, from the end so far, and returns the end; with keep, it
// keeps the state before every aloneEvery-th attempt.
func aloneRun(free []int64, end int64, durs []int64, keep *aloneRecorded) int64 {
	slots := len(free)
	for k, d := range durs {
		if keep != nil && k%aloneEvery == 0 {
			keep.free = append(keep.free, slices.Clone(free))
			keep.ends = append(keep.ends, end)
		}
		t := free[0] + d
		end = max(end, t)
		free[0] = t
		for i := 0; ; { // sift down
			l, m := 2*i+1, i
			if l < slots && free[l] < free[m] {
				m = l
			}
			if r := l + 1; r < slots && free[r] < free[m] {
				m = r
			}
			if m == i {
				break
			}
			free[i], free[m] = free[m], free[i]
			i = m
		}
	}
	return end
}
