package diagnose

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// drMemoryFormat is MemoryFormatUtils.REGEX_MATCHER (case-insensitive, the
// whole string): a number, optional spaces and an optional unit. The
// character class [T|G|M|K] is Dr. Elephant's, "|" included.
var drMemoryFormat = regexp.MustCompile(`(?i)^([-+]?\d*\.?\d+(?:[eE][-+]?\d+)?)\s*((?:[T|G|M|K])?B?)?$`)

// drMemoryUnits are MemoryFormatUtils.UNITS, powers of 1024.
var drMemoryUnits = map[string]float64{"TB": 1 << 40, "GB": 1 << 30, "MB": 1 << 20, "KB": 1 << 10, "B": 1}

// drStringToBytes is Dr. Elephant's MemoryFormatUtils.stringToBytes
// (app/com/linkedin/drelephant/util/MemoryFormatUtils.java): "4g", "512 MB",
// "1.5GB" or a plain byte count to bytes, truncated. A number without unit is
// bytes (unlike Spark's own settings, where it is MiB); a negative number or
// an unknown unit is an error, as Dr. Elephant throws.
func drStringToBytes(s string) (int64, error) {
	m := drMemoryFormat.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("parse memory %q: want a number and a unit", s)
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("parse memory %q: %w", s, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("parse memory %q: negative", s)
	}
	unit := strings.ToUpper(m[2])
	if !strings.HasSuffix(unit, "B") {
		unit += "B"
	}
	f, ok := drMemoryUnits[unit]
	if !ok {
		return 0, fmt.Errorf("parse memory %q: unknown unit %q", s, m[2])
	}
	return int64(n * f), nil
}

// drUnitOrder is MemoryFormatUtils.UNITS in its (descending) order.
var drUnitOrder = []string{"TB", "GB", "MB", "KB", "B"}

// drBytesToString is MemoryFormatUtils.bytesToString: the value in the
// largest unit it reaches, formatted as DecimalFormat("#,##0.##") does (at
// most two decimals, half-even, grouping commas).
func drBytesToString(v int64) string {
	if v < 0 {
		v = 0
	}
	for _, u := range drUnitOrder {
		b := int64(drMemoryUnits[u])
		if v >= b {
			return drDecimal(float64(v)/float64(b)) + " " + u
		}
	}
	return strconv.FormatInt(v, 10) + " B"
}

// drDecimal formats like DecimalFormat("#,##0.##").
func drDecimal(f float64) string {
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	whole, frac, _ := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	if frac != "" {
		return whole + "." + frac
	}
	return whole
}
