package diagnose

import (
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// nodeApp builds a Spark application of stages stages, each with 8 tasks
// on every host; dur gives a host's task duration (ms) in a stage.
func nodeApp(hosts []string, stages int, dur func(host string, stage, task int) int64) *model.App {
	app := &model.App{Engine: model.Spark, Hosts: append([]string{""}, hosts...), Reasons: []model.Reason{{}}}
	var m model.TaskMetrics
	id := int64(0)
	for s := range stages {
		st := &model.Stage{ID: int32(s), Kind: model.StageSpark}
		for h, host := range hosts {
			for i := range 8 {
				d := dur(host, s, i)
				id++
				st.AddTask(model.Task{ID: id, Index: int32(h*8 + i), Launch: 1000, Finish: 1000 + d, Host: uint32(h + 1),
					Status: model.TaskSuccess, HasMetrics: true}, &m)
			}
		}
		app.Stages = append(app.Stages, st)
	}
	return app
}

// fixedModel expects each host's tasks to take factor[host] times the
// typical node's.
type fixedModel map[string]float64

func (f fixedModel) Expect(*model.App) Expectation {
	return func(_ model.StageKey, host string) (float64, bool) {
		v, ok := f[host]
		return v, ok
	}
}

func flaggedNodes(app *model.App, nm NodeModel) []string {
	var out []string
	for _, f := range Run(app, Options{Only: []string{"straggler-nodes"}, NodeModel: nm}) {
		out = append(out, f.Scope.IDs...)
	}
	slices.Sort(out)
	return out
}

// TestStragglerNodesNodeModel: host old is slow by design (2x), host new
// fast by design (0.5x) but degraded 2.2x, so that it runs as fast as the
// median. Alone the detector calls old a straggler and misses new; with a
// node model that expects old at 2x and new at 0.5x it flags new alone,
// with its raw ratio in the evidence. A host the model does not know is
// compared as it runs.
func TestStragglerNodesNodeModel(t *testing.T) {
	hosts := []string{"a", "b", "c", "d", "old", "new"}
	factor := map[string]float64{"old": 2, "new": 0.5 * 2.2}
	app := nodeApp(hosts, 3, func(h string, _, i int) int64 {
		f, ok := factor[h]
		if !ok {
			f = 1
		}
		return int64(f * float64(10_000+100*i))
	})
	if got := flaggedNodes(app, nil); !slices.Equal(got, []string{"old"}) {
		t.Errorf("without a model: flagged %v, want [old]", got)
	}
	nm := fixedModel{"a": 1, "b": 1, "c": 1, "d": 1, "old": 2, "new": 0.5}
	fs := Run(app, Options{Only: []string{"straggler-nodes"}, NodeModel: nm})
	if len(fs) != 1 || fs[0].Scope.IDs[0] != "new" {
		t.Fatalf("with the model: %+v, want new alone", fs)
	}
	if r, raw := evidence(t, fs[0], "medianDurationRatio"), evidence(t, fs[0], "rawMedianDurationRatio"); r < 2 || r > 2.4 || raw > 1.2 {
		t.Errorf("new: ratio against its model %.2f (want about 2.2), raw %.2f (want about 1.1)", r, raw)
	}
	delete(nm, "old")
	if got := flaggedNodes(app, nm); !slices.Equal(got, []string{"new", "old"}) {
		t.Errorf("model without old: flagged %v, want [new old]", got)
	}
}

// TestStragglerNodesLostRace: host s's slowest attempts were killed when
// speculative copies elsewhere won the race; its surviving attempts ran
// 1.2x the median (8 attempts), its killed ones at least 3x (9). Counting the killed ones'
// elapsed time, a lower bound, makes s a straggler node; leaving them out
// (as before) kept only its faster attempts.
func TestStragglerNodesLostRace(t *testing.T) {
	hosts := []string{"a", "b", "c", "s"}
	app := nodeApp(hosts, 1, func(h string, _, i int) int64 {
		if h == "s" {
			return 12_000 + int64(i)
		}
		return 10_000 + int64(100*i)
	})
	app.Reasons = append(app.Reasons, model.Reason{Kind: "TaskKilled", Message: "another attempt succeeded"})
	st := app.Stages[0]
	var m model.TaskMetrics
	for i := range 9 {
		// The original on s, killed at 3x when the copy on a won.
		st.AddTask(model.Task{ID: int64(100 + i), Index: int32(100 + i), Launch: 1000, Finish: 31_000, Host: 4,
			Status: model.TaskKilled, Reason: 1, HasMetrics: true}, &m)
		st.AddTask(model.Task{ID: int64(200 + i), Index: int32(100 + i), Attempt: 1, Launch: 21_000, Finish: 31_000, Host: 1,
			Status: model.TaskSuccess, Speculative: true, HasMetrics: true}, &m)
	}
	if got := flaggedNodes(app, nil); !slices.Equal(got, []string{"s"}) {
		t.Errorf("flagged %v, want [s]", got)
	}
}
