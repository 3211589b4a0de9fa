package shs

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
)

// metricSuffix is SQLMetrics.METRICS_NAME_SUFFIX.
const metricSuffix = "(min, med, max (stageId: taskId))"

// printable reports whether Spark 3.5's SQLMetrics.stringValue prints a
// metric of type t (appendMetric's ok).
func printable(t model.SQLMetricType) bool {
	switch t {
	case model.MetricSum, model.MetricCustom, model.MetricAverage, model.MetricSize, model.MetricTiming, model.MetricNsTiming:
		return true
	}
	return false
}

// appendMetric prints an aggregated metric as Spark 3.5's
// SQLMetrics.stringValue does; ok is false for the types it refuses
// ("unexpected metrics type"), which fails the whole execution's
// aggregation in the History Server. A data source v2 custom metric prints
// "N/A", as in a History Server without the metric's class.
func appendMetric(b []byte, mv model.SQLMetricValue) (_ []byte, ok bool) {
	var format func([]byte, int64) []byte
	switch mv.Type {
	case model.MetricSum:
		return appendGrouped(b, mv.Sum), true
	case model.MetricCustom:
		return append(b, "N/A"...), true
	case model.MetricAverage:
		if mv.N <= 1 {
			return appendTenths(b, mv.Max), true
		}
		b = append(b, metricSuffix+":\n("...)
		b = appendTenths(b, mv.Min)
		b = append(b, ", "...)
		b = appendTenths(b, mv.Med)
		b = append(b, ", "...)
		b = appendTenths(b, mv.Max)
		return appendTaskInfo(append(b, ' '), mv), true
	case model.MetricSize:
		format = appendBytes
	case model.MetricTiming:
		format = appendDuration
	case model.MetricNsTiming:
		format = func(b []byte, ns int64) []byte { return appendDuration(b, ns/1_000_000) }
	default:
		return b, false
	}
	if mv.N <= 1 {
		return format(b, mv.Max), true
	}
	b = append(b, "total "+metricSuffix+"\n"...)
	b = format(b, mv.Sum)
	b = append(b, " ("...)
	b = format(b, mv.Min)
	b = append(b, ", "...)
	b = format(b, mv.Med)
	b = append(b, ", "...)
	b = format(b, mv.Max)
	return appendTaskInfo(append(b, ' '), mv), true
}

// appendTaskInfo writes where the largest value came from and the closing
// parenthesis: "(stage 3.0: task 42))" or "(driver))".
func appendTaskInfo(b []byte, mv model.SQLMetricValue) []byte {
	if !mv.MaxTask {
		return append(b, "(driver))"...)
	}
	b = append(b, "(stage "...)
	b = strconv.AppendInt(b, int64(mv.MaxStage), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(mv.MaxAttempt), 10)
	b = append(b, ": task "...)
	b = strconv.AppendInt(b, mv.MaxTaskID, 10)
	return append(b, "))"...)
}

// appendGrouped is NumberFormat.getIntegerInstance(Locale.US).format(v):
// digits in groups of three.
func appendGrouped(b []byte, v int64) []byte {
	var d [24]byte
	s := strconv.AppendInt(d[:0], v, 10)
	if s[0] == '-' {
		b, s = append(b, '-'), s[1:]
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return b
}

// appendTenths is SQLMetrics.toNumberFormat: an average metric holds
// tenths, printed with NumberFormat.getNumberInstance(Locale.US) (grouping,
// no trailing zero).
func appendTenths(b []byte, v int64) []byte {
	q, r := v/10, v%10
	if r < 0 {
		r = -r
		if q == 0 {
			b = append(b, '-')
		}
	}
	b = appendGrouped(b, q)
	if r != 0 {
		b = append(b, '.', byte('0'+r))
	}
	return b
}

// appendBytes is Spark's Utils.bytesToString: the largest binary unit the
// size is at least twice of, with one decimal rounded half up.
func appendBytes(b []byte, size int64) []byte {
	for _, u := range byteUnits {
		if size >= 2<<u.shift {
			b = appendTenthsOf(b, uint64(size), 1<<u.shift)
			return append(append(b, ' '), u.name...)
		}
	}
	return append(strconv.AppendInt(b, size, 10), ".0 B"...)
}

var byteUnits = [...]struct {
	shift uint
	name  string
}{{60, "EiB"}, {50, "PiB"}, {40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}}

// appendTenthsOf writes n/d with one decimal rounded half up (n*10 may
// exceed 64 bits).
func appendTenthsOf(b []byte, n, d uint64) []byte {
	hi, lo := bits.Mul64(n, 10)
	q, r := bits.Div64(hi, lo, d)
	if r >= d-r {
		q++
	}
	b = strconv.AppendUint(b, q/10, 10)
	return append(b, '.', byte('0'+q%10))
}

// appendDuration is Spark's Utils.msDurationToString: milliseconds below a
// second, else seconds, minutes or hours of a float quotient printed by
// Java's Formatter ("%.1f", "%.2f").
func appendDuration(b []byte, ms int64) []byte {
	const second, minute, hour = 1000, 60 * 1000, 60 * 60 * 1000
	switch {
	case ms < second:
		return append(strconv.AppendInt(b, ms, 10), " ms"...)
	case ms < minute:
		return append(appendFloat32Fixed(b, float32(ms)/second, 1), " s"...)
	case ms < hour:
		return append(appendFloat32Fixed(b, float32(ms)/minute, 1), " m"...)
	}
	return append(appendFloat32Fixed(b, float32(ms)/hour, 2), " h"...)
}

// appendFloat32Fixed prints f >= 1 with prec decimals (1 or 2) as Java's
// Formatter prints a float with "%.<prec>f": it widens it to a double and
// rounds that double's shortest decimal digits half up. A float is no
// closer than 1e-8 of its size to a decimal tie it is not equal to, where
// the double's shortest digits agree with its exact value, so the exact
// value m*2^e is rounded here in integers (TestFloat32Fixed checks this
// against the literal route through the shortest digits).
func appendFloat32Fixed(b []byte, f float32, prec int) []byte {
	bitsF := math.Float32bits(f)
	exp := int(bitsF>>23&0xff) - 127 - 23
	mant := uint64(bitsF&(1<<23-1) | 1<<23)
	scale := uint64(10)
	if prec == 2 {
		scale = 100
	}
	var q uint64
	if exp >= 0 {
		q = mant << uint(exp) * scale
	} else {
		sh := uint(-exp)
		q = (mant*scale + 1<<(sh-1)) >> sh
	}
	b = strconv.AppendUint(b, q/scale, 10)
	b = append(b, '.')
	frac := q % scale
	if prec == 2 && frac < 10 {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, frac, 10)
}
