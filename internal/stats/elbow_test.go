package stats

import "testing"

func TestElbow(t *testing.T) {
	for _, tc := range []struct {
		d    []float64
		want int
	}{
		{[]float64{1000, 300, 120, 100, 90, 85, 82}, 2},
		{[]float64{100, 50, 10, 9, 8}, 2},
		{[]float64{10, 5}, 0},
		{nil, -1},
		{[]float64{5, 5, 5, 5}, 0},
	} {
		if got := Elbow(tc.d); got != tc.want {
			t.Errorf("Elbow(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}
