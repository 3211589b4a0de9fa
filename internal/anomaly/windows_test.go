package anomaly

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWindowsLongReference: two metrics follow a slow cycle between 20 and
// 80, then stay flat at 50; a level of 75 for an hour is far from the
// flat recent past but inside the cycle's range, a level of 120 outside
// it. With the long-term reference only the 120 is abnormal; without, the
// 75 is too.
func TestWindowsLongReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var x [][]float64
	for i := range 1900 {
		level := 50.0
		switch {
		case i < 1200:
			level = 50 + 30*math.Sin(2*math.Pi*float64(i)/600)
		case i >= 1600 && i < 1660:
			level = 75
		case i >= 1800 && i < 1830:
			level = 120
		}
		x = append(x, []float64{level + r.NormFloat64(), level + r.NormFloat64()})
	}
	p := WindowParams{Window: 5, History: 120, Lookback: 240, MinHistory: 60, Step: 5, DMin: 4, Floor: 0.02, MinMetrics: 2,
		RankFloor: 0.05, LongHistory: 2000, LongQuantile: 0.005}
	for _, c := range []struct {
		long int
		want [][2]int // windows must cover these rows, and nothing else after row 1200
	}{
		{2000, [][2]int{{1800, 1830}}},
		{0, [][2]int{{1600, 1660}, {1800, 1830}}},
	} {
		p.LongHistory = c.long
		res, err := AbnormalWindows(x, p)
		if err != nil {
			t.Fatal(err)
		}
		var got []Window
		for _, w := range res.Windows {
			if w.End > 1200 {
				got = append(got, w)
			}
		}
		if len(got) != len(c.want) {
			t.Fatalf("long history %d: %d windows after the cycle %v, want %d around %v", c.long, len(got), got, len(c.want), c.want)
		}
		for i, w := range got {
			if w.Start > c.want[i][0]+5 || w.End < c.want[i][1] || w.Start < c.want[i][0]-5 || w.End > c.want[i][1]+10 {
				t.Errorf("long history %d: window %d-%d, want about %v", c.long, w.Start, w.End, c.want[i])
			}
		}
	}
	p.LongQuantile = 0.5
	if _, err := AbnormalWindows(x, p); err == nil {
		t.Error("long quantile 0.5: want an error")
	}
}
