package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
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
	slow, _, _ := nodeSlowness(app, p.ThD, p.MinTasks, p.MinNodeTasks, nil)
	for si, s := range app.Stages {
		if s != st {
			continue
		}
		recs := stageRecords(app, si)
		prof := newStageProfile(recs)
		for i := range recs {
			if recs[i].id == tk.ID {
				return likeliest(prof.explained(&recs[i], slow[recs[i].host], p.ThD), float64(recs[i].dur)-prof.medDur), true
			}
		}
	}
	return "", false
}

// causeTally counts, for the true stragglers a detector found, the
// simulator's cause against the detector's likeliest one.
type causeTally struct {
	n, right int
	pairs    map[string]int // "truth→detector"
}

// causeMatches says which detector cause names each simulator cause: the
// node (its hardware) and its faults are both the node to the logs; noise
// is what no logged metric explains.
var causeMatches = map[string]string{
	"data-size": causeData, "locality": causeLocality, "gc": causeGC,
	"node": causeNode, "fault": causeNode, "noise": causeUnknown,
}

func (c *causeTally) add(truth, detector string) {
	if c.pairs == nil {
		c.pairs = map[string]int{}
	}
	c.n++
	if causeMatches[truth] == detector {
		c.right++
	}
	c.pairs[truth+"→"+detector]++
}

// String lists the pairs, most frequent first.
func (c causeTally) String() string {
	var keys []string
	for k := range c.pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c.pairs[a] != c.pairs[b] {
			return c.pairs[b] - c.pairs[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, c.pairs[k]))
	}
	return strings.Join(parts, ", ")
}
