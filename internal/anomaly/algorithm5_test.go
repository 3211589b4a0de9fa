package anomaly

import (
	"math"
	"testing"
)

// TestPaperOutliersExample runs DetectPaper on the paper's own example
// (§3.3.4): normalised means hw073 0.006838, hw106 0.15604399, hw114
// 0.17810599 have orders of magnitude −2, 0, 0, so hw073 is a magnitude
// outlier; the two left, min-max normalised to 0 and 1, fall one in each
// class, and the pseudo-code's else branch measures B's point (hw106) to
// A's representative: distance 1 > d_min.
func TestPaperOutliersExample(t *testing.T) {
	p := DefaultOutlierParams()
	p.Detect, p.Scale, p.Floor = DetectPaper, ScaleMinMax, 0
	orders, mag, dist := paperOutliers([]float64{0.006838, 0.15604399, 0.17810599}, p)
	if orders[0] != 2 || orders[1] != 0 || orders[2] != 0 || !mag[0] || mag[1] || mag[2] {
		t.Errorf("orders %v magnitude %v, want [2 0 0] [true false false]", orders, mag)
	}
	if !math.IsNaN(dist[0]) || dist[1] != 1 || !math.IsNaN(dist[2]) {
		t.Errorf("distances %v, want [NaN 1 NaN]", dist)
	}
	// Without the magnitude test the three are one class of two near the
	// maximum and hw073 alone: 0.8953 from the nearest point, 0.9477 from
	// the median, 1 from the farthest.
	p.Orders = 0
	for rep, want := range map[Rep]float64{RepMaxMin: (0.15604399 - 0.006838) / (0.17810599 - 0.006838),
		RepMedian: ((0.15604399+0.17810599)/2 - 0.006838) / (0.17810599 - 0.006838), RepFar: 1} {
		p.Rep = rep
		_, _, dist = paperOutliers([]float64{0.006838, 0.15604399, 0.17810599}, p)
		if math.Abs(dist[0]-want) > 1e-9 || !math.IsNaN(dist[1]) || !math.IsNaN(dist[2]) {
			t.Errorf("%v: distances %v, want [%.4f NaN NaN]", rep, dist, want)
		}
	}
}

// TestOutlierMetricsPaper checks DetectPaper through OutlierMetrics: six
// nodes, one at three times the others' level on one metric.
func TestOutlierMetricsPaper(t *testing.T) {
	hosts := []string{"a", "b", "c", "d", "e", "f"}
	series := make([][][]float64, 6)
	for i := range series {
		v := 10.0 + float64(i)*0.1
		if i == 4 {
			v = 30
		}
		series[i] = [][]float64{{v, v, v}, {5, 5.1, 4.9}}
	}
	p := DefaultOutlierParams()
	p.Detect, p.CCR = DetectPaper, 1
	rep, err := OutlierMetrics(hosts, []string{"cpu", "mem"}, series, p)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range rep.Nodes {
		got := len(n.Outliers())
		if want := map[bool]int{true: 1, false: 0}[i == 4]; got != want {
			t.Errorf("%s: %d outlier metrics %+v, want %d", n.Host, got, n.Outliers(), want)
		}
	}
	if o := rep.Nodes[4].Outliers(); len(o) == 1 && (o[0].Metric != "cpu" || !o[0].Distant || o[0].Distance < 0.6) {
		t.Errorf("e's outlier %+v, want cpu by distance (≈ 0.66 under ScaleMax)", o[0])
	}
}
