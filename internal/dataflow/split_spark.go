package dataflow

import "github.com/clusterlens/clusterlens/internal/model"

// splitSpark lays a Spark attempt's phases end to end in [Start, End], as
// the History Server's task timeline does: scheduler delay, deserialization,
// shuffle fetch wait, compute, shuffle write, result serialization, getting
// result. Scheduler delay is the duration less run time, deserialization,
// result serialization and getting-result time, as the History Server
// computes it; every part is clamped so none is negative and they sum to the
// duration; compute is what is left of the run time. An attempt without
// metrics is all compute.
func splitSpark(a *Attempt, t *model.Task, m *model.TaskMetrics) {
	d := a.End - a.Start
	if !t.HasMetrics {
		a.Dur[3] = int32(d)
		return
	}
	left := d
	take := func(v int64) int64 {
		v = min(max(v, 0), left)
		left -= v
		return v
	}
	var getting int64
	if t.GettingResult > 0 && t.Finish >= t.GettingResult {
		getting = t.Finish - t.GettingResult
	}
	g := take(getting)
	rs := take(m[model.ResultSerializationTime])
	de := take(m[model.ExecutorDeserializeTime])
	run := take(m[model.ExecutorRunTime])
	sd := left
	left = run
	fw := take(m[model.ShuffleFetchWaitTime])
	sw := take(m[model.ShuffleWriteNanos] / 1e6)
	comp := left
	a.Dur = [maxPhases]int32{int32(sd), int32(de), int32(fw), int32(comp), int32(sw), int32(rs), int32(g)}
	a.GC = int32(min(max(m[model.JVMGCTime], 0), comp))
}
