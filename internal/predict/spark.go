package predict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// SparkStage is one stage of a Spark application as the Spark counterpart
// of ICPE'13's job profile sees it: its data, and how its task time splits
// into Spark's generic work — the fixed per-task cost outside the run
// time (scheduler delay, deserialization, result), the shuffle fetch wait,
// the shuffle write — and the rest of the run time: reading input,
// computing and writing output, which Spark's metrics do not tell apart.
type SparkStage struct {
	ID    int32  `json:"id"`
	Name  string `json:"name"`
	Tasks int    `json:"tasks"`
	// Bytes the stage's successful tasks read and wrote.
	InputBytes        int64 `json:"inputBytes"`
	ShuffleReadBytes  int64 `json:"shuffleReadBytes"`
	ShuffleWriteBytes int64 `json:"shuffleWriteBytes"`
	OutputBytes       int64 `json:"outputBytes"`
	Records           int64 `json:"records"`
	// ScalesTasks is set for a stage that reads input (or reads nothing:
	// it generates): its task count grows with the data, one task per
	// split; a stage reading shuffle data keeps its partitions and each
	// task's share grows instead.
	ScalesTasks bool `json:"scalesTasks"`
	// Sums over the successful tasks, ms: outside the run time, fetch
	// wait, shuffle write, and the rest of the run time.
	OverheadMs float64 `json:"overheadMs"`
	FetchMs    float64 `json:"fetchMs"`
	WriteMs    float64 `json:"writeMs"`
	RestMs     float64 `json:"restMs"`
	// MinBytes and MaxBytes are the least and most bytes one task
	// processed (input plus shuffle read).
	MinBytes float64 `json:"minBytesPerTask"`
	MaxBytes float64 `json:"maxBytesPerTask"`
	// ComputeMsPerRecord is the rest of the run time per record processed.
	ComputeMsPerRecord float64 `json:"computeMsPerRecord"`
	// Spread is how the stage's attempts scatter about its average task,
	// over every run profiled (attempts killed by speculation censored):
	// what the replay draws from.
	Spread Spread `json:"spread"`
	// durations and killed are this run's finished and killed attempts'
	// lengths, from which the spread is made.
	durations, killed []float64
}

// SparkProfile is a Spark application profiled for prediction: its stages,
// its workload for the what-if replay, and the spread of its task
// durations about their stage's mean.
type SparkProfile struct {
	App        string       `json:"app"`
	Name       string       `json:"name"`
	InputBytes int64        `json:"inputBytes"`
	Stages     []SparkStage `json:"stages"`
	// Executors and Slots are the recorded peak executors and task slots.
	Executors int  `json:"executors"`
	Slots     int  `json:"slots"`
	Tail      Tail `json:"tail"`
	// DriverMs is the recorded time no stage was running (the driver's,
	// perfmodel.SplitWallClock).
	DriverMs float64 `json:"driverMs"`
	Runs     int     `json:"runs"`
	w        *perfmodel.Workload
	spread   []float64
}

// ProfileSpark profiles runs of one Spark application: the last run's
// stages and workload, the spread of task durations pooled over every run
// (more runs resolve more of the tail).
func ProfileSpark(apps ...*model.App) (*SparkProfile, error) {
	if len(apps) == 0 {
		return nil, &TooFewError{Model: "spark profile", Have: 0, Need: 1, What: "runs", Hint: "give an event log of the application"}
	}
	var spread []float64
	obs := map[int32][]ratioObs{}
	var p *SparkProfile
	for _, a := range apps {
		var err error
		if p, err = profileSpark(a); err != nil {
			return nil, err
		}
		spread = append(spread, p.spread...)
		for i := range p.Stages {
			obs[p.Stages[i].ID] = append(obs[p.Stages[i].ID], p.Stages[i].ratios()...)
		}
	}
	p.Tail = newTail(spread)
	for i := range p.Stages {
		s := &p.Stages[i]
		s.Spread = newSpread(obs[s.ID])
		s.Spread.VariableMs = s.variableMs()
	}
	p.Runs = len(apps)
	return p, nil
}

func profileSpark(app *model.App) (*SparkProfile, error) {
	w, err := perfmodel.FromApp(app)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", app.ID, err)
	}
	c := perfmodel.CoresOf(w)
	p := &SparkProfile{App: app.ID, Name: app.Name, Executors: c.MaxExecutors, Slots: c.Slots, w: w}
	byID := map[int32]*SparkStage{}
	var m model.TaskMetrics
	for _, st := range app.Stages {
		s, ok := byID[st.ID]
		if !ok {
			s = &SparkStage{ID: st.ID, Name: st.Name, MinBytes: math.Inf(1)}
			byID[st.ID] = s
		}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if t.Status == model.TaskKilled && t.Finish > t.Launch && t.Launch > 0 {
				s.killed = append(s.killed, float64(t.Finish-t.Launch))
			}
			if t.Status != model.TaskSuccess || !t.HasMetrics || t.Finish <= t.Launch {
				continue
			}
			st.TaskMetrics(i, &m)
			s.Tasks++
			s.durations = append(s.durations, float64(t.Finish-t.Launch))
			in, sh := m[model.InputBytes], m.ShuffleReadBytes()
			s.InputBytes += in
			s.ShuffleReadBytes += sh
			s.ShuffleWriteBytes += m[model.ShuffleWriteBytes]
			s.OutputBytes += m[model.OutputBytes]
			s.Records += m[model.InputRecords] + m[model.ShuffleRecordsRead]
			run := float64(m[model.ExecutorRunTime])
			fetch := min(run, float64(m[model.ShuffleFetchWaitTime]))
			write := min(run-fetch, float64(m[model.ShuffleWriteNanos])/1e6)
			s.OverheadMs += max(0, float64(t.Finish-t.Launch)-run)
			s.FetchMs += fetch
			s.WriteMs += write
			s.RestMs += run - fetch - write
			b := float64(in + sh)
			s.MinBytes, s.MaxBytes = min(s.MinBytes, b), max(s.MaxBytes, b)
		}
	}
	for i := range w.Stages {
		ws := &w.Stages[i]
		s := byID[ws.ID]
		if s == nil || s.Tasks == 0 {
			return nil, fmt.Errorf("%s: stage %d has no successful task with metrics to profile", app.ID, ws.ID)
		}
		s.ScalesTasks = s.InputBytes > 0 || s.ShuffleReadBytes == 0
		if s.ScalesTasks {
			p.InputBytes += s.InputBytes
		}
		s.ComputeMsPerRecord = ratio(s.RestMs, float64(s.Records))
		p.Stages = append(p.Stages, *s)
		durs := make([]float64, len(ws.Durations))
		for k, d := range ws.Durations {
			durs[k] = float64(d)
		}
		p.spread = appendSpread(p.spread, durs)
	}
	p.DriverMs = float64(perfmodel.SplitWallClock(w).DriverMs)
	return p, nil
}

// variableMs is the stage's average task's time in its run time (fetch,
// shuffle write and the rest), the part that grows with its data.
func (s *SparkStage) variableMs() float64 {
	return (s.FetchMs + s.WriteMs + s.RestMs) / float64(s.Tasks)
}

// ratios are the stage's attempts of one run as ratios: each attempt's
// length less the stage's mean fixed cost over the mean variable time,
// killed attempts censored.
func (s *SparkStage) ratios() []ratioObs {
	fixed, v := s.OverheadMs/float64(s.Tasks), s.variableMs()
	if !(v > 0) {
		return nil
	}
	out := make([]ratioObs, 0, len(s.durations)+len(s.killed))
	for _, d := range s.durations {
		out = append(out, ratioObs{ratio: (d - fixed) / v})
	}
	for _, d := range s.killed {
		out = append(out, ratioObs{ratio: (d - fixed) / v, censored: true})
	}
	return out
}

// SparkTarget is what a Spark prediction is asked for.
type SparkTarget struct {
	// InputBytes is the new input (0: the profile's).
	InputBytes float64
	// Executors is the executor count (0: the profile's); each has the
	// recorded cores.
	Executors int
	// Speeds scales the work to another node class (nil: the same).
	Speeds *ClassChange
	// Confidence is the probability the upper bound's longest tasks are
	// not exceeded (default 0.95).
	Confidence float64
	// Widening is how much wider the bounds grow per doubling of the bytes
	// per task beyond the recorded ones (default DefaultWidening).
	Widening float64
	// Estimator is what the estimate is: EstimatorReplay (default) or
	// EstimatorWhatIf (the recorded durations scaled and replayed once).
	Estimator string
	// Replay tunes the replays (EstimatorReplay).
	Replay ReplayOptions
}

// SparkPrediction is a Spark application's predicted completion time.
type SparkPrediction struct {
	Slots int `json:"slots"`
	// EstimateMs is the estimate: the replays' median (EstimatorReplay) or
	// WhatIfMs, the what-if replay of the scaled recorded durations. Bounds
	// are ARIA's per stage, over the stage DAG (Low: the longest chain of stage lower
	// bounds in each job, jobs one after another; High: every stage's upper
	// bound one after another), plus the recorded driver time, widened to
	// hold the estimate.
	EstimateMs float64 `json:"estimateMs"`
	WhatIfMs   float64 `json:"whatIfMs"`
	Bounds     Bounds  `json:"bounds"`
	// Stages are the per-stage bounds (ms) in stage order.
	Stages []StageBounds `json:"stages"`
	// Extrapolated names stages whose tasks would process more (or fewer)
	// bytes each than any recorded task.
	Extrapolated []int32 `json:"extrapolated,omitempty"`
	// Outside is the largest such distance, in ln of bytes per task.
	Outside float64 `json:"outside,omitempty"`
	// Replayed is the Monte Carlo replays' result (EstimatorReplay).
	Replayed *Replayed `json:"replayed,omitempty"`
	// SameWork is set when the question changes only the executors (the
	// recorded input on the recorded node class): the estimate is then the
	// what-if replay (WhatIfMs), the one analyze's what-if gives, and the
	// Monte Carlo replays give only the interval.
	SameWork bool `json:"sameWork,omitempty"`
	// SelfCheck is the replay at the recorded configuration against the
	// recorded run: the model's own error, beside every estimate.
	SelfCheck perfmodel.SelfCheck `json:"selfCheck"`
}

// StageBounds are one stage's predicted tasks and ARIA's makespan bounds.
type StageBounds struct {
	ID    int32   `json:"id"`
	Tasks int     `json:"tasks"`
	AvgMs float64 `json:"avgTaskMs"`
	Low   float64 `json:"lowMs"`
	High  float64 `json:"highMs"`
}

// PredictSpark is the Spark counterpart of ICPE'13's prediction for a new
// input size and executor count. The data grows by k = new/recorded input:
// a stage that reads input gets k times its tasks (with more tasks than
// recorded, representative durations from the spread the replays draw
// from, so that the slowest of many is slower than the slowest of few); a
// stage that reads shuffle data keeps its tasks and each task's typical
// work, all but the fixed overhead, grows k-fold, its excess over the
// typical task as the length model says (excessScale); on another node
// class each kind of work scales with its resource (fetch: network; shuffle write: disk; the rest
// of the run: CPU). The scaled workload is replayed on the target's slots
// by Sparklens's what-if scheduler (perfmodel.Plan, the recorded driver
// and scheduler delays kept), and bounded per stage by ARIA's makespan
// theorem with the stage's longest task from the application's spread of
// task durations: WhatIfMs. With EstimatorReplay (the default) the
// estimate is instead the median of replays (replaySpark) whose task
// lengths are drawn from the stages' spreads mixed by task size, each
// stage replayed with speculation before the what-if scheduler runs the
// DAG. Every spread is first carried to the replayed tasks' length by the
// application's own length model (excessExponent: the excess over the
// typical task grows as its length to a power β estimated from the
// recorded stages; lentTo), its censored tail completed (completed).
func PredictSpark(sp *SparkProfile, tg SparkTarget) (*SparkPrediction, error) {
	var err error
	k := 1.0
	if tg.InputBytes > 0 && sp.InputBytes > 0 {
		k = tg.InputBytes / float64(sp.InputBytes)
	}
	slots := perfmodel.ExecutorSlots(perfmodel.Cores{Slots: sp.Slots, MaxExecutors: sp.Executors}, tg.Executors)
	conf := tg.Confidence
	if conf <= 0 || conf >= 1 {
		conf = 0.95
	}
	opt := tg.Replay.withDefaults()
	w := *sp.w
	w.Stages = slices.Clone(sp.w.Stages)
	pr := &SparkPrediction{Slots: slots, SameWork: k == 1 && tg.Speeds == nil}
	if pr.SelfCheck, err = perfmodel.NewPlan(sp.w).Check(); err != nil {
		return nil, fmt.Errorf("replay %s: %w", sp.App, err)
	}
	lows := make([]float64, len(w.Stages))
	high := sp.DriverMs
	// Per stage, what the replays draw (nil: a stage Spark retried, whose
	// recorded attempts are kept as they ran).
	draws := make([]*stageTasks, len(w.Stages))
	spreads := make([]Spread, len(sp.Stages))
	for i := range sp.Stages {
		spreads[i] = sp.Stages[i].Spread
	}
	beta := excessExponent(spreads, opt.ExcessPrior)
	// The what-if replays no speculation: a killed attempt's length, the
	// censored bound, is where its task ended, so its spreads stay as
	// estimated; the replays complete the tail their speculation cuts.
	completed := make([]Spread, len(spreads))
	for i := range spreads {
		completed[i] = spreads[i].completed(opt.TailIndex)
	}
	for i := range w.Stages {
		ws := &w.Stages[i]
		s := &sp.Stages[i]
		n := float64(s.Tasks)
		ovh := s.OverheadMs / n
		run := s.FetchMs + s.WriteMs + s.RestMs
		// Work per recorded ms of run time on the target class.
		f := 1.0
		if run > 0 {
			f = (tg.Speeds.factor(Network)*s.FetchMs + tg.Speeds.factor(Disk)*s.WriteMs + tg.Speeds.cpu(s.RestMs)) / run
		}
		grow := 1.0
		count := len(ws.Durations)
		tasks := s.Tasks
		if s.ScalesTasks {
			if len(ws.Retries) == 0 {
				count = max(1, int(math.Round(float64(len(ws.Durations))*k)))
				tasks = max(1, int(math.Round(n*k)))
			}
		} else {
			grow = k
			if s.MaxBytes > 0 {
				per := k * float64(s.ShuffleReadBytes+s.InputBytes) / n
				if d := outsideBytes(per, s.MinBytes, s.MaxBytes); d > 0 {
					pr.Extrapolated = append(pr.Extrapolated, s.ID)
					pr.Outside = max(pr.Outside, d)
				}
			}
		}
		v := s.variableMs() * grow * f
		if len(ws.Retries) == 0 {
			sd := carried(completed, i, v, beta, opt)
			draws[i] = &stageTasks{n: tasks, fixed: ovh, variable: func(int) float64 { return v }, spread: &sd}
		}
		durs := make([]int64, count)
		var sum float64
		// The typical recorded task's variable time grows g-fold with the
		// work; a task's excess over it (or shortfall) as the length model
		// says (excessScale: g^β in ms).
		g := grow * f
		typical := medianVariableMs(ws.Durations, ovh)
		var sw Spread
		if count > len(ws.Durations) {
			sw = carried(spreads, i, v, beta, opt)
		}
		for j := range durs {
			// The recorded durations, or, for more tasks than recorded,
			// representative ones: the quantiles of the spread the replays
			// draw from (carried), at ranks stepping through (0, 1) by the
			// golden ratio, so that the slowest of the larger count is as
			// slow as the spread says.
			var nd float64
			if count > len(ws.Durations) {
				nd = ovh + v*sw.Quantile((math.Floor(math.Mod(float64(j)*goldenRatio, 1)*float64(count))+0.5)/float64(count))
			} else {
				d := float64(ws.Durations[j])
				nd = ovh + g*(typical+(d-ovh-typical)*excessScale(g, beta))
			}
			nd = math.Max(1, nd)
			durs[j] = int64(math.Round(nd))
			sum += nd
		}
		ws.Durations = durs
		avg := sum / float64(count)
		ms := Makespan(count, slots, StageDurations{Avg: avg, Max: avg * sp.Tail.MaxOf(count, conf)})
		pr.Stages = append(pr.Stages, StageBounds{ID: ws.ID, Tasks: count, AvgMs: avg, Low: ms.Low, High: ms.High})
		lows[i] = ms.Low
		high += ms.High
	}
	low := sp.DriverMs
	for _, j := range w.Jobs {
		low += longestChain(&w, j.Stages, lows)
	}
	est, err := perfmodel.NewPlan(&w).Replay(slots)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", sp.App, err)
	}
	pr.EstimateMs, pr.WhatIfMs = float64(est), float64(est)
	w2 := widening(pr.Outside, tg.Widening)
	low /= w2
	high *= w2
	if tg.Estimator != EstimatorWhatIf {
		if pr.Replayed, err = replaySpark(w, draws, slots, opt); err != nil {
			return nil, fmt.Errorf("replay %s: %w", sp.App, err)
		}
		if !pr.SameWork {
			pr.EstimateMs = pr.Replayed.MedianMs
		}
		pr.Replayed.LowMs /= w2
		pr.Replayed.HighMs *= w2
	}
	pr.Bounds = Bounds{Low: min(low, pr.EstimateMs), Avg: (low + high) / 2, High: max(high, pr.EstimateMs)}
	return pr, nil
}

// medianVariableMs is the median of durs less the fixed overhead ovh.
func medianVariableMs(durs []int64, ovh float64) float64 {
	v := make([]float64, len(durs))
	for i, d := range durs {
		v[i] = float64(d) - ovh
	}
	return stats.Quantiles(v, []float64{0.5})[0]
}

// carried is the spread tasks of stage i with variable time v draw their
// ratios from: every stage's spread carried to v by the length model
// (lentTo under the excess exponent beta), stage i's own mixed by size
// with the others (spreadFor).
func carried(spreads []Spread, i int, v, beta float64, opt ReplayOptions) Spread {
	lent := make([]Spread, len(spreads))
	for j := range spreads {
		lent[j] = spreads[j].lentTo(v, beta)
	}
	own := lent[i]
	return spreadFor(own, slices.Delete(lent, i, i+1), v, opt)
}

// replaySpark replays the workload opt.Runs times by Sparklens's what-if
// scheduler (perfmodel.Plan), each stage's task durations drawn anew:
// each stage replayed on the slots with speculation (stageReplay), its
// tasks taking the lengths that replay gave them (a task copied by
// speculation: from its first start to the winning attempt's end).
func replaySpark(w perfmodel.Workload, draws []*stageTasks, slots int, opt ReplayOptions) (*Replayed, error) {
	rng := rand.New(rand.NewPCG(opt.Seed, replayStream))
	w.Stages = slices.Clone(w.Stages)
	var r stageReplay
	times := make([]float64, opt.Runs)
	for k := range times {
		for i, st := range draws {
			if st == nil {
				continue
			}
			r.replay(st, slots, opt.Speculation, rng)
			durs := make([]int64, st.n)
			for j, e := range r.effective {
				durs[j] = max(1, int64(math.Round(e)))
			}
			w.Stages[i].Durations = durs
		}
		t, err := perfmodel.NewPlan(&w).Replay(slots)
		if err != nil {
			return nil, err
		}
		times[k] = float64(t)
	}
	return summarizeReplays(times, opt), nil
}

// goldenRatio is the conjugate golden ratio, whose multiples modulo 1 spread
// evenly over (0, 1).
const goldenRatio = 0.6180339887498949

// DefaultWidening is how much wider bounds grow per doubling beyond what a
// per-byte model was fitted on: a quarter (×1.25 the upper bound and ÷1.25
// the lower one for twice the bytes, ×2 and ÷2 for 16 times).
const DefaultWidening = 0.25

// widening is the factor bounds widen by at distance d (ln) beyond the
// fitted range, rate per doubling (0: DefaultWidening).
func widening(d, rate float64) float64 {
	if rate <= 0 {
		rate = DefaultWidening
	}
	return 1 + rate*max(0, d)/math.Ln2
}

// outsideBytes is how far per lies outside [lo, hi] (5% slack), in ln.
func outsideBytes(per, lo, hi float64) float64 {
	switch {
	case per > hi*1.05:
		return math.Log(per / hi)
	case per < lo*0.95 && per > 0:
		return math.Log(lo / per)
	}
	return 0
}

// longestChain is the longest path of stage weights through the parent
// links among a job's stages.
func longestChain(w *perfmodel.Workload, stages []int, weight []float64) float64 {
	memo := map[int]float64{}
	var path func(i int) float64
	path = func(i int) float64 {
		if v, ok := memo[i]; ok {
			return v
		}
		best := 0.0
		for _, p := range w.Stages[i].Parents {
			if w.Stages[p].Job == w.Stages[i].Job {
				best = max(best, path(p))
			}
		}
		memo[i] = best + weight[i]
		return memo[i]
	}
	longest := 0.0
	for _, i := range stages {
		longest = max(longest, path(i))
	}
	return longest
}
