package hetero

import (
	"context"
	"fmt"
	"slices"

	"github.com/clusterlens/clusterlens/internal/history"
)

// Models the assessment can fit.
const (
	ModelJoint = "joint"
	ModelPaper = "paper"
)

// Options choose what Assess fits and judges.
type Options struct {
	// Model is ModelJoint (the default) or ModelPaper.
	Model string
	// Recent is how many of the newest runs are judged; the older ones
	// (from Since on) are the history the model is fitted on.
	Recent int
	// Since bounds the history's start (epoch ms; 0: all).
	Since  int64
	Params Params
}

// Assessment is the cluster's nodes as the model sees them.
type Assessment struct {
	Model       string `json:"model"`
	HistoryRuns int    `json:"historyRuns"`
	JudgedRuns  int    `json:"judgedRuns"`
	// JudgedFrom and JudgedTo are the start times of the first and last
	// runs judged.
	JudgedFrom int64 `json:"judgedFrom"`
	JudgedTo   int64 `json:"judgedTo"`
	// Classes and Speeds are the joint model's (empty for the paper's).
	Classes  []Class     `json:"classes"`
	Speeds   []NodeSpeed `json:"speeds"`
	Verdicts []Verdict   `json:"verdicts"`
}

// Assess reads the store's runs, fits the model on all but the Recent
// newest and judges those.
func Assess(ctx context.Context, st history.Store, opt Options) (*Assessment, error) {
	if opt.Recent <= 0 {
		return nil, fmt.Errorf("recent runs to judge: %d, want at least 1", opt.Recent)
	}
	runs, err := st.Runs(ctx, history.Filter{Detail: true, From: opt.Since, Oldest: true})
	if err != nil {
		return nil, err
	}
	if len(runs) <= opt.Recent {
		return nil, fmt.Errorf("%w: %d runs in the store, so none is left to learn from after judging the %d newest (index more runs, or judge fewer with --recent)",
			ErrNoHistory, len(runs), opt.Recent)
	}
	hist, judged := runs[:len(runs)-opt.Recent], runs[len(runs)-opt.Recent:]
	a := &Assessment{Model: opt.Model, HistoryRuns: len(hist), JudgedRuns: len(judged),
		JudgedFrom: judged[0].Start, JudgedTo: judged[len(judged)-1].Start, Classes: []Class{}, Speeds: []NodeSpeed{}}
	switch opt.Model {
	case "", ModelJoint:
		a.Model = ModelJoint
		m, err := Fit(hist, opt.Params)
		if err != nil {
			return nil, err
		}
		a.Classes, a.Speeds, a.Verdicts = nonNil(m.Classes()), m.Speeds(), m.Judge(judged)
	case ModelPaper:
		m, err := FitPaper(hist, opt.Params)
		if err != nil {
			return nil, err
		}
		a.Verdicts = m.Judge(judged)
	default:
		return nil, fmt.Errorf("model %q: want %s or %s", opt.Model, ModelJoint, ModelPaper)
	}
	return a, nil
}

// FitStore fits the joint model on every run in the store but those with
// the keys in exclude (the runs about to be judged with it).
func FitStore(ctx context.Context, st history.Store, exclude map[string]bool, p Params) (*Joint, error) {
	runs, err := st.Runs(ctx, history.Filter{Detail: true, Oldest: true})
	if err != nil {
		return nil, err
	}
	runs = slices.DeleteFunc(runs, func(r *history.Run) bool { return exclude[r.Key] })
	return Fit(runs, p)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
