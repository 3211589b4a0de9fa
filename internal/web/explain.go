package web

import (
	"context"
	"fmt"

	"github.com/clusterlens/clusterlens/internal/driver"
	why "github.com/clusterlens/clusterlens/internal/explain"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/model"
)

// The application and recurring-job pages say how a run compares with its
// job's usual runs and why (package explain, docs/EXPLAIN.md), when the
// server has a run history.

// explanation explains app against its recurring job's usual runs in the
// run history; nil without a history, or when the history lacks the run
// (its log not indexed yet), and then why.
func (u *UI) explanation(ctx context.Context, app *model.App) (*why.Explanation, string) {
	if u.o.History == nil {
		return nil, ""
	}
	e, err := why.Run(ctx, u.o.History, history.RunKey(app), driver.Explaining())
	if err != nil {
		return nil, err.Error()
	}
	return e, ""
}

// maxRegressions is how many of a job's latest slower runs its page
// explains.
const maxRegressions = 5

// regressions explains the latest slower runs among a job's runs (newest
// first) with their judgments.
func (u *UI) regressions(ctx context.Context, runs []*history.Brief, judged []why.Judgment) []*why.Explanation {
	var out []*why.Explanation
	for i, r := range runs {
		if len(out) == maxRegressions {
			break
		}
		if judged[i].Verdict != why.Slower {
			continue
		}
		e, err := why.Run(ctx, u.o.History, r.Key, driver.Explaining())
		if err != nil {
			u.o.Log.Warn("explain a run for its job's page", "run", r.Key, "err", err)
			continue
		}
		out = append(out, e)
	}
	return out
}

// writeExplanation writes how a run compares with its usual runs and, when
// it is slower or faster, the causes with their shares and what they name.
func writeExplanation(w *htmlw.Writer, e *why.Explanation) {
	w.Raw(`<p class="explain verdict `).Text(e.Verdict).Raw(`">`).Text(e.Summary).Raw("</p>\n")
	if e.Verdict != why.Slower && e.Verdict != why.Faster {
		return
	}
	w.Raw(`<table class="grid"><tr><th class="num">share</th><th class="num">seconds</th><th>cause</th><th>names</th><th>evidence</th></tr>` + "\n")
	for _, c := range e.Causes {
		for i, it := range c.Items {
			w.Raw(`<tr><td class="num">`)
			if i == 0 {
				w.Text(pct(c.Share))
			}
			w.Raw(`</td><td class="num">`).Text(fmt.Sprintf("%+.1f", it.Seconds)).Raw("</td><td>")
			if i == 0 {
				w.Text(c.Kind)
			}
			w.Raw("</td><td>").Text(itemName(it)).Raw("</td><td>").Text(it.Evidence).Raw("</td></tr>\n")
		}
	}
	w.Raw(`<tr><td class="num">`).Text(pct(e.UnexplainedShare)).Raw(`</td><td class="num">`).Text(fmt.Sprintf("%+.1f", float64(e.UnexplainedMs)/1000)).
		Raw("</td><td>unexplained</td><td>-</td><td>what no cause explains</td></tr>\n</table>\n")
	w.Raw(`<p class="explain">Compared with `).Int(int64(len(e.Usual.Runs))).Raw(" earlier runs of its recurring job: usual ").Text(ms(e.Usual.MedianMs)).
		Raw(", spread ").Text(ms(e.Usual.SpreadMs)).Raw(", ").Text(ms(e.Usual.LowMs)).Raw(" to ").Text(ms(e.Usual.HighMs)).Raw(` is usual (docs/EXPLAIN.md).</p>` + "\n")
}

// itemName is what an item of a cause names.
func itemName(it why.Item) string {
	switch {
	case it.Node != "":
		return it.Node
	case it.Key != "":
		return it.Key + " = " + it.To
	case it.Stage >= 0:
		return fmt.Sprintf("stage %d", it.Stage)
	}
	return or(it.StageName, "-")
}
