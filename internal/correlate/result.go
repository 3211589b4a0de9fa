package correlate

import (
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Result is what the correlation concludes for one application: the host
// matching, how many samples fell in task windows, per stage its resource
// profile and (stage, host) matrix, and per job its (job, host) matrix.
type Result struct {
	SkewMs    int64       `json:"skewMs"`
	Hosts     []HostMatch `json:"hosts"`
	Unmatched []string    `json:"unmatchedHosts"`
	// Samples counts the sample instants of the matched hosts within the
	// application's run (widened by the skew); InTasks those in at least
	// one task window.
	Samples int64         `json:"samples"`
	InTasks int64         `json:"inTaskWindows"`
	Stages  []StageResult `json:"stages"`
	Jobs    []JobMatrix   `json:"jobs"`
}

// StageResult is one stage attempt's profile and matrix.
type StageResult struct {
	ID      int32        `json:"id"`
	Attempt int32        `json:"attempt"`
	Name    string       `json:"name"`
	Kind    string       `json:"kind"`
	Profile StageProfile `json:"profile"`
	Matrix  Matrix       `json:"matrix"`
}

// Correlate indexes the application against the samples and builds its
// Result. fs must be finished (Frames.Finish).
func Correlate(app *model.App, fs *Frames, opts Options) *Result {
	return New(app, fs, opts).Result()
}

// Result builds the correlation's Result.
func (c *Correlation) Result() *Result {
	r := &Result{SkewMs: c.skew, Hosts: c.matches, Unmatched: c.missing, Stages: []StageResult{}}
	if r.Hosts == nil {
		r.Hosts = []HostMatch{}
	}
	if r.Unmatched == nil {
		r.Unmatched = []string{}
	}
	lo, hi := c.app.Start-c.skew, c.app.End+c.skew
	for k := range c.hosts {
		h := &c.hosts[k]
		a, _ := slices.BinarySearch(h.times, lo+1)
		b, _ := slices.BinarySearch(h.times, hi+h.iv)
		switch {
		case c.app.Start <= 0 || c.app.End <= 0:
			r.Samples += int64(len(h.times))
		case b > a:
			r.Samples += int64(b - a)
		}
	}
	profiles, inTasks := c.profiles(nil)
	r.InTasks = inTasks
	ms := c.StageMatrices()
	for i, st := range c.app.Stages {
		r.Stages = append(r.Stages, StageResult{ID: st.ID, Attempt: st.Attempt, Name: st.Name, Kind: st.Kind.String(),
			Profile: profiles[i], Matrix: ms[i].Matrix})
	}
	r.Jobs = c.JobMatrices()
	return r
}
