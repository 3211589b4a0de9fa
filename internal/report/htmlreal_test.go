package report

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestHTMLDataEveryRealLog builds the page data for every application in
// the shared logs and checks that every list the page's script walks is a
// list, never null, whatever the log lacked (tasks, executors, stages).
func TestHTMLDataEveryRealLog(t *testing.T) {
	res, err := decodelogs.Paths([]string{sharedtest.Dir(t, "logs")}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) < 100 {
		t.Fatalf("only %d applications in the shared logs", len(res.Apps))
	}
	for _, app := range res.Apps {
		a := analysis.Build(app, analysis.Options{Reconstruction: true})
		h := buildHTMLApp(a, MaxTimelineBars)
		if h.Findings == nil || h.Notes == nil {
			t.Errorf("%s: findings or notes null", app.Source)
		}
		if T := h.Timeline; T != nil {
			if T.Activities == nil || T.Colors == nil || T.Rows == nil || T.Alloc == nil || T.Gaps == nil ||
				(T.Mode == "exact" && T.Bars == nil) || (T.Mode == "binned" && T.Cells == nil) || len(T.Colors) != len(T.Activities) {
				t.Errorf("%s: timeline has a null list: %+v", app.Source, T)
			}
		}
		if N := h.NodeTime; N != nil && (N.Hosts == nil || N.Busy == nil) {
			t.Errorf("%s: node heat map has a null list", app.Source)
		}
		if d := h.Dataflow; d != nil {
			if d.Stages == nil || d.Nodes == nil || len(d.Causes) != len(causeColors) {
				t.Errorf("%s: breakdown has a null list", app.Source)
			}
		}
	}
}
