package hetero

import (
	"math"

	"github.com/clusterlens/clusterlens/internal/diagnose"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/model"
)

// Expect implements diagnose.NodeModel: for app, the expected duration of
// a host's tasks in each stage as a factor over the average node,
// exp(u_n · v_j) — PARC's expected μ* of a node for a job (eq. 6) in log
// space, without the run-stage's offset (α, which the stage's median
// carries). v_j is the job class's learned loadings, or its resource
// class's prior ones for a job class the history has not seen (as Judge).
// Stages the model leaves out of its fit (nodeWork: MapReduce reduces,
// setup and cleanup) get their resource class's prior loadings too: the
// node is as slow there as its factors say. A node with fewer than
// MinHistoryTasks history tasks has no expectation.
func (m *Joint) Expect(app *model.App) diagnose.Expectation {
	r := history.FromApp(app, "", false, nil)
	k := m.p.Rank
	loads := make(map[model.StageKey][]float64, len(r.Stages))
	for i := range r.Stages {
		st := &r.Stages[i]
		v := priorLoading(st.Class, k)
		if j, ok := m.job(jobKey(r, st)); ok {
			v = m.v[int(j)*k : int(j)*k+k]
		}
		loads[model.StageKey{ID: st.ID, Attempt: st.Attempt}] = v
	}
	return func(st model.StageKey, host string) (float64, bool) {
		n, ok := m.nodeIx[host]
		v, known := loads[st]
		if !ok || !known || m.tasks[n] < m.p.MinHistoryTasks {
			return 0, false
		}
		return math.Exp(dot(m.u[int(n)*k:int(n)*k+k], v)), true
	}
}
