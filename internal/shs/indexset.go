package shs

import "github.com/clusterlens/clusterlens/internal/model"

// indexSet is a set of a stage's task indices: a bitset for the indices
// the stage holds (below its task count), a map for any other, so that a
// log declaring huge indices costs no more memory than it has tasks.
type indexSet struct {
	bits  []uint64
	other map[int32]struct{}
	n     int64
}

// newIndexSet sizes a set for st's indices.
func newIndexSet(st *model.Stage) *indexSet {
	size := min(max(int(st.NumTasks), len(st.Tasks)), 4*len(st.Tasks)+64)
	return &indexSet{bits: make([]uint64, (size+63)/64)}
}

// add adds i, reporting whether it was new.
func (s *indexSet) add(i int32) bool {
	if w := int(i) >> 6; i >= 0 && w < len(s.bits) {
		bit := uint64(1) << (uint(i) & 63)
		if s.bits[w]&bit != 0 {
			return false
		}
		s.bits[w] |= bit
		s.n++
		return true
	}
	if _, ok := s.other[i]; ok {
		return false
	}
	if s.other == nil {
		s.other = map[int32]struct{}{}
	}
	s.other[i] = struct{}{}
	s.n++
	return true
}
