package diagnose

import (
	"fmt"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/radix"
)

// SchedulingGapParams tune the scheduling-gap detector (HiTune, Dai et al.,
// USENIX ATC'11, §7.1).
type SchedulingGapParams struct {
	// IdleShare grades the slot time left idle while tasks waited to be
	// launched, as a share of the allocated slot time. HiTune shows the gap
	// on its timeline without grading it; the limits are clusterlens's.
	IdleShare Limits
	// MinIdleSlotMs is the least idle-while-waiting slot time worth a
	// finding (clusterlens's gate).
	MinIdleSlotMs int64
	// HeartbeatMs is the scheduler's heartbeat: Hadoop 1.x TaskTrackers
	// heartbeat at least every 3 s, and HiTune §7.1 found one task assigned
	// per heartbeat. Spark offers resources every second
	// (spark.scheduler.revive.interval) and on every task end.
	HeartbeatMs int64
	// FewPerHeartbeat: fewer tasks launched per heartbeat than this, while
	// slots were idle and tasks waited, is HiTune's "few tasks per
	// heartbeat" symptom (clusterlens's threshold).
	FewPerHeartbeat float64
	// SerialShare grades, for a MapReduce job whose reduces started only
	// after its last map ended, the time the shuffle could have overlapped
	// the maps, as a share of the job (clusterlens's limits).
	SerialShare Limits
	// MinSerialMs is the least such time worth a finding.
	MinSerialMs int64
	// SlotFreedMs: a waiting task launched within this long after an
	// attempt ended on the same executor while all its slots were busy
	// waited for that executor's slot
	// (Spark's delay scheduling keeps a task for the executor that caches
	// its partition or holds its data), not for the scheduler; its wait is
	// counted apart (slotWaitIdleSlotMs) and is not a scheduling gap
	// (clusterlens's rule: the scheduler offers a freed slot at once).
	SlotFreedMs int64
}

// DefaultSchedulingGapParams are the defaults.
var DefaultSchedulingGapParams = SchedulingGapParams{IdleShare: Limits{0.05, 0.1, 0.2, 0.4}, MinIdleSlotMs: 60_000, HeartbeatMs: 3000,
	FewPerHeartbeat: 2, SerialShare: Limits{0.05, 0.1, 0.2, 0.4}, MinSerialMs: 5_000, SlotFreedMs: 50}

func init() {
	mustRegister(Func[SchedulingGapParams]{
		ID:       "scheduling-gap",
		Heading:  "Scheduling gaps: idle slots while tasks waited",
		Cite:     "HiTune (Dai et al., USENIX ATC'11), §7.1 (task scheduling: few tasks per heartbeat, idle slots, map and reduce serialized)",
		Defaults: DefaultSchedulingGapParams,
		Fn:       schedulingGap,
	})
}

// schedulingGap measures HiTune §7.1's scheduling problems on the dataflow
// reconstruction. Idle while waiting: sweeping time, the slot time
// min(idle slots, waiting tasks), where slots are the executors' (HiTune's
// reconstruction of allocations) and a task waits from the moment it could
// run (its stage's submission; a MapReduce reduce, from the end of the
// last map) to its launch; retries and speculative copies are left out.
// Few per heartbeat: the launches that happened while slots idled and
// tasks waited, per HeartbeatMs of such time. Serialized: a MapReduce job
// whose first reduce launched after its last map finished, so no copy
// overlapped the maps (mapreduce.job.reduce.slowstart.completedmaps = 1);
// Spark's stage barrier serializes shuffles by design, so this part is
// MapReduce's only.
func schedulingGap(in *Input, p SchedulingGapParams) []Finding {
	a, err := in.hiTune()
	if err != nil {
		return nil
	}
	var out []Finding
	if f, ok := idleWhileWaiting(in, a.Reconstruction, p); ok {
		out = append(out, f)
	}
	if f, ok := mapReduceSerialized(in, p); ok {
		out = append(out, f)
	}
	return out
}

// readyTimes returns when each stage's tasks could first run: Spark stages
// at submission, MapReduce maps at their stage's start, reduces at the end
// of the last map.
func readyTimes(app *model.App) []int64 {
	var lastMap int64
	for _, st := range app.Stages {
		if st.Kind == model.StageMap {
			for _, t := range st.Tasks {
				if t.Status == model.TaskSuccess {
					lastMap = max(lastMap, t.Finish)
				}
			}
		}
	}
	out := make([]int64, len(app.Stages))
	for i, st := range app.Stages {
		out[i] = st.Submitted
		if st.Kind == model.StageReduce {
			out[i] = lastMap
		}
	}
	return out
}

// Sweep keys: radix.Keyed with the event's time (since the earliest) as
// Key and, as Idx, what happened: one of the task events below (negative),
// or 2i for the start and 2i+1 for the end of r.Executors[i]. Events of one
// instant are handled together, so their order does not matter; 16-byte
// keys sort by radix several times faster than the events themselves.
const (
	evRunStart int32 = -1 - iota
	evRunEnd
	evWaitStart
	evLaunch // a waiting task's launch: its wait ends
	evSlotWaitStart
	evSlotWaitEnd
)

// slotFrees holds, per executor, the sorted times an attempt ended while
// every slot of the executor was busy: the moments a full executor freed a
// slot.
type slotFrees map[uint32][]int64

func slotFreeTimes(r *dataflow.Reconstruction) slotFrees {
	out := slotFrees{}
	var starts, ends []int64
	for _, span := range r.Executors {
		starts, ends = starts[:0], ends[:0]
		for _, ai := range span.Attempts {
			if at := &r.Attempts[ai]; at.End > at.Start {
				starts, ends = append(starts, at.Start), append(ends, at.End)
			}
		}
		if !slices.IsSorted(starts) { // span.Attempts are by start
			slices.Sort(starts)
		}
		slices.Sort(ends)
		// began: attempts started before e; ended: attempts ended before e.
		began, ended := 0, 0
		for _, e := range ends {
			for began < len(starts) && starts[began] < e {
				began++
			}
			for ends[ended] < e {
				ended++
			}
			if began-ended >= span.Slots {
				out[span.Index] = append(out[span.Index], e)
			}
		}
	}
	return out
}

// justFreed reports whether executor ex, full, freed a slot in
// [t-within, t]: a task launched then waited for that executor's slot.
func (f slotFrees) justFreed(ex uint32, t, within int64) bool {
	ends := f[ex]
	i, _ := slices.BinarySearch(ends, t-within)
	return i < len(ends) && ends[i] <= t
}

// sweepKeys collects timed events and turns them into sweep keys.
type sweepKeys struct {
	keys []radix.Keyed
	lo   int64
}

// add records what happened at t (see the sweep key kinds).
func (s *sweepKeys) add(t int64, what int32) {
	if len(s.keys) == 0 || t < s.lo {
		s.lo = t
	}
	s.keys = append(s.keys, radix.Keyed{Key: uint64(t), Idx: what})
}

// sorted returns the keys by time, relative to the earliest.
func (s *sweepKeys) sorted() []radix.Keyed {
	for i := range s.keys {
		s.keys[i].Key = uint64(int64(s.keys[i].Key) - s.lo)
	}
	keys, _ := radix.Sort(s.keys, make([]radix.Keyed, len(s.keys)))
	return keys
}

func idleWhileWaiting(in *Input, r *dataflow.Reconstruction, p SchedulingGapParams) (Finding, bool) {
	app := in.App
	ready := readyTimes(app)
	ev := sweepKeys{keys: make([]radix.Keyed, 0, 2*len(r.Executors)+4*len(r.Attempts))}
	var allocated int64
	for i, s := range r.Executors {
		if s.End > s.Start && s.Slots > 0 {
			ev.add(s.Start, int32(2*i))
			ev.add(s.End, int32(2*i+1))
			allocated += s.Allocated()
		}
	}
	freed := slotFreeTimes(r)
	waited, forSlot := 0, 0
	for _, at := range r.Attempts {
		if at.End <= at.Start {
			continue
		}
		ev.add(at.Start, evRunStart)
		ev.add(at.End, evRunEnd)
		t := &app.Stages[at.Stage].Tasks[at.Task]
		if t.Attempt > 0 || t.Speculative {
			continue
		}
		if w := ready[at.Stage]; w > 0 && w < at.Start {
			if freed.justFreed(at.Executor, at.Start, p.SlotFreedMs) {
				ev.add(w, evSlotWaitStart)
				ev.add(at.Start, evSlotWaitEnd)
				forSlot++
				continue
			}
			ev.add(w, evWaitStart)
			ev.add(at.Start, evLaunch)
			waited++
		}
	}
	if allocated <= 0 {
		return Finding{}, false
	}
	keys := ev.sorted()
	var idleMs, wallMs, slotWaitMs int64
	launches := 0
	slots, running, waiting, waitingForSlot := 0, 0, 0, 0
	for i := 0; i < len(keys); {
		t := keys[i].Key
		gap := max(slots-running, 0) > 0 && waiting > 0
		for ; i < len(keys) && keys[i].Key == t; i++ {
			switch what := keys[i].Idx; what {
			case evRunStart:
				running++
			case evRunEnd:
				running--
			case evWaitStart:
				waiting++
			case evLaunch:
				waiting--
				if gap {
					launches++
				}
			case evSlotWaitStart:
				waitingForSlot++
			case evSlotWaitEnd:
				waitingForSlot--
			default:
				if what%2 == 0 {
					slots += r.Executors[what/2].Slots
				} else {
					slots -= r.Executors[what/2].Slots
				}
			}
		}
		if i < len(keys) {
			dt := int64(keys[i].Key - t)
			free := max(slots-running, 0)
			if idle := min(free, waiting); idle > 0 {
				idleMs += int64(idle) * dt
				wallMs += dt
			}
			if idle := min(free-min(free, waiting), waitingForSlot); idle > 0 {
				slotWaitMs += int64(idle) * dt
			}
		}
	}
	share := float64(idleMs) / float64(allocated)
	sev := p.IdleShare.Ascending(share)
	if sev == None || idleMs < p.MinIdleSlotMs {
		return Finding{}, false
	}
	perHB := math.Inf(1)
	if wallMs > 0 {
		perHB = float64(launches) / (float64(wallMs) / float64(max(p.HeartbeatMs, 1)))
	}
	mr := in.App.Engine == model.MapReduce
	few := mr && perHB < p.FewPerHeartbeat
	b := &settingsBuilder{in: in}
	var advice string
	switch {
	case !mr && !hasLocalTasks(in.App):
		advice = "No task ran data-local, so none waited for locality: the launches themselves were slow; check spark.scheduler.mode and pool weights (a FAIR pool caps a job's share of the slots) and how busy the driver was."
	case !mr:
		advice = "Let waiting tasks use idle slots: tasks waited for data-local slots while others idled"
		if v, ok := in.conf("spark.locality.wait"); !ok || sameValue(v, "3s") || sameValue(v, "3000") {
			b.want("spark.locality.wait", "1s")
			advice += ": lower spark.locality.wait to 1s (now " + in.setNow("spark.locality.wait") + ")"
		}
		advice += "; check spark.scheduler.mode and pool weights, and that executors were not held by other jobs."
	case in.hadoop2():
		advice = "Let the scheduler fill idle containers: enable multiple assignments per node heartbeat " +
			"(yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled, yarn.scheduler.fair.assignmultiple), " +
			"shorten the heartbeat (yarn.resourcemanager.nodemanagers.heartbeat-interval-ms), and lower node-locality delays."
	default:
		advice = "Let the JobTracker assign several tasks per heartbeat (the fair scheduler's mapred.fairscheduler.assignmultiple) and lower its locality delay."
	}
	summary := fmt.Sprintf("Slots sat idle while tasks waited to launch for %s of slot time (%s of the allocated slot time) over %s of wall time; %.1f tasks launched per %s heartbeat meanwhile.",
		dur(idleMs), pct(share), dur(wallMs), perHB, dur(p.HeartbeatMs))
	if !mr {
		summary = fmt.Sprintf("Slots sat idle while tasks waited to launch for %s of slot time (%s of the allocated slot time) over %s of wall time.",
			dur(idleMs), pct(share), dur(wallMs))
	}
	if few {
		summary += " Few tasks are launched per heartbeat (HiTune §7.1)."
	}
	var uncertain []Evidence
	if mr {
		// A MapReduce job's hosts are a cluster's, shared with other jobs:
		// an idle slot of this job's may have run another job's task, and
		// its tasks may have queued behind them. The log cannot tell.
		summary += " The job shared its cluster: some of that wait may have been queueing behind other jobs' tasks, which its log does not show."
		uncertain = append(uncertain, fact("uncertain", 1, "flag"))
	}
	perHBv := perHB
	if math.IsInf(perHBv, 1) {
		perHBv = 0
	}
	return Finding{
		Severity: sev,
		Scope:    in.appScope(),
		Summary:  summary,
		Evidence: append([]Evidence{
			graded("idleWhileWaitingShare", share, "share", p.IdleShare),
			gate("idleWhileWaitingSlotMs", float64(idleMs), "slot-ms", ">=", float64(p.MinIdleSlotMs)),
			fact("idleWhileWaitingWallMs", float64(wallMs), "ms"),
			fact("allocatedSlotMs", float64(allocated), "slot-ms"),
			fact("launchesWhileIdle", float64(launches), "count"),
			fact("launchesPerHeartbeat", perHBv, "count"),
			fact("waitingTasks", float64(waited), "count"),
			fact("slotWaitIdleSlotMs", float64(slotWaitMs), "slot-ms"),
			fact("slotWaitTasks", float64(forSlot), "count"),
		}, uncertain...),
		Recommendation: advice,
		Settings:       b.out,
	}, true
}

func mapReduceSerialized(in *Input, p SchedulingGapParams) (Finding, bool) {
	app := in.App
	if app.Engine != model.MapReduce || app.Duration() <= 0 {
		return Finding{}, false
	}
	var maps, reduces int
	var mapStart, lastMap, firstReduce, shuffleEnd int64 = math.MaxInt64, 0, math.MaxInt64, 0
	var m model.TaskMetrics
	for _, st := range app.Stages {
		for i, t := range st.Tasks {
			if t.Status != model.TaskSuccess || t.Launch <= 0 {
				continue
			}
			switch st.Kind {
			case model.StageMap:
				maps++
				mapStart, lastMap = min(mapStart, t.Launch), max(lastMap, t.Finish)
			case model.StageReduce:
				reduces++
				firstReduce = min(firstReduce, t.Launch)
				st.TaskMetrics(i, &m)
				shuffleEnd = max(shuffleEnd, m[model.ShufflePhaseFinish])
			}
		}
	}
	if maps < 2 || reduces == 0 || firstReduce < lastMap || shuffleEnd <= firstReduce {
		return Finding{}, false
	}
	shuffleMs, mapMs := shuffleEnd-firstReduce, lastMap-mapStart
	lost := min(shuffleMs, mapMs)
	share := float64(lost) / float64(app.Duration())
	sev := p.SerialShare.Ascending(share)
	if sev == None || lost < p.MinSerialMs {
		return Finding{}, false
	}
	return Finding{
		Severity: sev,
		Scope:    in.appScope(),
		Summary: fmt.Sprintf("Map and reduce ran one after the other: the first reduce launched %s after the last map ended, so its %s shuffle overlapped none of the %s map stage; up to %s (%s of the job) could overlap.",
			dur(firstReduce-lastMap), dur(shuffleMs), dur(mapMs), dur(lost), pct(share)),
		Evidence: []Evidence{
			graded("serializedShare", share, "share", p.SerialShare),
			gate("overlappableMs", float64(lost), "ms", ">=", float64(p.MinSerialMs)),
			fact("reduceStartAfterMapsMs", float64(firstReduce-lastMap), "ms"),
			fact("shuffleMs", float64(shuffleMs), "ms"),
			fact("mapStageMs", float64(mapMs), "ms"),
		},
		Recommendation: "Start reduces while maps run so that copying overlaps them: lower mapreduce.job.reduce.slowstart.completedmaps (Hadoop's default is 0.05) " +
			"and make sure the queue leaves room for reduce containers while maps run.",
	}, true
}

// hasLocalTasks reports whether some task ran process-, node- or
// rack-local: only then can tasks have waited for locality.
func hasLocalTasks(app *model.App) bool {
	for _, st := range app.Stages {
		for i := range st.Tasks {
			switch st.Tasks[i].Locality {
			case model.ProcessLocal, model.NodeLocal, model.RackLocal:
				return true
			}
		}
	}
	return false
}
