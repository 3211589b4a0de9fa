package predict

import (
	"fmt"
	"time"
)

// Answer is a prediction with what it rests on (`predict --format
// json`): the estimate, the MapReduce job profile and prediction or the
// Spark prediction, and the inverse question's answer.
type Answer struct {
	Estimate  *Estimate        `json:"estimate"`
	MapReduce *MRPrediction    `json:"mapreduce,omitempty"`
	Profile   *JobProfile      `json:"jobProfile,omitempty"`
	Spark     *SparkPrediction `json:"spark,omitempty"`
	Deadline  *DeadlineAnswer  `json:"deadline,omitempty"`
}

// DeadlineAnswer is the inverse question's answer: the fewest resources
// whose upper bound meets the deadline.
type DeadlineAnswer struct {
	DeadlineMs float64 `json:"deadlineMs"`
	Slots      *Slots  `json:"slots,omitempty"`
	Executors  int     `json:"executors,omitempty"`
	Machines   float64 `json:"machines,omitempty"`
	// Estimate is the prediction with those resources.
	Estimate *Estimate `json:"estimate"`
}

// AnswerRuns predicts from a table of past runs for machines and data;
// with deadlineMs > 0 it also finds the fewest machines, up to four times
// the most fitted, whose upper bound meets the deadline.
func AnswerRuns(t *RunTable, machines, data float64, opt ChoiceOptions, deadlineMs float64) (*Answer, error) {
	est, err := FromRuns(t, machines, data, opt)
	if err != nil {
		return nil, err
	}
	out := &Answer{Estimate: est}
	if deadlineMs <= 0 {
		return out, nil
	}
	deadline := inUnit(deadlineMs, t.Unit)
	limit := 4 * est.Choice.Range.MaxMachines
	for m := 1.0; m <= limit; m++ {
		e, err := FromRuns(t, m, data, opt)
		if err == nil && e.Upper <= deadline {
			out.Deadline = &DeadlineAnswer{DeadlineMs: deadline, Machines: m, Estimate: e}
			return out, nil
		}
	}
	return nil, fmt.Errorf("no machine count up to %g meets the deadline %s by the upper bound", limit, durationMs(deadlineMs))
}

// inUnit expresses ms in a table's runtime unit (Unit's: s, min, h; ms else).
func inUnit(ms float64, unit string) float64 {
	switch unit {
	case "s":
		return ms / 1000
	case "min":
		return ms / 60000
	case "h":
		return ms / 3600000
	}
	return ms
}

func durationMs(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// AnswerSpark predicts a Spark program for tg; with deadlineMs > 0 it
// also finds the fewest executors, up to eight times the recorded, whose
// upper bound meets the deadline (searched on the bounds, which need no
// replays), with that prediction's estimate.
func AnswerSpark(sp *SparkProfile, tg SparkTarget, deadlineMs float64) (*Answer, error) {
	p, err := PredictSpark(sp, tg)
	if err != nil {
		return nil, err
	}
	out := &Answer{Estimate: p.Estimate(tg.InputBytes, tg.Executors), Spark: p}
	if deadlineMs <= 0 {
		return out, nil
	}
	search := tg
	search.Estimator = EstimatorWhatIf
	limit := 8 * max(1, sp.Executors)
	for n := 1; n <= limit; n++ {
		search.Executors, tg.Executors = n, n
		q, err := PredictSpark(sp, search)
		if err == nil && q.Bounds.High <= deadlineMs {
			if q, err = PredictSpark(sp, tg); err != nil {
				return nil, err
			}
		}
		if err == nil && q.Bounds.High <= deadlineMs {
			out.Deadline = &DeadlineAnswer{DeadlineMs: deadlineMs, Executors: n, Estimate: q.Estimate(tg.InputBytes, n)}
			return out, nil
		}
	}
	return nil, fmt.Errorf("no executor count up to %d meets the deadline %s by the upper bound", limit, durationMs(deadlineMs))
}

// AnswerMR predicts a MapReduce job for tg on the platform; with
// deadlineMs > 0 it also finds the fewest slots whose bound meets the
// deadline (MinSlotsMR).
func AnswerMR(jp *JobProfile, pl *Platform, tg MRTarget, deadlineMs float64, bound Bound) (*Answer, error) {
	p, err := PredictMR(jp, pl, tg)
	if err != nil {
		return nil, err
	}
	out := &Answer{Estimate: p.Estimate(tg.InputBytes, tg.Slots), MapReduce: p, Profile: jp}
	if deadlineMs > 0 {
		s, q, err := MinSlotsMR(jp, pl, tg, deadlineMs, bound)
		if err != nil {
			return nil, err
		}
		out.Deadline = &DeadlineAnswer{DeadlineMs: deadlineMs, Slots: &s, Estimate: q.Estimate(tg.InputBytes, s)}
	}
	return out, nil
}
