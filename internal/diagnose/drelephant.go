package diagnose

import (
	"math"
	"slices"
)

// Dr. Elephant (LinkedIn, github.com/linkedin/dr-elephant) grades each
// heuristic on its five-level scale with Severity.getSeverityAscending and
// getSeverityDescending, and lowers a severity by a gate with Severity.min.
// The helpers below reproduce its arithmetic exactly: Java's long averages
// and medians (math/Statistics.java), its two-group split
// (Statistics.findTwoGroups) and its unit conversions.

// drSource prefixes every Dr. Elephant citation.
const drSource = "Dr. Elephant (linkedin/dr-elephant), "

// drMinuteMs is Statistics.MINUTE_IN_MS.
const drMinuteMs = 60_000

// drMiB is FileUtils.ONE_MB.
const drMiB = 1 << 20

// drAverage is Statistics.average: the mean of the values as a double,
// truncated to a long; an empty list gives 0 (Java's (long) NaN).
func drAverage(values []int64) int64 {
	if len(values) == 0 {
		return 0
	}
	var sum float64
	for _, v := range values {
		sum += float64(v)
	}
	return int64(sum / float64(len(values)))
}

// drMedian is Statistics.median: the middle value, or the truncated mean of
// the two middle values for an even count. The values are sorted in place.
// ok is false for an empty list, where Dr. Elephant throws.
func drMedian(values []int64) (m int64, ok bool) {
	if len(values) == 0 {
		return 0, false
	}
	slices.Sort(values)
	mid := len(values) / 2
	if len(values)%2 == 0 {
		return (values[mid-1] + values[mid]) / 2, true
	}
	return values[mid], true
}

// drPercentile is Statistics.percentile (nearest rank) of sorted values.
func drPercentile(sorted []int64, p int) int64 {
	if len(sorted) == 0 || p <= 0 {
		return 0
	}
	pos := int(math.Ceil(float64(len(sorted)) * float64(p) / 100))
	if pos == 0 {
		return sorted[0]
	}
	return sorted[pos-1]
}

// drTwoGroups is Statistics.findTwoGroups: values split at their average
// into smaller and larger (the larger keeps values equal to the middle),
// then split again twice, each time at the difference between the average
// of the larger and the average of the smaller group (Dr. Elephant's
// "newMiddle", a difference rather than a midpoint).
func drTwoGroups(values []int64) (small, large []int64) {
	middle := drAverage(values)
	for level := 2; level > 0; level-- {
		s, l := drTwoMeans(values, middle)
		middle = drAverage(l) - drAverage(s)
	}
	return drTwoMeans(values, middle)
}

// drTwoMeans is Statistics.twoMeans: values below middle, and the rest.
func drTwoMeans(values []int64, middle int64) (small, large []int64) {
	for _, v := range values {
		if v < middle {
			small = append(small, v)
		} else {
			large = append(large, v)
		}
	}
	return small, large
}

// drMin is Severity.min.
func drMin(a, b Severity) Severity { return min(a, b) }

// drScaled returns the limits multiplied by f, as Dr. Elephant's
// loadParameters turns minutes into milliseconds and fractions into bytes.
func drScaled(l Limits, f float64) Limits {
	return Limits{l[0] * f, l[1] * f, l[2] * f, l[3] * f}
}

// drGradedDown is evidence graded against limits when smaller is worse.
func drGradedDown(name string, v float64, unit string, l Limits) Evidence {
	return Evidence{Name: name, Value: v, Unit: unit, Compare: "<=", Limits: l[:]}
}

// drFinite keeps evidence encodable: Dr. Elephant divides by zero in places
// (a zero median, zero CPU time), which makes an infinite ratio; it is
// reported as Long.MAX_VALUE, the value ExecutorsHeuristic uses itself.
func drFinite(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return 0
	case math.IsInf(v, 1) || v > math.MaxInt64:
		return math.MaxInt64
	case math.IsInf(v, -1):
		return math.MinInt64
	}
	return v
}
