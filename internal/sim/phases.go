package sim

import "strconv"

// PhasesFile holds every attempt's phases (Output.Phases).
const PhasesFile = "phases.csv.zst"

// phaseHeader names the columns of the phases CSV.
const phaseHeader = "app,stage,task,attempt,host,phase,start_ms,end_ms,resource\n"

// writePhases writes an ended attempt's phases: the ground truth of what
// HiTune-style reconstruction recovers from the logs, and of the ICPE'13
// phase durations a performance model fits.
func (e *engine) writePhases(t *taskRun) {
	a := t.st.app
	b := e.phaseBuf[:0]
	for _, r := range t.recs {
		if r.end <= r.start {
			continue
		}
		b = append(b, a.app.ID...)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(t.st.modelID()), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(t.index), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(t.attempt), 10)
		b = append(b, ',')
		b = append(b, t.exec.node.name...)
		b = append(b, ',')
		b = append(b, r.name...)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.start, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.end, 10)
		b = append(b, ',')
		b = append(b, r.resource()...)
		b = append(b, '\n')
	}
	e.phaseBuf = b
	if _, err := e.phaseW.Write(b); err != nil && e.err == nil {
		e.err = err
	}
	t.recs = nil
}
