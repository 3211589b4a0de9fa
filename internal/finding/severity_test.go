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
