package research

import (
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"slices"
)

// Names of the component splitters, the baselines of real ambiguity
// ("fondue-bench real"): they need neither an embedding nor a score.
const (
	// EgoComponents groups the neighbours by the connected components of
	// the ego network without the node: neighbours linked to each other,
	// directly or through other neighbours, go together. Its number of
	// groups is the "cc" baseline's score.
	EgoComponents = "ego-components"
	// TwoHopComponents also joins two neighbours that share a neighbour
	// other than the node: the connected components of the neighbours
	// under "linked or with a common neighbour besides the node". In an
	// (:Author)-[:WROTE]->(:Paper) graph an author's neighbours are papers,
	// never linked to each other; two papers go together when they share a
	// co-author.
	TwoHopComponents = "two-hop-components"
)

var (
	egoComponents    = &componentSplitter{name: EgoComponents}
	twoHopComponents = &componentSplitter{name: TwoHopComponents, twoHop: true}
)

// componentSplitter is EgoComponents or TwoHopComponents.
type componentSplitter struct {
	name   string
	twoHop bool
}

func (s *componentSplitter) Name() string       { return s.name }
func (*componentSplitter) NeedsEmbedding() bool { return false }

func (s *componentSplitter) NewWorker() split.Func {
	w := new(componentWork)
	return func(g *graph.Graph, _ *split.Input, node int) ([][]int32, error) {
		return w.components(g, node, s.twoHop), nil
	}
}

// componentWork is one goroutine's scratch space: per graph node, the
// call that last marked it (stamp) and the first neighbour of the centre
// that reached it (first).
type componentWork struct {
	stamp  []uint32
	first  []int32
	cur    uint32
	parent []int32
}

// components returns the groups of node i's neighbours: the connected
// components under "linked" (and, with twoHop, "sharing a neighbour other
// than i"). The cost is the sum of the neighbours' degrees.
func (w *componentWork) components(g *graph.Graph, i int, twoHop bool) [][]int32 {
	nb := g.Neighbors(i)
	m := len(nb)
	if n := g.NumNodes(); len(w.stamp) != n {
		w.stamp, w.first, w.cur = make([]uint32, n), make([]int32, n), 0
	}
	w.cur++
	if w.cur == 0 { // wrapped: forget every old mark
		clear(w.stamp)
		w.cur = 1
	}
	w.parent = slices.Grow(w.parent[:0], m)[:m]
	for a, j := range nb {
		w.parent[a] = int32(a)
		w.stamp[j], w.first[j] = w.cur, int32(a)
	}
	find := func(x int32) int32 {
		for w.parent[x] != x {
			w.parent[x] = w.parent[w.parent[x]]
			x = w.parent[x]
		}
		return x
	}
	for a, j := range nb {
		for _, k := range g.Neighbors(int(j)) {
			if int(k) == i {
				continue
			}
			if w.stamp[k] == w.cur {
				// k is a neighbour of i (linked to j) or a node another
				// neighbour reached first (a common neighbour).
				ra, rb := find(int32(a)), find(w.first[k])
				if ra != rb {
					if ra < rb {
						ra, rb = rb, ra
					}
					w.parent[ra] = rb
				}
			} else if twoHop {
				w.stamp[k], w.first[k] = w.cur, int32(a)
			}
		}
	}
	index := make(map[int32]int, 4)
	var groups [][]int32
	for a, j := range nb {
		r := find(int32(a))
		gi, ok := index[r]
		if !ok {
			gi = len(groups)
			index[r] = gi
			groups = append(groups, nil)
		}
		groups[gi] = append(groups[gi], j)
	}
	return groups
}
