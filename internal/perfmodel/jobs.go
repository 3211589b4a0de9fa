package perfmodel

import (
	"cmp"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// buildJobs assigns every stage to one job: the lowest-numbered job that
// lists it (Spark's FIFO priority is the job that first needed the stage),
// or a synthetic job of its own when the log names none. Jobs without stages
// keep their recorded span, as Sparklens keeps empty jobs
// (CompletionEstimator.estimateJobListWallClockTime: "such a job will run in
// same time irrespective of number of cores"). keep maps new stage indexes to
// the old ones that jobIDs is indexed by.
func (w *Workload) buildJobs(app *model.App, keep []int, jobIDs [][]int32) {
	known := map[int32]*model.Job{}
	listedBy := map[int32]int32{} // stage id -> lowest job id listing it
	for _, j := range app.Jobs {
		if old, ok := known[j.ID]; ok && old.Submitted <= j.Submitted {
			continue
		}
		known[j.ID] = j
		for _, s := range j.StageIDs {
			if cur, ok := listedBy[s]; !ok || j.ID < cur {
				listedBy[s] = j.ID
			}
		}
	}
	index := map[int32]int{}
	jobOf := func(id int32) int {
		if k, ok := index[id]; ok {
			return k
		}
		j := known[id]
		index[id] = len(w.Jobs)
		w.Jobs = append(w.Jobs, Job{ID: id, Submitted: j.Submitted, Completed: j.Completed, SQLID: j.SQLID})
		return index[id]
	}
	for si, old := range keep {
		s := &w.Stages[si]
		best, found := int32(0), false
		for _, id := range jobIDs[old] {
			if _, ok := known[id]; ok && (!found || id < best) {
				best, found = id, true
			}
		}
		if id, ok := listedBy[s.ID]; ok && (!found || id < best) {
			best, found = id, true
		}
		var k int
		if found {
			k = jobOf(best)
		} else {
			k = len(w.Jobs)
			w.Jobs = append(w.Jobs, Job{ID: -1 - s.ID, Submitted: s.Submitted, Completed: s.Completed, Synthetic: true, SQLID: -1})
		}
		s.Job = k
		w.Jobs[k].Stages = append(w.Jobs[k].Stages, si)
	}
	// Jobs whose stages all lacked tasks keep their span when it is known.
	for _, j := range app.Jobs {
		if _, ok := index[j.ID]; ok || known[j.ID] != j {
			continue
		}
		if j.Submitted > 0 && j.Completed >= j.Submitted {
			index[j.ID] = len(w.Jobs)
			w.Jobs = append(w.Jobs, Job{ID: j.ID, Submitted: j.Submitted, Completed: j.Completed, SQLID: j.SQLID})
		}
	}
	// A job spans at least its stages.
	for k := range w.Jobs {
		j := &w.Jobs[k]
		for _, si := range j.Stages {
			s := &w.Stages[si]
			if j.Submitted <= 0 || j.Submitted > s.Submitted {
				j.Submitted = s.Submitted
			}
			j.Completed = max(j.Completed, s.Completed)
		}
	}
	slices.SortStableFunc(w.Jobs, func(a, b Job) int {
		if a.Submitted != b.Submitted {
			return cmp.Compare(a.Submitted, b.Submitted)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for k := range w.Jobs {
		for _, si := range w.Jobs[k].Stages {
			w.Stages[si].Job = k
		}
	}
}
