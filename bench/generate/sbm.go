package generate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// SBMOptions describes a synthetic graph for benchmarks: a degree-corrected
// stochastic block model with power-law degrees and power-law community
// sizes, in the spirit of the LFR benchmark. Each node has a weight drawn
// from a power law; each edge picks its first end with probability
// proportional to weight, and its second end by weight within the same
// community (with probability 1-Mixing) or in the whole graph (Mixing).
// Community structure is what lets FONDUE tell a merged node (neighbours in
// two communities) from a hub (neighbours in one).
type SBMOptions struct {
	Nodes     int     // number of nodes
	AvgDegree float64 // target average degree (duplicates and self-loops drawn are dropped, so slightly less)
	// DegreeExponent is the power-law exponent of the node weights (default 2.5).
	DegreeExponent float64
	// DegreeRange is the ratio of the largest to the smallest node weight,
	// hence roughly of expected degrees (default 1000).
	DegreeRange float64
	// Community sizes follow a power law with exponent SizeExponent
	// (default 1.5) between MinCommunity (default 20) and MaxCommunity
	// (default 1000) nodes.
	SizeExponent               float64
	MinCommunity, MaxCommunity int
	// Mixing is the fraction of edges between communities (default 0.2;
	// NoMixing: none).
	Mixing float64
	Seed   uint64
}

// NoMixing, as SBMOptions.Mixing, puts every edge inside a community (the
// zero value means the default mixing).
const NoMixing = -1

func (o SBMOptions) withDefaults() SBMOptions {
	if o.DegreeExponent == 0 {
		o.DegreeExponent = 2.5
	}
	if o.DegreeRange == 0 {
		o.DegreeRange = 1000
	}
	if o.SizeExponent == 0 {
		o.SizeExponent = 1.5
	}
	if o.MinCommunity == 0 {
		o.MinCommunity = 20
	}
	if o.MaxCommunity == 0 {
		o.MaxCommunity = 1000
	}
	switch {
	case o.Mixing == 0:
		o.Mixing = 0.2
	case o.Mixing == NoMixing:
		o.Mixing = 0
	}
	return o
}

// SBM draws a graph from o. Node keys are 0..Nodes-1; the same
// options and seed give the same graph. It takes O(Nodes + edges) time.
func SBM(o SBMOptions) (*graph.Graph, error) {
	g, _, err := SBMCommunities(o)
	return g, err
}

// SBMCommunities is SBM that also returns each node's community (by node
// index, which is its key).
func SBMCommunities(o SBMOptions) (*graph.Graph, []int32, error) {
	o = o.withDefaults()
	if err := o.check(); err != nil {
		return nil, nil, err
	}
	n := o.Nodes
	// One random stream, drawn in this order: weights, community sizes,
	// the permutation that places the communities, then the edges.
	r := rand.New(rand.NewPCG(o.Seed, 0x5b3d))
	w := nodeWeights(r, o)
	sizes := communitySizes(r, o)
	comm, members := placeCommunities(r, n, sizes)
	s := &edgeSampler{r: r, mixing: o.Mixing, comm: comm, all: newAlias(w, nil), within: make([]*alias, len(members))}
	for c, mem := range members {
		s.within[c] = newAlias(w, mem)
	}
	m := int(math.Round(o.AvgDegree * float64(n) / 2))
	g, err := s.graph(n, m)
	return g, comm, err
}

// check reports the first option (after withDefaults) out of range.
func (o SBMOptions) check() error {
	n := o.Nodes
	switch {
	case n < 2:
		return fmt.Errorf("generate: synthetic graph needs at least 2 nodes, got %d", n)
	case o.AvgDegree <= 0 || o.AvgDegree >= float64(n-1):
		return fmt.Errorf("generate: average degree %g out of range (0, %d)", o.AvgDegree, n-1)
	case o.Mixing < 0 || o.Mixing > 1:
		return fmt.Errorf("generate: mixing %g out of [0, 1]", o.Mixing)
	case o.MinCommunity < 2 || o.MaxCommunity < o.MinCommunity:
		return fmt.Errorf("generate: community sizes [%d, %d] invalid", o.MinCommunity, o.MaxCommunity)
	case o.DegreeRange < 1 || o.DegreeExponent <= 1 || o.SizeExponent <= 1:
		return fmt.Errorf("generate: degree range %g and exponents %g, %g must exceed 1", o.DegreeRange, o.DegreeExponent, o.SizeExponent)
	}
	return nil
}

// nodeWeights draws the node weights from a power law on [1, DegreeRange]
// by inverse transform.
func nodeWeights(r *rand.Rand, o SBMOptions) []float64 {
	w := make([]float64, o.Nodes)
	for i := range w {
		w[i] = powerLaw(r, 1, o.DegreeRange, o.DegreeExponent)
	}
	return w
}

// communitySizes draws community sizes from a power law until they cover
// the nodes; the last one takes the remainder (merged into its predecessor
// if too small).
func communitySizes(r *rand.Rand, o SBMOptions) []int {
	var sizes []int
	for left := o.Nodes; left > 0; {
		sz := int(powerLaw(r, float64(o.MinCommunity), float64(o.MaxCommunity)+1, o.SizeExponent))
		if sz >= left || left-sz < o.MinCommunity {
			if left < o.MinCommunity && len(sizes) > 0 {
				sizes[len(sizes)-1] += left
			} else {
				sizes = append(sizes, left)
			}
			break
		}
		sizes = append(sizes, sz)
		left -= sz
	}
	return sizes
}

// placeCommunities makes the communities contiguous blocks of a random
// permutation of the n nodes. It returns each node's community and each
// community's members.
func placeCommunities(r *rand.Rand, n int, sizes []int) (comm []int32, members [][]int32) {
	perm := r.Perm(n)
	comm = make([]int32, n)
	members = make([][]int32, len(sizes))
	pos := 0
	for c, sz := range sizes {
		for _, i := range perm[pos : pos+sz] {
			comm[i] = int32(c)
			members[c] = append(members[c], int32(i))
		}
		pos += sz
	}
	return comm, members
}

// edgeSampler draws the edges: the first end by weight in the whole graph,
// the second by weight in the whole graph (with probability mixing) or in
// the first end's community.
type edgeSampler struct {
	r      *rand.Rand
	mixing float64
	comm   []int32
	all    *alias
	within []*alias // by community
	edges  [][2]int
}

// draw appends count edges.
func (s *edgeSampler) draw(count int) {
	for ; count > 0; count-- {
		u := s.all.draw(s.r)
		v := 0
		if s.r.Float64() < s.mixing {
			v = s.all.draw(s.r)
		} else {
			v = s.within[s.comm[u]].draw(s.r)
		}
		s.edges = append(s.edges, [2]int{u, v})
	}
}

// graph draws edges until the simple graph on n nodes has m edges (or 20
// top-up rounds have run): repeated pairs and self-loops are dropped when
// the graph is built, so each round tops up by the shortfall, scaled by the
// last round's yield.
func (s *edgeSampler) graph(n, m int) (*graph.Graph, error) {
	s.draw(m)
	g, err := graph.NewGraph(n, s.edges)
	for round := 0; err == nil && round < 20 && g.NumEdges() < m; round++ {
		yield := float64(g.NumEdges()) / float64(len(s.edges))
		s.draw(int(float64(m-g.NumEdges())/max(yield, 0.05)) + 1)
		g, err = graph.NewGraph(n, s.edges)
	}
	return g, err
}

// powerLaw draws from the density proportional to x^-exp on [lo, hi).
func powerLaw(r *rand.Rand, lo, hi, exp float64) float64 {
	a := 1 - exp
	l, h := math.Pow(lo, a), math.Pow(hi, a)
	return math.Pow(l+r.Float64()*(h-l), 1/a)
}

// alias is Walker's alias table: O(1) draws from a discrete distribution.
type alias struct {
	prob  []float64
	alias []int32
	ids   []int32 // item -> node id, or nil for the identity
}

func newAlias(w []float64, ids []int32) *alias {
	k := len(w)
	if ids != nil {
		k = len(ids)
	}
	weight := func(t int) float64 {
		if ids != nil {
			return w[ids[t]]
		}
		return w[t]
	}
	sum := 0.0
	for t := 0; t < k; t++ {
		sum += weight(t)
	}
	a := &alias{prob: make([]float64, k), alias: make([]int32, k), ids: ids}
	small, large := make([]int32, 0, k), make([]int32, 0, k)
	for t := 0; t < k; t++ {
		a.prob[t] = weight(t) * float64(k) / sum
		if a.prob[t] < 1 {
			small = append(small, int32(t))
		} else {
			large = append(large, int32(t))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.alias[s] = l
		a.prob[l] -= 1 - a.prob[s]
		if a.prob[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, t := range append(small, large...) {
		a.prob[t] = 1
	}
	return a
}

func (a *alias) draw(r *rand.Rand) int {
	t := r.IntN(len(a.prob))
	if r.Float64() >= a.prob[t] {
		t = int(a.alias[t])
	}
	if a.ids != nil {
		return int(a.ids[t])
	}
	return t
}
