package diagnose

import (
	"fmt"
	"time"
)

// dur formats milliseconds for summaries ("4m12s", "850ms").
func dur(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.String()
}

// pct formats a share as a percentage.
func pct(share float64) string { return fmt.Sprintf("%.0f%%", 100*share) }

// coreHours formats core-milliseconds as core-hours.
func coreHours(coreMs int64) string { return fmt.Sprintf("%.2f core-hours", float64(coreMs)/3.6e6) }
