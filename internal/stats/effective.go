package stats

// IntraclassCorrelation is the one-way random-effects intraclass
// correlation of values grouped by groups (the same length; a group is any
// comparable key): (MSB − MSW) / (MSB + (m₀ − 1)·MSW) from the one-way
// analysis of variance, m₀ the groups' adjusted mean size
// (n − Σnᵢ²/n)/(K − 1); for groups of one size k this is Shrout and
// Fleiss's ICC(1,1) ("Intraclass correlations: uses in assessing rater
// reliability", Psychological Bulletin 86(2), 1979).
// It is clipped to [0, 1]; 0 with fewer than two groups or no group of
// two or more values.
func IntraclassCorrelation[K comparable](values []float64, groups []K) float64 {
	icc, _ := intraclass(values, groups)
	return icc
}

// EffectiveSize is the number of independent values that clustered values
// are worth: n / (1 + (m̄ − 1)·ICC), m̄ = n / K the mean group size and ICC
// the IntraclassCorrelation (Kish's design effect, "Survey Sampling",
// 1965, §5.4). Values alike within their groups count as K; unrelated to
// their groups, as n.
func EffectiveSize[K comparable](values []float64, groups []K) float64 {
	n := float64(len(values))
	if n == 0 {
		return 0
	}
	icc, k := intraclass(values, groups)
	return n / (1 + (n/k-1)*icc)
}

// intraclass is IntraclassCorrelation and the number of groups.
func intraclass[K comparable](values []float64, groups []K) (icc, k float64) {
	sum, count := map[K]float64{}, map[K]float64{}
	var mean float64
	for i, v := range values {
		sum[groups[i]] += v
		count[groups[i]]++
		mean += v
	}
	n := float64(len(values))
	k = float64(len(count))
	if k < 2 || k == n {
		return 0, k
	}
	mean /= n
	var ssb, ssw, sizes float64
	for g, c := range count {
		d := sum[g]/c - mean
		ssb += c * d * d
		sizes += c * c
	}
	for i, v := range values {
		d := v - sum[groups[i]]/count[groups[i]]
		ssw += d * d
	}
	msb, msw := ssb/(k-1), ssw/(n-k)
	m0 := (n - sizes/n) / (k - 1)
	den := msb + (m0-1)*msw
	if den <= 0 {
		return 0, k
	}
	return min(max((msb-msw)/den, 0), 1), k
}
