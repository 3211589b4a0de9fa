package explain

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/history"
)

// Verdicts: how a run compares with its usual runs.
const (
	Slower  = "slower"
	Faster  = "faster"
	Usual   = "usual"
	Unknown = "unknown" // too little history, or a run that did not finish
)

// Kinds of causes.
const (
	KindInput        = "input"        // more (or less) data, per stage, at the job's per-byte cost
	KindNode         = "node"         // nodes slower than their own history
	KindSkew         = "skew"         // the stage's last task had more of its data than usual
	KindPartitioning = "partitioning" // fewer (or more) tasks than the slots, or more data per task
	KindSpillGC      = "spill-gc"     // garbage collection and spills
	KindFailures     = "failures"     // failed and retried attempts
	KindExecutors    = "executors"    // fewer executors, or waiting for them or for the scheduler
	KindConfig       = "config"       // changed spark.* / mapreduce.* settings
	KindPlan         = "plan"         // a changed SQL plan or stages
	KindDriver       = "driver"       // time with no stage running
)

// Explanation is a run compared with its usual runs.
type Explanation struct {
	Run RunRef `json:"run"`
	// Verdict is Slower, Faster, Usual or Unknown; Why says why a run is
	// Unknown.
	Verdict string `json:"verdict"`
	Why     string `json:"why,omitempty"`
	// Usual is the usual time and its spread.
	Usual UsualTime `json:"usual"`
	// Ratio is the run's duration over the usual (median) time; ExtraMs
	// their difference (negative when faster).
	Ratio   float64 `json:"ratio"`
	ExtraMs int64   `json:"extraMs"`
	// Causes explain ExtraMs, largest share first (only when the run is
	// slower or faster); UnexplainedMs and UnexplainedShare are the rest.
	Causes           []Cause `json:"causes"`
	UnexplainedMs    int64   `json:"unexplainedMs"`
	UnexplainedShare float64 `json:"unexplainedShare"`
	// Summary is the explanation in one sentence.
	Summary string `json:"summary"`
}

// RunRef names the run explained.
type RunRef struct {
	Key        string `json:"key"`
	ID         string `json:"id"`
	Name       string `json:"name"`
	JobKey     string `json:"jobKey"`
	Start      int64  `json:"start"`
	DurationMs int64  `json:"durationMs"`
}

// UsualTime is the job's usual time: the median of its usual runs'
// durations and their spread.
type UsualTime struct {
	// Runs are the keys of the usual runs compared with, newest first.
	Runs []string `json:"runs"`
	// MedianMs is the usual time; SpreadMs the robust standard deviation
	// (1.4826 × MAD); LowMs and HighMs the band within which a run is
	// usual; MinMs and MaxMs the fastest and slowest usual run.
	MedianMs int64 `json:"medianMs"`
	SpreadMs int64 `json:"spreadMs"`
	LowMs    int64 `json:"lowMs"`
	HighMs   int64 `json:"highMs"`
	MinMs    int64 `json:"minMs"`
	MaxMs    int64 `json:"maxMs"`
}

// Cause is one reason for the difference: its kind, how much of the
// difference it explains, what it names and why.
type Cause struct {
	Kind string `json:"kind"`
	// Seconds it explains (negative: it made the run faster) and its share
	// of the difference.
	Seconds float64 `json:"seconds"`
	Share   float64 `json:"share"`
	// Summary says what changed, with the numbers.
	Summary string `json:"summary"`
	// Items are what the cause names (stages, nodes, settings), largest
	// part first.
	Items []Item `json:"items"`
}

// Item is one stage, node or setting a cause names, with its part of the
// cause's seconds and its evidence.
type Item struct {
	// Stage is the stage's id in the run (-1: none), StageName its name;
	// Node a host; Key a setting with its usual and new values.
	Stage     int32   `json:"stage"`
	StageName string  `json:"stageName,omitempty"`
	Node      string  `json:"node,omitempty"`
	Key       string  `json:"key,omitempty"`
	From      string  `json:"from,omitempty"`
	To        string  `json:"to,omitempty"`
	Seconds   float64 `json:"seconds"`
	Evidence  string  `json:"evidence"`
}

// Explain compares run with usual, the recurring job's usual runs (read
// with Detail), and explains the difference. nodes judges the run's nodes
// against their own history (nil: OwnHistory).
func Explain(run *history.Run, usual []*history.Run, p Params, nodes NodeModel) *Explanation {
	e := &Explanation{Run: RunRef{Key: run.Key, ID: run.ID, Name: run.Name, JobKey: run.JobKey, Start: run.Start,
		DurationMs: run.DurationMs}, Causes: []Cause{}}
	switch {
	case run.Status == history.StatusRunning || run.Status == history.StatusIncomplete || run.DurationMs <= 0:
		e.Verdict, e.Why = Unknown, fmt.Sprintf("the run is %s: only a finished run is compared", run.Status)
		e.Summary = e.Why
		return e
	case len(usual) < p.MinUsual:
		e.Verdict = Unknown
		e.Why = fmt.Sprintf("too little history: %d comparable earlier runs, %d needed", len(usual), p.MinUsual)
		e.Summary = e.Why
		return e
	}
	e.Usual = usualTime(usual, p)
	e.Ratio = float64(run.DurationMs) / float64(max(e.Usual.MedianMs, 1))
	e.ExtraMs = run.DurationMs - e.Usual.MedianMs
	switch {
	case run.DurationMs > e.Usual.HighMs:
		e.Verdict = Slower
	case run.DurationMs < e.Usual.LowMs:
		e.Verdict = Faster
	default:
		e.Verdict = Usual
		e.Summary = fmt.Sprintf("%s took %s, within its usual %s (%s to %s over its last %d runs)", runName(run),
			fmtMs(run.DurationMs), fmtMs(e.Usual.MedianMs), fmtMs(e.Usual.LowMs), fmtMs(e.Usual.HighMs), len(usual))
		return e
	}
	if nodes == nil {
		nodes = OwnHistory{Params: p}
	}
	d := decompose(run, usual, p, nodes)
	e.Causes, e.UnexplainedMs = d.causes(float64(e.ExtraMs), p)
	e.UnexplainedShare = float64(e.UnexplainedMs) / float64(e.ExtraMs)
	e.Summary = summary(run, e)
	return e
}

// usualTime is the median of the usual runs' durations, their robust
// spread and the band around the median within which a run is usual.
func usualTime(usual []*history.Run, p Params) UsualTime {
	u := UsualTime{Runs: make([]string, len(usual))}
	d := make([]float64, len(usual))
	for i, r := range usual {
		u.Runs[i] = r.Key
		d[i] = float64(r.DurationMs)
	}
	med := median(d)
	dev := make([]float64, len(d))
	for i, v := range d {
		dev[i] = math.Abs(v - med)
	}
	spread := 1.4826 * median(dev)
	slices.Sort(d)
	band := max(p.Spread*spread, p.MinChange*med)
	u.MedianMs, u.SpreadMs = int64(math.Round(med)), int64(math.Round(spread))
	u.LowMs, u.HighMs = int64(math.Round(med-band)), int64(math.Round(med+band))
	u.MinMs, u.MaxMs = int64(d[0]), int64(d[len(d)-1])
	return u
}

// summary is the explanation in one sentence: the ratio, the usual time,
// and the causes' shares.
func summary(run *history.Run, e *Explanation) string {
	s := fmt.Sprintf("%s took %.1f× its usual %s (%s %s)", runName(run), e.Ratio, fmtMs(e.Usual.MedianMs),
		fmtMs(abs64(e.ExtraMs)), map[bool]string{true: "more", false: "less"}[e.ExtraMs > 0])
	for i, c := range e.Causes {
		if i == 3 {
			break
		}
		sep := "; "
		if i == 0 {
			sep = ": "
		}
		s += fmt.Sprintf("%s%.0f%% %s", sep, 100*c.Share, c.Summary)
	}
	if e.UnexplainedShare >= 0.05 {
		s += fmt.Sprintf("; %.0f%% is not explained", 100*e.UnexplainedShare)
	}
	return s
}

func runName(r *history.Run) string {
	if r.Name != "" {
		return r.Name + " (" + r.ID + ")"
	}
	return r.ID
}

// fmtMs writes a duration as people read it: 2m36s, 4.2s, 1h05m.
func fmtMs(ms int64) string {
	switch s := float64(ms) / 1000; {
	case s < 10:
		return fmt.Sprintf("%.1fs", s)
	case s < 60:
		return fmt.Sprintf("%.0fs", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(s)/3600, int(s)%3600/60)
	}
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// byShare orders causes by what they explain in the direction of the
// difference, largest first.
func byShare(cs []Cause) {
	slices.SortStableFunc(cs, func(a, b Cause) int { return cmp.Compare(b.Share, a.Share) })
}

// median is the middle of xs (the mean of the two middle values for an
// even count), sorting xs in place; 0 for none.
func median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	slices.Sort(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
