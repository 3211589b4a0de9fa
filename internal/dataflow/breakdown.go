package dataflow

import "strconv"

// Times splits slot time (slot-milliseconds) by cause and by activity.
// Causes always add up: the sum of Cause is Total.
type Times struct {
	// Total is the slot time accounted for: allocated slot time for
	// executors, nodes and the application; for a stage, its attempts' time
	// plus the straggler-tail idle time attributed to it.
	Total int64 `json:"totalMs"`
	// Cause is indexed by Cause.
	Cause CauseTimes `json:"byCause"`
	// Activity is task time by activity, indexed like Breakdown.Activities.
	Activity []int64 `json:"byActivity"`
	// Wasted is the task time of attempts whose work Spark threw away
	// (Attempt.Wasted): failed and killed attempts, attempts whose output was
	// lost, partitions a stage retry ran again. It is part of the task time
	// above, not a further cause: the slots were busy, then the work wasted.
	Wasted int64 `json:"wastedMs"`
}

// CauseTimes holds slot time by cause; its JSON form is an object keyed by
// the causes' names.
type CauseTimes [NumCauses]int64

// MarshalJSON writes {"busy": ms, "scheduler-delay": ms, ...} in cause order.
func (c CauseTimes) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, v := range c {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, Cause(i).String())
		b = append(b, ':')
		b = strconv.AppendInt(b, v, 10)
	}
	return append(b, '}'), nil
}

// Busy is the slot time spent working.
func (t *Times) Busy() int64 { return t.Cause[CauseBusy] }

// Idle is the slot time not spent working, whatever the cause.
func (t *Times) Idle() int64 { return t.Total - t.Cause[CauseBusy] }

// TaskTime is the time attempts held slots, whatever they did.
func (t *Times) TaskTime() int64 {
	var s int64
	for _, v := range t.Activity {
		s += v
	}
	return s
}

func (t *Times) add(o *Times) {
	t.Total += o.Total
	t.Wasted += o.Wasted
	for i := range t.Cause {
		t.Cause[i] += o.Cause[i]
	}
	for i := range o.Activity {
		t.Activity[i] += o.Activity[i]
	}
}

// ExecutorBreakdown is one executor's slot time.
type ExecutorBreakdown struct {
	ID    string `json:"id"`
	Host  string `json:"host"`
	Slots int    `json:"slots"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Times
}

// NodeBreakdown is one node's slot time, over its executors (HiTune's
// per-node hotspot breakdown, §5).
type NodeBreakdown struct {
	Host      string `json:"host"`
	Executors int    `json:"executors"`
	Slots     int    `json:"slots"`
	Times
}

// StageBreakdown is one stage attempt's task time and straggler tail.
type StageBreakdown struct {
	ID       int32  `json:"id"`
	Attempt  int32  `json:"attempt"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Attempts int    `json:"taskAttempts"`
	// Start and End are its first attempt's start and last attempt's end;
	// MedianFinish is when half its attempts had finished.
	Start        int64 `json:"start"`
	End          int64 `json:"end"`
	MedianFinish int64 `json:"medianFinish"`
	// TailMs is End - MedianFinish: the wall time its slowest half took.
	TailMs int64 `json:"tailMs"`
	Times
}

// Breakdown is HiTune's busy/idle breakdown of an application (§5, §7):
// per executor, node and stage, slot time split into busy work and idle
// causes, and task time split by activity.
type Breakdown struct {
	Activities []Activity          `json:"activities"`
	App        Times               `json:"application"`
	Executors  []ExecutorBreakdown `json:"executors"`
	Nodes      []NodeBreakdown     `json:"nodes"`
	Stages     []StageBreakdown    `json:"stages"`
	// WallMs is the application's wall time; BootstrapMs the part before
	// its first task; DriverMs the part with no task running (bootstrap
	// included), Sparklens's driver time.
	WallMs      int64 `json:"wallMs"`
	BootstrapMs int64 `json:"bootstrapMs"`
	DriverMs    int64 `json:"driverMs"`
}

// BuildBreakdown computes the breakdowns of a reconstruction. Per executor,
// busy plus the idle causes equals its allocated slot time exactly: task
// time is split by phase (scheduler delay, shuffle wait, serialization,
// GC and busy), and the gaps between attempts on each slot are split by
// what the application was doing then (driver alone, a stage's straggler
// tail, or otherwise idle).
func BuildBreakdown(r *Reconstruction) *Breakdown {
	nAct := len(r.Activities)
	b := &Breakdown{Activities: r.Activities, App: Times{Activity: make([]int64, nAct)}}
	tails := r.stageTails()
	stageOf := make(map[int32]int, len(tails))
	for i, t := range tails {
		st := r.App.Stages[t.stage]
		stageOf[t.stage] = i
		b.Stages = append(b.Stages, StageBreakdown{ID: st.ID, Attempt: st.Attempt, Kind: st.Kind.String(), Name: st.Name,
			Start: -1, MedianFinish: t.median, End: t.finish, TailMs: t.finish - t.median,
			Times: Times{Activity: make([]int64, nAct)}})
	}
	segs := r.idleTimeline(tails)
	var prevEnd []int64
	for _, span := range r.Executors {
		eb := ExecutorBreakdown{ID: span.ID, Host: span.Host, Slots: span.Slots, Start: span.Start, End: span.End,
			Times: Times{Total: span.Allocated(), Activity: make([]int64, nAct)}}
		prevEnd = prevEnd[:0]
		for range span.Slots {
			prevEnd = append(prevEnd, span.Start)
		}
		idle := func(c Cause, stage int32, d int64) {
			eb.Cause[c] += d
			if c == CauseStragglerTail {
				sb := &b.Stages[stageOf[stage]]
				sb.Total += d
				sb.Cause[c] += d
			}
		}
		for _, i := range span.Attempts {
			a := &r.Attempts[i]
			classify(segs, prevEnd[a.Slot], a.Start, idle)
			prevEnd[a.Slot] = a.End
			sb := &b.Stages[stageOf[a.Stage]]
			if sb.Start < 0 || a.Start < sb.Start {
				sb.Start = a.Start
			}
			sb.Attempts++
			sb.Total += a.End - a.Start
			r.taskTimes(a, &eb.Times)
			r.taskTimes(a, &sb.Times)
		}
		for _, pe := range prevEnd {
			classify(segs, pe, span.End, idle)
		}
		if eb.Host == "" && len(span.Attempts) > 0 {
			eb.Host = r.App.Host(r.Attempts[span.Attempts[0]].Host)
		}
		b.App.add(&eb.Times)
		b.Executors = append(b.Executors, eb)
	}
	b.Nodes = nodes(b.Executors, nAct)
	b.WallMs = r.End - r.Start
	if r.FirstLaunch > 0 {
		b.BootstrapMs = max(r.FirstLaunch-r.Start, 0)
	}
	classify(segs, r.Start, r.End, func(c Cause, _ int32, d int64) {
		if c == CauseDriver {
			b.DriverMs += d
		}
	})
	return b
}

// taskTimes adds an attempt's phases to t's causes and activities (not to
// its total).
func (r *Reconstruction) taskTimes(a *Attempt, t *Times) {
	for k := range Layout(a.Pool) {
		ai := r.table[a.Pool][k]
		d := int64(a.Dur[k])
		t.Activity[ai] += d
		t.Cause[r.Activities[ai].Cause] += d
	}
	if a.Wasted {
		t.Wasted += a.End - a.Start
	}
	t.Cause[CauseBusy] -= int64(a.GC) + int64(a.Wait)
	t.Cause[CauseGC] += int64(a.GC)
	t.Cause[CauseShuffleWait] += int64(a.Wait)
}

// nodes sums executors by host, in first-seen order.
func nodes(execs []ExecutorBreakdown, nAct int) []NodeBreakdown {
	var out []NodeBreakdown
	at := map[string]int{}
	for i := range execs {
		e := &execs[i]
		j, ok := at[e.Host]
		if !ok {
			j = len(out)
			at[e.Host] = j
			out = append(out, NodeBreakdown{Host: e.Host, Times: Times{Activity: make([]int64, nAct)}})
		}
		n := &out[j]
		n.Executors++
		n.Slots += e.Slots
		n.add(&e.Times)
	}
	return out
}
