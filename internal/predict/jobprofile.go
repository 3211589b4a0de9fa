package predict

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// JobProfile is ICPE'13's compact job profile (§5): what one MapReduce
// program does per byte and per record, from its past runs, apart from
// what the platform does for every program. The map and reduce functions'
// times per record are the task parts' measured lengths less the platform
// model's generic phases for the task's counters; the selectivities and
// record sizes come from the counters. It also keeps the spread of task
// durations (longest over mean) that ARIA's upper bound needs.
type JobProfile struct {
	Name string `json:"name"`
	Runs int    `json:"runs"`
	// Maps, Reduces and InputBytes are the mean over the runs.
	Maps       float64 `json:"maps"`
	Reduces    float64 `json:"reduces"`
	InputBytes float64 `json:"inputBytes"`
	// SplitBytes is the mean input per map task.
	SplitBytes float64 `json:"splitBytes"`
	// MapSelectivity is map output over map input bytes; ReduceSelectivity
	// reduce output over shuffled bytes.
	MapSelectivity    float64 `json:"mapSelectivity"`
	ReduceSelectivity float64 `json:"reduceSelectivity"`
	// RecordsPerByte are map input records per input byte and reduce input
	// records per shuffled byte.
	MapRecordsPerByte    float64 `json:"mapRecordsPerByte"`
	ReduceRecordsPerByte float64 `json:"reduceRecordsPerByte"`
	// MergeShare is the map merge's bytes over map output bytes: the share
	// of outputs too large for one spill, at this split size.
	MergeShare float64 `json:"mergeShare"`
	// MapFnMsPerRecord and ReduceFnMsPerRecord are the custom map and reduce
	// functions' time per record, ms.
	MapFnMsPerRecord    float64 `json:"mapFnMsPerRecord"`
	ReduceFnMsPerRecord float64 `json:"reduceFnMsPerRecord"`
	// MapMax, ShuffleMax and ReduceMax are the longest over the mean of map
	// tasks, reduce shuffles and reduce phases (ARIA's max/avg).
	MapMax     float64 `json:"mapMaxOverAvg"`
	ShuffleMax float64 `json:"shuffleMaxOverAvg"`
	ReduceMax  float64 `json:"reduceMaxOverAvg"`
	// OverheadMs is the job's time outside its tasks (submission, the
	// application master, setup and commit): duration less the span from
	// the first launch to the last finish, mean over the runs.
	OverheadMs float64 `json:"overheadMs"`
	// SlotsPerHost is the most attempts one host ran at once; Hosts the
	// most hosts one run used.
	SlotsPerHost int `json:"slotsPerHost"`
	Hosts        int `json:"hosts"`
	// Measured is ARIA's profile as measured in the last run.
	Measured JobDurations `json:"measured"`
	// Tails are its tasks' spread about their run's mean, per kind
	// (TailMap, TailShuffle, TailReduce): a program whose functions
	// straggle more than the microbenchmarks' shows it here.
	Tails [numTails]Tail `json:"tails"`
	// Sources counts the tasks by where their phase boundary came from.
	Sources map[string]int `json:"phaseSources"`
	// Spreads are how whole map and reduce attempts scatter about the
	// profile's prediction for their run's average task (SpreadMap,
	// SpreadReduce), killed attempts censored: what the replay draws from.
	Spreads [2]Spread `json:"spreads"`
}

// Kinds of task a job profile's spreads describe.
const (
	SpreadMap = iota
	SpreadReduce
)

// ProfileJob builds a job profile from runs of one MapReduce program (each
// run's Tasks, with its model.App for the job's times) against the
// platform model (nil: no platform; the map and reduce functions' times
// are then unknown and left 0, the rest of the profile is the counters').
func ProfileJob(name string, apps []*model.App, runs [][]Task, pl *Platform) (*JobProfile, error) {
	if len(runs) == 0 || len(runs) != len(apps) {
		return nil, &TooFewError{Model: "job profile " + name, Have: 0, Need: 1, What: "runs", Hint: "give a job history of the program"}
	}
	jp := &JobProfile{Name: name, Runs: len(runs), Sources: map[string]int{}}
	var spreads [numTails][]float64
	var in, out, inRec, shuffle, shRec, redOut, merge, mapFn, redFn float64
	for k, tasks := range runs {
		var maps, reduces int
		var first, last int64
		for i := range tasks {
			t := &tasks[i]
			if t.Killed {
				continue
			}
			jp.Sources[t.Source.String()]++
			if first == 0 || t.Launch < first {
				first = t.Launch
			}
			last = max(last, t.Finish)
			if t.Reduce {
				reduces++
				shuffle += float64(t.In)
				shRec += float64(t.InRecords)
				redOut += float64(t.Out)
				redFn += customMs(pl, t)
				continue
			}
			maps++
			in += float64(t.In)
			inRec += float64(t.InRecords)
			out += float64(t.Out)
			merge += float64(t.Merge)
			mapFn += customMs(pl, t)
		}
		if maps == 0 {
			return nil, fmt.Errorf("job profile %s: run %d has no successful map task", name, k+1)
		}
		jp.Maps += float64(maps) / float64(len(runs))
		jp.Reduces += float64(reduces) / float64(len(runs))
		app := apps[k]
		jp.InputBytes += inputOf(tasks) / float64(len(runs))
		if app.End > app.Start && last > first {
			jp.OverheadMs += float64(max(0, (app.End-app.Start)-(last-first))) / float64(len(runs))
		}
		jp.SlotsPerHost = max(jp.SlotsPerHost, slotsPerHost(tasks))
		jp.Hosts = max(jp.Hosts, hostsOf(tasks))
		for k, r := range taskSpreads(tasks) {
			spreads[k] = append(spreads[k], r...)
		}
		jp.Measured = measuredDurations(tasks)
	}
	for k := range numTails {
		jp.Tails[k] = newTail(spreads[k])
	}
	jp.SplitBytes = in / (jp.Maps * float64(len(runs)))
	jp.MapSelectivity = ratio(out, in)
	jp.ReduceSelectivity = ratio(redOut, shuffle)
	jp.MapRecordsPerByte = ratio(inRec, in)
	jp.ReduceRecordsPerByte = ratio(shRec, shuffle)
	jp.MergeShare = ratio(merge, out)
	jp.MapFnMsPerRecord = max(0, ratio(mapFn, inRec))
	jp.ReduceFnMsPerRecord = max(0, ratio(redFn, shRec))
	jp.Spreads = jp.spreads(runs, pl)
	m := jp.Measured
	jp.MapMax = ratio(m.Map.Max, m.Map.Avg)
	jp.ShuffleMax = ratio(m.Shuffle.Max, m.Shuffle.Avg)
	jp.ReduceMax = ratio(m.Reduce.Max, m.Reduce.Avg)
	return jp, nil
}

// spreads are the profile's map and reduce spreads over its runs
// (attemptRatios against the profile's prediction of each run's average
// task), relative to the runs' mean variable time.
func (jp *JobProfile) spreads(runs [][]Task, pl *Platform) [2]Spread {
	var obs [2][]ratioObs
	var vs [2]float64
	for _, tasks := range runs {
		o, v := attemptRatios(tasks, func(t *Task) (float64, float64) { return jp.taskMs(pl, nil, t) })
		for kind := range o {
			obs[kind] = append(obs[kind], o[kind]...)
			vs[kind] += v[kind] / float64(len(runs))
		}
	}
	var out [2]Spread
	for kind := range out {
		out[kind] = newSpread(obs[kind])
		out[kind].VariableMs = vs[kind]
	}
	return out
}

// taskMs is the profile's prediction of a task's length for its data,
// split into the fixed part (the platform's intercepts: JVM start and
// setup) and the variable part (the generic phases and the custom
// function), on the class sp says (nil: the platform's own).
func (jp *JobProfile) taskMs(pl *Platform, sp *ClassChange, t *Task) (fixed, variable float64) {
	if pl == nil {
		return 0, 0
	}
	fixed, total := pl.genericMs(sp, t, false)
	total += jp.functionMs(sp, t)
	fixed = min(fixed, total)
	return fixed, total - fixed
}

// functionMs is the predicted time of a task's custom map or reduce
// function, on the class sp says.
func (jp *JobProfile) functionMs(sp *ClassChange, t *Task) float64 {
	if t.Reduce {
		return sp.cpu(jp.ReduceFnMsPerRecord * float64(t.In) * jp.ReduceRecordsPerByte)
	}
	return sp.cpu(jp.MapFnMsPerRecord * float64(t.In) * jp.MapRecordsPerByte)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func inputOf(tasks []Task) float64 {
	s := 0.0
	for i := range tasks {
		if !tasks[i].Reduce {
			s += float64(tasks[i].In)
		}
	}
	return s
}

// customMs is a task's time in its custom function: the part holding it
// (a map's first, a reduce's second) less the platform's generic phases
// there, or, without a phase boundary, the whole attempt less all of them.
func customMs(pl *Platform, t *Task) float64 {
	if pl == nil {
		return 0
	}
	first, second := partOf(t)
	// The write part's second term is the benchmark's own trivial reduce
	// function: part of the custom time.
	gf, gs := pl.partMs(nil, first, t, false), pl.partMs(nil, second, t, false)
	switch {
	case t.Source == SourceCounters:
		return float64(t.TotalMs()) - gf - gs
	case t.Reduce:
		return float64(t.SecondMs()) - gs
	}
	return float64(t.FirstMs) - gf
}

func hostsOf(tasks []Task) int {
	h := map[string]bool{}
	for i := range tasks {
		h[tasks[i].Host] = true
	}
	return len(h)
}

// slotsPerHost is the most attempts one host ran at once.
func slotsPerHost(tasks []Task) int {
	type ev struct {
		t    int64
		d    int
		host string
	}
	var evs []ev
	for _, t := range tasks {
		evs = append(evs, ev{t.Launch, 1, t.Host}, ev{t.Finish, -1, t.Host})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			return cmp.Compare(float64(a.t), float64(b.t))
		}
		return a.d - b.d // ends before starts at the same instant
	})
	run := map[string]int{}
	best := 0
	for _, e := range evs {
		run[e.host] += e.d
		best = max(best, run[e.host])
	}
	return best
}

// measuredDurations is ARIA's profile of one run (§4.1): the maps' mean and
// longest duration; the reduces' shuffle (launch to sort end, for reduces
// that launched before the last map finished only the part after it: the
// first shuffle) and reduce phase (sort end to finish).
func measuredDurations(tasks []Task) JobDurations {
	var j JobDurations
	var lastMap int64
	for _, t := range tasks {
		if !t.Reduce && !t.Killed {
			lastMap = max(lastMap, t.Finish)
		}
	}
	var maps, first, typical, red []float64
	for _, t := range tasks {
		if t.Killed {
			continue
		}
		if !t.Reduce {
			maps = append(maps, float64(t.TotalMs()))
			continue
		}
		j.Reduces++
		sh := float64(t.FirstMs)
		if t.Source == SourceCounters {
			sh = 0
		}
		red = append(red, float64(t.TotalMs())-sh)
		if t.Launch < lastMap {
			first = append(first, max(0, float64(t.Launch)+sh-float64(lastMap)))
		} else {
			typical = append(typical, sh)
		}
	}
	j.Maps = len(maps)
	j.Map, j.Reduce = avgMax(maps), avgMax(red)
	j.FirstShuffle, j.Shuffle = avgMax(first), avgMax(typical)
	if len(typical) == 0 {
		j.Shuffle = j.FirstShuffle
	}
	if len(first) == 0 {
		j.FirstShuffle = j.Shuffle
	}
	return j
}

func avgMax(v []float64) StageDurations {
	if len(v) == 0 {
		return StageDurations{}
	}
	var s StageDurations
	for _, x := range v {
		s.Avg += x / float64(len(v))
		s.Max = max(s.Max, x)
	}
	return s
}

// MRTarget is what a MapReduce prediction is asked for.
type MRTarget struct {
	// InputBytes is the new dataset's size (0: the profile's).
	InputBytes float64
	// Reduces is the number of reduce tasks (0: the profile's).
	Reduces int
	// Slots are the map and reduce slots.
	Slots Slots
	// Speeds scales the phases to another node class (nil: the platform's own).
	Speeds *ClassChange
	// Confidence is the probability the upper bound's longest tasks are
	// not exceeded (default 0.95).
	Confidence float64
	// Widening is how much wider the bounds grow per doubling of a task's
	// data beyond the benchmarks' (default DefaultWidening).
	Widening float64
	// Estimator is what the estimate is: EstimatorReplay (default) or
	// EstimatorARIA (ARIA's T_avg, the paper's).
	Estimator string
	// Replay tunes the replays (EstimatorReplay).
	Replay ReplayOptions
}

// Estimators of a prediction.
const (
	// EstimatorReplay is the median of Monte Carlo replays of the
	// predicted tasks through the slots, each attempt's length drawn from
	// the profile's spread, with speculative execution.
	EstimatorReplay = "replay"
	// EstimatorARIA is ARIA's T_avg, halfway between its bounds (ICAC'11
	// §4.1).
	EstimatorARIA = "aria"
	// EstimatorWhatIf is, for Spark, the recorded task durations scaled
	// to the target and replayed once by Sparklens's what-if scheduler.
	EstimatorWhatIf = "whatif"
)

// MRPrediction is a MapReduce job's predicted completion time.
type MRPrediction struct {
	Maps    int `json:"maps"`
	Reduces int `json:"reduces"`
	// Durations are the predicted per-task durations ARIA's bounds use:
	// each kind's mean and its typical longest.
	Durations JobDurations `json:"durations"`
	// Bounds include the job's overhead (JobProfile.OverheadMs). Low and
	// Avg are ARIA's with the typical longest tasks; High is ARIA's upper
	// bound with the longest tasks at MRTarget.Confidence.
	Bounds Bounds `json:"bounds"`
	// Extrapolated lists the parts whose data size per task lies outside
	// the microbenchmarks'; Outside is the farthest (ln of the size over
	// the nearest benchmarked), by which the bounds were widened.
	Extrapolated []string `json:"extrapolated,omitempty"`
	Outside      float64  `json:"outside,omitempty"`
	// Replayed is the Monte Carlo replays' result (EstimatorReplay),
	// overhead included, its interval widened as the bounds are.
	Replayed *Replayed `json:"replayed,omitempty"`
}

// PredictMR combines the job profile with the platform model for a new
// dataset (ICPE'13 §5): the maps keep the profile's split size, so their
// count grows with the data and each map's phases are the platform's for
// the split and its map output plus the map function's time per record;
// each reduce shuffles the data times the map selectivity over the reduce
// count (§5, eq. (2): Data_shuffle = M^inp × M^sel × N^map / N^red), its shuffle is the platform's (two-segment) shuffle for that many
// bytes and its reduce phase the reduce function's time per record plus
// the platform's write of its output. ARIA's bounds (JobBounds) turn the
// task durations into the job's completion time for the slots, the longest
// task of each kind being the profile's longest-over-mean times the
// predicted mean. With EstimatorReplay (the default) the same tasks are
// also replayed (Replayed, the estimate): each attempt's length drawn from
// the job's and the benchmarks' spreads mixed by task size (spreadFor),
// list-scheduled on the slots with speculation, plus the job's overhead.
func PredictMR(jp *JobProfile, pl *Platform, tg MRTarget) (*MRPrediction, error) {
	d := tg.InputBytes
	if d <= 0 {
		d = jp.InputBytes
	}
	if jp.SplitBytes <= 0 {
		return nil, fmt.Errorf("job profile %s: no map input to scale", jp.Name)
	}
	nr := tg.Reduces
	if nr <= 0 {
		nr = int(math.Round(jp.Reduces))
	}
	p := &MRPrediction{Maps: max(1, int(math.Ceil(d/jp.SplitBytes-1e-9))), Reduces: nr}
	if jp.Reduces <= 0 {
		p.Reduces = 0
	}
	split := d / float64(p.Maps)
	mt := Task{In: int64(split), Out: int64(split * jp.MapSelectivity)}
	mt.Merge = int64(float64(mt.Out) * jp.MergeShare)
	sh := d * jp.MapSelectivity / float64(max(1, p.Reduces))
	rt := Task{Reduce: true, In: int64(sh), Out: int64(sh * jp.ReduceSelectivity)}
	// The parts whose data per task lies outside the benchmarks'.
	for _, c := range []struct {
		part Part
		t    *Task
	}{{MapFirst, &mt}, {MapSecond, &mt}, {ReduceFirst, &rt}, {ReduceSecond, &rt}} {
		if c.t.Reduce && p.Reduces == 0 {
			continue
		}
		pm := &pl.Parts[c.part]
		if d := outsideBytes(regressors(c.part, c.t)[1], pm.Min, pm.Max); d > 0 {
			p.Outside = max(p.Outside, d)
			p.Extrapolated = append(p.Extrapolated, c.part.String())
		}
	}
	conf := tg.Confidence
	if conf <= 0 || conf >= 1 {
		conf = 0.95
	}
	// Per kind of task: the mean, the typical longest of n (the median of
	// the maximum) and the longest at the confidence, from the wider of the
	// platform's and the job's own spread of durations about the mean;
	// slots idle LaunchGapMs before each task that reuses one.
	tails := [numTails]Tail{}
	for k := range numTails {
		tails[k] = pl.Tails[k].wider(jp.Tails[k])
	}
	spread := func(k, n int, ms float64) (typical, high StageDurations) {
		tl := tails[k]
		gap := 0.0
		if k != TailShuffle {
			gap = pl.LaunchGapMs
		}
		avg := ms*tl.Mean + gap
		return StageDurations{Avg: avg, Max: max(avg, ms*tl.MaxOf(n, 0.5)+gap)},
			StageDurations{Avg: avg, Max: max(avg, ms*tl.MaxOf(n, conf)+gap)}
	}
	mapFixed, mapVar := jp.taskMs(pl, tg.Speeds, &mt)
	typical := JobDurations{Maps: p.Maps, Reduces: p.Reduces}
	high := typical
	typical.Map, high.Map = spread(TailMap, p.Maps, mapFixed+mapVar)
	if p.Reduces > 0 {
		shMs := pl.partMs(tg.Speeds, ReduceFirst, &rt, false)
		redMs := pl.partMs(tg.Speeds, ReduceSecond, &rt, false) + jp.functionMs(tg.Speeds, &rt)
		typical.Shuffle, high.Shuffle = spread(TailShuffle, nr, shMs)
		typical.Reduce, high.Reduce = spread(TailReduce, nr, redMs)
		typical.FirstShuffle, high.FirstShuffle = typical.Shuffle, high.Shuffle
	}
	p.Durations = typical
	bt, err := JobBounds(typical, tg.Slots)
	if err != nil {
		return nil, err
	}
	bh, err := JobBounds(high, tg.Slots)
	if err != nil {
		return nil, err
	}
	p.Bounds = Bounds{Low: bt.Low + jp.OverheadMs, Avg: bt.Avg + jp.OverheadMs, High: bh.High + jp.OverheadMs}
	if tg.Estimator != EstimatorARIA {
		opt := tg.Replay.withDefaults()
		ms := spreadFor(jp.Spreads[SpreadMap], pl.Spreads[SpreadMap], mapVar, opt)
		maps := &stageTasks{n: p.Maps, fixed: mapFixed, variable: func(int) float64 { return mapVar }, spread: &ms, gapMs: pl.LaunchGapMs}
		var reduces *stageTasks
		if p.Reduces > 0 {
			rf, rv := jp.taskMs(pl, tg.Speeds, &rt)
			rs := spreadFor(jp.Spreads[SpreadReduce], pl.Spreads[SpreadReduce], rv, opt)
			reduces = &stageTasks{n: p.Reduces, fixed: rf, variable: func(int) float64 { return rv }, spread: &rs, gapMs: pl.LaunchGapMs}
		}
		p.Replayed = replayMR(maps, reduces, tg.Slots, jp.OverheadMs, opt)
	}
	if w := widening(p.Outside, tg.Widening); w > 1 {
		p.Bounds.Low /= w
		p.Bounds.High *= w
		if p.Replayed != nil {
			p.Replayed.LowMs /= w
			p.Replayed.HighMs *= w
		}
	}
	return p, nil
}

// MinSlotsMR answers ARIA's inverse question on the prediction itself:
// the fewest map plus reduce slots whose predicted bound (the overhead,
// the wider tail and any extrapolation widening included) meets the
// deadline. ARIA's Lagrange solution on the predicted durations (MinSlots)
// is the start; slots then grow in proportion until the bound holds and
// shrink one at a time while it still does.
func MinSlotsMR(jp *JobProfile, pl *Platform, tg MRTarget, deadline float64, bound Bound) (Slots, *MRPrediction, error) {
	// The bounds need no replays: search on ARIA's alone, then predict
	// with the slots found as asked.
	search := tg
	search.Estimator = EstimatorARIA
	search.Slots = Slots{Map: 1, Reduce: 1}
	p, err := PredictMR(jp, pl, search)
	if err != nil {
		return Slots{}, nil, err
	}
	var q *MRPrediction
	meets := func(s Slots) bool {
		search.Slots = s
		r, err := PredictMR(jp, pl, search)
		if err == nil {
			q = r
		}
		return err == nil && bound.of(r.Bounds) <= deadline
	}
	full := Slots{Map: p.Maps, Reduce: max(1, p.Reduces)}
	if !meets(full) {
		return Slots{}, q, fmt.Errorf("the %s bound is %.0f ms even with one slot per task (%d maps, %d reduces), over the deadline of %.0f ms",
			bound, bound.of(q.Bounds), p.Maps, p.Reduces, deadline)
	}
	s, _, err := MinSlots(p.Durations, deadline-jp.OverheadMs, bound)
	if err != nil {
		s = full
	}
	s = fewestSlots(s, full, meets)
	tg.Slots = s
	q, err = PredictMR(jp, pl, tg)
	return s, q, err
}
