package score

import (
	"context"
	"math"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// Pieces of a neighbourhood. A node's neighbours fall into pieces: groups
// that the graph ties together without the node. Two neighbours are in
// one piece when a chain of related pairs joins them, where a pair is
// related by the graph's own notion of "working together":
//
//   - a link between them, when the links among the node's neighbours
//     reach at least half of them (co-authors of one paper, friends of one
//     circle);
//   - else (LinkPoor) also a common neighbour other than the node: in a
//     bipartite graph such as (:Author)-[:WROTE]->(:Paper) an author's
//     papers are never linked to each other, and two papers are related
//     when they share another author; in a graph with few triangles (a
//     block model) most of a node's neighbours are linked to no other
//     one, and common neighbours are what tells their circles apart.
//
// One real entity's neighbours are usually one piece or a few; a node that
// merges several entities brings the pieces of each. The pieces are the
// finest split the graph supports with certainty: on the real
// name-keyed bibliography of bench/real, 98% of the pieces of an ambiguous
// name belong to one person. Which pieces belong together is the part the
// graph cannot say (see bench/SPLITTERS.md).

// piecesTwoHopBudget bounds the common-neighbour pass of one node (the sum
// of its neighbours' degrees); above it only links relate neighbours.
const piecesTwoHopBudget = 1 << 26

// Pieces is one worker's scratch space for the pieces of neighbourhoods (Groups).
type Pieces struct {
	ego    graph.EgoNet
	parent []int32
	id     []int32
	owner  []int32  // per graph node: the local index that first reached it
	stamp  []uint32 // per graph node: the epoch of owner
	epoch  uint32
	sizes  []int32
}

// pieceLabels computes the pieces of node i's neighbourhood: label[k] is
// the piece of the k-th neighbour (g.Neighbors(i)[k]), numbered 0, 1, ...
// in order of first appearance, and the result is the number of pieces.
// label aliases w. A node without neighbours has no piece. With touch, two
// neighbours are related when they are linked or share a neighbour other
// than i, whatever the neighbourhood (the relation of the disconnection
// test, MethodCombined); without, as described at the top of this file.
// The error is Ego's.
func (w *Pieces) pieceLabels(g *graph.Graph, i int, touch bool) (label []int32, count int, err error) {
	e, err := g.Ego(i, &w.ego)
	if err != nil {
		return nil, 0, err
	}
	label, count = w.labelsOf(g, e, touch)
	return label, count, nil
}

// labelsOf is pieceLabels on the ego network e of the node, already built.
func (w *Pieces) labelsOf(g *graph.Graph, e *graph.EgoNet, touch bool) (label []int32, count int) {
	m := e.NumNodes()
	w.parent = vec.Resize(w.parent, m)
	for k := range w.parent {
		w.parent[k] = int32(k)
	}
	if e.NumEdges() > 0 {
		for a := 0; a < m; a++ {
			for _, b := range e.Neighbors(a) {
				if int(b) > a {
					w.union(int32(a), b)
				}
			}
		}
	}
	if m >= 2 && (touch || LinkPoor(e)) {
		w.twoHop(g, e)
	}
	// Number the pieces 0, 1, ... in order of first appearance: a root's
	// id goes in w.id, indexed by the root.
	w.id = vec.Resize(w.id, m)
	for k := range w.id {
		w.id[k] = -1
	}
	for k := 0; k < m; k++ {
		w.parent[k] = w.find(int32(k)) // every entry points at its root
	}
	next := int32(0)
	for k := 0; k < m; k++ {
		if r := w.parent[k]; w.id[r] < 0 {
			w.id[r] = next
			next++
		}
	}
	for k := 0; k < m; k++ {
		w.parent[k] = w.id[w.parent[k]] // labels from now on, no longer a forest
	}
	label = w.parent
	return label, int(next)
}

// LinkPoor reports whether more than half of the neighbours in the ego
// network e have no link to another neighbour (all of them when it has no
// link). The links then say nothing about most neighbours, and the pieces
// relate two neighbours by a common neighbour other than the centre as
// well (see the top of this file).
func LinkPoor(e *graph.EgoNet) bool {
	m := e.NumNodes()
	if e.NumEdges() == 0 {
		return true
	}
	alone := 0
	for a := 0; a < m; a++ {
		if len(e.Neighbors(a)) == 0 {
			alone++
		}
	}
	return 2*alone > m
}

// twoHop joins the neighbours of e.Center that share a neighbour other
// than the centre, within piecesTwoHopBudget steps.
func (w *Pieces) twoHop(g *graph.Graph, e *graph.EgoNet) {
	cost := 0
	for _, j := range e.Nodes {
		cost += g.Degree(int(j))
	}
	if cost > piecesTwoHopBudget {
		return
	}
	if n := g.NumNodes(); len(w.owner) < n {
		w.owner = make([]int32, n)
		w.stamp = make([]uint32, n)
		w.epoch = 0
	}
	w.epoch++
	if w.epoch == 0 {
		clear(w.stamp)
		w.epoch = 1
	}
	c := int32(e.Center)
	for a, j := range e.Nodes {
		for _, x := range g.Neighbors(int(j)) {
			if x == c {
				continue
			}
			if w.stamp[x] == w.epoch {
				w.union(int32(a), w.owner[x])
			} else {
				w.stamp[x] = w.epoch
				w.owner[x] = int32(a)
			}
		}
	}
}

func (w *Pieces) find(x int32) int32 {
	p := w.parent
	for p[x] != x {
		p[x] = p[p[x]]
		x = p[x]
	}
	return x
}

// union joins the sets of a and b, the larger root under the smaller (so
// that the result does not depend on the order of the unions).
func (w *Pieces) union(a, b int32) {
	ra, rb := w.find(a), w.find(b)
	if ra == rb {
		return
	}
	if ra < rb {
		ra, rb = rb, ra
	}
	w.parent[ra] = rb
}

// Groups returns the pieces of the neighbourhood e (the ego network of its
// centre), as groups of original node indices in order of first member.
func (w *Pieces) Groups(g *graph.Graph, e *graph.EgoNet) [][]int32 {
	label, count := w.labelsOf(g, e, false)
	out := make([][]int32, count)
	for k, j := range e.Nodes {
		out[label[k]] = append(out[label[k]], j)
	}
	return out
}

// pieceSizes returns the sizes of node i's pieces (aliasing w).
func (w *Pieces) pieceSizes(g *graph.Graph, i int, touch bool) ([]int32, error) {
	label, count, err := w.pieceLabels(g, i, touch)
	if err != nil {
		return nil, err
	}
	w.sizes = vec.Resize(w.sizes, count)
	clear(w.sizes)
	for _, l := range label {
		w.sizes[l]++
	}
	return w.sizes, nil
}

// effectiveCount returns the effective number of groups of the given
// sizes, 1/Σp² for p the share of each group (the inverse Simpson index):
// k groups of equal size count k, and a group much smaller than the others
// counts little. It is 0 for no members.
func effectiveCount(sizes []int32) float64 {
	total := 0.0
	for _, s := range sizes {
		total += float64(s)
	}
	if total == 0 {
		return 0
	}
	q := 0.0
	for _, s := range sizes {
		p := float64(s) / total
		q += p * p
	}
	return 1 / q
}

// entitiesOf rounds an effective count to an estimated number of
// entities, at least 1.
func entitiesOf(effective float64) int {
	return max(1, int(math.Round(effective)))
}

// EstimateEntities returns, for every node i with scored[i] set (every
// node when scored is nil), the estimated number of real entities behind
// it, at least 1: the effective number of the pieces of its neighbourhood
// (1/Σp² over the pieces' shares p of the neighbours), rounded. Two pieces
// of equal size count two; a large piece with a few stray neighbours
// counts one. Nodes without neighbours, and those not scored, get 0. It is
// the estimate behind Result.Entities; the result does not depend on
// workers.
func EstimateEntities(ctx context.Context, g *graph.Graph, scored []bool, workers int) ([]int, error) {
	eff, err := effectivePieces(ctx, g, scored, workers, false)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(eff))
	for i, v := range eff {
		if !math.IsNaN(v) {
			out[i] = entitiesOf(v)
		}
	}
	return out, nil
}

// Entities is EstimateEntities for the nodes with a score.
func Entities(ctx context.Context, g *graph.Graph, scores []float64, workers int) ([]int, error) {
	return EstimateEntities(ctx, g, scoredOf(scores), workers)
}

// scoredOf marks the entries of scores that are not NaN.
func scoredOf(scores []float64) []bool {
	scored := make([]bool, len(scores))
	for i, s := range scores {
		scored[i] = !math.IsNaN(s)
	}
	return scored
}

// effectivePieces returns, for every node with scored[i] set (every node
// when scored is nil) and at least one neighbour, the effective number of
// pieces of its neighbourhood (under the touch relation when touch is
// set, see pieceLabels); NaN for the others. The error is ctx's, or the
// first node's (in index order) whose ego network Ego refuses.
func effectivePieces(ctx context.Context, g *graph.Graph, scored []bool, workers int, touch bool) ([]float64, error) {
	n := g.NumNodes()
	out := make([]float64, n)
	bounds := parallel.RowChunks(n, 1<<14, func(i int) float64 { return float64(g.Degree(i)*4 + 8) })
	chunks := len(bounds) - 1
	workers = min(parallel.WorkerCount(workers), max(1, chunks))
	work := make([]Pieces, workers)
	errs := make([]error, chunks)
	err := parallel.ForChunks(ctx, workers, chunks, func(wk, c int) {
		w := &work[wk]
		for i := bounds[c]; i < bounds[c+1]; i++ {
			if g.Degree(i) == 0 || (scored != nil && !scored[i]) {
				out[i] = math.NaN()
				continue
			}
			sizes, err := w.pieceSizes(g, i, touch)
			if err != nil {
				errs[c] = err
				return
			}
			out[i] = effectiveCount(sizes)
		}
	})
	if err == nil {
		err = parallel.FirstError(errs)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}
