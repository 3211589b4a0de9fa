package driver

import (
	"context"
	"slices"

	"github.com/clusterlens/clusterlens/internal/analysis"
	why "github.com/clusterlens/clusterlens/internal/explain"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/model"
)

// Regressions compares each application (apps[i] analyzed as as[i])
// with its recurring job's usual runs in the run history and adds, to a
// slower one's findings (at least min grave), the slower-than-usual
// finding (docs/EXPLAIN.md).
func Regressions(ctx context.Context, st history.Store, apps []*model.App, as []*analysis.Analysis, min finding.Severity) error {
	opt := why.Options{Params: why.DefaultParams}
	for i, a := range as {
		run := history.FromApp(apps[i], apps[i].Source, false, nil)
		usual, err := why.UsualRuns(ctx, st, run, opt)
		if err != nil {
			return err
		}
		f := why.Finding(why.Explain(run, usual, opt.Params, opt.Nodes))
		if f == nil || f.Severity < min {
			continue
		}
		i := slices.IndexFunc(a.Findings, func(g finding.Finding) bool { return g.Severity < f.Severity })
		if i < 0 {
			i = len(a.Findings)
		}
		a.Findings = slices.Insert(a.Findings, i, *f)
	}
	return nil
}
