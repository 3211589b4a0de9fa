package perfmodel

import (
	"cmp"
	"slices"
)

// CriticalPath is the longest chain of per-stage maximum task times through
// the stage DAG: the time the application's stages would take with infinite
// executors, every task of a stage running at once.
type CriticalPath struct {
	Ms int64 `json:"ms"`
	// Stages are the ids of the stages on the path, in execution order.
	Stages []int32 `json:"stages"`
}

// FindCriticalPath follows Sparklens: within a job, a stage's critical time
// is its longest task plus the largest critical time of its parents
// (JobTimeSpan.computeCriticalTimeForJob); jobs are chained by their order,
// a job following every job that completed before it was submitted, and jobs
// that overlapped in time run in parallel, so only the longest counts
// (JobOverlapHelper.criticalPathForAllJobs groups overlapping jobs the same
// way). A retried stage counts the longest task of each of its attempts
// (Stage.CriticalTask): its attempts ran one after another.
func FindCriticalPath(w *Workload) CriticalPath {
	n := len(w.Stages)
	crit := make([]int64, n)
	via := make([]int, n) // predecessor stage on the path, -1 for none
	for i := range w.Stages {
		s := &w.Stages[i]
		via[i] = -1
		var best int64
		for _, p := range s.Parents {
			// Parents precede children in w.Stages (smaller ids), so crit[p] is known.
			if w.Stages[p].Job == s.Job && (via[i] == -1 || crit[p] > best) {
				best, via[i] = crit[p], p
			}
		}
		crit[i] = s.CriticalTask() + best
	}
	// Per job: its longest stage chain.
	jobCrit := make([]int64, len(w.Jobs))
	jobEnd := make([]int, len(w.Jobs))
	for k := range w.Jobs {
		jobEnd[k] = -1
		for _, si := range w.Jobs[k].Stages {
			if jobEnd[k] == -1 || crit[si] > jobCrit[k] {
				jobCrit[k], jobEnd[k] = crit[si], si
			}
		}
	}
	// Chain jobs: process in completion order; a job's predecessors are the
	// jobs that completed before it was submitted, a prefix of that order.
	ord := jobOrder(w)
	total := make([]int64, len(w.Jobs))
	prevJob := make([]int, len(w.Jobs))
	prefBest := make([]int, ord.len()+1) // prefBest[k]: job with the largest total among ord[:k], -1 if none
	prefBest[0] = -1
	for pos, k := range ord.jobs {
		pred := prefBest[ord.prereq[k]]
		prevJob[k] = pred
		total[k] = jobCrit[k]
		if pred >= 0 {
			total[k] += total[pred]
		}
		prefBest[pos+1] = prefBest[pos]
		if prefBest[pos] == -1 || total[k] > total[prefBest[pos]] {
			prefBest[pos+1] = k
		}
	}
	last := prefBest[len(ord.jobs)]
	if last < 0 {
		return CriticalPath{}
	}
	cp := CriticalPath{Ms: total[last]}
	for k := last; k >= 0; k = prevJob[k] {
		var chain []int32
		for si := jobEnd[k]; si >= 0; si = via[si] {
			chain = append(chain, w.Stages[si].ID)
		}
		cp.Stages = append(cp.Stages, chain...)
	}
	slices.Reverse(cp.Stages)
	return cp
}

// order lists jobs by recorded completion, and for each job how many of the
// first jobs in that list completed before it was submitted (its
// predecessors).
type order struct {
	jobs   []int // job indexes by completion
	prereq []int // by job index: a prefix length of jobs
}

func (o order) len() int { return len(o.jobs) }

func jobOrder(w *Workload) order {
	o := order{jobs: make([]int, len(w.Jobs)), prereq: make([]int, len(w.Jobs))}
	for k := range o.jobs {
		o.jobs[k] = k
	}
	slices.SortStableFunc(o.jobs, func(a, b int) int {
		if c := cmp.Compare(w.Jobs[a].Completed, w.Jobs[b].Completed); c != 0 {
			return c
		}
		return cmp.Compare(w.Jobs[a].Submitted, w.Jobs[b].Submitted)
	})
	for pos, k := range o.jobs {
		sub := w.Jobs[k].Submitted
		// Count jobs before pos in completion order that completed by sub.
		n, _ := slices.BinarySearchFunc(o.jobs[:pos], sub, func(j int, t int64) int {
			if w.Jobs[j].Completed <= t {
				return -1
			}
			return 1
		})
		o.prereq[k] = n
	}
	return o
}
