package explain

import "github.com/clusterlens/clusterlens/internal/history"

// Judgment is a run's duration against its usual time, from durations
// alone: what a job's page marks on every run before explaining any.
type Judgment struct {
	// Verdict is Slower, Faster, Usual, or Unknown (too few earlier
	// finished runs, or a run that did not finish).
	Verdict string `json:"verdict"`
	// Ratio is the duration over UsualMs, the median of the usual runs.
	Ratio   float64 `json:"ratio,omitempty"`
	UsualMs int64   `json:"usualMs,omitempty"`
}

// Judge judges each of a recurring job's runs (oldest first, as
// Store.Briefs lists them) against the p.Usual runs that succeeded before
// it, as Explain does, without reading any run's detail.
func Judge(runs []*history.Brief, p Params) []Judgment {
	out := make([]Judgment, len(runs))
	var done []*history.Run // the succeeded runs so far, oldest first
	for i, b := range runs {
		j := &out[i]
		j.Verdict = Unknown
		if n := len(done); n >= p.MinUsual && b.End > 0 && b.DurationMs > 0 {
			usual := done[max(0, n-p.Usual):]
			u := usualTime(usual, p)
			j.UsualMs = u.MedianMs
			j.Ratio = float64(b.DurationMs) / float64(max(u.MedianMs, 1))
			switch {
			case b.DurationMs > u.HighMs:
				j.Verdict = Slower
			case b.DurationMs < u.LowMs:
				j.Verdict = Faster
			default:
				j.Verdict = Usual
			}
		}
		if b.Status == history.StatusSucceeded && b.DurationMs > 0 {
			done = append(done, &history.Run{Key: b.Key, DurationMs: b.DurationMs})
		}
	}
	return out
}
