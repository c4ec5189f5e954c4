package fondue

// The d = 8 kernels of the pair kernel (gradient.go): the default dimension,
// written out so that the accumulators stay in registers. They compute what
// addLinkGradsGeneric and sumNegativesGeneric compute, up to rounding: the
// squared distance is summed as a tree, and positives8 multiplies by gamma
// once after the sum.

// negatives8 returns sum_t P_t (x_i - x_t) over the first k candidates of a
// block, skipping those marked in skip (node i and its neighbours), and how
// many were accepted.
func (m *cneModel) negatives8(xi []float64, skip bitset, base float64, negIdx []int32, negX, negL []float64, k int) (out [8]float64, accepted int) {
	xi = xi[:8]
	x0, x1, x2, x3, x4, x5, x6, x7 := xi[0], xi[1], xi[2], xi[3], xi[4], xi[5], xi[6], xi[7]
	var a0, a1, a2, a3, a4, a5, a6, a7 float64
	hg := m.halfGamma
	negIdx, negL = negIdx[:k], negL[:k]
	negX = negX[:8*k]
	for t, j := range negIdx {
		if skip.has(j) {
			continue
		}
		accepted++
		xj := negX[t*8 : t*8+8 : t*8+8]
		u0, u1, u2, u3 := x0-xj[0], x1-xj[1], x2-xj[2], x3-xj[3]
		u4, u5, u6, u7 := x4-xj[4], x5-xj[5], x6-xj[6], x7-xj[7]
		d2 := (u0*u0 + u1*u1) + (u2*u2 + u3*u3) + ((u4*u4 + u5*u5) + (u6*u6 + u7*u7))
		P := posterior(base - negL[t] + hg*d2)
		a0 += P * u0
		a1 += P * u1
		a2 += P * u2
		a3 += P * u3
		a4 += P * u4
		a5 += P * u5
		a6 += P * u6
		a7 += P * u7
	}
	return [8]float64{a0, a1, a2, a3, a4, a5, a6, a7}, accepted
}

// positives8 adds gamma (1 - P_ij) (x_i - x_j) over the neighbours j to g.
func (m *cneModel) positives8(X, xi []float64, nb []int32, base float64, g []float64) {
	xi, g = xi[:8], g[:8]
	x0, x1, x2, x3, x4, x5, x6, x7 := xi[0], xi[1], xi[2], xi[3], xi[4], xi[5], xi[6], xi[7]
	var a0, a1, a2, a3, a4, a5, a6, a7 float64
	hg := m.halfGamma
	lam := m.lam
	for _, j32 := range nb {
		j := int(j32)
		xj := X[j*8 : j*8+8 : j*8+8]
		u0, u1, u2, u3 := x0-xj[0], x1-xj[1], x2-xj[2], x3-xj[3]
		u4, u5, u6, u7 := x4-xj[4], x5-xj[5], x6-xj[6], x7-xj[7]
		d2 := (u0*u0 + u1*u1) + (u2*u2 + u3*u3) + ((u4*u4 + u5*u5) + (u6*u6 + u7*u7))
		c := 1 - posterior(base-lam[j]+hg*d2)
		a0 += c * u0
		a1 += c * u1
		a2 += c * u2
		a3 += c * u3
		a4 += c * u4
		a5 += c * u5
		a6 += c * u6
		a7 += c * u7
	}
	gm := m.gamma
	g[0] += gm * a0
	g[1] += gm * a1
	g[2] += gm * a2
	g[3] += gm * a3
	g[4] += gm * a4
	g[5] += gm * a5
	g[6] += gm * a6
	g[7] += gm * a7
}
