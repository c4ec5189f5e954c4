package research

import (
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/mcl"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// Names of the candidate splitters of Splitters, which always make two groups. See
// bench/SPLITTERS.md for how each scored on the paper's splitting benchmark.
const (
	// Spectral bisects the ego network by normalized cut (spectral
	// relaxation and sweep), regularised by a weak all-pairs affinity so
	// that disconnected ego networks still have a meaningful relaxation.
	Spectral = "spectral"
	// Posterior bisects the neighbours by normalized cut of their CNE
	// posterior link probabilities P(a_jk = 1 | X).
	Posterior = "posterior"
	// Hybrid bisects by normalized cut of ego-net adjacency plus CNE
	// posterior.
	Hybrid = "hybrid"
	// MCL2 clusters the ego network with MCL and merges the clusters
	// into two groups by normalized cut of the summed adjacency plus CNE
	// posterior between clusters.
	MCL2 = "mcl2"
	// KMeans runs 2-means on the neighbours' embedding vectors.
	KMeans = "2means"
)

// Splitters returns the research splitters: spectral, posterior, hybrid,
// mcl2 and 2means, then the component baselines ego-components and
// two-hop-components. They plug into fondue.ProposeSplits like fondue's own
// (fondue.Splitters); the bench evaluates both sets.
func Splitters() []split.Splitter {
	return []split.Splitter{spectral, posterior, hybrid, mcl2, kMeans, egoComponents, twoHopComponents}
}

var (
	spectral  = &splitter{name: Spectral, split: splitSpectral}
	posterior = &splitter{name: Posterior, needsEmbedding: true, split: infallible(splitPosterior)}
	hybrid    = &splitter{name: Hybrid, needsEmbedding: true, split: splitHybrid}
	mcl2      = &splitter{name: MCL2, needsEmbedding: true, split: splitMCL2}
	kMeans    = &splitter{name: KMeans, needsEmbedding: true, split: infallible(splitKMeans)}
)

// IsSplitter reports whether name is one of Splitters.
func IsSplitter(name string) bool {
	return split.Find(Splitters(), name) != nil
}

// splitter is a research splitter: a function over one goroutine's
// scratch space.
type splitter struct {
	name           string
	needsEmbedding bool
	split          func(g *graph.Graph, in *split.Input, i int, w *worker) ([][]int32, error)
}

// infallible adapts a split that cannot fail.
func infallible(f func(g *graph.Graph, in *split.Input, i int, w *worker) [][]int32) func(*graph.Graph, *split.Input, int, *worker) ([][]int32, error) {
	return func(g *graph.Graph, in *split.Input, i int, w *worker) ([][]int32, error) {
		return f(g, in, i, w), nil
	}
}

func (s *splitter) Name() string         { return s.name }
func (s *splitter) NeedsEmbedding() bool { return s.needsEmbedding }

func (s *splitter) NewWorker() split.Func {
	w := new(worker)
	return func(g *graph.Graph, in *split.Input, node int) ([][]int32, error) {
		return s.split(g, in, node, w)
	}
}

// worker is one goroutine's scratch space.
type worker struct {
	ego graph.EgoNet
	mcl mcl.Workspace
	bi  split.Bisector
	aff []float64 // dense affinity among the neighbours
}

// posteriorParams returns gamma/2 and log(s1/s2) of the CNE posterior.
func posteriorParams(in *split.Input) (halfGamma, logRatio float64) {
	s1, s2 := in.CNE.Sigma1, in.CNE.Sigma2
	if s1 <= 0 {
		s1 = 1
	}
	if s2 <= 0 {
		s2 = 2
	}
	return (1/(s1*s1) - 1/(s2*s2)) / 2, math.Log(s1 / s2)
}

// posteriorAffinity fills W (m×m) with the CNE posterior link probability
// of every pair of i's neighbours under the embedding and prior of in (a
// flat prior when it has none); the diagonal is 0.
func posteriorAffinity(in *split.Input, nb []int32, W []float64) {
	m := len(nb)
	emb, prior := in.Embedding, in.Prior
	hg, lr := posteriorParams(in)
	d := emb.Dim
	for a := 0; a < m; a++ {
		W[a*m+a] = 0
		xa := emb.Row(int(nb[a]))
		la := 0.0
		if prior != nil {
			la = prior.Lambda[nb[a]]
		}
		for b := a + 1; b < m; b++ {
			xb := emb.Row(int(nb[b]))
			d2 := 0.0
			for c := 0; c < d; c++ {
				t := xa[c] - xb[c]
				d2 += t * t
			}
			lb := 0.0
			if prior != nil {
				lb = prior.Lambda[nb[b]]
			}
			p := 1 / (1 + math.Exp(lr-la-lb+hg*d2))
			W[a*m+b], W[b*m+a] = p, p
		}
	}
}

// addEgoAdjacency adds weight to W for every edge of the ego net.
func addEgoAdjacency(e *graph.EgoNet, W []float64, weight float64) {
	m := e.NumNodes()
	for a := 0; a < m; a++ {
		for _, b := range e.Neighbors(a) {
			W[a*m+int(b)] += weight
		}
	}
}

// twoGroups splits i's neighbours by a dense affinity built by fill.
func twoGroups(nb []int32, w *worker, fill func(W []float64)) [][]int32 {
	m := len(nb)
	if m < 2 {
		return [][]int32{append([]int32(nil), nb...)}
	}
	w.aff = slices.Grow(w.aff[:0], m*m)[:m*m]
	clear(w.aff)
	fill(w.aff)
	return score.SignGroups(nb, w.bi.Bisect(w.aff, m))
}

func splitSpectral(g *graph.Graph, _ *split.Input, i int, w *worker) ([][]int32, error) {
	e, err := g.Ego(i, &w.ego)
	if err != nil {
		return nil, err
	}
	m := e.NumNodes()
	return twoGroups(e.Nodes, w, func(W []float64) {
		addEgoAdjacency(e, W, 1)
		tau := math.Max(float64(2*e.NumEdges())/float64(m), 1) / float64(m)
		for k := range W {
			W[k] += tau
		}
	}), nil
}

func splitPosterior(g *graph.Graph, in *split.Input, i int, w *worker) [][]int32 {
	nb := g.Neighbors(i)
	return twoGroups(nb, w, func(W []float64) { posteriorAffinity(in, nb, W) })
}

func splitHybrid(g *graph.Graph, in *split.Input, i int, w *worker) ([][]int32, error) {
	e, err := g.Ego(i, &w.ego)
	if err != nil {
		return nil, err
	}
	return twoGroups(e.Nodes, w, func(W []float64) {
		posteriorAffinity(in, e.Nodes, W)
		addEgoAdjacency(e, W, 1)
	}), nil
}

func splitMCL2(g *graph.Graph, in *split.Input, i int, w *worker) ([][]int32, error) {
	e, err := g.Ego(i, &w.ego)
	if err != nil {
		return nil, err
	}
	m := e.NumNodes()
	local, err := w.mcl.Cluster(e, in.MCL)
	if err != nil {
		return nil, err
	}
	clusters := e.Originals(local)
	k := len(clusters)
	if k <= 2 {
		return clusters, nil
	}
	// Node affinities, then summed per pair of clusters.
	w.aff = slices.Grow(w.aff[:0], m*m)[:m*m]
	posteriorAffinity(in, e.Nodes, w.aff)
	addEgoAdjacency(e, w.aff, 1)
	of := make([]int, m)
	for c, cl := range clusters {
		for _, j := range cl {
			k, _ := slices.BinarySearch(e.Nodes, j)
			of[k] = c
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
	side := w.bi.Bisect(C, k)
	var plus, minus []int32
	for c, cl := range clusters {
		if side[c] > 0 {
			plus = append(plus, cl...)
		} else {
			minus = append(minus, cl...)
		}
	}
	return [][]int32{plus, minus}, nil
}

// splitKMeans runs Lloyd's 2-means on the neighbours' embedding vectors,
// started from the neighbour farthest from the mean and the neighbour
// farthest from that one.
func splitKMeans(g *graph.Graph, in *split.Input, i int, _ *worker) [][]int32 {
	emb := in.Embedding
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
	return score.SignGroups(nb, side)
}

// sqDist is the squared Euclidean distance between a and b[:len(a)].
func sqDist(a, b []float64) (s float64) {
	for k := range a {
		t := a[k] - b[k]
		s += t * t
	}
	return s
}
