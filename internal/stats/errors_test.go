package stats

import (
	"math"
	"strings"
	"testing"
)

func TestBadInputErrors(t *testing.T) {
	nan := &Dense{N: 3, D: 2, X: []float64{1, 2, 3, math.Inf(1), 5, 6}}
	if _, err := KMeans(nan, KMeansOptions{K: 2}); err == nil || !strings.Contains(err.Error(), "row 1, column 1") {
		t.Errorf("KMeans with Inf: %v", err)
	}
	if _, err := FitPCA(nan, 0.9); err == nil {
		t.Error("FitPCA with Inf: no error")
	}
	if _, err := FitPCA(NewDense(1, 3), 0.9); err == nil {
		t.Error("FitPCA with one sample: no error")
	}
	if _, err := KMeans(NewDense(3, 2), KMeansOptions{K: 4}); err == nil {
		t.Error("KMeans with K > N: no error")
	}
	if _, err := KMeansFrom(NewDense(3, 2), NewDense(2, 3), KMeansOptions{}); err == nil {
		t.Error("KMeansFrom with mismatched centers: no error")
	}
}
