package dataflow

import (
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// wasteIndex knows which task attempts' work Spark threw away.
type wasteIndex struct {
	lost  map[int64]bool // task ids a Resubmitted record names
	rerun map[partKey]int32
	// first holds, for stage attempts with speculative tasks, the id of the
	// first successful attempt of each task index to finish.
	first map[*model.Stage]map[int32]int64
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
		anyLost = anyLost || r.Kind == model.ReasonResubmitted
	}
	attempts := map[int32]int{}
	for _, st := range app.Stages {
		if st != nil {
			attempts[st.ID]++
		}
	}
	// Speculative copies run only with spark.speculation on (default off);
	// logs without an environment (partial ones) are scanned to be safe.
	spec, _ := app.Env.SparkProp("spark.speculation")
	speculation := !app.Env.Seen || strings.EqualFold(spec, "true")
	for _, st := range app.Stages {
		if st != nil && speculation {
			w.speculation(st)
		}
		if st == nil || !anyLost && attempts[st.ID] < 2 {
			continue
		}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if anyLost && app.Resubmitted(t) {
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

// speculation records, when stage attempt st ran speculative copies, which
// successful attempt of each index finished first.
func (w *wasteIndex) speculation(st *model.Stage) {
	spec := false
	for i := range st.Tasks {
		spec = spec || st.Tasks[i].Speculative
	}
	if !spec {
		return
	}
	first := map[int32]int64{}
	finish := map[int32]int64{}
	for i := range st.Tasks {
		t := &st.Tasks[i]
		if t.Status != model.TaskSuccess || t.Finish <= 0 || t.Reason != 0 {
			continue
		}
		if f, ok := finish[t.Index]; !ok || t.Finish < f {
			first[t.Index], finish[t.Index] = t.ID, t.Finish
		}
	}
	if w.first == nil {
		w.first = map[*model.Stage]map[int32]int64{}
	}
	w.first[st] = first
}

// wasted reports whether the work of attempt t of stage attempt st was
// thrown away: it failed or was killed (a speculative copy that lost the
// race included); it succeeded after a copy of the same task had (Spark
// logs both successes and keeps the first); its output was lost with its
// executor (a Resubmitted record names it); or a later attempt of its stage
// ran its partition again (a stage retried after a FetchFailed reruns the
// partitions whose output is missing; logs before Spark 3.3 do not name
// partitions, so there this last rule does not apply).
func (w *wasteIndex) wasted(st *model.Stage, t *model.Task) bool {
	if t.Status == model.TaskFailed || t.Status == model.TaskKilled || w.lost[t.ID] {
		return true
	}
	if first := w.first[st]; first != nil && t.Status == model.TaskSuccess {
		if id, ok := first[t.Index]; ok && id != t.ID {
			return true
		}
	}
	if t.Partition >= 0 && w.rerun != nil {
		a, ok := w.rerun[partKey{st.ID, t.Partition}]
		return ok && a > st.Attempt
	}
	return false
}
