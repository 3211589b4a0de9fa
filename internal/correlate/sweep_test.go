package correlate

import (
	"math/rand/v2"
	"testing"
)

// randomWindows makes n windows over [0, span) ms, some long, some empty.
func randomWindows(rng *rand.Rand, n int, span int64) []window {
	ws := make([]window, n)
	for i := range ws {
		s := rng.Int64N(span)
		d := rng.Int64N(5000)
		if rng.IntN(20) == 0 {
			d = rng.Int64N(span)
		}
		if rng.IntN(50) == 0 {
			d = 0
		}
		ws[i] = window{s, s + d, int32(i)}
	}
	sortWindows(ws)
	return ws
}

// TestSweepAgainstBruteForce checks the sweep and rowRange (the matrices'
// row ranges) against the membership rule applied to every (row, window)
// pair, with and without tolerance, with irregular sample times.
func TestSweepAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		span := int64(60_000)
		ws := randomWindows(rng, 1+rng.IntN(200), span)
		var times []int64
		for ts := -rng.Int64N(3000); ts < span+3000; ts += 1 + rng.Int64N(1500) {
			times = append(times, ts)
		}
		iv, skew := 1+rng.Int64N(2000), rng.Int64N(3000)
		if trial%5 == 0 {
			skew = 0
		}
		got := map[[2]int]bool{}
		sweep(times, iv, skew, ws, nil, func(row int, id int32) {
			k := [2]int{row, int(id)}
			if got[k] {
				t.Fatalf("trial %d: row %d window %d twice", trial, row, id)
			}
			got[k] = true
		})
		want := 0
		for row, ts := range times {
			for _, w := range ws {
				if member(ts, iv, skew, w) {
					want++
					if !got[[2]int{row, int(w.id)}] {
						t.Fatalf("trial %d: row %d (t=%d iv %d skew %d) not in window %+v", trial, row, ts, iv, skew, w)
					}
				}
			}
		}
		if want != len(got) {
			t.Fatalf("trial %d: %d assignments, brute force %d", trial, len(got), want)
		}
		for _, w := range ws {
			lo, hi := rowRange(times, iv, skew, w)
			for row, ts := range times {
				if in := row >= lo && row < hi; in != member(ts, iv, skew, w) {
					t.Fatalf("trial %d: window %+v rows [%d, %d), row %d (t=%d) member %v", trial, w, lo, hi, row, ts, !in)
				}
			}
		}
	}
}

// TestMemberRule pins the interval semantics: a sample at t covers
// (t-iv, t]; windows touching it only at an end point do not count.
func TestMemberRule(t *testing.T) {
	w := window{start: 10_000, end: 20_000}
	for _, c := range []struct {
		t, skew int64
		in      bool
	}{
		{10_000, 0, false}, // covers (9000, 10000]: touches the start only
		{10_001, 0, true},
		{21_000, 0, false}, // covers (20000, 21000]
		{20_999, 0, true},
		{8_500, 2000, true}, // within the tolerance before the start
		{22_500, 2000, true},
		{23_000, 2000, false},
	} {
		if got := member(c.t, 1000, c.skew, w); got != c.in {
			t.Errorf("t=%d skew %d: member %v, want %v", c.t, c.skew, got, c.in)
		}
	}
}

// BenchmarkSweep assigns a day of 1 s samples on one host (86,400 rows) to
// 100,000 task windows of 10–60 s (about 35 open at a time); per 1,000
// hosts that is 86 million samples and 100 million tasks.
func BenchmarkSweep(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const day = 86_400_000
	ws := make([]window, 100_000)
	for i := range ws {
		s := rng.Int64N(day)
		ws[i] = window{s, s + 10_000 + rng.Int64N(50_000), int32(i)}
	}
	sortWindows(ws)
	times := make([]int64, day/1000)
	for i := range times {
		times[i] = int64(i+1) * 1000
	}
	var active []window
	b.ReportAllocs()
	b.SetBytes(int64(len(times)) * 8)
	b.ResetTimer()
	n := 0
	for range b.N {
		active = sweep(times, 1000, 2000, ws, active, func(int, int32) { n++ })
	}
	b.ReportMetric(float64(n)/float64(b.N), "assignments/op")
}
