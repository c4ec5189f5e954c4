package cne

// The pair kernel: every CNE path (the exact gradient, the sampled
// gradient's links and negatives, the dense rows of sampled mode, the
// objective) evaluates the same steps for a row i and a partner j:
//
//	z   = base - l_j + gamma/2 ||x_i - x_j||^2   pairZ (with sqDist), base = log(s1/s2) - l_i
//	P   = posterior(z)                           P_ij, the link posterior
//	acc += c(P) (x_i - x_j)                      addScaledDiff
//
// with c = gamma (a_ij - P) for a term of the loss gradient. The loops over
// a row's partners are below: all nodes (gradExactRow), the neighbours
// (addLinkGrads), a block's sampled negatives (sumNegatives) and every
// non-neighbour (addNonNeighborGrads). For the default d = 8, addLinkGrads
// and sumNegatives use the kernels of gradient8.go, which take the
// partners four at a time and add the squared distance as a tree; the
// exact path keeps the sequential sum, so its results do not depend on
// the dimension's specialisation. The steps are small enough for the
// compiler to inline into the loops, which therefore make no call per
// pair.

import (
	"math"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// addScaledDiff adds c (a - b) to acc.
func addScaledDiff(acc []float64, c float64, a, b []float64) {
	b, acc = b[:len(a)], acc[:len(a)]
	for k := range a {
		acc[k] += c * (a[k] - b[k])
	}
}

// pairZ returns the log-odds z_ij of a non-link between the row with base
// log-odds base (log(s1/s2) - l_i) and the partner with prior multiplier
// lamj, at vectors xi and xj: P_ij = posterior(z_ij).
func (m *cneModel) pairZ(xi, xj []float64, base, lamj float64) float64 {
	return base - lamj + m.halfGamma*vec.SqDist(xi, xj)
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
		xj := m.row(X, j)
		P := posterior(m.pairZ(xi, xj, base, m.lam[j]))
		addScaledDiff(g, m.gamma*(a-P), xi, xj)
	}
}

// addLinkGrads adds gamma (1 - P_ij) (x_i - x_j) over the neighbours j of
// row i to g.
// w is scratch space for the d = 8 kernel.
func (m *cneModel) addLinkGrads(X, xi []float64, nb []int32, base float64, g []float64, w *blockWork) {
	if m.dim == 8 {
		m.positives8(X, xi, nb, base, g, w)
		return
	}
	m.addLinkGradsGeneric(X, xi, nb, base, g)
}

func (m *cneModel) addLinkGradsGeneric(X, xi []float64, nb []int32, base float64, g []float64) {
	for _, j := range nb {
		xj := m.row(X, int(j))
		P := posterior(m.pairZ(xi, xj, base, m.lam[j]))
		addScaledDiff(g, m.gamma*(1-P), xi, xj)
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
		P := posterior(m.pairZ(xi, xj, base, negL[t]))
		addScaledDiff(out, P, xi, xj)
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
		xj := m.row(X, j)
		P := posterior(m.pairZ(xi, xj, base, m.lam[j]))
		// gamma (0 - P): the gradient term of a non-link, which rounds
		// exactly like subtracting gamma P (x_i - x_j).
		addScaledDiff(gi, m.gamma*(0-P), xi, xj)
	}
}
