package fondue

import "math"

// Candidate splitters that always make two groups. See bench/SPLITTERS.md
// for how each scored on the paper's splitting benchmark.
const (
	// SplitSpectral bisects the ego network by normalized cut (spectral
	// relaxation and sweep), regularised by a weak all-pairs affinity so
	// that disconnected ego networks still have a meaningful relaxation.
	SplitSpectral = "spectral"
	// SplitPosterior bisects the neighbours by normalized cut of their CNE
	// posterior link probabilities P(a_jk = 1 | X).
	SplitPosterior = "posterior"
	// SplitHybrid bisects by normalized cut of ego-net adjacency plus CNE
	// posterior.
	SplitHybrid = "hybrid"
	// SplitMCL2 clusters the ego network with MCL and merges the clusters
	// into two groups by normalized cut of the summed adjacency plus CNE
	// posterior between clusters.
	SplitMCL2 = "mcl2"
	// SplitKMeans runs 2-means on the neighbours' embedding vectors.
	SplitKMeans = "2means"
)

func init() {
	Splitters = append(Splitters, SplitSpectral, SplitPosterior, SplitHybrid, SplitMCL2, SplitKMeans)
	splitterSpecs[SplitSpectral] = splitterSpec{split: splitSpectral}
	splitterSpecs[SplitPosterior] = splitterSpec{needsEmbedding: true, needsPrior: true, split: splitPosterior}
	splitterSpecs[SplitHybrid] = splitterSpec{needsEmbedding: true, needsPrior: true, split: splitHybrid}
	splitterSpecs[SplitMCL2] = splitterSpec{needsEmbedding: true, needsPrior: true, split: splitMCL2}
	splitterSpecs[SplitKMeans] = splitterSpec{needsEmbedding: true, split: splitKMeans}
}

// posteriorParams returns gamma/2 and log(s1/s2) of the CNE posterior.
func posteriorParams(cfg *SplitConfig) (halfGamma, logRatio float64) {
	s1, s2 := cfg.Sigma1, cfg.Sigma2
	if s1 <= 0 {
		s1 = 1
	}
	if s2 <= 0 {
		s2 = 2
	}
	return (1/(s1*s1) - 1/(s2*s2)) / 2, math.Log(s1 / s2)
}

// posteriorAffinity fills W (m×m) with the CNE posterior link probability
// of every pair of i's neighbours; the diagonal is 0.
func posteriorAffinity(emb *Embedding, nb []int32, cfg *SplitConfig, W []float64) {
	m := len(nb)
	hg, lr := posteriorParams(cfg)
	d := emb.Dim
	for a := 0; a < m; a++ {
		W[a*m+a] = 0
		xa := emb.Row(int(nb[a]))
		la := 0.0
		if cfg.Prior != nil {
			la = cfg.Prior.Lambda[nb[a]]
		}
		for b := a + 1; b < m; b++ {
			xb := emb.Row(int(nb[b]))
			d2 := 0.0
			for c := 0; c < d; c++ {
				t := xa[c] - xb[c]
				d2 += t * t
			}
			lb := 0.0
			if cfg.Prior != nil {
				lb = cfg.Prior.Lambda[nb[b]]
			}
			p := 1 / (1 + math.Exp(lr-la-lb+hg*d2))
			W[a*m+b], W[b*m+a] = p, p
		}
	}
}

// addEgoAdjacency adds weight to W for every edge of the ego net.
func addEgoAdjacency(e *EgoNet, W []float64, weight float64) {
	m := e.NumNodes()
	for a := 0; a < m; a++ {
		for _, b := range e.Neighbors(a) {
			W[a*m+int(b)] += weight
		}
	}
}

// twoGroups splits i's neighbours by a dense affinity built by fill.
func twoGroups(nb []int32, w *splitWorker, fill func(W []float64)) [][]int32 {
	m := len(nb)
	if m < 2 {
		return [][]int32{append([]int32(nil), nb...)}
	}
	w.aff = mclResize(w.aff, m*m)
	clear(w.aff)
	fill(w.aff)
	return signGroups(nb, bisect(w.aff, m, &w.bw))
}

func splitSpectral(g *Graph, _ *Embedding, i int, _ *SplitConfig, w *splitWorker) [][]int32 {
	e := g.Ego(i, &w.ego)
	m := e.NumNodes()
	return twoGroups(e.Nodes, w, func(W []float64) {
		addEgoAdjacency(e, W, 1)
		tau := math.Max(float64(2*e.NumEdges())/float64(m), 1) / float64(m)
		for k := range W {
			W[k] += tau
		}
	})
}

func splitPosterior(g *Graph, emb *Embedding, i int, cfg *SplitConfig, w *splitWorker) [][]int32 {
	nb := g.Neighbors(i)
	return twoGroups(nb, w, func(W []float64) { posteriorAffinity(emb, nb, cfg, W) })
}

func splitHybrid(g *Graph, emb *Embedding, i int, cfg *SplitConfig, w *splitWorker) [][]int32 {
	e := g.Ego(i, &w.ego)
	return twoGroups(e.Nodes, w, func(W []float64) {
		posteriorAffinity(emb, e.Nodes, cfg, W)
		addEgoAdjacency(e, W, 1)
	})
}

func splitMCL2(g *Graph, emb *Embedding, i int, cfg *SplitConfig, w *splitWorker) [][]int32 {
	e := g.Ego(i, &w.ego)
	m := e.NumNodes()
	clusters := mclGroups(e, w.mcl.Cluster(e, cfg.MCL))
	k := len(clusters)
	if k <= 2 {
		return clusters
	}
	// Node affinities, then summed per pair of clusters.
	w.aff = mclResize(w.aff, m*m)
	posteriorAffinity(emb, e.Nodes, cfg, w.aff)
	addEgoAdjacency(e, w.aff, 1)
	of := make([]int, m)
	for c, cl := range clusters {
		for _, j := range cl {
			of[egoSearch(e.Nodes, j)] = c
		}
	}
	C := make([]float64, k*k)
	for a := 0; a < m; a++ {
		for b := 0; b < m; b++ {
			if a != b && of[a] != of[b] {
				C[of[a]*k+of[b]] += w.aff[a*m+b]
			}
		}
	}
	side := bisect(C, k, &w.bw)
	var plus, minus []int32
	for c, cl := range clusters {
		if side[c] > 0 {
			plus = append(plus, cl...)
		} else {
			minus = append(minus, cl...)
		}
	}
	return [][]int32{plus, minus}
}

// splitKMeans runs Lloyd's 2-means on the neighbours' embedding vectors,
// started from the neighbour farthest from the mean and the neighbour
// farthest from that one.
func splitKMeans(g *Graph, emb *Embedding, i int, _ *SplitConfig, w *splitWorker) [][]int32 {
	nb := g.Neighbors(i)
	m, d := len(nb), emb.Dim
	if m < 2 {
		return [][]int32{append([]int32(nil), nb...)}
	}
	mean := make([]float64, d)
	for _, j := range nb {
		for c, x := range emb.Row(int(j)) {
			mean[c] += x / float64(m)
		}
	}
	far := func(from []float64) int {
		best, bk := -1.0, 0
		for k, j := range nb {
			if s := sqDist(emb.Row(int(j)), from); s > best {
				best, bk = s, k
			}
		}
		return bk
	}
	a := far(mean)
	b := far(emb.Row(int(nb[a])))
	cA := append([]float64(nil), emb.Row(int(nb[a]))...)
	cB := append([]float64(nil), emb.Row(int(nb[b]))...)
	side := make([]int8, m)
	for it := 0; it < 100; it++ {
		changed := false
		for k, j := range nb {
			x := emb.Row(int(j))
			s := int8(-1)
			if sqDist(x, cA) <= sqDist(x, cB) {
				s = 1
			}
			if s != side[k] {
				side[k], changed = s, true
			}
		}
		if !changed {
			break
		}
		clear(cA)
		clear(cB)
		nA, nB := 0, 0
		for k, j := range nb {
			x := emb.Row(int(j))
			if side[k] > 0 {
				nA++
				for c := range cA {
					cA[c] += x[c]
				}
			} else {
				nB++
				for c := range cB {
					cB[c] += x[c]
				}
			}
		}
		if nA == 0 || nB == 0 {
			break
		}
		for c := range cA {
			cA[c] /= float64(nA)
			cB[c] /= float64(nB)
		}
	}
	return signGroups(nb, side)
}
