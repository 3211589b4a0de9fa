package dataflow

import "github.com/clusterlens/clusterlens/internal/model"

// resubmittedKind is Spark's TaskEndReason for a finished map task whose
// output was lost with its executor: Spark logs a second TaskEnd for the
// same attempt (same task id, launch and finish) with this reason and no
// metrics. It is a note about an earlier attempt, not an attempt of its own.
const resubmittedKind = "Resubmitted"

// isResubmitted reports whether t is such a repeated TaskEnd record.
func isResubmitted(app *model.App, t *model.Task) bool {
	return t.Reason != 0 && int(t.Reason) < len(app.Reasons) && app.Reasons[t.Reason].Kind == resubmittedKind
}

// wasteIndex knows which task attempts' work Spark threw away.
type wasteIndex struct {
	lost  map[int64]bool // task ids a Resubmitted record names
	rerun map[partKey]int32
}

// partKey is a stage id and partition.
type partKey struct{ stage, part int32 }

// newWasteIndex scans app for Resubmitted records and for the latest stage
// attempt that ran each partition of a retried stage; it reads tasks only
// when the reason table holds a Resubmitted record, and only of stages
// with several attempts otherwise.
func newWasteIndex(app *model.App) *wasteIndex {
	w := &wasteIndex{}
	anyLost := false
	for _, r := range app.Reasons {
		anyLost = anyLost || r.Kind == resubmittedKind
	}
	attempts := map[int32]int{}
	for _, st := range app.Stages {
		if st != nil {
			attempts[st.ID]++
		}
	}
	for _, st := range app.Stages {
		if st == nil || !anyLost && attempts[st.ID] < 2 {
			continue
		}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if anyLost && isResubmitted(app, t) {
				if w.lost == nil {
					w.lost = map[int64]bool{}
				}
				w.lost[t.ID] = true
				continue
			}
			if attempts[st.ID] < 2 || t.Partition < 0 {
				continue
			}
			if w.rerun == nil {
				w.rerun = map[partKey]int32{}
			}
			k := partKey{st.ID, t.Partition}
			if a, ok := w.rerun[k]; !ok || st.Attempt > a {
				w.rerun[k] = st.Attempt
			}
		}
	}
	return w
}

// wasted reports whether the work of attempt t of stage attempt st was
// thrown away: it failed or was killed (a speculative copy that lost the
// race included), its output was lost with its executor (a Resubmitted
// record names it), or a later attempt of its stage ran its partition again
// (a stage retried after a FetchFailed reruns the partitions whose output
// is missing; logs before Spark 3.3 do not name partitions, so there only
// the first two rules apply).
func (w *wasteIndex) wasted(st *model.Stage, t *model.Task) bool {
	switch {
	case t.Status == model.TaskFailed || t.Status == model.TaskKilled:
		return true
	case w.lost[t.ID]:
		return true
	case t.Partition >= 0 && w.rerun != nil:
		a, ok := w.rerun[partKey{st.ID, t.Partition}]
		return ok && a > st.Attempt
	}
	return false
}
