package predict

import (
	"math"
	"strconv"
	"strings"
)

// Plain formats a number for people without an exponent: integers as
// they are, others to about four significant digits, trailing zeros
// dropped (1083295, 12.35, 0.0042).
func Plain(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	a := math.Abs(v)
	if a >= 1000 || v == math.Trunc(v) {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	digits := 3
	if a > 0 {
		digits = max(0, 3-int(math.Floor(math.Log10(a))))
	}
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// PlainSpan is lo–hi in Plain numbers, or one number when they are equal.
func PlainSpan(lo, hi float64) string {
	if Plain(lo) == Plain(hi) {
		return Plain(lo)
	}
	return Plain(lo) + "–" + Plain(hi)
}
