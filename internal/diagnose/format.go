package diagnose

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/finding"
)

// dur formats milliseconds for summaries ("4m12s", "850ms").
func dur(ms int64) string { return finding.Millis(ms) }

// pct formats a share as a percentage.
func pct(share float64) string { return fmt.Sprintf("%.0f%%", 100*share) }

// coreHours formats core-milliseconds as core-hours.
func coreHours(coreMs int64) string { return fmt.Sprintf("%.2f core-hours", float64(coreMs)/3.6e6) }
