package summary

import (
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/radix"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// Minute is one bin of an application's task throughput: the task
// attempts that finished in it and the quantiles of their durations.
type Minute struct {
	// Start is the bin's start, epoch ms.
	Start int64 `json:"start"`
	// Finished counts the attempts that ended in the bin, Failed those of
	// them that failed or were killed.
	Finished int `json:"finished"`
	Failed   int `json:"failed"`
	// P50, P90, P99 and Max are duration quantiles (ms) of the attempts
	// that ended in the bin, as the History Server takes quantiles
	// (stats.QuantileIndex); 0 when none ended.
	P50 int64 `json:"p50Ms"`
	P90 int64 `json:"p90Ms"`
	P99 int64 `json:"p99Ms"`
	Max int64 `json:"maxMs"`
}

// Minutes bins the application's ended task attempts by their end time
// into bins of binMs (60,000 for minutes) from the application's start (or
// its first task's launch) to its last task's end: throughput and duration
// quantiles over time, computed here so that a page of a million tasks
// ships a few hundred numbers. Attempts with impossible times (an end
// before the launch) are left out, as the analyses leave them out.
func Minutes(app *model.App, binMs int64) []Minute {
	if binMs <= 0 {
		binMs = 60_000
	}
	first, last := int64(-1), int64(0)
	for _, st := range app.Stages {
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if !ended(t) {
				continue
			}
			if first < 0 || t.Launch < first {
				first = t.Launch
			}
			last = max(last, t.Finish)
		}
	}
	if first < 0 {
		return nil
	}
	origin := first
	if app.Start > 0 && app.Start <= first {
		origin = app.Start
	}
	bins := make([]Minute, (last-origin)/binMs+1)
	for i := range bins {
		bins[i].Start = origin + int64(i)*binMs
	}
	// Counting sort of the durations by bin, then a radix sort per bin.
	for _, st := range app.Stages {
		for i := range st.Tasks {
			if t := &st.Tasks[i]; ended(t) {
				b := &bins[(t.Finish-origin)/binMs]
				b.Finished++
				if t.Status != model.TaskSuccess {
					b.Failed++
				}
			}
		}
	}
	offset := make([]int, len(bins)+1)
	for i, b := range bins {
		offset[i+1] = offset[i] + b.Finished
	}
	durations := make([]int64, offset[len(bins)])
	fill := append([]int(nil), offset[:len(bins)]...)
	for _, st := range app.Stages {
		for i := range st.Tasks {
			if t := &st.Tasks[i]; ended(t) {
				k := (t.Finish - origin) / binMs
				durations[fill[k]] = t.Finish - t.Launch
				fill[k]++
			}
		}
	}
	scratch := make([]int64, len(durations))
	for i := range bins {
		d := durations[offset[i]:offset[i+1]]
		if len(d) == 0 {
			continue
		}
		sorted, _ := radix.Int64s(d, scratch[offset[i]:offset[i+1]])
		n := int64(len(sorted))
		q := func(p float64) int64 { return sorted[stats.QuantileIndex(p, n)] }
		bins[i].P50, bins[i].P90, bins[i].P99, bins[i].Max = q(0.5), q(0.9), q(0.99), sorted[n-1]
	}
	return bins
}

// ended reports whether an attempt ended with possible times.
func ended(t *model.Task) bool {
	return t.Finish > 0 && t.Finish >= t.Launch && t.Status != model.TaskRunning
}
