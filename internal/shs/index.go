package shs

import (
	"sort"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Index is the set of applications the API answers about, grouped and
// ordered as Spark's FsHistoryProvider lists them. It is safe for
// concurrent use; per-attempt aggregates are computed on first use.
type Index struct {
	apps []*appEntry
	byID map[string]*appEntry

	// Now is the clock for requests that depend on the current time (running
	// applications); nil means time.Now.
	Now func() time.Time

	mu    sync.Mutex
	views map[*model.App]*appView
}

// appEntry is one application with its attempts, newest start first.
type appEntry struct {
	id       string
	name     string
	attempts []*model.App
}

// NewIndex groups apps (one per attempt, as read from one log each) by
// application id. Applications without an id, and those not run by Spark,
// are left out, as the History Server leaves them out. When two logs hold
// the same attempt, the one updated last wins.
func NewIndex(apps []*model.App) *Index {
	ix := &Index{byID: map[string]*appEntry{}, views: map[*model.App]*appView{}}
	for _, a := range apps {
		if a == nil || a.ID == "" || a.Engine != model.Spark {
			continue
		}
		e := ix.byID[a.ID]
		if e == nil {
			e = &appEntry{id: a.ID}
			ix.byID[a.ID] = e
			ix.apps = append(ix.apps, e)
		}
		replaced := false
		for i, old := range e.attempts {
			if old.AttemptID == a.AttemptID {
				if a.LastUpdated >= old.LastUpdated {
					e.attempts[i] = a
				}
				replaced = true
				break
			}
		}
		if !replaced {
			e.attempts = append(e.attempts, a)
		}
	}
	for _, e := range ix.apps {
		sort.SliceStable(e.attempts, func(i, j int) bool {
			a, b := e.attempts[i], e.attempts[j]
			if a.Start != b.Start {
				return a.Start > b.Start
			}
			return a.AttemptID > b.AttemptID
		})
		e.name = e.attempts[0].Name
	}
	// The listing is the "endTime" index in reverse: latest end first (a
	// running attempt's end is -1), ties by application id, descending.
	sort.SliceStable(ix.apps, func(i, j int) bool {
		a, b := attemptEnd(ix.apps[i].attempts[0]), attemptEnd(ix.apps[j].attempts[0])
		if a != b {
			return a > b
		}
		return ix.apps[i].id > ix.apps[j].id
	})
	return ix
}

// now returns the index's clock in epoch milliseconds.
func (ix *Index) now() int64 {
	if ix.Now != nil {
		return ix.Now().UnixMilli()
	}
	return time.Now().UnixMilli()
}

// attempt finds an application attempt as the History Server's getAppUI
// does: attemptID nil asks for the attempt without an id.
func (ix *Index) attempt(appID string, attemptID *string) *model.App {
	e := ix.byID[appID]
	if e == nil {
		return nil
	}
	for _, a := range e.attempts {
		if attemptID == nil && a.AttemptID == "" || attemptID != nil && a.AttemptID != "" && a.AttemptID == *attemptID {
			return a
		}
	}
	return nil
}

// view returns the aggregates of an attempt, computing them once.
func (ix *Index) view(a *model.App) *appView {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	v := ix.views[a]
	if v == nil {
		v = newAppView(a, ix.now)
		ix.views[a] = v
	}
	return v
}

// attemptEnd is the end time the History Server lists for an attempt:
// the application-end time, or -1 while running.
func attemptEnd(a *model.App) int64 {
	if !a.Complete {
		return -1
	}
	return a.End
}
