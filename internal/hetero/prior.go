package hetero

import (
	"math"
	"slices"
)

// offsetPrior is what a job class's history runs say of a new run's
// offset a_s (the run-stage's size and code in log time: PARC's
// complexity coefficient α, Gupta et al. eq. 3–4, measured on the
// recurring job's own past runs rather than on the run's other nodes, eq.
// 5): their mean, regressed on the stage's bytes per task when that
// explains them, and how much they vary from run to run beyond their own
// estimation noise.
type offsetPrior struct {
	runs int
	// mu is the mean offset at xbar; beta the slope on x (ln bytes per
	// task; 0 when the history's sizes do not explain the offsets).
	mu, beta, xbar, sxx float64
	// xlo, xhi bound the history's x (NaN: no bytes counted).
	xlo, xhi float64
	// rho2 is the between-run variance of the offsets beyond their
	// estimation noise; noise the mean estimation variance.
	rho2, noise float64
}

// offsetObs is one history run-stage's offset a, its x and the variance
// of its estimate.
type offsetObs struct{ a, x, v float64 }

// minRho2 is the least between-run variance a prior keeps (σ 0.03: a
// recurring stage's runs never repeat to better than about 3%).
const minRho2 = 0.03 * 0.03

// offsetPriors fits each job class's prior from the history's run-stage
// offsets a (als's) and their cells' weights.
func (m *Joint) offsetPriors(d *data, a []float64) []offsetPrior {
	w := make([]float64, len(d.cells))
	m.cellWeights(d, w)
	per := make([][]offsetObs, len(m.jobs))
	for s := range d.rs {
		rs := &d.rs[s]
		den := 0.0
		for i := rs.first; i < rs.end; i++ {
			den += w[i]
		}
		per[rs.job] = append(per[rs.job], offsetObs{a: a[s], x: rs.x, v: 1 / den})
	}
	out := make([]offsetPrior, len(m.jobs))
	for j, os := range per {
		p := offsetPrior{runs: len(os), xlo: math.NaN(), xhi: math.NaN()}
		var sa, sv float64
		var xs []float64
		for _, o := range os {
			sa += o.a
			sv += o.v
			if !math.IsNaN(o.x) {
				xs = append(xs, o.x)
			}
		}
		n := float64(len(os))
		p.mu, p.noise = sa/n, sv/n
		if len(xs) == len(os) && len(xs) > 0 {
			p.xlo, p.xhi = slices.Min(xs), slices.Max(xs)
			p.fitSlope(os)
		}
		var ss float64
		for _, o := range os {
			r := o.a - p.mu
			if p.beta != 0 {
				r -= p.beta * (o.x - p.xbar)
			}
			ss += r * r
		}
		df := n - 1
		if p.beta != 0 {
			df--
		}
		p.rho2 = minRho2
		if df > 0 {
			p.rho2 = math.Max(ss/df-p.noise, minRho2)
		}
		out[j] = p
	}
	return out
}

// fitSlope regresses the offsets on x by least squares and keeps the slope
// when at least 5 runs support it with |t| ≥ 3 (else the mean alone).
func (p *offsetPrior) fitSlope(os []offsetObs) {
	n := float64(len(os))
	var sx, sy float64
	for _, o := range os {
		x, y := o.x, o.a
		sx += x
		sy += y
	}
	p.xbar = sx / n
	my := sy / n
	var sxx, sxy float64
	for _, o := range os {
		x, y := o.x, o.a
		sxx += (x - p.xbar) * (x - p.xbar)
		sxy += (x - p.xbar) * (y - my)
	}
	p.sxx = sxx
	if len(os) < 5 || sxx < 1e-6 {
		return
	}
	beta := sxy / sxx
	var ss float64
	for _, o := range os {
		x, y := o.x, o.a
		r := y - my - beta*(x-p.xbar)
		ss += r * r
	}
	se := math.Sqrt(ss / (n - 2) / sxx)
	if se == 0 || math.Abs(beta)/se >= 3 {
		p.beta, p.mu = beta, my
	}
}

// predict is the prior's mean and variance for a new run-stage of bytes
// per task x (NaN: unknown). The variance adds the run-to-run spread, the
// mean's and slope's estimation, and, for a run whose size lies outside
// the history's without a slope to scale it, the squared log distance
// from the history's range (its size is not matched: the history is a
// weak expectation and the run's peers weigh more).
func (p *offsetPrior) predict(x float64) (mean, variance float64) {
	n := float64(p.runs)
	mean = p.mu
	s2 := p.rho2 + p.noise
	variance = p.rho2 + s2/n
	known := !math.IsNaN(x) && !math.IsNaN(p.xlo)
	if p.beta != 0 && known {
		dx := x - p.xbar
		mean += p.beta * dx
		variance += s2 * dx * dx / p.sxx
		return mean, variance
	}
	if known {
		switch {
		case x < p.xlo:
			variance += (p.xlo - x) * (p.xlo - x)
		case x > p.xhi:
			variance += (x - p.xhi) * (x - p.xhi)
		}
	}
	return mean, variance
}

// meanVariance is the part of predict's variance that is the history
// mean's (and slope's) own estimation: what every run-stage of the job
// class judged against it shares.
func (p *offsetPrior) meanVariance(x float64) float64 {
	s2 := p.rho2 + p.noise
	v := s2 / float64(p.runs)
	if p.beta != 0 && !math.IsNaN(x) && !math.IsNaN(p.xlo) {
		v += s2 * (x - p.xbar) * (x - p.xbar) / p.sxx
	}
	return v
}
