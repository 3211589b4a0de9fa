package perfmodel

import (
	"fmt"
	"math"
)

// DefaultPercents are the executor counts Sparklens tries, as percentages of
// the recorded count (ExecutorWallclockAnalyzer.testPercentages).
var DefaultPercents = []int{10, 20, 50, 80, 100, 110, 120, 150, 200, 300, 400, 500}

// Estimate is the replayed completion time with a share of the executors.
type Estimate struct {
	Percent int `json:"percent"`
	// Slots are the task slots (cores / spark.task.cpus) replayed, Percent of
	// the recorded slots rounded (at least 1); Executors are the executors of
	// the recorded size they amount to.
	Executors float64 `json:"executors"`
	Slots     int     `json:"slots"`
	AppMs     int64   `json:"appMs"`
	// Utilization is the core time used over the core time available during
	// AppMs (Sparklens's "estimated cluster utilization").
	Utilization float64 `json:"utilization"`
}

// WhatIf is the completion-time curve over executor counts.
type WhatIf struct {
	// SelfCheck is the replay with the recorded executors (100%) against
	// the recorded duration.
	SelfCheck
	Estimates []Estimate `json:"estimates"`
}

// At returns the estimate for a percentage.
func (wi *WhatIf) At(percent int) (Estimate, bool) {
	for _, e := range wi.Estimates {
		if e.Percent == percent {
			return e, true
		}
	}
	return Estimate{}, false
}

// SlotsFor is the number of task slots with percent of the recorded
// executors, and the executors they amount to. Slots are scaled and rounded
// (at least one), so small applications (local mode, two executors) still get
// a distinct setting per percentage; Sparklens scales the whole executor count
// instead ((count*percent)/100, skipping zero), which is the same for
// clusters of tens of executors.
func SlotsFor(c Cores, taskCPUs, percent int) (executors float64, slots int) {
	slots = max(1, int(math.Round(float64(c.Slots)*float64(percent)/100)))
	if c.PerExecutor > 0 {
		executors = float64(slots*max(1, taskCPUs)) / float64(c.PerExecutor)
	}
	return executors, slots
}

// EstimateWhatIf replays w for each percentage of the recorded executors
// (DefaultPercents when percents is nil). Sparklens's what-if
// (ExecutorWallclockAnalyzer) reports the same curve and the model error at 100%.
func EstimateWhatIf(w *Workload, percents []int) (*WhatIf, error) {
	if percents == nil {
		percents = DefaultPercents
	}
	return NewPlan(w).WhatIf(percents)
}

// WhatIf is EstimateWhatIf on a plan already built: its replays, the one
// at the recorded configuration among them, are the plan's own, so the
// self-check, the findings' impacts and the what-if share them.
func (p *Plan) WhatIf(percents []int) (*WhatIf, error) {
	if percents == nil {
		percents = DefaultPercents
	}
	w := p.w
	c := CoresOf(w)
	var used int64
	for i := range w.Stages {
		used += w.Stages[i].Used()
	}
	wi := &WhatIf{}
	// Replays are deterministic: each slot count is replayed once, and once
	// a replay found a free slot for every task, more slots change nothing.
	times := map[int]int64{}
	ampleSlots, ampleMs := 0, int64(0) // the fewest slots no task waited for (0: none yet)
	replay := func(slots int) (int64, error) {
		if t, ok := times[slots]; ok {
			return t, nil
		}
		if ampleSlots > 0 && slots >= ampleSlots {
			return ampleMs, nil
		}
		t, starved, err := p.replay(slots)
		if err != nil {
			return 0, err
		}
		times[slots] = t
		if !starved && (ampleSlots == 0 || slots < ampleSlots) {
			ampleSlots, ampleMs = slots, t
		}
		return t, nil
	}
	for _, pct := range percents {
		if pct <= 0 {
			return nil, fmt.Errorf("what-if at %d%% of the executors: need a positive share", pct)
		}
		ex, slots := SlotsFor(c, w.TaskCPUs, pct)
		t, err := replay(slots)
		if err != nil {
			return nil, fmt.Errorf("what-if at %d%% of the executors: %w", pct, err)
		}
		e := Estimate{Percent: pct, Executors: ex, Slots: slots, AppMs: t}
		if t > 0 {
			e.Utilization = float64(used) / (float64(t) * float64(slots))
		}
		wi.Estimates = append(wi.Estimates, e)
	}
	t, err := replay(max(1, c.Slots))
	if err != nil {
		return nil, fmt.Errorf("what-if at the recorded executors: %w", err)
	}
	wi.SelfCheck = newSelfCheck(w.Duration(), t)
	return wi, nil
}
