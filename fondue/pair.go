package fondue

// The pair kernel: every CNE path (the exact gradient, the sampled
// gradient's links and negatives, the dense rows of sampled mode, the
// objective) evaluates the same three steps for a row i and a partner j:
//
//	d2 = ||x_i - x_j||^2                         sqDist
//	P  = posterior(base - l_j + gamma/2 d2)      pairPosterior, base = log(s1/s2) - l_i
//	acc += c(P) (x_i - x_j)                      addScaledDiff
//
// with c = gamma (a_ij - P) for a gradient term (addPairGrad). The loops
// over a row's partners are below: all nodes (gradExactRow), the neighbours
// (addLinkGrads), a block's sampled negatives (sumNegatives) and every
// non-neighbour (addNonNeighborGrads). For the default d = 8, addLinkGrads
// and sumNegatives use the kernels of kernel8.go, which keep the sums in
// registers and add the squared distance as a tree; the exact path keeps
// the sequential sum, so its results do not depend on the dimension's
// specialisation.

import "math"

// sqDist returns ||a - b||^2, summed in coordinate order.
func sqDist(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for k := range a {
		t := a[k] - b[k]
		s += t * t
	}
	return s
}

// addScaledDiff adds c (a - b) to acc.
func addScaledDiff(acc []float64, c float64, a, b []float64) {
	b, acc = b[:len(a)], acc[:len(a)]
	for k := range a {
		acc[k] += c * (a[k] - b[k])
	}
}

// pairPosterior returns the posterior P_ij of a link between the row whose
// base log-odds is base (log(s1/s2) - l_i) and a partner with prior
// multiplier lamj, at vectors xi and xj.
func (m *cneModel) pairPosterior(xi, xj []float64, base, lamj float64) float64 {
	return posterior(base - lamj + m.halfGamma*sqDist(xi, xj))
}

// addPairGrad adds one pair's term of the loss gradient -dO/dx_i,
// gamma (a - P_ij) (x_i - x_j), to g; a is 1 for a link, 0 otherwise.
func (m *cneModel) addPairGrad(g, xi, xj []float64, base, lamj, a float64) {
	P := m.pairPosterior(xi, xj, base, lamj)
	addScaledDiff(g, m.gamma*(a-P), xi, xj)
}

// row returns node j's vector in X.
func (m *cneModel) row(X []float64, j int) []float64 {
	d := m.dim
	return X[j*d : (j+1)*d : (j+1)*d]
}

// gradExactRow writes into g the gradient of the loss -O with respect to x_i:
//
//	-dO/dx_i = gamma * sum_{j != i} (a_ij - P_ij) (x_i - x_j).
//
// It follows from d log P/dx_i = -gamma (1-P)(x_i - x_j) and
// d log(1-P)/dx_i = gamma P (x_i - x_j).
func (m *cneModel) gradExactRow(X []float64, i int, g []float64) {
	clear(g)
	if m.g.Degree(i) == 0 {
		return
	}
	xi := m.row(X, i)
	nb := m.g.Neighbors(i)
	p := 0
	n := m.g.NumNodes()
	base := m.logRatio - m.lam[i]
	for j := 0; j < n; j++ {
		a := 0.0
		if p < len(nb) && int(nb[p]) == j {
			a = 1
			p++
		}
		if j == i || math.IsInf(m.lam[j], -1) {
			continue
		}
		m.addPairGrad(g, xi, m.row(X, j), base, m.lam[j], a)
	}
}

// addLinkGrads adds gamma (1 - P_ij) (x_i - x_j) over the neighbours j of
// row i to g.
func (m *cneModel) addLinkGrads(X, xi []float64, nb []int32, base float64, g []float64) {
	if m.dim == 8 {
		m.positives8(X, xi, nb, base, g)
		return
	}
	m.addLinkGradsGeneric(X, xi, nb, base, g)
}

func (m *cneModel) addLinkGradsGeneric(X, xi []float64, nb []int32, base float64, g []float64) {
	for _, j := range nb {
		m.addPairGrad(g, xi, m.row(X, int(j)), base, m.lam[j], 1)
	}
}

// sumNegatives writes into out (len d, cleared first) sum_t P_t (x_i - x_t)
// over the first k of a block's sampled negatives, skipping those marked
// in skip (row i and its neighbours), and returns how many it accepted.
// The negatives' vectors and multipliers are gathered in negX and negL.
func (m *cneModel) sumNegatives(xi []float64, skip bitset, base float64, negIdx []int32, negX, negL []float64, k int, out []float64) int {
	if m.dim == 8 {
		acc, accepted := m.negatives8(xi, skip, base, negIdx, negX, negL, k)
		copy(out, acc[:])
		return accepted
	}
	return m.sumNegativesGeneric(xi, skip, base, negIdx, negX, negL, k, out)
}

func (m *cneModel) sumNegativesGeneric(xi []float64, skip bitset, base float64, negIdx []int32, negX, negL []float64, k int, out []float64) int {
	clear(out)
	accepted := 0
	for t, j := range negIdx[:k] {
		if skip.has(j) {
			continue
		}
		accepted++
		xj := m.row(negX, t)
		addScaledDiff(out, m.pairPosterior(xi, xj, base, negL[t]), xi, xj)
	}
	return accepted
}

// addNonNeighborGrads adds the exact loss gradient over every non-neighbour
// of row i in the pool (weight 1) to gi, walking the pool and the sorted
// neighbour list together.
func (m *cneModel) addNonNeighborGrads(X []float64, i int, gi []float64, pool negativePool) {
	xi := m.row(X, i)
	nb := m.g.Neighbors(i)
	base := m.logRatio - m.lam[i]
	p := 0
	for k := 0; k < pool.n; k++ {
		j := pool.at(k)
		for p < len(nb) && int(nb[p]) < j {
			p++
		}
		if j == i || (p < len(nb) && int(nb[p]) == j) {
			continue
		}
		m.addPairGrad(gi, xi, m.row(X, j), base, m.lam[j], 0)
	}
}
