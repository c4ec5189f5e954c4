package cne

// The d = 8 kernels of the pair kernel (gradient.go): the default
// dimension, for which the sampled gradient's two loops, over a row's
// links and over its sampled negatives, run four partners at a time.
//
// The partners' vectors are first copied into the lane layout of
// gatherNegatives: groups of four, coordinate-major within a group, so
// that partner t's coordinate c is at [(t/4)*32 + 4c + t%4]. Partner t
// adds into lane t%4, each lane sums its partners in order, and the
// lanes are added at the end as (l0 + l1) + (l2 + l3). That is the order
// of an AVX2 kernel, which holds a lane in each quarter of a register:
// where one runs (pairLanes8AVX2, on amd64), it gives the same bits as
// pairLanes8, the portable loop. The squared distance is summed as a
// tree. The buffers are padded to a multiple of eight partners: the
// kernel reads that far and masks the lanes past the end.

// negatives8 returns sum_t P_t (x_i - x_t) over the first k candidates of a
// block (in the lane layout), skipping those marked in skip (node i and
// its neighbours), and how many were accepted.
func (m *cneModel) negatives8(xi []float64, skip bitset, base float64, negIdx []int32, negX, negL []float64, k int) (out [8]float64, accepted int) {
	var acc [8][4]float64
	switch g := (k + 7) &^ 7; {
	case k == 0:
	case useAVX2:
		accepted = pairLanes8AVX2(&xi[:8][0], &skip[0], base, m.halfGamma, &negIdx[:g][0], &negX[:g*8][0], &negL[:g][0], k, &acc, false)
	default:
		accepted = m.pairLanes8(xi, skip, base, negIdx, negX, negL, 0, k, &acc, false)
	}
	return sumLanes(&acc), accepted
}

// positives8 adds gamma (1 - P_ij) (x_i - x_j) over the neighbours j to g,
// gathering their vectors into w first.
func (m *cneModel) positives8(X, xi []float64, nb []int32, base float64, g []float64, w *blockWork) {
	k := len(nb)
	if n := (k + 7) &^ 7 * 8; len(w.nbX) < n {
		w.nbX = make([]float64, n)
		w.nbL = make([]float64, n/8)
	}
	m.gatherNegatives(X, nb, w.nbX, w.nbL)
	var acc [8][4]float64
	switch {
	case k == 0:
	case useAVX2:
		pairLanes8AVX2(&xi[:8][0], nil, base, m.halfGamma, nil, &w.nbX[0], &w.nbL[0], k, &acc, true)
	default:
		m.pairLanes8(xi, nil, base, nb, w.nbX, w.nbL, 0, k, &acc, true)
	}
	out := sumLanes(&acc)
	g = g[:8]
	for c, v := range out {
		g[c] += m.gamma * v
	}
}

// sumLanes adds the four lanes of each coordinate as (l0 + l1) + (l2 + l3).
func sumLanes(acc *[8][4]float64) (out [8]float64) {
	for c := range out {
		out[c] = (acc[c][0] + acc[c][1]) + (acc[c][2] + acc[c][3])
	}
	return out
}

// pairLanes8 adds partners [from, to) of the lane layout px, pl into the
// lanes of acc, in order within each lane: P_t (x_i - x_t) for sampled
// negatives, skipping those marked in skip (it returns how many it
// accepted), or with links set (1 - P_t) (x_i - x_t), skipping none.
func (m *cneModel) pairLanes8(xi []float64, skip bitset, base float64, idx []int32, px, pl []float64, from, to int, acc *[8][4]float64, links bool) (accepted int) {
	xi = xi[:8]
	x0, x1, x2, x3, x4, x5, x6, x7 := xi[0], xi[1], xi[2], xi[3], xi[4], xi[5], xi[6], xi[7]
	hg := m.halfGamma
	for l := range 4 {
		a0, a1, a2, a3 := acc[0][l], acc[1][l], acc[2][l], acc[3][l]
		a4, a5, a6, a7 := acc[4][l], acc[5][l], acc[6][l], acc[7][l]
		for t := from + (l-from)&3; t < to; t += 4 {
			if !links && skip.has(idx[t]) {
				continue
			}
			accepted++
			g := px[(t&^3)*8+l:]
			g = g[:29:29] // coordinate c at g[4c]
			u0, u1, u2, u3 := x0-g[0], x1-g[4], x2-g[8], x3-g[12]
			u4, u5, u6, u7 := x4-g[16], x5-g[20], x6-g[24], x7-g[28]
			d2 := (u0*u0 + u1*u1) + (u2*u2 + u3*u3) + ((u4*u4 + u5*u5) + (u6*u6 + u7*u7))
			P := posterior(base - pl[t] + hg*d2)
			if links {
				P = 1 - P
			}
			a0 += P * u0
			a1 += P * u1
			a2 += P * u2
			a3 += P * u3
			a4 += P * u4
			a5 += P * u5
			a6 += P * u6
			a7 += P * u7
		}
		acc[0][l], acc[1][l], acc[2][l], acc[3][l] = a0, a1, a2, a3
		acc[4][l], acc[5][l], acc[6][l], acc[7][l] = a4, a5, a6, a7
	}
	return accepted
}
