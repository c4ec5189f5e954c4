package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// Contraction is a graph with planted ambiguous nodes, made by merging random
// node pairs of a real graph ("exact sampling", [P §3.1]). It is the ground
// truth of both evaluations: which nodes are ambiguous (identification) and,
// for each of them, which neighbours came from which original node
// (splitting).
type Contraction struct {
	// Graph is the contracted graph. Its keys are the original keys of the
	// kept nodes. The edges the contraction dropped are counted in
	// DroppedLoops and MergedEdges (which is also Graph.Duplicates()); the
	// original graph's own cleaning stays on Original.
	Graph *graph.Graph
	// Original is the graph that was contracted.
	Original *graph.Graph
	// Ambiguous marks the contracted nodes that are merged pairs.
	Ambiguous []bool
	// Pairs lists the merged pairs as (kept, removed) original indices.
	Pairs [][2]int
	// NewIndex maps an original index to its contracted index; a removed
	// node maps to its partner's.
	NewIndex []int32
	// DroppedLoops counts the edges between the two nodes of a pair, which
	// became self-loops and were dropped.
	DroppedLoops int
	// MergedEdges counts the edges that became duplicates and were
	// collapsed, such as the two edges to a neighbour shared by a pair.
	MergedEdges int

	pairOf []int32 // contracted index -> index into Pairs, or -1
	origOf []int32 // contracted index -> original (kept) index
}

// Sides of a neighbour in TruthSplit.
const (
	TruthKept    int8 = 0  // adjacent to the kept original only
	TruthRemoved int8 = 1  // adjacent to the removed original only
	TruthShared  int8 = -1 // adjacent to both: no true side
)

// Contract plants q = ⌊ratio·n⌋ ambiguous nodes in g as in [P §3.1]: 2q
// distinct nodes are drawn uniformly without replacement (math/rand/v2 PCG
// seeded by seed, so the same seed gives the same contraction), the first q
// are kept and the next q are merged into them: Pairs[k] = (draw k,
// draw q+k). See ContractPairs for the merge itself. The paper writes |V̂|
// for n; it means the original graph's node count.
//
// An error is returned when 2q > n (ratio above about 1/2), or when ratio is
// negative or not finite. ⌊ratio·n⌋ is taken with a relative
// tolerance of 1e-9, so that a product like 0.29·100 = 28.999999999999996
// counts as 29. q = 0 is allowed: the result has Graph == g, no pairs and no
// ambiguous node (callers report such cells as "-", like the paper).
func Contract(g *graph.Graph, ratio float64, seed uint64) (*Contraction, error) {
	n := g.NumNodes()
	if math.IsNaN(ratio) || math.IsInf(ratio, 0) || ratio < 0 {
		return nil, fmt.Errorf("eval: contraction ratio %v is not a non-negative number", ratio)
	}
	q := int(math.Floor(ratio * float64(n) * (1 + 1e-9)))
	if 2*q > n {
		return nil, fmt.Errorf("eval: contraction ratio %v needs 2·%d nodes, the graph has %d", ratio, q, n)
	}
	if q == 0 {
		c := &Contraction{
			Graph:     g,
			Original:  g,
			Ambiguous: make([]bool, n),
			NewIndex:  make([]int32, n),
			pairOf:    make([]int32, n),
			origOf:    make([]int32, n),
		}
		for i := range c.NewIndex {
			c.NewIndex[i] = int32(i)
			c.pairOf[i] = -1
			c.origOf[i] = int32(i)
		}
		return c, nil
	}
	r := rand.New(rand.NewPCG(seed, 0x636f6e7472616374)) // "contract"
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	// Partial Fisher–Yates: perm[:2q] is a uniform draw without replacement.
	for k := 0; k < 2*q; k++ {
		j := k + r.IntN(n-k)
		perm[k], perm[j] = perm[j], perm[k]
	}
	pairs := make([][2]int, q)
	for k := range pairs {
		pairs[k] = [2]int{int(perm[k]), int(perm[q+k])}
	}
	return ContractPairs(g, pairs)
}

// ContractPairs merges each pair's second node into its first: the removed
// node's edges move to the kept node, the edge between them (if any) is
// dropped rather than becoming a self-loop, edges that land twice on the same
// node pair (a shared neighbour, or two merged pairs adjacent across) are
// collapsed, and the nodes are renumbered 0..n−q−1 keeping the original
// order of the kept nodes. All nodes of all pairs must be distinct, so merges
// never chain. The kept node of each pair is the ambiguous node.
//
// A pair can leave an isolated node only if the graph had one; the paper's
// graphs are connected, and merging never disconnects anything.
func ContractPairs(g *graph.Graph, pairs [][2]int) (*Contraction, error) {
	n := g.NumNodes()
	q := len(pairs)
	if 2*q > n {
		return nil, fmt.Errorf("eval: %d pairs need %d distinct nodes, the graph has %d", q, 2*q, n)
	}
	const unset = -1
	partner := make([]int32, n) // removed node -> kept node
	role := make([]int8, n)     // 0 plain, 1 kept, 2 removed
	for i := range partner {
		partner[i] = unset
	}
	for _, p := range pairs {
		for _, v := range p {
			if v < 0 || v >= n {
				return nil, fmt.Errorf("eval: pair %v: node out of range [0,%d)", p, n)
			}
			if role[v] != 0 {
				return nil, fmt.Errorf("eval: node %d appears in two pairs", v)
			}
		}
		if p[0] == p[1] {
			return nil, fmt.Errorf("eval: pair %v merges a node with itself", p)
		}
		role[p[0]], role[p[1]] = 1, 2
		partner[p[1]] = int32(p[0])
	}
	c := &Contraction{
		Original:  g,
		Pairs:     slices.Clone(pairs),
		NewIndex:  make([]int32, n),
		Ambiguous: make([]bool, n-q),
		pairOf:    make([]int32, n-q),
		origOf:    make([]int32, n-q),
	}
	keys := make([]string, 0, n-q)
	next := int32(0)
	for i := 0; i < n; i++ {
		if role[i] == 2 {
			continue
		}
		c.NewIndex[i] = next
		c.pairOf[next] = -1
		c.origOf[next] = int32(i)
		keys = append(keys, g.Key(i))
		next++
	}
	for k, p := range pairs {
		ni := c.NewIndex[p[0]]
		c.NewIndex[p[1]] = ni
		c.Ambiguous[ni] = true
		c.pairOf[ni] = int32(k)
	}
	edges := make([][2]int, 0, g.NumEdges())
	for u := 0; u < n; u++ {
		for _, v := range g.Neighbors(u) {
			if int(v) <= u {
				continue
			}
			a, b := c.NewIndex[u], c.NewIndex[v]
			if a == b {
				c.DroppedLoops++
				continue
			}
			edges = append(edges, [2]int{int(a), int(b)})
		}
	}
	h, err := graph.NewGraph(n-q, edges)
	if err != nil {
		return nil, err
	}
	c.MergedEdges = h.Duplicates()
	if c.Graph, err = h.WithKeys(keys); err != nil {
		return nil, err
	}
	return c, nil
}

// NumAmbiguous returns the number of merged pairs (positives).
func (c *Contraction) NumAmbiguous() int { return len(c.Pairs) }

// Origins returns the original nodes behind contracted node i: the kept and
// the removed original for an ambiguous node, and (original, −1) otherwise.
func (c *Contraction) Origins(i int) (kept, removed int) {
	if p := c.pairOf[i]; p >= 0 {
		return c.Pairs[p][0], c.Pairs[p][1]
	}
	return int(c.origOf[i]), -1
}

// TruthSplit returns the true split of contracted node i's neighbourhood:
// its neighbours (contracted indices, ascending, a fresh slice) and, for
// each, whether the edge came from the kept original (TruthKept), the
// removed one (TruthRemoved) or both (TruthShared). Shared neighbours have
// no true side; the split evaluation leaves them out of the ARI and counts
// them. A neighbour that is itself a merged pair counts as adjacent to an
// original if either of its two originals was. For a node that is not
// ambiguous every neighbour is TruthKept.
func (c *Contraction) TruthSplit(i int) (neighbors []int32, side []int8) {
	neighbors = slices.Clone(c.Graph.Neighbors(i))
	side = make([]int8, len(neighbors))
	p := c.pairOf[i]
	if p < 0 {
		return neighbors, side
	}
	kept, removed := c.Pairs[p][0], c.Pairs[p][1]
	// The panics below guard the invariant Contract built c with (every
	// neighbour of a merged node comes from one of its two originals);
	// only a Contraction changed after Contract could break it.
	flags := make([]uint8, len(neighbors))
	mark := func(orig, other int, bit uint8) {
		for _, x := range c.Original.Neighbors(orig) {
			if int(x) == other {
				continue
			}
			k, ok := slices.BinarySearch(neighbors, c.NewIndex[x])
			if !ok {
				panic("eval: contraction truth out of sync")
			}
			flags[k] |= bit
		}
	}
	mark(kept, removed, 1)
	mark(removed, kept, 2)
	for k, f := range flags {
		switch f {
		case 1:
			side[k] = TruthKept
		case 2:
			side[k] = TruthRemoved
		case 3:
			side[k] = TruthShared
		default:
			panic("eval: contraction truth out of sync")
		}
	}
	return neighbors, side
}
