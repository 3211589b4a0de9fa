package diagnose

import "github.com/clusterlens/clusterlens/internal/model"

// NodeModel is what a model of the cluster's nodes learned elsewhere
// expects of each node (package hetero fits one from the run history:
// PARC, Gupta et al., DX 2012): on a heterogeneous cluster a node of an
// older generation is expected to be slow, so straggler-nodes compares
// each node's tasks with what its own model expects instead of with its
// peers alone, and a node slow by design is not called a straggler.
type NodeModel interface {
	// Expect returns, for app, the expected duration of host's tasks in
	// the stage attempt with key st as a factor over the cluster's typical
	// node (1.4: 40% longer); ok is false when the model knows nothing of
	// host (no history), and the node is then compared as it runs.
	Expect(app *model.App) Expectation
}

// Expectation is a NodeModel's answer for one application (an alias, so
// that packages that cannot import diagnose take the same function type).
type Expectation = func(st model.StageKey, host string) (factor float64, ok bool)

// expectation returns the node model's expectation for the input's
// application, computed once (nil without a model).
func (in *Input) expectation() Expectation {
	if in.NodeModel == nil {
		return nil
	}
	if in.expect == nil {
		in.expect = in.NodeModel.Expect(in.App)
	}
	return in.expect
}
