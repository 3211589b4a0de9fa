package eventlog

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/model"
)

// seen remembers which task, stage, job, SQL, resource-profile and process
// events were applied, so that an event logged twice (a log concatenated
// with itself, a part read twice) is applied once and counted in
// Quality.Duplicates. Spark's legitimate
// repeats are new events here: a task retry or speculative copy has a new
// task id, a stage re-attempt a new attempt id, and a Resubmitted TaskEnd
// (model.App.Resubmitted) follows the TaskEnd of the same task id once.
//
// Task ids are dense from 0 within an application, so they are kept in
// pages of a bitmap: two bits per id, about a bit per task in all.
type seen struct {
	pages       map[int64]*idPage
	last        *idPage // the page of the latest lookup: ids come in order
	lastKey     int64
	resubmitted map[int64]bool
	stages      map[model.StageKey]uint8
	jobs        map[int32]uint8
	sql         map[int64]uint8
	profiles    map[int32]uint8
	processes   map[string]uint8
}

// The bits kept per id or key.
const (
	seenStart uint8 = 1 << iota // task start, stage submitted, job start, SQL start
	seenEnd                     // task end, stage completed, job end, SQL end
)

const pageShift = 9 // 512 ids a page

type idPage [2][1 << (pageShift - 6)]uint64

// task records a task event of kind (seenStart or seenEnd) for id and
// reports whether it is new.
func (s *seen) task(id int64, kind uint8) bool {
	key := id >> pageShift
	p := s.last
	if p == nil || key != s.lastKey {
		if s.pages == nil {
			s.pages = map[int64]*idPage{}
		}
		p = s.pages[key]
		if p == nil {
			p = &idPage{}
			s.pages[key] = p
		}
		s.last, s.lastKey = p, key
	}
	bit := uint(id) & (1<<pageShift - 1)
	w := &p[kind>>1][bit>>6]
	mask := uint64(1) << (bit & 63)
	if *w&mask != 0 {
		return false
	}
	*w |= mask
	return true
}

// resubmit records a Resubmitted TaskEnd for id and reports whether it is new.
func (s *seen) resubmit(id int64) bool {
	if s.resubmitted[id] {
		return false
	}
	if s.resubmitted == nil {
		s.resubmitted = map[int64]bool{}
	}
	s.resubmitted[id] = true
	return true
}

// seenState is seen with exported fields, for a snapshot (resume.go).
type seenState struct {
	Pages       map[int64]idPage
	Resubmitted map[int64]bool
	Stages      map[model.StageKey]uint8
	Jobs        map[int32]uint8
	SQL         map[int64]uint8
	Profiles    map[int32]uint8
	Processes   map[string]uint8
}

func (s *seen) state() seenState {
	st := seenState{Pages: make(map[int64]idPage, len(s.pages)), Resubmitted: s.resubmitted, Stages: s.stages,
		Jobs: s.jobs, SQL: s.sql, Profiles: s.profiles, Processes: s.processes}
	for k, p := range s.pages {
		st.Pages[k] = *p
	}
	return st
}

func (s *seen) restore(st seenState) {
	*s = seen{resubmitted: st.Resubmitted, stages: st.Stages, jobs: st.Jobs, sql: st.SQL, profiles: st.Profiles, processes: st.Processes}
	if len(st.Pages) > 0 {
		s.pages = make(map[int64]*idPage, len(st.Pages))
		for k, p := range st.Pages {
			s.pages[k] = &p
		}
	}
}

// once records bit for key in m and reports whether it is new.
func once[K comparable](m *map[K]uint8, key K, bit uint8) bool {
	if (*m)[key]&bit != 0 {
		return false
	}
	if *m == nil {
		*m = map[K]uint8{}
	}
	(*m)[key] |= bit
	return true
}

// duplicate counts an event that repeats one already applied.
func (d *Decoder) duplicate(event, what string) {
	q := &d.app.Quality
	q.Duplicates++
	if q.Duplicates <= model.MaxKindSamples {
		q.AddHandled(d.file, d.line, fmt.Sprintf("%s for %s already applied: duplicate ignored", event, what))
	}
}
