package hetero

import "slices"

// poolClasses shrinks each node's factors towards the other nodes of its
// hardware class (Classes), by empirical Bayes: the class's nodes' factors
// are taken as drawn around a common mean with a between-node covariance
// T (diagonal, the method of moments: their spread less their own
// errors', never below zero), and a node's factors become the posterior
// given its own fit (u_n, Cov(u_n)) and the prior N(ū_−n, T + Cov(ū_−n))
// from its class's other nodes (leave-one-out, so that a node's own data
// is not counted twice). Where the class's nodes are alike, a node's
// expected speed rests on the class's history, not on its own few tasks:
// its factor's error, common to all its judged cells, shrinks; where they
// differ, T is large and each keeps its own. A class of fewer than
// minPoolNodes nodes is left alone. Fit pools where the residuals' tail
// is calibrated, and in the calibration's own fit, whose residuals
// calibrate the pooled model's.
func (m *Joint) poolClasses() {
	k := m.p.Rank
	ix := map[string]int{}
	for n, h := range m.nodes {
		ix[h] = n
	}
	newU := make([]float64, len(m.u))
	newC := make([]float64, len(m.cov))
	copy(newU, m.u)
	copy(newC, m.cov)
	for _, cl := range m.Classes() {
		var mem []int
		for _, h := range cl.Nodes {
			if n, ok := ix[h]; ok && m.tasks[n] >= m.p.MinHistoryTasks {
				mem = append(mem, n)
			}
		}
		if len(mem) < minPoolNodes {
			continue
		}
		t := make([]float64, k*k)
		for q := 0; q < k; q++ {
			var s, s2, c float64
			for _, n := range mem {
				x := m.u[n*k+q]
				s += x
				s2 += x * x
				c += m.cov[n*k*k+q*k+q]
			}
			l := float64(len(mem))
			vr := (s2 - s*s/l) / (l - 1)
			t[q*k+q] = max(vr-c/l, 0)
		}
		// W_m = (Cov(u_m) + T)⁻¹ of every member, summed once; a node's
		// leave-one-out sums subtract its own.
		ws := make([][]float64, len(mem))
		pAll, bAll := make([]float64, k*k), make([]float64, k)
		for i, o := range mem {
			a := make([]float64, k*k)
			for j := range a {
				a[j] = m.cov[o*k*k+j] + t[j]
			}
			if ws[i] = inverseSPD(a, k); ws[i] == nil {
				continue
			}
			for r := 0; r < k; r++ {
				for c := 0; c < k; c++ {
					pAll[r*k+c] += ws[i][r*k+c]
					bAll[r] += ws[i][r*k+c] * m.u[o*k+c]
				}
			}
		}
		for i, n := range mem {
			if ws[i] == nil {
				continue
			}
			p, b := slices.Clone(pAll), slices.Clone(bAll)
			for r := 0; r < k; r++ {
				for c := 0; c < k; c++ {
					p[r*k+c] -= ws[i][r*k+c]
					b[r] -= ws[i][r*k+c] * m.u[n*k+c]
				}
			}
			cbar := inverseSPD(p, k)
			if cbar == nil {
				continue
			}
			// prior precision: (T + Cov(ū))⁻¹, mean ū = Cov(ū) b.
			ubar := make([]float64, k)
			pr := make([]float64, k*k)
			for r := 0; r < k; r++ {
				for c := 0; c < k; c++ {
					ubar[r] += cbar[r*k+c] * b[c]
					pr[r*k+c] = cbar[r*k+c] + t[r*k+c]
				}
			}
			wp := inverseSPD(pr, k)
			wn := inverseSPD(m.cov[n*k*k:n*k*k+k*k], k)
			if wp == nil || wn == nil {
				continue
			}
			post := make([]float64, k*k)
			rhs := make([]float64, k)
			for r := 0; r < k; r++ {
				for c := 0; c < k; c++ {
					post[r*k+c] = wn[r*k+c] + wp[r*k+c]
					rhs[r] += wn[r*k+c]*m.u[n*k+c] + wp[r*k+c]*ubar[c]
				}
			}
			pc := inverseSPD(post, k)
			if pc == nil || !solveSPD(post, rhs, k) {
				continue
			}
			copy(newU[n*k:], rhs)
			copy(newC[n*k*k:], pc)
		}
	}
	m.u, m.cov = newU, newC
	m.classOf = nil
}

// minPoolNodes is the fewest nodes of a class whose factors are pooled.
const minPoolNodes = 3
