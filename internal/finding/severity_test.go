package finding

import "testing"

func TestSeverity(t *testing.T) {
	l := Limits{1, 2, 3, 4}
	for v, want := range map[float64]Severity{0.5: None, 1: Low, 2.5: Moderate, 3: Severe, 9: Critical} {
		if got := l.Ascending(v); got != want {
			t.Errorf("Ascending(%v) = %v, want %v", v, got, want)
		}
	}
	d := Limits{0.5, 0.4, 0.3, 0.2}
	for v, want := range map[float64]Severity{0.6: None, 0.5: Low, 0.35: Moderate, 0.3: Severe, 0.1: Critical} {
		if got := d.Descending(v); got != want {
			t.Errorf("Descending(%v) = %v, want %v", v, got, want)
		}
	}
	if _, err := ParseSeverity("bad"); err == nil {
		t.Error("ParseSeverity accepted bad")
	}
	if _, err := Severity(9).MarshalText(); err == nil {
		t.Error("out-of-range severity marshaled")
	}
}

// TestGradeImpact: the share and an absolute cost must both reach a grade.
func TestGradeImpact(t *testing.T) {
	l := DefaultImpactLimits
	for _, c := range []struct {
		im   Impact
		want Severity
	}{
		{Impact{WallMs: 20_000, Share: 0.5}, Low},                          // most of a 40 s test run
		{Impact{WallMs: 40_000, Share: 0.5}, Low},                          // 40 s: under a minute
		{Impact{WallMs: 80_000, Share: 0.5}, Moderate},                     // 80 s
		{Impact{WallMs: 10 * 60_000, Share: 0.5}, Critical},                // 10 min of 20
		{Impact{WallMs: 10 * 60_000, Share: 0.02}, Low},                    // 10 min of a day
		{Impact{WallMs: 10 * 60_000, Share: 0.2}, Severe},                  // 10 min of 50
		{Impact{WallMs: 500, Share: 0.9}, None},                            // half a second
		{Impact{CoreMs: 80 * 3_600_000, CoreShare: 0.6}, Severe},           // cost alone: at most severe
		{Impact{CoreMs: 8 * 3_600_000, CoreShare: 0.6}, Moderate},          // 8 core-hours held idle
		{Impact{CoreMs: 600_000, CoreShare: 0.6}, None},                    // 10 core-minutes
		{Impact{WallMs: 5_000, Share: 0.5, CoreMs: 5 * 3_600_000}, Severe}, // many cores
		{Impact{WallMs: 1_800, Share: 0.07, CoreMs: 1_100_000}, Low},       // a little GC on a big cluster
	} {
		if got := l.Grade(c.im); got != c.want {
			t.Errorf("Grade(%+v) = %v, want %v", c.im, got, c.want)
		}
	}
}
