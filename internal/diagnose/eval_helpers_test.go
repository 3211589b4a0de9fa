package diagnose

import (
	"strconv"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

func simulate(t *testing.T, name string, seed uint64) *sim.Result {
	t.Helper()
	sc, err := sim.Named(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, seed, nil)
	if err != nil {
		t.Fatalf("simulate %s seed %d: %v", name, seed, err)
	}
	return res
}

func appByID(res *sim.Result, id string) *model.App {
	for _, a := range res.Apps {
		if a.ID == id {
			return a
		}
	}
	return &model.App{}
}

func taskByID(st *model.Stage, id string) (*model.Task, bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil, false
	}
	for i := range st.Tasks {
		if st.Tasks[i].ID == n {
			return &st.Tasks[i], true
		}
	}
	return nil, false
}

// stragglerCause recomputes the likeliest cause of one straggler as the
// detector does.
func stragglerCause(app *model.App, st *model.Stage, tk *model.Task) (string, bool) {
	p := DefaultStragglerParams
	slow, _ := nodeSlowness(app, p.ThD, p.MinTasks, p.MinNodeTasks)
	for si, s := range app.Stages {
		if s != st {
			continue
		}
		recs := stageRecords(app, si)
		prof := newStageProfile(recs)
		for i := range recs {
			if recs[i].id == tk.ID {
				return likeliest(prof.explained(&recs[i], slow[recs[i].host], p.ThD)), true
			}
		}
	}
	return "", false
}
