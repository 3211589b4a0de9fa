package report

import "testing"

// TestRunDuration: a run without an end shows its duration as a lower
// bound, and no duration as "-", never "0ms" (issue 23).
func TestRunDuration(t *testing.T) {
	for _, c := range []struct {
		end, ms int64
		want    string
	}{{1, 1500, Millis(1500)}, {0, 1500, "≥ " + Millis(1500)}, {0, 0, "-"}, {1, 0, "-"}} {
		if got := RunDuration(c.end, c.ms); got != c.want {
			t.Errorf("RunDuration(%d, %d) = %q, want %q", c.end, c.ms, got, c.want)
		}
	}
}
