package live

import (
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Progress is how far a running application got: its task attempts by
// state and its stages, newest first.
type Progress struct {
	// Tasks are the attempts launched; Running those not ended, Failed
	// those ended failed or killed.
	Tasks, Running, Failed int
	// Executors are those added and not removed; Jobs those submitted.
	Executors, Jobs int
	// Stages are the stage attempts, the newest submitted first (at most
	// MaxStages); StagesAll how many there are.
	Stages    []StageProgress
	StagesAll int
	// Newest is the newest task event's time (Unix ms): a launch or an end.
	Newest int64
}

// StageProgress is one stage attempt's tasks.
type StageProgress struct {
	ID, Attempt            int32
	Name, Status           string
	Total, Running, Failed int
	// Done counts the attempts ended successfully.
	Done int
}

// MaxStages is how many stages a Progress lists.
const MaxStages = 30

// ProgressOf counts app's tasks and stages.
func ProgressOf(app *model.App) *Progress {
	p := &Progress{Jobs: len(app.Jobs), StagesAll: len(app.Stages)}
	for _, e := range app.Executors {
		if e.Removed == 0 {
			p.Executors++
		}
	}
	for i := len(app.Stages) - 1; i >= 0; i-- {
		st := app.Stages[i]
		sp := StageProgress{ID: st.ID, Attempt: st.Attempt, Name: st.Name, Status: strings.ToLower(st.Status.String()), Total: int(st.NumTasks)}
		for j := range st.Tasks {
			t := &st.Tasks[j]
			p.Newest = max(p.Newest, t.Launch, t.Finish)
			switch {
			case !t.Done():
				sp.Running++
			case t.Status == model.TaskSuccess:
				sp.Done++
			default:
				sp.Failed++
			}
		}
		p.Tasks += len(st.Tasks)
		p.Running += sp.Running
		p.Failed += sp.Failed
		if len(p.Stages) < MaxStages {
			p.Stages = append(p.Stages, sp)
		}
	}
	return p
}
