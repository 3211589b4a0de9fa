package shs

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestTypedAnswers: the typed answers equal the routes' answers to the
// same requests without parameters, for every attempt of every shared
// Spark log.
func TestTypedAnswers(t *testing.T) {
	apps := loadDir(t, sharedtest.Dir(t, "logs"))
	ix := NewIndex(apps)
	now := time.UnixMilli(1_700_000_000_000)
	ix.Now = func() time.Time { return now }
	n := 0
	for _, a := range apps {
		if a.Engine != model.Spark || a.ID == "" || ix.attempt(a.ID, attemptID(a)) != a {
			// not listed, or another log of the same attempt wins
			continue
		}
		base := "applications/" + a.ID
		if a.AttemptID != "" {
			base += "/" + a.AttemptID
		}
		for _, c := range []struct {
			res   string
			typed any
		}{{"allexecutors", ix.AllExecutors(a)}, {"jobs", ix.Jobs(a)}, {"stages", ix.Stages(a)}} {
			want, err := ix.Get(base+"/"+c.res, nil)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(c.typed)
			w, _ := json.Marshal(want)
			if string(g) != string(w) {
				t.Errorf("%s/%s: typed answer differs from the route's", base, c.res)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no Spark application to compare")
	}
}

func attemptID(a *model.App) *string {
	if a.AttemptID == "" {
		return nil
	}
	return &a.AttemptID
}
