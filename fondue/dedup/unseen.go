package dedup

import (
	"context"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// fitUnseen re-learns the weights of the name features that no positive
// of fitNames holds (vary never writes a name one letter apart, nor two
// first names that differ; the same letters spaced differently are on
// neither side): from negatives alone, such a weight only says how rare
// the feature is among candidates, and the L2 penalty sets it. The graph
// is the evidence instead: names and graph are independent given the
// pair's truth (the score adds them), so over the candidate pairs the
// graph features follow a mixture, duplicate with prior odds
// e^(a + names), else not, and the graph's ratio e^g between the two.
// a (over all candidates) and then the unseen weights (jointly, over the
// candidates holding one) maximise its likelihood, the sum of
// softplus(z + g) - softplus(z), z the prior log-odds. No label is used.
//
// Both fits take up to Samples candidate pairs (seeded), so the memory is
// that of the training rows, which fitNames has let go of.
func (e *engine) fitUnseen(ctx context.Context, m *model, cands []uint64, unseen []int, seed uint64) error {
	if len(unseen) == 0 {
		return nil
	}
	// the candidates holding an unseen feature, in candidate order
	const chunk = 4096
	found := make([][]int, (len(cands)+chunk-1)/chunk)
	err := parallel.ForChunks(ctx, e.o.Workers, len(found), func(_, c int) {
		xn := make([]float64, len(nameFeatures))
		for i := c * chunk; i < min(len(cands), (c+1)*chunk); i++ {
			a, b := unpair(cands[i])
			e.nameVec(&e.names[a], &e.names[b], xn)
			for _, j := range unseen {
				if xn[j] != 0 {
					found[c] = append(found[c], i)
					break
				}
			}
		}
	})
	if err != nil {
		return err
	}
	holding := sample(slices.Concat(found...), e.o.Samples, rng.StreamSeed(seed, 108, 0, 0))
	all := sample(seqCodes(len(cands)), e.o.Samples, rng.StreamSeed(seed, 107, 0, 0))
	// name and graph log-likelihood ratios and name features of both samples
	type row struct {
		n, g float64
		x    []float64
	}
	rowsOf := func(idx []int) ([]row, error) {
		rs := make([]row, len(idx))
		err := parallel.ForChunks(ctx, e.o.Workers, (len(idx)+chunk-1)/chunk, func(_, c int) {
			xg := make([]float64, m.nGraph)
			for k := c * chunk; k < min(len(idx), (c+1)*chunk); k++ {
				a, b := unpair(cands[idx[k]])
				na, nb := &e.names[a], &e.names[b]
				if len(na.tokens) == 0 || len(nb.tokens) == 0 {
					continue // no name: x stays nil, the pair is left out
				}
				x := make([]float64, len(nameFeatures))
				e.nameVec(na, nb, x)
				e.graphVec(&e.prof[a], &e.prof[b], xg)
				rs[k] = row{m.name.eta(x), m.graph.eta(xg) - m.llrShift, x}
			}
		})
		return slices.DeleteFunc(rs, func(r row) bool { return r.x == nil }), err
	}
	ra, err := rowsOf(all)
	if err != nil {
		return err
	}
	rh, err := rowsOf(holding)
	if err != nil {
		return err
	}
	if len(ra) == 0 || len(rh) == 0 {
		return nil
	}
	ones, z, g := make([]float64, len(ra)), make([]float64, len(ra)), make([]float64, len(ra))
	for k, r := range ra {
		ones[k], z[k], g[k] = 1, r.n, r.g
	}
	prior := maxMixture(ones, z, g, 0)
	// coordinate ascent: each weight in turn is the best given the others
	// (a pair not holding a feature does not depend on its weight), until
	// no weight moves
	var x []float64
	for pass := 0; pass < 50; pass++ {
		moved := 0.0
		for _, j := range unseen {
			old := m.name.w[j] / m.name.sd[j] // per unit of the feature
			// the prior log-odds without this feature's part: a + n - old x
			x, z, g = x[:0], z[:0], g[:0]
			for _, r := range rh {
				if r.x[j] != 0 {
					x, z, g = append(x, r.x[j]), append(z, prior+r.n-old*r.x[j]), append(g, r.g)
				}
			}
			if len(x) == 0 {
				continue
			}
			v := maxMixture(x, z, g, lambda*m.name.sd[j]*m.name.sd[j])
			for k := range rh {
				rh[k].n += (v - old) * rh[k].x[j]
			}
			m.name.setWeight(j, v)
			moved = max(moved, math.Abs(v-old))
		}
		if moved < 1e-4 {
			break
		}
	}
	return nil
}

// maxMixture returns the t in [-30, 30] that maximises the sum over i of
// softplus(z_i + t x_i + g_i) - softplus(z_i + t x_i), less pen t^2 / 2
// (the L2 penalty of fitLogit on a standardised weight: pen = lambda sd^2):
// where its slope, the sum of x_i (posterior - prior) less pen t, is 0,
// by bisection.
func maxMixture(x, z, g []float64, pen float64) float64 {
	slope := func(t float64) float64 {
		s := -pen * t
		for i, xi := range x {
			zi := z[i] + t*xi
			s += xi * (sigmoid(zi+g[i]) - sigmoid(zi))
		}
		return s
	}
	lo, hi := -30.0, 30.0
	if slope(lo) <= 0 {
		return lo
	}
	if slope(hi) >= 0 {
		return hi
	}
	for k := 0; k < 60 && hi-lo > 1e-6; k++ {
		mid := (lo + hi) / 2
		if slope(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
