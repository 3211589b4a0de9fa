package stats

import "math"

// StudentTSF is the upper tail P(T > x) of Student's t with nu degrees of
// freedom (scipy.stats.t.sf), from the regularized incomplete beta
// function: P(T > x) = ½ I_{ν/(ν+x²)}(ν/2, ½) for x ≥ 0.
func StudentTSF(x, nu float64) float64 {
	if math.IsInf(nu, 1) {
		return 0.5 * math.Erfc(x/math.Sqrt2)
	}
	tail := 0.5 * RegIncBeta(nu/2, 0.5, nu/(nu+x*x))
	if x < 0 {
		return 1 - tail
	}
	return tail
}

// NormalZ is the standard normal quantile of upper tail q: the z with
// P(Z > z) = q, accurate far into the tail (Acklam's rational
// approximation, refined by one Halley step on erfc; math.Erfcinv loses
// q below 1e-16).
func NormalZ(q float64) float64 {
	switch {
	case q <= 0:
		return math.Inf(1)
	case q >= 1:
		return math.Inf(-1)
	case q > 0.5:
		return -NormalZ(1 - q)
	}
	var x float64
	if q < 0.02425 {
		r := math.Sqrt(-2 * math.Log(q))
		x = -(((((-7.784894002430293e-03*r-3.223964580411365e-01)*r-2.400758277161838e+00)*r-2.549732539343734e+00)*r+4.374664141464968e+00)*r + 2.938163982698783e+00) /
			((((7.784695709041462e-03*r+3.224671290700398e-01)*r+2.445134137142996e+00)*r+3.754408661907416e+00)*r + 1)
	} else {
		r := 0.5 - q
		s := r * r
		x = (((((-3.969683028665376e+01*s+2.209460984245205e+02)*s-2.759285104469687e+02)*s+1.383577518672690e+02)*s-3.066479806614716e+01)*s + 2.506628277459239e+00) * r /
			(((((-5.447609879822406e+01*s+1.615858368580409e+02)*s-1.556989798598866e+02)*s+6.680131188771972e+01)*s-1.328068155288572e+01)*s + 1)
	}
	e := 0.5*math.Erfc(x/math.Sqrt2) - q
	u := e * math.Sqrt(2*math.Pi) * math.Exp(x*x/2)
	return x + u/(1-x*u/2)
}

// RegIncBeta is the regularized incomplete beta function I_x(a, b), by
// its continued fraction (modified Lentz), mirrored at x > (a+1)/(a+b+2)
// where the fraction converges slowly.
func RegIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaFraction(b, a, 1-x)/b
	}
	return front * betaFraction(a, b, x) / a
}

// betaFraction evaluates the incomplete beta's continued fraction.
func betaFraction(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		for _, n := range []float64{num, -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))} {
			d = 1 + n*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + n/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			h *= d * c
		}
		if math.Abs(d*c-1) < 1e-15 {
			break
		}
	}
	return h
}
