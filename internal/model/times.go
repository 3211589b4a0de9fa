package model

import "fmt"

// MisdatedSlackMs is how far before its stage's submission (or, when the
// log does not say, the application's start), or after the application's
// end, a Spark task may claim to have launched or finished. The driver
// stamps them all with one clock, so a time outside is a corrupt or spliced
// record (test logs in the shared data launch tasks five years early and two
// months late), not skew.
const MisdatedSlackMs = 60_000

// Misdated reports whether the times of task t of stage st cannot be right:
// it finished before it launched, or finished with no launch time, or (a
// Spark task) it launched more than MisdatedSlackMs before its stage's
// submission or the application's start, or launched or finished that long
// after the application's end. Analyses leave such records out of durations
// rather than stretch an application over years; AuditTimes counts them.
// MapReduce attempts are stamped by node clocks, so only their own order is
// checked.
func (a *App) Misdated(st *Stage, t *Task) bool {
	if t.Finish > 0 && (t.Finish < t.Launch || t.Launch <= 0) {
		return true
	}
	if st.Kind != StageSpark {
		return false
	}
	anchor := st.Submitted
	if anchor <= 0 {
		anchor = a.Start
	}
	if anchor > 0 && t.Launch < anchor-MisdatedSlackMs {
		return true
	}
	end := a.End
	if end < a.Start {
		end = 0 // an impossible end tells nothing
	}
	return end > 0 && (t.Launch > end+MisdatedSlackMs || t.Finish > end+MisdatedSlackMs)
}

// ImpossibleSpan reports whether a job's or stage's span (epoch ms, 0:
// unknown) cannot be right: it ends before it starts, or, in a Spark
// application (one driver clock), it starts or ends more than
// MisdatedSlackMs outside the application. Durations leave such spans out.
func (a *App) ImpossibleSpan(start, end int64) bool {
	if start > 0 && end > 0 && end < start {
		return true
	}
	if a.Engine != Spark {
		return false
	}
	outside := func(t int64) bool {
		return t > 0 && (a.Start > 0 && t < a.Start-MisdatedSlackMs || a.End >= a.Start && a.End > 0 && t > a.End+MisdatedSlackMs)
	}
	return outside(start) || outside(end)
}

// AuditTimes counts in a.Quality.ImpossibleTimes, with a sample issue each,
// the records whose times cannot be right: an application that ends before
// it starts, jobs and stages of an ImpossibleSpan, an executor removed
// before it was added, and misdated tasks (Misdated). Durations leave them out: App.Duration, the
// summary's and the analyses' task times. Call it once, after decoding.
func (a *App) AuditTimes() {
	q := &a.Quality
	flag := func(format string, args ...any) {
		q.ImpossibleTimes++
		if q.ImpossibleTimes <= MaxKindSamples {
			q.AddHandled(a.Source, 0, fmt.Sprintf(format, args...)+": left out of durations")
		}
	}
	if a.Start > 0 && a.End > 0 && a.End < a.Start {
		flag("application ends %d ms before it starts", a.Start-a.End)
	}
	span := func(what string, start, end int64) {
		switch {
		case !a.ImpossibleSpan(start, end):
		case start > 0 && end > 0 && end < start:
			flag("%s completes %d ms before its submission", what, start-end)
		default:
			flag("%s runs outside its application (submitted %d, completed %d; application %d to %d)", what, start, end, a.Start, a.End)
		}
	}
	for _, j := range a.Jobs {
		span(fmt.Sprintf("job %d", j.ID), j.Submitted, j.Completed)
	}
	for _, e := range a.Executors {
		if e.Added > 0 && e.Removed > 0 && e.Removed < e.Added {
			flag("executor %s is removed %d ms before it was added", e.ID, e.Added-e.Removed)
		}
	}
	for _, st := range a.Stages {
		span(fmt.Sprintf("stage %d.%d", st.ID, st.Attempt), st.Submitted, st.Completed)
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if !a.Misdated(st, t) {
				continue
			}
			switch {
			case t.Finish > 0 && t.Launch <= 0:
				flag("task %d (stage %d.%d) finishes without a launch time", t.ID, st.ID, st.Attempt)
			case t.Finish > 0 && t.Finish < t.Launch:
				flag("task %d (stage %d.%d) finishes %d ms before it launches", t.ID, st.ID, st.Attempt, t.Launch-t.Finish)
			default:
				flag("task %d (stage %d.%d) runs outside its application (launch %d, finish %d; application %d to %d)",
					t.ID, st.ID, st.Attempt, t.Launch, t.Finish, a.Start, a.End)
			}
		}
	}
}
