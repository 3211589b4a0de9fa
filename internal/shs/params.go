package shs

import (
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Query parameters are converted the way Jersey converts them for Spark's
// resources. Per JAX-RS, a @QueryParam or @PathParam value that cannot be
// converted (an unknown enum name, a malformed integer) makes the request
// 404 Not Found; Spark's own checks (dates, quantiles) answer 400.

// paramError is the 404 Jersey answers for a query parameter it cannot convert.
func paramError(name, msg string) *Error {
	return notFound("bad value for query parameter %q: %s", name, msg)
}

// enumValues parses every value of a repeated enum parameter, matching names
// case-insensitively as Spark's EnumUtil.parseIgnoreCase does.
func enumValues(q url.Values, name string, names []string) ([]string, *Error) {
	var out []string
	for _, v := range q[name] {
		n, err := parseEnum(v, names)
		if err != nil {
			return nil, paramError(name, err.Message)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseEnum returns the canonical name matching s case-insensitively.
func parseEnum(s string, names []string) (string, *Error) {
	for _, n := range names {
		if strings.EqualFold(n, s) {
			return n, nil
		}
	}
	return "", &Error{Status: 404, Message: "Illegal type='" + s + "'. Supported type values: " + strings.Join(names, ", ")}
}

// boolParam is a Java Boolean.valueOf: true only for "true" in any case.
func boolParam(q url.Values, name string, def bool) bool {
	v, ok := first(q, name)
	if !ok {
		return def
	}
	return strings.EqualFold(v, "true")
}

// intParam is a Java Integer.valueOf of the first value, or def when absent.
func intParam(q url.Values, name string, def int) (int, *Error) {
	v, ok := first(q, name)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, paramError(name, "For input string: \""+v+"\"")
	}
	return int(n), nil
}

// first returns a parameter's first value; an empty value counts as absent,
// as Jersey then applies the default.
func first(q url.Values, name string) (string, bool) {
	vs := q[name]
	if len(vs) == 0 || vs[0] == "" {
		return "", false
	}
	return vs[0], true
}

// parseQuantiles parses a comma-separated list of doubles as Spark's
// parseQuantileString does (Java's String.split drops trailing empty parts).
func parseQuantiles(s string) ([]float64, *Error) {
	parts := strings.Split(s, ",")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 0 {
		// "".split(",") is [""] in Java, which fails to parse.
		return nil, badParameter("quantiles", "double", "")
	}
	out := make([]float64, len(parts))
	for i, p := range parts {
		v, ok := javaDouble(p)
		if !ok {
			return nil, badParameter("quantiles", "double", p)
		}
		out[i] = v
	}
	return out, nil
}

// javaDouble parses s like Java's Double.parseDouble: surrounding white
// space is ignored and a trailing d, D, f or F type suffix allowed.
func javaDouble(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	if n := len(t); n > 1 && strings.ContainsRune("dDfF", rune(t[n-1])) {
		t = t[:n-1]
	}
	switch t {
	case "NaN":
		return math.NaN(), true
	case "Infinity", "+Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	if t == "" || strings.ContainsAny(t, "xXpP_") || strings.EqualFold(t, "inf") || strings.EqualFold(t, "+inf") ||
		strings.EqualFold(t, "-inf") || strings.EqualFold(t, "infinity") || strings.EqualFold(t, "nan") {
		return 0, false
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, true
		}
		return 0, false
	}
	return v, true
}

// dateParam parses a date the way Spark's SimpleDateParam does: first as
// "yyyy-MM-dd'T'HH:mm:ss.SSSz", then as a GMT day "yyyy-MM-dd". A value
// that parses as neither is a 400 "Couldn't parse date: ...".
func dateParam(q url.Values, name, def string) (int64, *Error) {
	v, ok := first(q, name)
	if !ok {
		v = def
	}
	if ms, ok := parseSimpleDate(v); ok {
		return ms, nil
	}
	return 0, badRequest("Couldn't parse date: %s", v)
}

// timeZones are the time-zone spellings accepted after the milliseconds.
var timeZones = []string{"GMT", "UTC", "Z"}

// Dates are read as java.text.SimpleDateFormat reads them: leniently (a
// month 13 rolls into the next year) and from the start of the text, so
// trailing characters are ignored.
var (
	fullDate = regexp.MustCompile(`^(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)\.(\d+)(.+)$`)
	dayDate  = regexp.MustCompile(`^(\d+)-(\d+)-(\d+)`)
)

// parseSimpleDate implements SimpleDateParam: "yyyy-MM-dd'T'HH:mm:ss.SSSz"
// (for example 2015-02-03T16:42:40.000GMT or ...000-0800), else a GMT day
// "yyyy-MM-dd".
func parseSimpleDate(s string) (int64, bool) {
	if m := fullDate.FindStringSubmatch(s); m != nil {
		if off, ok := zoneOffset(m[8]); ok {
			n := atois(m[1:8])
			t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], 0, time.UTC)
			return t.UnixMilli() + int64(n[6]) - off*1000, true
		}
	}
	if m := dayDate.FindStringSubmatch(s); m != nil {
		n := atois(m[1:4])
		return time.Date(n[0], time.Month(n[1]), n[2], 0, 0, 0, 0, time.UTC).UnixMilli(), true
	}
	return 0, false
}

// atois converts decimal strings (already matched as digits) to ints,
// saturating absurdly long ones.
func atois(ss []string) []int {
	out := make([]int, len(ss))
	for i, s := range ss {
		n, err := strconv.Atoi(s)
		if err != nil {
			n = math.MaxInt32
		}
		out[i] = n
	}
	return out
}

// zoneOffset returns a time zone's offset from UTC in seconds: GMT, UTC, Z,
// GMT+hh:mm, +hhmm, -hh:mm and similar.
func zoneOffset(z string) (int64, bool) {
	for _, name := range timeZones {
		if z == name {
			return 0, true
		}
	}
	z = strings.TrimPrefix(strings.TrimPrefix(z, "GMT"), "UTC")
	if len(z) < 3 || (z[0] != '+' && z[0] != '-') {
		return 0, false
	}
	sign := int64(1)
	if z[0] == '-' {
		sign = -1
	}
	digits := strings.ReplaceAll(z[1:], ":", "")
	if len(digits) != 2 && len(digits) != 4 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0, false
	}
	h, m := n, 0
	if len(digits) == 4 {
		h, m = n/100, n%100
	}
	return sign * int64(h*3600+m*60), true
}
