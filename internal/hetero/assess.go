package hetero

import (
	"context"
	"fmt"
	"slices"

	"github.com/clusterlens/clusterlens/internal/history"
)

// Models the assessment can fit.
const (
	ModelJoint    = "joint"
	ModelPaper    = "paper"
	ModelBaseline = "baseline"
)

// Options choose what Assess fits and judges.
type Options struct {
	// Model is ModelJoint (the default), ModelPaper or ModelBaseline.
	Model string
	// Recent is how many of the newest runs are judged; the older ones
	// (from Since on) are the history the model is fitted on.
	Recent int
	// Run, when set, judges that one run (its key or application id)
	// against the runs that started before it instead.
	Run string
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
	Classes []Class     `json:"classes"`
	Speeds  []NodeSpeed `json:"speeds"`
	// Verdicts judge the runs judged together (a window); Runs judge each
	// of them on its own, newest last.
	Verdicts []Verdict     `json:"verdicts"`
	Runs     []RunVerdicts `json:"runs"`
	// Tail says, for the joint model, how the residuals' null
	// distribution was calibrated.
	Tail string `json:"tail,omitempty"`
}

// Assess reads the store's runs, fits the model on all but the Recent
// newest (or on those before Options.Run) and judges those, together and
// each on its own.
func Assess(ctx context.Context, st history.Store, opt Options) (*Assessment, error) {
	if opt.Recent <= 0 && opt.Run == "" {
		return nil, fmt.Errorf("recent runs to judge: %d, want at least 1", opt.Recent)
	}
	runs, err := st.Runs(ctx, history.Filter{Detail: true, From: opt.Since, Oldest: true})
	if err != nil {
		return nil, err
	}
	hist, judged, err := split(runs, opt)
	if err != nil {
		return nil, err
	}
	a := &Assessment{Model: opt.Model, HistoryRuns: len(hist), JudgedRuns: len(judged),
		JudgedFrom: judged[0].Start, JudgedTo: judged[len(judged)-1].Start, Classes: []Class{}, Speeds: []NodeSpeed{}}
	var j interface {
		Judge([]*history.Run) []Verdict
	}
	switch opt.Model {
	case "", ModelJoint:
		a.Model = ModelJoint
		m, err := Fit(hist, opt.Params)
		if err != nil {
			return nil, err
		}
		a.Classes, a.Speeds, a.Verdicts, a.Runs, a.Tail = nonNil(m.Classes()), m.Speeds(), m.Judge(judged), m.JudgeRuns(judged), m.tail.describe()
		return a, nil
	case ModelPaper:
		if j, err = FitPaper(hist, opt.Params); err != nil {
			return nil, err
		}
	case ModelBaseline:
		if j, err = FitBaseline(hist, opt.Params); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("model %q: want %s, %s or %s", opt.Model, ModelJoint, ModelPaper, ModelBaseline)
	}
	a.Verdicts = j.Judge(judged)
	for _, r := range judged {
		a.Runs = append(a.Runs, RunVerdicts{Key: r.Key, ID: r.ID, Name: r.Name, Start: r.Start, Verdicts: j.Judge([]*history.Run{r})})
	}
	return a, nil
}

// split divides the store's runs (oldest first) into the history and the
// runs judged.
func split(runs []*history.Run, opt Options) (hist, judged []*history.Run, err error) {
	if opt.Run != "" {
		i := slices.IndexFunc(runs, func(r *history.Run) bool { return r.Key == opt.Run || r.ID == opt.Run })
		switch {
		case i < 0:
			return nil, nil, fmt.Errorf("run %q: not in the run history's %d runs (give a key or application id that history lists)", opt.Run, len(runs))
		case i == 0:
			return nil, nil, fmt.Errorf("%w: run %q is the oldest in the store, so no run before it is left to learn from", ErrNoHistory, opt.Run)
		}
		return runs[:i], runs[i : i+1], nil
	}
	if len(runs) <= opt.Recent {
		return nil, nil, fmt.Errorf("%w: %d runs in the store, so none is left to learn from after judging the %d newest (index more runs, or judge fewer with --recent)",
			ErrNoHistory, len(runs), opt.Recent)
	}
	return runs[:len(runs)-opt.Recent], runs[len(runs)-opt.Recent:], nil
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
