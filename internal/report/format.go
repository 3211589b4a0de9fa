// Package report renders analyses for people and programs: text for the
// terminal and JSON.
package report

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Bytes renders a byte count with binary units: 0 B, 512 B, 1.5 KiB, 3.2 GiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	f := float64(n)
	exp := 0
	for math.Abs(f) >= unit && exp < 6 {
		f /= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", f, "KMGTPE"[exp-1])
}

// Millis renders a duration in milliseconds compactly: 850ms, 12.3s, 4m05s, 2h03m.
func Millis(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case ms < 0:
		return "-"
	case d < time.Second:
		return strconv.FormatInt(ms, 10) + "ms"
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// Time renders epoch milliseconds as UTC, or "-" when unknown.
func Time(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05Z")
}
