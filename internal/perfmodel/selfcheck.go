package perfmodel

import "math"

// SelfCheck is the replay at the recorded configuration set against the
// recorded run: the model's own error, shown beside every prediction made
// from the same replay (the what-if curve, the findings' expected effects,
// predict's Spark estimate).
type SelfCheck struct {
	// RecordedMs is the application's recorded duration; ModelMs the replay
	// with the recorded slots; ModelError is |ModelMs-RecordedMs|/RecordedMs
	// (0 when nothing was recorded).
	RecordedMs int64   `json:"recordedMs"`
	ModelMs    int64   `json:"modelMs"`
	ModelError float64 `json:"modelError"`
}

func newSelfCheck(recorded, modelled int64) SelfCheck {
	c := SelfCheck{RecordedMs: recorded, ModelMs: modelled}
	if recorded > 0 {
		c.ModelError = math.Abs(float64(modelled-recorded)) / float64(recorded)
	}
	return c
}

// Check replays the plan at the recorded slots and compares the result with
// the recorded duration.
func (p *Plan) Check() (SelfCheck, error) {
	t, err := p.Replay(max(1, CoresOf(p.w).Slots))
	if err != nil {
		return SelfCheck{}, err
	}
	return newSelfCheck(p.w.Duration(), t), nil
}

// ExecutorSlots is the task slots n executors of the recorded size offer:
// the recorded slots scaled by n over the most executors alive at once,
// rounded, at least one. It is the one mapping from an executor count to
// slots that the what-if and predict share (n <= 0: the recorded slots).
func ExecutorSlots(c Cores, n int) int {
	if n <= 0 || c.MaxExecutors <= 0 {
		return max(1, c.Slots)
	}
	return max(1, int(math.Round(float64(c.Slots)*float64(n)/float64(c.MaxExecutors))))
}
