package web

import (
	"fmt"
	"math"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/report"
)

// The pages' content is written by Go functions, one per view (the
// view_*.go files), with htmlw: what html/template did, without keeping
// every exported method of the program alive (internal/htmlw).

// messagePage is a page that says one thing.
func messagePage(title, text string) *page {
	return &page{Title: title, View: "message", Content: func(w *htmlw.Writer) {
		w.Raw("<h1>").Text(title).Raw("</h1>\n<p class=\"message\">").Text(text).Raw("</p>")
	}}
}

// The values of the pages, formatted.

// ms is a duration in ms in words (report.Millis).
func ms(v int64) string { return report.Millis(v) }

// delta is a change of duration with its sign: "-1.2s" (faster), "+340ms"
// (slower), "0ms" (report.Millis alone prints "-" for any negative).
func delta(v int64) string {
	switch {
	case v < 0:
		return "-" + report.Millis(-v)
	case v > 0:
		return "+" + report.Millis(v)
	}
	return "0ms"
}

// msf is a duration in ms, rounded.
func msf(f float64) string { return report.Millis(int64(math.Round(f))) }

// when is a time (Unix ms) in UTC (report.Time).
func when(v int64) string { return report.Time(v) }

// pct is a share as a whole percentage.
func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + "%" }

// signed is a change as a signed whole percentage.
func signed(f float64) string { return fmt.Sprintf("%+.0f%%", 100*f) }

// count is a whole number with its thousands grouped (5,236).
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// num is a number with four significant digits.
func num(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) }

// change is a relative change as a signed percentage, "-" when unknown.
func change(c float64) string {
	if math.IsNaN(c) {
		return "-"
	}
	return signed(c)
}

// changed says a change is large enough to mark.
func changed(c float64) bool { return math.Abs(c) >= 0.1 }

// measure formats a value of a kind ("ms", "bytes", or a count).
func measure(kind string, v int64) string {
	switch kind {
	case "ms":
		return report.Millis(v)
	case "bytes":
		return report.Bytes(v)
	}
	return strconv.FormatInt(v, 10)
}

// size is a number of bytes in words (report.Bytes).
func size(v int64) string { return report.Bytes(v) }
