package shs

import (
	"slices"
	"sort"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Index is the set of applications the API answers about, grouped and
// ordered as Spark's FsHistoryProvider lists them. It is safe for
// concurrent use; per-attempt aggregates and encoded answers are computed
// on first use and kept (see With).
type Index struct {
	apps []*appEntry
	byID map[string]*appEntry

	// Now is the clock for requests that depend on the current time (running
	// applications); nil means time.Now.
	Now func() time.Time

	heads  map[*model.App]bool // attempts known from their logs' first events only
	unread int                 // logs not read in full
	cache  *cache
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
// the same attempt, the one updated last wins (see With for heads).
func NewIndex(apps []*model.App) *Index {
	return newIndex(apps, nil, 0, newCache())
}

// With returns an index of apps, read in full, and heads, applications
// known only from the first events of their logs, with unread logs not
// read in full yet (heads among them). Heads are listed as the History
// Server lists an application whose end it has not read yet (end -1, not
// completed) and Pending reports them. The new index keeps ix's clock and
// its aggregates and encoded answers for the attempts it still holds, so
// that a server reading logs one by one does not recompute the others.
func (ix *Index) With(apps, heads []*model.App, unread int) *Index {
	out := newIndex(append(slices.Clip(apps), heads...), heads, unread, ix.cache.keep(apps))
	out.Now = ix.Now
	return out
}

func newIndex(apps, heads []*model.App, unread int, c *cache) *Index {
	ix := &Index{byID: map[string]*appEntry{}, unread: unread, cache: c}
	if len(heads) > 0 {
		ix.heads = make(map[*model.App]bool, len(heads))
		for _, h := range heads {
			ix.heads[h] = true
		}
	}
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
				// An attempt read in full wins over one known from its
				// log's first events; else the log updated last wins.
				if ah, oh := ix.heads[a], ix.heads[old]; ah == oh && a.LastUpdated >= old.LastUpdated || oh && !ah {
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

// Pending reports whether an attempt of application appID is listed from
// the first events of its log only: its other resources need it read.
func (ix *Index) Pending(appID string) bool {
	if e := ix.byID[appID]; e != nil && len(ix.heads) > 0 {
		for _, a := range e.attempts {
			if ix.heads[a] {
				return true
			}
		}
	}
	return false
}

// Has reports whether the index lists application appID.
func (ix *Index) Has(appID string) bool { return ix.byID[appID] != nil }

// Unread is the number of logs not read in full yet: the listing may lack
// applications, and list others from their first events only.
func (ix *Index) Unread() int { return ix.unread }

// now returns the index's clock in epoch milliseconds. Answers that read
// it are not cached (clockReads).
func (ix *Index) now() int64 {
	ix.cache.clockReads.Add(1)
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
	c := ix.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.views[a]
	if v == nil {
		v = newAppView(a, ix.now)
		c.views[a] = v
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
