package shs

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestIndexSet checks the set against a map, with indices inside and far
// outside the stage's declared count (negative and huge ones included).
func TestIndexSet(t *testing.T) {
	st := &model.Stage{NumTasks: 100, Tasks: make([]model.Task, 50)}
	s := newIndexSet(st)
	want := map[int32]struct{}{}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var i int32
		switch rng.IntN(4) {
		case 0:
			i = rng.Int32N(math.MaxInt32)
		case 1:
			i = -rng.Int32N(1000) - 1
		default:
			i = rng.Int32N(300)
		}
		_, seen := want[i]
		want[i] = struct{}{}
		if added := s.add(i); added == seen {
			t.Fatalf("add(%d) = %v after %d adds, want %v", i, added, len(want), !seen)
		}
	}
	if s.n != int64(len(want)) {
		t.Fatalf("%d indices, want %d", s.n, len(want))
	}
	if len(s.bits)*64 > 4*len(st.Tasks)+64+63 {
		t.Fatalf("bitset of %d words for %d tasks", len(s.bits), len(st.Tasks))
	}
}
