package dataflow

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSpecMismatch is returned when a specification maps no vertex onto a
// task pool the application's attempts belong to.
var ErrSpecMismatch = errors.New("dataflow specification does not fit the application")

// Activity is what the timeline colours and the breakdowns count: the
// vertices of a specification that occupy one recorded phase of one task
// pool. Vertices that share a phase (Hadoop's merge and sort, Hive's
// operators inside map) run pipelined in it, so each instance of the
// activity is an instance of each of its vertices (HiTune §4–5).
type Activity struct {
	// Name is the vertex names joined by "+", or the phase's name when no
	// vertex maps onto it (Mapped is then false).
	Name     string   `json:"name"`
	Vertices []string `json:"vertices,omitempty"`
	Pool     Pool     `json:"pool"`
	Phase    Phase    `json:"phase"`
	Mapped   bool     `json:"mapped"`
	// Cause is what the activity's time counts toward.
	Cause Cause `json:"cause"`
	// WaitsFor is the task pool that feeds this activity over a
	// sequential remote edge from another pool (HiTune §7.2): the activity
	// cannot finish before every source attempt has, so its time before that
	// pool's last attempt finished is waiting for shuffle data.
	WaitsFor Pool `json:"waitsFor,omitempty"`
}

// activityTable maps (pool, phase position) to an activity index.
type activityTable [numPools][maxPhases]int16

// buildActivities derives the activities of spec for the pools present.
func buildActivities(s *Spec, present [numPools]bool) ([]Activity, activityTable, error) {
	var table activityTable
	var acts []Activity
	mapsPool := [numPools]bool{}
	for _, m := range s.VertexMappings {
		mapsPool[m.TaskPool] = true
	}
	for p := PoolSpark; p < numPools; p++ {
		for i := range table[p] {
			table[p][i] = -1
		}
		if !present[p] {
			continue
		}
		if !mapsPool[p] && (p == PoolSpark || p == PoolMap || p == PoolReduce) {
			return nil, table, fmt.Errorf("%w: specification %q maps no vertex onto task pool %s", ErrSpecMismatch, s.Name, p)
		}
		for i, ph := range Layout(p) {
			var vs []string
			for _, m := range s.VertexMappings {
				if m.TaskPool == p && m.Phase == ph {
					vs = append(vs, m.Vertex)
				}
			}
			a := Activity{Name: ph.String(), Vertices: vs, Pool: p, Phase: ph, Mapped: len(vs) > 0,
				Cause: phaseCause(ph), WaitsFor: waitsFor(s, vs, p)}
			if a.Mapped {
				a.Name = strings.Join(vs, "+")
			}
			idx := -1
			for j := range acts {
				if acts[j].Name == a.Name && acts[j].Cause == a.Cause && acts[j].WaitsFor == a.WaitsFor {
					idx = j
				}
			}
			if idx < 0 {
				idx = len(acts)
				acts = append(acts, a)
			}
			table[p][i] = int16(idx)
		}
	}
	return acts, table, nil
}

// waitsFor is the pool feeding vertices vs (in pool p) over a sequential
// remote edge from a vertex mapped onto another pool, or PoolNone.
func waitsFor(s *Spec, vs []string, p Pool) Pool {
	for _, v := range vs {
		for _, m := range s.EdgeMappings {
			if m.Edge.To != v || m.Location != Remote || m.Type != Sequential {
				continue
			}
			for _, src := range s.Mappings(m.Edge.From) {
				if src.TaskPool != p {
					return src.TaskPool
				}
			}
		}
	}
	return PoolNone
}
