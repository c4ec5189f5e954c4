package score

import (
	"context"
	"math"
	"math/bits"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/quotient"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// disconnectionBudget bounds the pair tests of one node: when the split has
// more cross pairs than this, and counting them all would take more steps
// than testing this many (exactIsCheaper), that many are drawn at random
// (with replacement, from the node's own stream) and the share is
// estimated from them (standard error below 0.5/sqrt(budget) = 0.003).
const disconnectionBudget = 1 << 15

// streamCross is the random stream of the sampled cross pairs.
const streamCross uint64 = 0x63726f7373 // "cross"

// crossWork is one worker's scratch space for splitDisconnection.
type crossWork struct {
	quotient.Work
	// marks holds per node the epoch of its last marking (high 32 bits)
	// and, in unlinkedPairs, its entry in sides (low 32 bits): one random
	// access reads both.
	marks []uint64
	sides []uint64 // which nodes of a side each marked node touches
	epoch uint32
	b     []int8
	plus  []int32
	minus []int32
}

// splitDisconnection computes, for every node, its FONDUE score (exactly
// as fondueScores with the same parameters) and the disconnection of the
// split behind it: the share of neighbour pairs across the split (one on
// each side of the best sign vector) that are neither linked nor have a
// common neighbour other than the node itself. A split with an empty side,
// or a node with fewer than two neighbours, has disconnection 0; isolated
// nodes get NaN in both. Up to disconnectionBudget cross pairs, or more
// when counting them all is cheaper than sampling, are all tested;
// beyond, that many are sampled from a stream seeded by p.Seed and the
// node, so the result depends on the seed but never on p.Workers.
func splitDisconnection(ctx context.Context, g *graph.Graph, emb *cne.Embedding, p signParams) (scores, disconnection []float64, err error) {
	randomSplits, normalize, polish, seed, workers := p.T, p.Normalize, p.Polish, p.Seed, p.Workers
	n := g.NumNodes()
	scores = make([]float64, n)
	disconnection = make([]float64, n)
	bounds := parallel.RowChunks(n, 1<<14, func(i int) float64 { return float64(g.Degree(i)*(randomSplits+4) + 8) })
	chunks := len(bounds) - 1
	workers = min(parallel.WorkerCount(workers), chunks)
	work := make([]*crossWork, workers)
	for w := range work {
		work[w] = &crossWork{Work: *quotient.New(emb.Dim)}
	}
	err = parallel.ForChunks(ctx, workers, chunks, func(w, c int) {
		cw := work[w]
		for i := bounds[c]; i < bounds[c+1]; i++ {
			m := g.Degree(i)
			if m == 0 || p.skip(i) {
				scores[i], disconnection[i] = math.NaN(), math.NaN()
				continue
			}
			cw.b = vec.Resize(cw.b, m)
			r := rng.SplitMix{S: rng.StreamSeed(seed, rng.StreamSigns, uint64(i), 0)}
			scores[i] = quotient.Node(g, emb.X, i, randomSplits, normalize, polish, &r, &cw.Work, cw.b)
			disconnection[i] = cw.disconnection(g, i, seed)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return scores, disconnection, nil
}

// disconnection returns the share of cross pairs of node i's split cw.b
// that are neither linked nor share a neighbour other than i.
func (cw *crossWork) disconnection(g *graph.Graph, i int, seed uint64) float64 {
	nb := g.Neighbors(i)
	cw.plus, cw.minus = cw.plus[:0], cw.minus[:0]
	for k, j := range nb {
		if cw.b[k] > 0 {
			cw.plus = append(cw.plus, j)
		} else {
			cw.minus = append(cw.minus, j)
		}
	}
	a, b := cw.plus, cw.minus
	if len(a) > len(b) {
		a, b = b, a
	}
	pairs := len(a) * len(b)
	if pairs == 0 {
		return 0
	}
	if len(cw.marks) < g.NumNodes() {
		cw.marks = make([]uint64, g.NumNodes())
		cw.epoch = 0
	}
	if pairs <= disconnectionBudget || exactIsCheaper(g, a, b) {
		return float64(cw.unlinkedPairs(g, i, a, b)) / float64(pairs)
	}
	unlinked := 0
	r := rng.SplitMix{S: rng.StreamSeed(seed, streamCross, uint64(i), 0)}
	for t := 0; t < disconnectionBudget; t++ {
		j := a[r.Intn(uint32(len(a)))]
		k := b[r.Intn(uint32(len(b)))]
		cw.mark(g, i, j)
		if !cw.touches(g, i, k) {
			unlinked++
		}
	}
	return float64(unlinked) / disconnectionBudget
}

// exactIsCheaper reports whether counting every cross pair of a x b
// (unlinkedPairs) takes fewer steps than sampling disconnectionBudget of
// them: a step is a neighbour visited, and a sampled pair visits those of
// one node of each side, on average sa/|a| + sb/|b| with sa and sb their
// degrees (plus one for the node) summed over each side.
func exactIsCheaper(g *graph.Graph, a, b []int32) bool {
	sa, sb := 0, 0
	for _, j := range a {
		sa += g.Degree(int(j)) + 1
	}
	for _, k := range b {
		sb += g.Degree(int(k)) + 1
	}
	exact := float64(sb) + float64((len(b)+63)/64)*float64(sa)
	sampled := disconnectionBudget * (float64(sa)/float64(len(a)) + float64(sb)/float64(len(b)))
	return exact <= sampled
}

// unlinkedPairs counts the pairs (j, k) of a x b that are neither linked
// nor share a neighbour other than i: those whose sets C(v) = {v} and the
// neighbours of v other than i do not meet. Rather than test every pair,
// it takes b 64 nodes at a time: every node x of their sets C(k) gets a
// word with bit q set when x is in C(k) of the q-th, and a node j of a
// touches the k whose bits are set in the union of the words over C(j).
// That is sum |C(k)| + (|b|/64) sum |C(j)| steps instead of |a| sum |C(k)|.
func (cw *crossWork) unlinkedPairs(g *graph.Graph, i int, a, b []int32) int {
	unlinked := 0
	for len(b) > 0 {
		chunk := b[:min(len(b), 64)]
		b = b[len(chunk):]
		cw.newEpoch()
		cw.sides = cw.sides[:0]
		for q, k := range chunk {
			cw.markSide(k, q)
			for _, x := range g.Neighbors(int(k)) {
				if int(x) != i {
					cw.markSide(x, q)
				}
			}
		}
		for _, j := range a {
			var touched uint64
			if mk := cw.marks[j]; uint32(mk>>32) == cw.epoch {
				touched = cw.sides[uint32(mk)]
			}
			for _, x := range g.Neighbors(int(j)) {
				if mk := cw.marks[x]; int(x) != i && uint32(mk>>32) == cw.epoch {
					touched |= cw.sides[uint32(mk)]
				}
			}
			unlinked += len(chunk) - bits.OnesCount64(touched)
		}
	}
	return unlinked
}

// markSide records that node x is in the set C of the q-th node of the
// current chunk.
func (cw *crossWork) markSide(x int32, q int) {
	mk := cw.marks[x]
	if uint32(mk>>32) != cw.epoch {
		mk = uint64(cw.epoch)<<32 | uint64(len(cw.sides))
		cw.marks[x] = mk
		cw.sides = append(cw.sides, 0)
	}
	cw.sides[uint32(mk)] |= 1 << q
}

// newEpoch starts a fresh marking: no node's mark holds the new epoch.
func (cw *crossWork) newEpoch() {
	cw.epoch++
	if cw.epoch == 0 {
		clear(cw.marks)
		cw.epoch = 1
	}
}

// mark stamps j and its neighbours other than i with a fresh epoch.
func (cw *crossWork) mark(g *graph.Graph, i int, j int32) {
	cw.newEpoch()
	cw.marks[j] = uint64(cw.epoch) << 32
	for _, x := range g.Neighbors(int(j)) {
		if int(x) != i {
			cw.marks[x] = uint64(cw.epoch) << 32
		}
	}
}

// touches reports whether k is linked to the marked node or shares a
// neighbour other than i with it.
func (cw *crossWork) touches(g *graph.Graph, i int, k int32) bool {
	if uint32(cw.marks[k]>>32) == cw.epoch {
		return true
	}
	for _, x := range g.Neighbors(int(k)) {
		if int(x) != i && uint32(cw.marks[x]>>32) == cw.epoch {
			return true
		}
	}
	return false
}

// graphEvidence returns the graph's evidence that each node merges
// entities: the mean of its split's disconnection and the fragmentation of
// its neighbourhood, 1 − 1/eff for eff its effective number of pieces
// (the chance that two random neighbours lie in different pieces, 0 for
// one piece). Both are shares of neighbour pairs that only the node ties
// together: across the split behind the FONDUE score, and across all
// pieces. NaN where either is.
func graphEvidence(disc, eff []float64) []float64 {
	out := make([]float64, len(disc))
	for i := range out {
		out[i] = (disc[i] + 1 - 1/eff[i]) / 2
	}
	return out
}

// disconnectionWeight returns the weight of the disconnection percentile in
// the combined score: 1 minus the median (the lower one for an even count)
// of disc over the nodes with at least two neighbours, 1 when there are
// none. See MethodCombined.
func disconnectionWeight(g *graph.Graph, disc []float64) float64 {
	var x []float64
	for i, v := range disc {
		if g.Degree(i) >= 2 && !math.IsNaN(v) {
			x = append(x, v)
		}
	}
	if len(x) == 0 {
		return 1
	}
	return 1 - vec.QuickMedian(x)
}

// combineRanks returns, for each entry, the weighted mean
// (za + wb zb) / (1 + wb) of the normal quantiles of its percentiles in a
// and b: z = Φ⁻¹((r − ½)/count) for r its average rank among the entries
// non-NaN in both lists (ties share their mean rank) and count their
// number, Stouffer's weighted combination of two p-values. The mid-rank
// keeps z finite at both ends (±4.9 for a million entries). An entry NaN
// in either list is NaN. The order of the result depends only on the two
// rankings and wb.
func combineRanks(a, b []float64, wb float64) []float64 {
	out := make([]float64, len(a))
	ok := make([]bool, len(a))
	for k := range a {
		ok[k] = !math.IsNaN(a[k]) && !math.IsNaN(b[k])
	}
	var pa []float64
	done := make(chan struct{})
	go func() { pa = averageRanks(a, ok); close(done) }()
	pb := averageRanks(b, ok)
	<-done
	half := 0.0
	for _, v := range ok {
		if v {
			half++
		}
	}
	half = 0.5 / half // ½ rank, as a share of the count
	for k := range out {
		if ok[k] {
			out[k] = (normalQuantile(pa[k]-half) + wb*normalQuantile(pb[k]-half)) / (1 + wb)
		} else {
			out[k] = math.NaN()
		}
	}
	return out
}

// normalQuantile returns Φ⁻¹(p), the standard normal quantile of p in
// (0, 1): √2·erf⁻¹(2p − 1).
func normalQuantile(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// averageRanks returns rank/count for the entries with ok set: ranks
// 1..count in ascending order of x, ties sharing their mean rank.
func averageRanks(x []float64, ok []bool) []float64 {
	idx := sortedIndices(x, ok, false)
	out := make([]float64, len(x))
	cnt := float64(len(idx))
	for s := 0; s < len(idx); {
		e := s
		for e < len(idx) && x[idx[e]] == x[idx[s]] {
			e++
		}
		mid := float64(s+1+e) / 2 // mean of ranks s+1..e
		for _, k := range idx[s:e] {
			out[k] = mid / cnt
		}
		s = e
	}
	return out
}

// degreeWeight is the weight of the degree's own test in the combined
// score at full degree conditioning (see MethodCombined), against 1 for
// FONDUE's.
const degreeWeight = 0.5

// combineByDegree returns the combined score of each entry from FONDUE's
// scores fs and the graph evidence ev, weighted 1 and wEv, read within
// the node's degree to the extent a = degreeConditioning (see
// MethodCombined): each signal's z is (1 − a)·(its z among all) +
// a·(its z within the degree bin, binnedQuantiles), and the degree
// itself adds a test of weight a·degreeWeight:
//
//	(zf + wEv·ze + a·degreeWeight·zd) / (1 + wEv + a·degreeWeight)
//
// with every z = Φ⁻¹((rank − ½)/count) of average ranks. At a = 0 it is
// combineRanks(fs, ev, wEv). An entry NaN in fs or ev is NaN.
func combineByDegree(g *graph.Graph, fs, ev []float64, wEv float64) []float64 {
	return combineTerms(g, fs, ev, wEv).scores()
}

// terms are the terms of the combined score of each entry: its FONDUE z
// (zf), its evidence z (ze) and its degree's weighted z (zd, already
// times a·degreeWeight), as combineByDegree defines them; ok marks the
// entries that have them.
type terms struct {
	zf, ze, zd []float64
	ok         []bool
	wEv, dw    float64
}

// combined returns the combined score of entry k with the evidence z of
// entry e (k itself for the score; another entry for the null of
// sureness).
func (t *terms) combined(k, e int) float64 {
	return (t.zf[k] + t.wEv*t.ze[e] + t.zd[k]) / (1 + t.wEv + t.dw)
}

// scores returns the combined score of every entry, NaN where !ok.
func (t *terms) scores() []float64 {
	out := make([]float64, len(t.ok))
	for k := range out {
		if t.ok[k] {
			out[k] = t.combined(k, k)
		} else {
			out[k] = math.NaN()
		}
	}
	return out
}

// combineTerms computes the terms of combineByDegree.
func combineTerms(g *graph.Graph, fs, ev []float64, wEv float64) *terms {
	n := len(fs)
	ok := make([]bool, n)
	deg := make([]float64, n)
	count := 0
	for k := range ok {
		ok[k] = !math.IsNaN(fs[k]) && !math.IsNaN(ev[k])
		deg[k] = float64(g.Degree(k))
		if ok[k] {
			count++
		}
	}
	pf, pe, pd := averageRanks(fs, ok), averageRanks(ev, ok), averageRanks(deg, ok)
	a := degreeConditioning(pf, pe, pd, ok, count)
	var bf, be []float64
	if a > 0 {
		bf, be = binnedQuantiles(g, fs, ok), binnedQuantiles(g, ev, ok)
	}
	half := 0.5 / float64(count)
	t := &terms{zf: make([]float64, n), ze: make([]float64, n), zd: make([]float64, n), ok: ok, wEv: wEv, dw: a * degreeWeight}
	for k := range ok {
		if !ok[k] {
			continue
		}
		zf, ze := normalQuantile(pf[k]-half), normalQuantile(pe[k]-half)
		if a > 0 {
			zf, ze = (1-a)*zf+a*bf[k], (1-a)*ze+a*be[k]
		}
		t.zf[k], t.ze[k] = zf, ze
		if t.dw > 0 {
			t.zd[k] = t.dw * normalQuantile(pd[k]-half)
		}
	}
	return t
}

// degreeConditioning returns how far FONDUE's score rises with degree
// beyond what the graph evidence sees: ρ(f, d) − ρ(e, d) less its noise
// 1/√n (the standard error of a rank correlation over the n entries with
// ok set), within [0, 1], for ρ the correlation of the ranks pf, pe and pd
// (Spearman's); 0 with fewer than two entries or no spread. The noise
// term keeps a small graph's chance gap from reordering its scores.
func degreeConditioning(pf, pe, pd []float64, ok []bool, n int) float64 {
	a := rankCorrelation(pf, pd, ok) - rankCorrelation(pe, pd, ok) - 1/math.Sqrt(float64(n))
	if math.IsNaN(a) {
		return 0
	}
	return math.Max(0, math.Min(1, a))
}

// rankCorrelation is Pearson's correlation of x and y over the entries
// with ok set (of ranks: Spearman's); NaN when either has no spread.
func rankCorrelation(x, y []float64, ok []bool) float64 {
	var n, mx, my float64
	for i := range x {
		if ok[i] {
			n++
			mx += x[i]
			my += y[i]
		}
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		if ok[i] {
			sxy += (x[i] - mx) * (y[i] - my)
			sxx += (x[i] - mx) * (x[i] - mx)
			syy += (y[i] - my) * (y[i] - my)
		}
	}
	return sxy / math.Sqrt(sxx*syy)
}

// degreeBin is a node's degree bin: floor(log2(degree)), 0 below 1.
func degreeBin(d int) int { return max(0, bits.Len(uint(d))-1) }

// binnedQuantiles returns, for the entries with ok set, Φ⁻¹((r − ½)/m)
// with r the entry's average rank in x among the m entries of its degree
// bin (degreeBin): where x stands among the nodes of about its degree.
// A bin of one node gets 0, the median.
func binnedQuantiles(g *graph.Graph, x []float64, ok []bool) []float64 {
	var bins [65][]int
	for i := range x {
		if ok[i] {
			b := degreeBin(g.Degree(i))
			bins[b] = append(bins[b], i)
		}
	}
	out := make([]float64, len(x))
	var sub []float64
	var all []bool
	for _, idx := range bins {
		if len(idx) == 0 {
			continue
		}
		sub, all = sub[:0], all[:0]
		for _, i := range idx {
			sub, all = append(sub, x[i]), append(all, true)
		}
		p := averageRanks(sub, all)
		half := 0.5 / float64(len(idx))
		for k, i := range idx {
			out[i] = normalQuantile(p[k] - half)
		}
	}
	return out
}
