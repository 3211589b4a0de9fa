package diagnose

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// drMemoryFormat is MemoryFormatUtils's pattern: a decimal number and an
// optional unit (B, K, KB, M, MB, G, GB, T, TB, P, PB, any case).
var drMemoryFormat = regexp.MustCompile(`^([0-9.]+)\s*([a-zA-Z]*)$`)

// drMemoryUnits are MemoryFormatUtils's units, powers of 1024.
var drMemoryUnits = map[string]float64{"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40, "PB": 1 << 50}

// drStringToBytes is Dr. Elephant's MemoryFormatUtils.stringToBytes
// (app/com/linkedin/drelephant/util/MemoryFormatUtils.java): "4g", "512 MB",
// "1.5GB" or a plain byte count to bytes; commas are ignored. A number
// without unit is bytes (unlike Spark's own settings, where it is MiB).
func drStringToBytes(s string) (int64, error) {
	m := drMemoryFormat.FindStringSubmatch(strings.TrimSpace(strings.ReplaceAll(s, ",", "")))
	if m == nil {
		return 0, fmt.Errorf("parse memory %q: want a number and a unit", s)
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("parse memory %q: %w", s, err)
	}
	unit := strings.ToUpper(m[2])
	switch {
	case unit == "":
		unit = "B"
	case len(unit) == 1 && unit != "B":
		unit += "B"
	}
	f, ok := drMemoryUnits[unit]
	if !ok {
		return 0, fmt.Errorf("parse memory %q: unknown unit %q", s, m[2])
	}
	return int64(n * f), nil
}
