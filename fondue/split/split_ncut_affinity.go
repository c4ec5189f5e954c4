package split

// Step 2 of the ncut splitter (see the package documentation): the sparse
// affinity among a node's neighbours, from their links, their common
// neighbours outside the ego network and, with an embedding, a kernel of
// their nearest neighbours in embedding space.

import (
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// ncutKNN is the number of nearest neighbours in embedding space that get
// a kernel affinity.
const ncutKNN = 5

// ncutPairBudget bounds the work (and the affinity entries) of the
// common-neighbour part for one node; above it the part is left out. Ego
// networks of the paper's graphs stay far below it. (A splitter's
// pairBudget replaces it in tests.)
const ncutPairBudget = 50_000_000

// ncutTwoHop lists, for every node w' other than the centre adjacent to a
// neighbour, the neighbours (local indices) it is adjacent to: the chain
// head[w'], next[head[w']], ... of positions in member.
type ncutTwoHop struct {
	head, next, member []int32
	touched            []int32 // the w' whose head is set
}

// ncutAffinity is the affinity matrix, sparse rows over local indices
// (CSR: row a is col/val[off[a]:off[a+1]]), and the scratch space of the
// row being built: its entries by local index in acc, opened in this row
// when stamp equals epoch, listed in touched.
type ncutAffinity struct {
	off     []int32
	col     []int32
	val     []float64
	acc     []float64
	stamp   []uint32
	epoch   uint32
	touched []int32
}

// ncutNearest holds each neighbour's ncutKNN nearest neighbours in
// embedding space (knn, -1 past the end) and their kernel weights (knnW),
// the reverse lists (CSR: rev[revO[b]:revO[b+1]] are the a with b in
// kNN(a)), and scratch space.
type ncutNearest struct {
	knn   []int32
	knnW  []float64
	rev   []int32
	revO  []int32
	dist  []float64
	rowMd []float64
	pos   []int32
}

// affinity builds the sparse affinity among the neighbours of e.Center
// into w.aff.
func (w *ncutWork) affinity(g *graph.Graph, emb *cne.Embedding, e *graph.EgoNet) {
	m := e.NumNodes()
	budget := w.pairBudget
	if budget == 0 {
		budget = ncutPairBudget
	}
	useCN := w.twoHop.build(g, e, budget)
	if emb != nil {
		w.near.find(emb, e)
	}
	a := &w.aff
	a.acc = vec.Resize(a.acc, m)
	if len(a.stamp) < m {
		a.stamp = make([]uint32, vec.GrowCap(m))
		a.epoch = 0
	}
	a.off = vec.Resize(a.off, m+1)
	a.col, a.val = a.col[:0], a.val[:0]
	a.off[0] = 0
	for k := range e.Nodes {
		w.affinityRow(g, e, k, useCN, emb != nil)
	}
	for _, x := range w.twoHop.touched {
		w.twoHop.head[x] = -1
	}
}

// build makes the lists for the ego network e (see ncutTwoHop) and reports
// whether the common-neighbour pass fits budget: it costs sum_w |T_w|^2
// for T_w the neighbours adjacent to w, and a hub of a dense graph can
// make that (and the matrix) huge; then only links and the kernel are
// used.
func (t *ncutTwoHop) build(g *graph.Graph, e *graph.EgoNet, budget int) bool {
	i := int32(e.Center)
	if n := g.NumNodes(); len(t.head) < n {
		t.head = make([]int32, n)
		for k := range t.head {
			t.head[k] = -1
		}
	}
	t.next, t.member, t.touched = t.next[:0], t.member[:0], t.touched[:0]
	for a, j := range e.Nodes {
		for _, x := range g.Neighbors(int(j)) {
			if x == i {
				continue
			}
			if t.head[x] < 0 {
				t.touched = append(t.touched, x)
			}
			t.next = append(t.next, t.head[x])
			t.member = append(t.member, int32(a))
			t.head[x] = int32(len(t.member) - 1)
		}
	}
	cost := 0
	for _, x := range t.touched {
		c := 0
		for p := t.head[x]; p >= 0; p = t.next[p] {
			c++
		}
		cost += c * c
	}
	return cost <= budget
}

// affinityRow appends row a of the affinity (local index a, node
// e.Nodes[a]) to the CSR arrays: the structural part (links, then common
// neighbours other than the centre when useCN) and, with an embedding, the
// kernel part, symmetric: b in kNN(a) or a in kNN(b), counted once.
func (w *ncutWork) affinityRow(g *graph.Graph, e *graph.EgoNet, a int, useCN, kernel bool) {
	aff, t, near := &w.aff, &w.twoHop, &w.near
	aff.epoch++
	if aff.epoch == 0 {
		clear(aff.stamp)
		aff.epoch = 1
	}
	aff.touched = aff.touched[:0]
	for _, b := range e.Neighbors(a) {
		aff.addEntry(b, 1)
	}
	i, j := int32(e.Center), e.Nodes[a]
	dj := float64(g.Degree(int(j)))
	for _, x := range g.Neighbors(int(j)) {
		if x == i || !useCN {
			continue
		}
		for p := t.head[x]; p >= 0; p = t.next[p] {
			if b := t.member[p]; int(b) != a {
				aff.addEntry(b, 1/math.Sqrt(dj*float64(g.Degree(int(e.Nodes[b])))))
			}
		}
	}
	if kernel {
		own := near.knn[a*ncutKNN : (a+1)*ncutKNN]
		for k, b := range own {
			if b >= 0 {
				aff.addEntry(b, near.knnW[a*ncutKNN+k])
			}
		}
		for p := near.revO[a]; p < near.revO[a+1]; p++ {
			if b := near.rev[p]; !slices.Contains(own, b) {
				aff.addEntry(b, near.kernelOf(int(b), int32(a)))
			}
		}
	}
	slices.Sort(aff.touched)
	for _, b := range aff.touched {
		aff.col = append(aff.col, b)
		aff.val = append(aff.val, aff.acc[b])
	}
	aff.off[a+1] = int32(len(aff.col))
}

// addEntry adds x to the current row's entry for b (local index), opening
// the entry if this row has not touched b yet.
func (aff *ncutAffinity) addEntry(b int32, x float64) {
	if aff.stamp[b] != aff.epoch {
		aff.stamp[b] = aff.epoch
		aff.acc[b] = 0
		aff.touched = append(aff.touched, b)
	}
	aff.acc[b] += x
}

// kernelOf returns the kernel weight of b's kNN entry for a (which exists).
func (near *ncutNearest) kernelOf(b int, a int32) float64 {
	for k := b * ncutKNN; k < (b+1)*ncutKNN; k++ {
		if near.knn[k] == a {
			return near.knnW[k]
		}
	}
	return 0
}

// find finds each neighbour's ncutKNN nearest neighbours in embedding space
// and their kernel weights exp(−d²/(2s²)), s² the median over neighbours of
// their median squared distance to the others; and the reverse lists.
func (near *ncutNearest) find(emb *cne.Embedding, e *graph.EgoNet) {
	m := e.NumNodes()
	k := min(ncutKNN, m-1)
	near.knn = vec.Resize(near.knn, m*ncutKNN)
	near.knnW = vec.Resize(near.knnW, m*ncutKNN)
	near.dist = vec.Resize(near.dist, m)
	near.rowMd = vec.Resize(near.rowMd, m)
	for a := 0; a < m; a++ {
		xa := emb.Row(int(e.Nodes[a]))
		for b := 0; b < m; b++ {
			near.dist[b] = vec.SqDist(xa, emb.Row(int(e.Nodes[b])))
		}
		near.dist[a] = math.Inf(1)
		// k smallest by repeated selection (k is tiny).
		row := near.knn[a*ncutKNN : (a+1)*ncutKNN]
		rw := near.knnW[a*ncutKNN : (a+1)*ncutKNN]
		for t := range row {
			row[t] = -1
		}
		for t := 0; t < k; t++ {
			best := -1
			for b := 0; b < m; b++ {
				if b == a || slices.Contains(row[:t], int32(b)) {
					continue
				}
				if best < 0 || near.dist[b] < near.dist[best] {
					best = b
				}
			}
			row[t] = int32(best)
			rw[t] = near.dist[best]
		}
		// Row median of the squared distances to the others.
		d := near.dist[:m]
		d[a] = d[m-1]
		d = d[:m-1]
		near.rowMd[a] = vec.QuickMedian(d)
	}
	s2 := vec.QuickMedian(near.rowMd[:m])
	if !(s2 > 0) {
		s2 = 1
	}
	for a := 0; a < m; a++ {
		for t := 0; t < ncutKNN; t++ {
			if near.knn[a*ncutKNN+t] >= 0 {
				near.knnW[a*ncutKNN+t] = math.Exp(-near.knnW[a*ncutKNN+t] / (2 * s2))
			}
		}
	}
	// Reverse lists: rev[revO[b]:revO[b+1]] are the a with b in kNN(a).
	near.revO = vec.Resize(near.revO, m+1)
	clear(near.revO)
	for _, b := range near.knn[:m*ncutKNN] {
		if b >= 0 {
			near.revO[b+1]++
		}
	}
	for b := 0; b < m; b++ {
		near.revO[b+1] += near.revO[b]
	}
	near.rev = vec.Resize(near.rev, int(near.revO[m]))
	pos := vec.Resize(near.pos, m)
	copy(pos, near.revO[:m])
	for a := 0; a < m; a++ {
		for _, b := range near.knn[a*ncutKNN : (a+1)*ncutKNN] {
			if b >= 0 {
				near.rev[pos[b]] = int32(a)
				pos[b]++
			}
		}
	}
	near.pos = pos
}
