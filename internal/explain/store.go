package explain

import (
	"context"
	"fmt"
	"slices"

	"github.com/clusterlens/clusterlens/internal/history"
)

// Options choose what a run is compared with.
type Options struct {
	Params Params
	// Group joins a job's variants (history.Group) into the recurring job
	// whose runs are comparable.
	Group history.GroupOptions
	// Nodes judges nodes against their own history (nil: OwnHistory).
	Nodes NodeModel
}

// FindRun reads a run from st by its key (engine/application id/attempt)
// or its application id (the latest attempt), with Detail.
func FindRun(ctx context.Context, st history.Store, ref string) (*history.Run, error) {
	keys := []string{ref}
	for _, engine := range []string{"spark", "mapreduce"} {
		for _, attempt := range []string{"", "1", "2", "3", "4"} {
			keys = append(keys, engine+"/"+ref+"/"+attempt)
		}
	}
	runs, err := st.Runs(ctx, history.Filter{Keys: keys, Detail: true})
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("run %q: %w (clusterlens history lists runs with their application ids)", ref, history.ErrNotFound)
	}
	// The exact key, else the latest attempt (runs are newest first).
	if i := slices.IndexFunc(runs, func(r *history.Run) bool { return r.Key == ref }); i >= 0 {
		return runs[i], nil
	}
	return runs[0], nil
}

// UsualRuns returns run's comparable earlier runs in st: the runs of its
// recurring job (its variants as history.Group joins them) that succeeded
// and started before it, the newest opt.Params.Usual, newest first, with
// Detail.
func UsualRuns(ctx context.Context, st history.Store, run *history.Run, opt Options) ([]*history.Run, error) {
	vs, err := st.Variants(ctx)
	if err != nil {
		return nil, err
	}
	keys := []string{run.JobKey}
	for _, g := range history.Group(vs, opt.Group) {
		if slices.Contains(g.Variants, run.JobKey) {
			keys = g.Variants
			break
		}
	}
	return st.Runs(ctx, history.Filter{JobKeys: keys, Status: history.StatusSucceeded, To: run.Start,
		Limit: opt.Params.Usual, Detail: true})
}

// Run explains the run ref (FindRun) against its usual runs in st.
func Run(ctx context.Context, st history.Store, ref string, opt Options) (*Explanation, error) {
	run, err := FindRun(ctx, st, ref)
	if err != nil {
		return nil, err
	}
	usual, err := UsualRuns(ctx, st, run, opt)
	if err != nil {
		return nil, err
	}
	return Explain(run, usual, opt.Params, opt.Nodes), nil
}
