package perfmodel

import (
	"cmp"
	"slices"
)

// WallClock splits the application's wall clock between the driver and the
// executors.
type WallClock struct {
	AppMs      int64 `json:"appMs"`
	ExecutorMs int64 `json:"executorMs"` // some stage was running
	DriverMs   int64 `json:"driverMs"`   // no stage was running
	// Gaps counts the driver-only intervals; LongestGapMs is the longest,
	// starting at LongestGapAt (epoch ms).
	Gaps         int   `json:"gaps"`
	LongestGapMs int64 `json:"longestGapMs"`
	LongestGapAt int64 `json:"longestGapAt,omitempty"`
}

// DriverShare is DriverMs/AppMs (0 for an empty application).
func (c WallClock) DriverShare() float64 {
	if c.AppMs <= 0 {
		return 0
	}
	return float64(c.DriverMs) / float64(c.AppMs)
}

// SplitWallClock measures driver and executor wall clock. Executor time is
// the union of the stages' windows (submission to completion): while a stage
// runs the executors have work; all other time is the driver's (planning,
// listing files, collecting results, user code between actions).
//
// Sparklens (EfficiencyStatisticsAnalyzer, "Time spent in Driver vs
// Executors") uses the union of job windows of jobs grouped by
// spark.sql.execution.id (JobOverlapHelper.estimatedTimeSpentInJobs); stage
// windows are tighter, so the time a job spends between its stages, which is
// the driver's too, is counted as driver time here.
func SplitWallClock(w *Workload) WallClock {
	c := WallClock{AppMs: w.Duration()}
	cursor := w.Start
	gap := func(a, b int64) {
		if b <= a {
			return
		}
		c.Gaps++
		if b-a > c.LongestGapMs {
			c.LongestGapMs, c.LongestGapAt = b-a, a
		}
	}
	for _, iv := range stageUnion(w) {
		gap(cursor, iv[0])
		c.ExecutorMs += iv[1] - iv[0]
		cursor = iv[1]
	}
	gap(cursor, w.End)
	c.DriverMs = c.AppMs - c.ExecutorMs
	return c
}

// stageUnion merges the stage windows, clipped to the application, into
// disjoint intervals in time order.
func stageUnion(w *Workload) [][2]int64 {
	spans := make([][2]int64, 0, len(w.Stages))
	for i := range w.Stages {
		s := &w.Stages[i]
		a, b := max(s.Submitted, w.Start), min(s.Completed, w.End)
		if b > a {
			spans = append(spans, [2]int64{a, b})
		}
	}
	slices.SortFunc(spans, func(x, y [2]int64) int { return cmp.Compare(x[0], y[0]) })
	var out [][2]int64
	for _, s := range spans {
		if n := len(out); n > 0 && s[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], s[1])
			continue
		}
		out = append(out, s)
	}
	return out
}

// GapKind says where in the run a driver-only gap lies.
type GapKind uint8

// Gap kinds.
const (
	GapStart       GapKind = iota // before the first stage: start-up, the first plan
	GapBetweenJobs                // between one job's end and the next one's submission
	GapInJob                      // between two stages of one job
	GapEnd                        // after the last stage: collecting, writing, shutting down
)

// Gap is one stretch with no stage running, as SplitWallClock counts them.
type Gap struct {
	From, To int64
	Kind     GapKind
}

// DriverGaps lists the stretches with no stage running (SplitWallClock's
// driver time, gap by gap) and where each lies.
func DriverGaps(w *Workload) []Gap {
	var out []Gap
	cursor := w.Start
	add := func(a, b int64) {
		if b <= a {
			return
		}
		g := Gap{From: a, To: b, Kind: GapBetweenJobs}
		switch {
		case a == w.Start:
			g.Kind = GapStart
		case b == w.End:
			g.Kind = GapEnd
		default:
			for _, j := range w.Jobs {
				if j.Submitted <= a && b <= j.Completed {
					g.Kind = GapInJob
					break
				}
			}
		}
		out = append(out, g)
	}
	for _, iv := range stageUnion(w) {
		add(cursor, iv[0])
		cursor = iv[1]
	}
	add(cursor, w.End)
	return out
}
