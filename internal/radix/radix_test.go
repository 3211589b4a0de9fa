package radix

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortStable compares Sort with the expected stable order on keys
// spanning one to four 16-bit digits, with many ties.
func TestSortStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 10, SmallSort - 1, SmallSort, 3000, wideFrom, 50_000} {
		for _, span := range []uint64{1, 1 << 10, 1 << 40, 1<<64 - 1} {
			p := make([]Keyed, n)
			for i := range p {
				p[i] = Keyed{Key: rng.Uint64N(span) &^ 0xfff0, Idx: int32(i)} // ties in the low digits
			}
			got, _ := Sort(slices.Clone(p), make([]Keyed, n))
			if len(got) != n {
				t.Fatalf("n=%d: got %d", n, len(got))
			}
			for i := 1; i < len(got); i++ {
				if a, b := got[i-1], got[i]; a.Key > b.Key || a.Key == b.Key && a.Idx > b.Idx {
					t.Fatalf("n=%d span=%d: %+v before %+v", n, span, a, b)
				}
			}
			for _, k := range got {
				if p[k.Idx] != k {
					t.Fatalf("n=%d span=%d: %+v is not an input key", n, span, k)
				}
			}
		}
	}
}

// TestInt64s compares Int64s with slices.Sort, negative values included.
func TestInt64s(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, SmallSort - 1, SmallSort, 3000, wideFrom, 50_000} {
		for _, span := range []int64{1, 1 << 20, 1 << 62} {
			p := make([]int64, n)
			for i := range p {
				p[i] = rng.Int64N(span) - span/2
			}
			if n > 2 {
				p[0], p[1] = math.MinInt64, math.MaxInt64
			}
			want := slices.Clone(p)
			slices.Sort(want)
			got, _ := Int64s(p, make([]int64, n))
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d span=%d: differs from slices.Sort", n, span)
			}
		}
	}
}

// TestTimeKeys checks that keys order times as the times order, negative
// times included.
func TestTimeKeys(t *testing.T) {
	times := []int64{5, -3, 1 << 40, -3, 0}
	keys := TimeKeys(nil, func(i int) int64 { return times[i] }, len(times))
	got, _ := Sort(keys, make([]Keyed, len(keys)))
	var order []int32
	for _, k := range got {
		order = append(order, k.Idx)
	}
	if want := []int32{1, 3, 4, 0, 2}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
}

// BenchmarkSort sorts 400,000 keys of 30 bits (the time keys of 100,000
// task attempts' four events); BenchmarkSlicesSort is the comparison sort
// on the same keys.
func BenchmarkSort(b *testing.B) {
	p := benchKeys()
	work, buf := make([]Keyed, len(p)), make([]Keyed, len(p))
	b.SetBytes(int64(16 * len(p)))
	b.ReportAllocs()
	for b.Loop() {
		copy(work, p)
		Sort(work, buf)
	}
}

func BenchmarkSlicesSort(b *testing.B) {
	p := benchKeys()
	work := make([]Keyed, len(p))
	b.SetBytes(int64(16 * len(p)))
	b.ReportAllocs()
	for b.Loop() {
		copy(work, p)
		slices.SortStableFunc(work, func(a, b Keyed) int { return cmp.Compare(a.Key, b.Key) })
	}
}

func benchKeys() []Keyed {
	rng := rand.New(rand.NewPCG(7, 8))
	p := make([]Keyed, 400_000)
	for i := range p {
		p[i] = Keyed{Key: rng.Uint64N(1 << 30), Idx: int32(i)}
	}
	return p
}
