package dataflow

import "github.com/clusterlens/clusterlens/internal/model"

// splitMap lays a map attempt's phases in [Start, End] from the job
// history's map-phase end (HiTune Figure 8: map, then the spill thread's
// spill and merge). The time after the map phase is split between spill and
// merge by the records spilled: the last spill writes each output record
// once, so SpilledRecords beyond MapOutputRecords were written again by
// merges. Without a map-phase end the whole attempt is map.
func splitMap(a *Attempt, m *model.TaskMetrics) {
	d := a.End - a.Start
	mapEnd := m[model.MapPhaseFinish]
	if mapEnd <= a.Start || mapEnd > a.End {
		a.Dur[0] = int32(d)
	} else {
		tail := a.End - mapEnd
		spill := tail
		if s, o := m[model.SpilledRecords], m[model.MapOutputRecords]; s > o && o > 0 {
			spill = int64(float64(tail) * float64(o) / float64(s))
		}
		a.Dur[0], a.Dur[1], a.Dur[2] = int32(mapEnd-a.Start), int32(spill), int32(tail-spill)
	}
	a.GC = int32(min(max(m[model.JVMGCTime], 0), d))
}

// splitReduce lays a reduce attempt's phases in [Start, End]: shuffle up to
// the shuffle end, merge/sort up to the sort end, then reduce. Missing or
// disordered phase ends are clamped; without any the attempt is all reduce.
func splitReduce(a *Attempt, m *model.TaskMetrics) {
	d := a.End - a.Start
	sf, so := m[model.ShufflePhaseFinish], m[model.SortPhaseFinish]
	if sf <= 0 && so <= 0 {
		a.Dur[2] = int32(d)
	} else {
		if sf <= 0 {
			sf = so
		}
		sf = min(max(sf, a.Start), a.End)
		so = min(max(so, sf), a.End)
		a.Dur[0], a.Dur[1], a.Dur[2] = int32(sf-a.Start), int32(so-sf), int32(a.End-so)
	}
	a.GC = int32(min(max(m[model.JVMGCTime], 0), d))
}
