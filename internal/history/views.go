package history

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// Views of the history that the commands show: the recurring jobs, one
// job's runs over time, one node across runs.

// Job is one recurring job as the fleet view lists it.
type Job struct {
	Recurring
	// Name is the name of its latest run; Latest that run's key.
	Name   string `json:"name"`
	Latest string `json:"latestRun"`
	// First and Last are the start times of its first and latest runs.
	First int64 `json:"first"`
	Last  int64 `json:"last"`
	// MedianMs is the median duration of its finished runs; LastMs the
	// latest finished run's.
	MedianMs int64 `json:"medianDurationMs"`
	LastMs   int64 `json:"lastDurationMs"`
	Trend    Trend `json:"trend"`
}

// Trend is how a job's run durations moved: the median duration of its
// latest third of finished runs against that of its earliest third (0.12:
// 12% longer now), over the time between the two thirds' middle runs.
// Medians of thirds, not a fitted line: a few odd runs (a retry, a holiday
// with little data) do not swing it.
type Trend struct {
	Runs   int     `json:"runs"`
	SpanMs int64   `json:"spanMs"`
	Change float64 `json:"change"`
}

// MinTrendRuns is the fewest finished runs a Trend is computed from.
const MinTrendRuns = 6

// DurationTrend compares the latest third of runs (oldest first) with the
// earliest.
func DurationTrend(runs []*Brief) Trend {
	var done []*Brief
	for _, r := range runs {
		if r.End > 0 && r.DurationMs > 0 && r.Start > 0 {
			done = append(done, r)
		}
	}
	t := Trend{Runs: len(done)}
	if len(done) < MinTrendRuns {
		return t
	}
	third := len(done) / 3
	first, last := done[:third], done[len(done)-third:]
	med := func(rs []*Brief) float64 {
		d := make([]float64, len(rs))
		for i, r := range rs {
			d[i] = float64(r.DurationMs)
		}
		return stats.Quantiles(d, []float64{0.5})[0]
	}
	if m := med(first); m > 0 {
		t.Change = med(last)/m - 1
	}
	t.SpanMs = last[len(last)/2].Start - first[len(first)/2].Start
	return t
}

// Jobs groups the store's runs into recurring jobs and summarizes each,
// most runs first.
func Jobs(ctx context.Context, st Store, opt GroupOptions) ([]*Job, error) {
	vs, err := st.Variants(ctx)
	if err != nil {
		return nil, err
	}
	briefs, err := st.Briefs(ctx, Filter{})
	if err != nil {
		return nil, err
	}
	return JobsOf(vs, briefs, opt), nil
}

// JobsOf groups variants into recurring jobs (Group) and summarizes each
// from its runs among briefs (oldest first, as Store.Briefs returns them),
// most runs first: Jobs for a caller that holds the briefs already.
func JobsOf(vs []Variant, briefs []Brief, opt GroupOptions) []*Job {
	byVariant := map[string][]int{}
	for i := range briefs {
		byVariant[briefs[i].JobKey] = append(byVariant[briefs[i].JobKey], i)
	}
	var out []*Job
	for _, g := range Group(vs, opt) {
		var idx []int
		for _, k := range g.Variants {
			idx = append(idx, byVariant[k]...)
		}
		if len(idx) == 0 {
			continue
		}
		sort.Ints(idx) // briefs are oldest first
		if g.NameKey == "" && len(idx) > 1 {
			// Unnamed runs that an index before UnnamedJobKey put under one
			// variant: no job (indexed again, each is a job of its own).
			continue
		}
		runs := make([]*Brief, len(idx))
		for i, j := range idx {
			runs[i] = &briefs[j]
		}
		out = append(out, summarizeJob(g, runs))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Runs != out[j].Runs {
			return out[i].Runs > out[j].Runs
		}
		return out[i].Last > out[j].Last
	})
	return out
}

// summarizeJob summarizes a job's runs, oldest first.
func summarizeJob(g *Recurring, runs []*Brief) *Job {
	last := runs[len(runs)-1]
	j := &Job{Recurring: *g, Name: last.Name, Latest: last.Key, First: runs[0].Start, Last: last.Start}
	var durations []float64
	for _, r := range runs {
		if r.End > 0 && r.DurationMs > 0 {
			durations = append(durations, float64(r.DurationMs))
			j.LastMs = r.DurationMs
		}
	}
	if len(durations) > 0 {
		j.MedianMs = int64(stats.Quantiles(durations, []float64{0.5})[0])
	}
	j.Trend = DurationTrend(runs)
	return j
}

// FindJob returns the recurring job whose id (or id prefix, at least 4
// characters), or the normalized name of whose runs, is ref.
func FindJob(ctx context.Context, st Store, ref string, opt GroupOptions) (*Job, error) {
	jobs, err := Jobs(ctx, st, opt)
	if err != nil {
		return nil, err
	}
	return MatchJob(jobs, ref)
}

// MatchJob is FindJob among jobs already listed.
func MatchJob(jobs []*Job, ref string) (*Job, error) {
	var hits []*Job
	for _, j := range jobs {
		if j.ID == ref || len(ref) >= 4 && strings.HasPrefix(j.ID, ref) || j.NameKey == NormalizeName(ref) {
			hits = append(hits, j)
		}
	}
	switch len(hits) {
	case 0:
		return nil, fmt.Errorf("recurring job %q: %w (clusterlens history jobs lists them)", ref, ErrNotFound)
	case 1:
		return hits[0], nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return nil, fmt.Errorf("recurring job %q is ambiguous: %s", ref, strings.Join(ids, ", "))
}

// NodeRun is one run as seen from one node: how many of its task attempts
// the node ran, and how long they took against their stages' medians.
type NodeRun struct {
	Key   string `json:"run"`
	Name  string `json:"name"`
	Start int64  `json:"start"`
	// Tasks is the successful attempts the node ran; Stages in how many
	// stages.
	Tasks  int `json:"tasks"`
	Stages int `json:"stages"`
	// Ratio is the geometric mean, over those attempts, of their stage's
	// mean duration on this node over the stage's median duration (1:
	// typical, 2: twice as slow); 0 when no stage had a median.
	Ratio float64 `json:"ratio"`
}

// Node is one node across runs.
type Node struct {
	Host string    `json:"host"`
	Runs []NodeRun `json:"runs"`
	// Baseline is the median Ratio over its runs: what is normal for this
	// node. A run far above it is the node behaving unlike itself.
	Baseline float64 `json:"baseline"`
}

// NodeHistory returns how host fared in each run that used it, oldest
// first (at most limit runs, the newest; 0: all).
func NodeHistory(ctx context.Context, st Store, host string, limit int) (*Node, error) {
	runs, err := st.Runs(ctx, Filter{Host: host, Detail: true, Limit: limit})
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("host %q: %w: no indexed run ran a task there", host, ErrNotFound)
	}
	n := &Node{Host: host}
	var ratios []float64
	for i := len(runs) - 1; i >= 0; i-- {
		nr := NodeRunOf(runs[i], host)
		n.Runs = append(n.Runs, nr)
		if nr.Ratio > 0 {
			ratios = append(ratios, nr.Ratio)
		}
	}
	if len(ratios) > 0 {
		n.Baseline = stats.Quantiles(ratios, []float64{0.5})[0]
	}
	return n, nil
}

// NodeRunOf condenses how host fared in run r (read with Detail): its
// attempts and their ratio to their stages' medians.
func NodeRunOf(r *Run, host string) NodeRun {
	nr := NodeRun{Key: r.Key, Name: r.Name, Start: r.Start}
	median := map[[2]int32]float64{}
	for _, st := range r.Stages {
		median[[2]int32{st.ID, st.Attempt}] = st.Quantiles[2]
	}
	var logSum float64
	var weighted int
	for _, h := range r.Hosts {
		if h.Host != host {
			continue
		}
		nr.Tasks += h.Tasks
		nr.Stages++
		if m := median[[2]int32{h.Stage, h.Attempt}]; m > 0 && h.Tasks > 0 {
			logSum += float64(h.Tasks) * math.Log(math.Max(h.Mean(), 1)/m)
			weighted += h.Tasks
		}
	}
	if weighted > 0 {
		nr.Ratio = math.Exp(logSum / float64(weighted))
	}
	return nr
}
