package cne

// The pair gradient of CNE, exact and sampled, all in this file. The model
// (cneModel) gives each pair of nodes i, j the posterior probability of a
// link
//
//	P_ij = 1 / (1 + exp(z_ij)),  z_ij = log(s1/s2) - l_i - l_j + gamma/2 ||x_i - x_j||^2,
//
// with l the prior's multipliers and gamma = 1/s1^2 - 1/s2^2, and the fit
// minimises the loss -O(X), O the log-likelihood of the graph's adjacency a:
//
//	O(X)     = sum_{i<j} a_ij log P_ij + (1 - a_ij) log(1 - P_ij)
//	-dO/dx_i = gamma * sum_{j != i} (a_ij - P_ij) (x_i - x_j)
//
// (from d log P/dx_i = -gamma (1-P)(x_i - x_j) and d log(1-P)/dx_i =
// gamma P (x_i - x_j)). ModeExact sums over every j (gradExactRow, O(n d)
// a row). ModeSampled takes every link exactly (addLinkGrads) and
// estimates the sum over the non-neighbours from NegRatio x degree
// negatives drawn uniformly, weighted by (#non-neighbours)/(#accepted) so
// that the estimate is unbiased (gradSampledBlock, O(degree d) a row); a
// row whose draws would outnumber its non-neighbours takes them all
// (addNonNeighborGrads). cneFit.gradient runs either over the epoch's
// chunks of rows.
//
// The pair kernel. Every CNE path (the exact gradient, the sampled
// gradient's links and negatives, the dense rows of sampled mode, the
// objective) evaluates the same steps for a row i and a partner j:
//
//	z   = base - l_j + gamma/2 ||x_i - x_j||^2   pairZ (with vec.SqDist), base = log(s1/s2) - l_i
//	P   = posterior(z)                           P_ij, the link posterior
//	acc += c(P) (x_i - x_j)                      addScaledDiff
//
// with c = gamma (a_ij - P) for a term of the loss gradient. The loops over
// a row's partners are below: all nodes (gradExactRow), the neighbours
// (addLinkGrads), a block's sampled negatives (sumNegatives) and every
// non-neighbour (addNonNeighborGrads). For the default d = 8, addLinkGrads
// and sumNegatives use the kernels of gradient8.go, which take the
// partners four at a time and add the squared distance as a tree (with
// AVX2 assembly beside them, gradient8_amd64.s); the
// exact path keeps the sequential sum, so its results do not depend on
// the dimension's specialisation. The steps are small enough for the
// compiler to inline into the loops, which therefore make no call per
// pair.

import (
	"context"
	"errors"
	"math"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// cneModel holds what the objective needs: the graph, the prior's
// multipliers and the constants of the posterior
//
//	P_ij = 1 / (1 + exp(z_ij)),  z_ij = -(l_i + l_j) + log(s1/s2) + gamma d_ij^2 / 2,
//
// with gamma = 1/s1^2 - 1/s2^2: the closed form of
// p N(d; s1) / (p N(d; s1) + (1-p) N(d; s2)) for half-normal distance densities.
type cneModel struct {
	g         *graph.Graph
	lam       []float64
	dim       int
	gamma     float64
	halfGamma float64
	logRatio  float64 // log(s1/s2)
}

func newCNEModel(g *graph.Graph, p *Prior, o Options) *cneModel {
	gamma := 1/(o.Sigma1*o.Sigma1) - 1/(o.Sigma2*o.Sigma2)
	return &cneModel{g: g, lam: p.Lambda, dim: o.Dim, gamma: gamma, halfGamma: gamma / 2,
		logRatio: math.Log(o.Sigma1 / o.Sigma2)}
}

// posterior returns P(a_ij = 1 | X) under the model, with math.Exp (tests
// compare against it).
func (m *cneModel) posterior(X []float64, i, j int) float64 {
	return 1 / (1 + math.Exp(m.pairZ(m.row(X, i), m.row(X, j), m.logRatio-m.lam[i], m.lam[j])))
}

// objective returns the exact log-likelihood
// O(X) = sum_{i<j} a_ij log P_ij + (1 - a_ij) log(1 - P_ij), computed in log
// space (log P = -softplus(z), log(1-P) = -softplus(-z)). It costs O(n^2 d)
// and exists for tests and small graphs.
func (m *cneModel) objective(X []float64) float64 {
	n := m.g.NumNodes()
	o := 0.0
	for i := 0; i < n; i++ {
		if m.g.Degree(i) == 0 {
			continue
		}
		for j := i + 1; j < n; j++ {
			if m.g.Degree(j) == 0 {
				continue
			}
			z := m.pairZ(m.row(X, i), m.row(X, j), m.logRatio-m.lam[i], m.lam[j])
			if m.g.HasEdge(i, j) {
				o -= softplus(z)
			} else {
				o -= softplus(-z)
			}
		}
	}
	return o
}

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

// Chunk targets, in the cost units of cneChunks.
const (
	exactChunkCost   = 1 << 16
	sampledChunkCost = 1 << 14
)

// cneChunks splits the rows into fixed chunks of similar cost: the
// per-chunk squared norms are summed in chunk order, so the stopping test
// sees the same numbers for any Workers.
func cneChunks(g *graph.Graph, mode Mode, negRatio int) []int {
	n := g.NumNodes()
	if mode == ModeExact {
		return parallel.RowChunks(n, float64(exactChunkCost), func(int) float64 { return float64(n) })
	}
	return parallel.RowChunks(n, float64(sampledChunkCost), func(i int) float64 {
		return float64(g.Degree(i)*(1+negRatio) + 4)
	})
}

// gradient computes the loss gradient of epoch (0-based) into f.grad, in
// parallel over the chunks, and returns its norm.
func (f *cneFit) gradient(ctx context.Context, epoch int) (float64, error) {
	d, X := f.o.Dim, f.emb.X
	err := parallel.ForChunks(ctx, f.workers, len(f.sq), func(w, c int) {
		if f.ranBy != nil {
			f.ranBy[c] = int32(w)
		}
		if f.rows != nil {
			f.sq[c] = f.gradRows(X, f.bounds[c], f.bounds[c+1], epoch, c, &f.work[w])
			return
		}
		if f.mode == ModeSampled {
			r := rng.SplitMix{S: rng.StreamSeed(f.r.Seed, rng.StreamNegatives, uint64(epoch), uint64(c))}
			f.sq[c] = f.m.gradSampledBlock(X, f.grad, f.bounds[c], f.bounds[c+1], f.o.NegRatio, f.pool, &r, &f.work[w])
			return
		}
		s := 0.0
		for i := f.bounds[c]; i < f.bounds[c+1]; i++ {
			gi := f.grad[i*d : (i+1)*d]
			f.m.gradExactRow(X, i, gi)
			for _, v := range gi {
				s += v * v
			}
		}
		f.sq[c] = s
	})
	if err != nil {
		return 0, err
	}
	norm := 0.0
	for _, v := range f.sq {
		norm += v
	}
	norm = math.Sqrt(norm)
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		return 0, errors.New("CNE diverged: gradient is not finite (try a smaller learning rate)")
	}
	return norm, nil
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

// negativePool describes where negatives come from: every node, or only the
// nodes with neighbours when some are isolated (isolated nodes take no part
// in the model).
type negativePool struct {
	ids []int32 // candidate nodes, ascending; nil means 0..n-1
	n   int     // number of candidates
}

func newNegativePool(g *graph.Graph) negativePool {
	iso := g.Isolated()
	if len(iso) == 0 {
		return negativePool{n: g.NumNodes()}
	}
	ids := make([]int32, 0, g.NumNodes()-len(iso))
	for i := 0; i < g.NumNodes(); i++ {
		if g.Degree(i) > 0 {
			ids = append(ids, int32(i))
		}
	}
	return negativePool{ids: ids, n: len(ids)}
}

func (p negativePool) at(k int) int {
	if p.ids == nil {
		return k
	}
	return int(p.ids[k])
}

// blockWork is one worker's scratch space for a block of rows.
type blockWork struct {
	skip   bitset // the current row and its neighbours
	tmp    []float64
	negIdx []int32
	negX   []float64 // gathered vectors of the block's negatives (see gatherNegatives)
	negL   []float64 // their prior multipliers
	nbX    []float64 // the current row's neighbours, gathered likewise (d = 8)
	nbL    []float64
}

// gradSampledBlock writes into grad an unbiased estimate of the loss
// gradient of every row in [lo, hi), and returns the sum of its squares.
//
// Each row takes every edge term exactly and estimates the sum over its
// non-neighbours from negatives drawn uniformly with replacement: the row
// uses the first NegRatio x degree candidates of a list drawn once for the
// whole block, rejects itself and its neighbours, and weights the accepted
// ones by (#non-neighbours)/(#accepted). Conditioned on the count, the
// accepted candidates are uniform over the non-neighbours, so the estimate
// is unbiased. Sharing the list lets the block fetch each random row of X
// once instead of once per row: on large graphs, where X outgrows the
// caches, those fetches are the whole cost. Rows whose draws would
// outnumber their non-neighbours use all of them with weight 1.
func (m *cneModel) gradSampledBlock(X, grad []float64, lo, hi, negRatio int, pool negativePool, r *rng.SplitMix, w *blockWork) float64 {
	m.drawBlockNegatives(X, lo, hi, negRatio, pool, r, w)
	sumsq := 0.0
	for i := lo; i < hi; i++ {
		gi := m.row(grad, i)
		m.gradSampledRow(X, i, gi, negRatio, pool, w)
		for _, v := range gi {
			sumsq += v * v
		}
	}
	return sumsq
}

// drawBlockNegatives draws the candidate list of the block [lo, hi), long
// enough for its most demanding row, into w.negIdx, and gathers the
// candidates' vectors into w.negX and their multipliers into w.negL.
func (m *cneModel) drawBlockNegatives(X []float64, lo, hi, negRatio int, pool negativePool, r *rng.SplitMix, w *blockWork) {
	need := 0
	for i := lo; i < hi; i++ {
		need = max(need, m.negativesOf(i, negRatio, pool))
	}
	m.drawNegatives(X, need, pool, r, w)
}

// negativesOf is the number of candidates row i draws (0 when it takes
// all its non-neighbours).
func (m *cneModel) negativesOf(i, negRatio int, pool negativePool) int {
	deg := m.g.Degree(i)
	if k := negRatio * deg; k < pool.n-1-deg {
		return k
	}
	return 0
}

// drawNegatives draws need candidates into w.negIdx and gathers their
// vectors and multipliers (see drawBlockNegatives).
func (m *cneModel) drawNegatives(X []float64, need int, pool negativePool, r *rng.SplitMix, w *blockWork) {
	d := m.dim
	whole := (need + 7) &^ 7 // the d = 8 kernel reads up to a multiple of eight
	if cap(w.negIdx) < need {
		w.negIdx = make([]int32, need, whole)
		w.negX = make([]float64, whole*d)
		w.negL = make([]float64, need, whole)
	}
	if len(w.tmp) < d {
		w.tmp = make([]float64, d)
	}
	w.negIdx, w.negX, w.negL = w.negIdx[:need], w.negX[:whole*d], w.negL[:need]
	for t := range w.negIdx {
		w.negIdx[t] = int32(pool.at(int(r.Intn(uint32(pool.n)))))
	}
	m.gatherNegatives(X, w.negIdx, w.negX, w.negL)
}

// gatherNegatives copies the vectors and prior multipliers of the
// candidates idx into negX and negL, in the layout sumNegatives reads: at
// d = 8 the lane layout of negatives8, row-major otherwise. negX holds
// len(idx) x d entries, len(idx) rounded up to a multiple of eight.
func (m *cneModel) gatherNegatives(X []float64, idx []int32, negX, negL []float64) {
	if m.dim != 8 {
		for t, j := range idx {
			copy(m.row(negX, t), m.row(X, int(j)))
			negL[t] = m.lam[j]
		}
		return
	}
	from := 0
	if useAVX2 && len(idx) >= 4 {
		from = len(idx) &^ 3
		gatherLanes8AVX2(&X[0], &m.lam[0], &idx[0], &negX[:from*8][0], &negL[:from][0], from/4)
	}
	for t := from; t < len(idx); t++ {
		j := idx[t]
		xj := X[int(j)*8 : int(j)*8+8 : int(j)*8+8]
		g := negX[(t&^3)*8+(t&3):]
		g = g[:29:29] // coordinate c at g[4c]
		g[0], g[4], g[8], g[12] = xj[0], xj[1], xj[2], xj[3]
		g[16], g[20], g[24], g[28] = xj[4], xj[5], xj[6], xj[7]
		negL[t] = m.lam[j]
	}
}

// gradSampledRow writes into gi row i's gradient estimate: every link
// exactly, and the non-neighbours from the block's candidates (see
// gradSampledBlock), or all of them when the draws would outnumber them.
func (m *cneModel) gradSampledRow(X []float64, i int, gi []float64, negRatio int, pool negativePool, w *blockWork) {
	clear(gi)
	nb := m.g.Neighbors(i)
	deg := len(nb)
	if deg == 0 {
		return
	}
	xi := m.row(X, i)
	base := m.logRatio - m.lam[i]
	m.addLinkGrads(X, xi, nb, base, gi, w)
	nonNb := pool.n - 1 - deg
	switch k := negRatio * deg; {
	case nonNb <= 0:
	case k >= nonNb:
		m.addNonNeighborGrads(X, i, gi, pool)
	default:
		m.addSampledNegatives(xi, i, nb, base, k, nonNb, gi, w)
	}
}

// addSampledNegatives subtracts from gi the non-neighbour part of row i's
// gradient estimated from the first k of the block's candidates: the
// accepted ones (not i, not a neighbour) weighted by nonNb/accepted.
func (m *cneModel) addSampledNegatives(xi []float64, i int, nb []int32, base float64, k, nonNb int, gi []float64, w *blockWork) {
	if w.skip == nil {
		w.skip = newBitset(m.g.NumNodes())
	}
	w.skip.set(int32(i))
	for _, j := range nb {
		w.skip.set(j)
	}
	neg := w.tmp[:len(xi)]
	accepted := m.sumNegatives(xi, w.skip, base, w.negIdx, w.negX, w.negL, k, neg)
	w.skip.unset(int32(i))
	for _, j := range nb {
		w.skip.unset(j)
	}
	if accepted > 0 {
		wt := m.gamma * float64(nonNb) / float64(accepted)
		for c := range gi {
			gi[c] -= wt * neg[c]
		}
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

// bitset marks node ids; n/8 bytes, so it stays in cache where an array of
// marks per node would not.
type bitset []uint64

func newBitset(n int) bitset   { return make(bitset, (n+63)/64) }
func (b bitset) set(j int32)   { b[j>>6] |= 1 << (uint(j) & 63) }
func (b bitset) unset(j int32) { b[j>>6] &^= 1 << (uint(j) & 63) }
func (b bitset) has(j int32) bool {
	return b[j>>6]&(1<<(uint(j)&63)) != 0
}
