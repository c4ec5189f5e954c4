package split

import (
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// SplitNCut is the default splitter. It keeps apart the pieces of a node's
// neighbourhood that nothing but the node ties together, and cuts a piece
// in two only where normalized cut finds two communities in it:
//
//  1. Pieces (pieces.go): neighbours joined by links, or, in a
//     neighbourhood without any link (an author's papers in
//     (:Author)-[:WROTE]->(:Paper)), by a common neighbour other than the
//     node (a co-author). In such a bipartite neighbourhood the pieces are
//     the groups: a piece of papers joined by shared co-authors is one
//     person's as far as the graph can tell, and nothing else is cut.
//  2. Affinity between two neighbours j and k: 1 if they are linked, plus
//     c_jk/sqrt(deg j · deg k) for their c_jk common neighbours other than
//     the node (two-hop structure outside the ego network), plus, when an
//     embedding is given, a Gaussian kernel of the embedding distance
//     between each neighbour and its ncutKNN nearest neighbours in
//     embedding space (bandwidth: the median squared distance). The matrix
//     is sparse; the cost is that of the two-hop paths plus O(m²·d) for the
//     nearest neighbours.
//  3. Bisection: the sweep over the relaxed normalized-cut solution (the
//     second eigenvector of the normalized affinity) that minimises
//     cut/vol(A) + cut/vol(B).
//  4. MCL check: two random neighbourhoods are about as densely linked as
//     the whole graph. When MCL's clusters of the ego network, merged into
//     two sides by the same affinity, are linked at most half as densely
//     as the graph, and more sparsely than the bisection's sides, MCL's
//     split wins if it has exactly two clusters of two or more, or if the
//     bisection's boundary is at least four times as dense as the graph
//     (it cuts through one entity's neighbourhood). Normalized cut dislikes
//     very unequal sides; MCL does not.
//  5. Rejoin: a piece (under links) that the sides cut in two parts linked
//     at least half as densely as the parts are inside has no community
//     boundary there; it goes whole to the side holding more of it. A knit
//     neighbourhood of one entity stays one group.
//  6. Hedge: each side is split into its pieces under links. A piece that
//     only the node ties to the rest cannot be placed from the graph; a
//     group of its own is the honest answer (and scores better under the
//     adjusted Rand index than a guess). So the groups are the pieces, with
//     a piece cut where the bisection found two communities in it.
//
// So a node gets as many groups as the graph can tell apart: one for a
// single knit neighbourhood that does not cut (a node that should not be
// split), two for two merged communities, dozens for a name shared by many
// people who work in separate groups. On real homonyms
// (bench/real-results) that is the count of the neighbourhood's
// components, which no signal of the graph merges better; on the paper's
// planted merges of two nodes, the cut of one piece in two
// (bench/SPLITTERS.md).
//
// Common neighbours do not join pieces in a neighbourhood with links: on
// the real name-keyed bibliography, two co-authors of different persons of
// one name share a third person (often another ambiguous name) more often
// than two of one person's separate collaborations do.
//
// For a hub whose neighbours share more than ncutPairBudget two-hop paths,
// step 2 leaves out the common neighbours. It works without an embedding
// (step 2 then has no kernel), so it can follow any scoring method, but it
// is better with one.
const NCut = "ncut"

// DefaultSplitter is the splitter used when a split is asked for without
// naming one (score --split, the connector's split mode).
const Default = NCut

// ncutKNN is the number of nearest neighbours in embedding space that get
// a kernel affinity.
const ncutKNN = 5

// ncutPairBudget bounds the work (and the affinity entries) of the
// common-neighbour part for one node; above it the part is left out. Ego
// networks of the paper's graphs stay far below it. (A splitter's
// pairBudget replaces it in tests.)
const ncutPairBudget = 50_000_000

// ncutExactMax is the largest ego network whose relaxation is solved with a
// dense eigensolver; larger ones use power iteration on the sparse matrix.
const ncutExactMax = 300

// ncutWork is one worker's scratch space.
type ncutWork struct {
	pairBudget         int     // replaces ncutPairBudget when set (tests)
	head, next, member []int32 // two-hop lists: for node w, the locals adjacent to w
	touchedW           []int32
	acc                []float64 // row accumulator, by local index
	stamp              []uint32
	epoch              uint32
	touched            []int32
	// sparse affinity, CSR over local indices
	off []int32
	col []int32
	val []float64
	// kNN in embedding space
	knn   []int32
	knnW  []float64
	dist  []float64
	rowMd []float64
	rev   []int32 // reverse kNN lists (CSR)
	revO  []int32
	// spectral
	sweepBuf
	isq, v, u, top []float64
	sym            *mat.SymDense
	eig            mat.EigenSym
	vecs           mat.Dense
	// hedge
	label []int32
	stack []int32
}

func splitNCut(g *graph.Graph, in *Input, i int, w *splitWorker) ([][]int32, error) {
	e, err := g.Ego(i, &w.ego)
	if err != nil {
		return nil, err
	}
	m := e.NumNodes()
	if m < 2 {
		return [][]int32{slices.Clone(e.Nodes)}, nil
	}
	if e.NumEdges() == 0 {
		return w.pieces.Groups(g, e), nil
	}
	nw := &w.ncut
	nw.affinity(g, in.Embedding, e)
	side := nw.bisect(m)
	// The MCL check. Two random neighbourhoods are linked about as densely
	// as the graph (density); a side boundary much denser than that cuts
	// through one entity's neighbourhood.
	n := float64(g.NumNodes())
	density := 2 * float64(g.NumEdges()) / (n * (n - 1))
	clusters, err := w.mcl.Cluster(e, in.MCL)
	if err != nil {
		return nil, err
	}
	r1 := crossRate(e, side)
	alt, strict := nw.mclTwo(e, clusters), true
	if alt == nil {
		alt, strict = nw.mclMerge(e, clusters, &w.bw), false
	}
	if alt != nil {
		r2 := crossRate(e, alt)
		if r2 < r1 && r2 <= ncutMCLSparse*density && (strict || r1 > ncutDenseCut*density) {
			copy(side, alt)
		}
	}
	nw.rejoin(e, side)
	return nw.hedge(e, side), nil
}

// Thresholds of the MCL check, relative to the graph's density: MCL's split
// is taken when its sides are linked at most ncutMCLSparse times as densely
// as random pairs, and (unless MCL found exactly two real clusters) the
// bisection's sides at least ncutDenseCut times as densely.
const (
	ncutMCLSparse = 0.5
	ncutDenseCut  = 4
)

// ncutMergeMax bounds the number of MCL clusters mclMerge merges (a dense
// k×k matrix).
const ncutMergeMax = 500

// mclMerge merges MCL's clusters (three or more, or two with a singleton)
// into two sides by normalized cut of the summed affinity between clusters;
// nil when there is nothing to merge or too much.
func (w *ncutWork) mclMerge(e *graph.EgoNet, clusters [][]int32, bw *bisectWork) []int8 {
	k := len(clusters)
	if k < 2 || k > ncutMergeMax {
		return nil
	}
	m := e.NumNodes()
	w.label = vec.Resize(w.label, m)
	for c, cl := range clusters {
		for _, a := range cl {
			w.label[a] = int32(c)
		}
	}
	C := make([]float64, k*k)
	for a := 0; a < m; a++ {
		ca := int(w.label[a])
		for p := w.off[a]; p < w.off[a+1]; p++ {
			if cb := int(w.label[w.col[p]]); cb != ca {
				C[ca*k+cb] += w.val[p]
			}
		}
	}
	sides := bisect(C, k, bw)
	alt := make([]int8, m)
	for a := 0; a < m; a++ {
		alt[a] = sides[w.label[a]]
	}
	return alt
}

// affinity builds the sparse affinity among the neighbours of e.Center.
func (w *ncutWork) affinity(g *graph.Graph, emb *cne.Embedding, e *graph.EgoNet) {
	m := e.NumNodes()
	useCN := w.twoHopLists(g, e)
	if emb != nil {
		w.kNN(emb, e)
	}
	w.acc = vec.Resize(w.acc, m)
	if len(w.stamp) < m {
		w.stamp = make([]uint32, vec.GrowCap(m))
		w.epoch = 0
	}
	w.off = vec.Resize(w.off, m+1)
	w.col, w.val = w.col[:0], w.val[:0]
	w.off[0] = 0
	for a := range e.Nodes {
		w.affinityRow(g, e, a, useCN, emb != nil)
	}
	for _, x := range w.touchedW {
		w.head[x] = -1
	}
}

// twoHopLists builds, for every w' other than the centre i adjacent to a
// neighbour, the list of neighbours it is adjacent to (w.head, w.next,
// w.member; the w' in w.touchedW). It reports whether the common-neighbour
// pass fits ncutPairBudget: it costs sum_w |T_w|^2 for T_w the neighbours
// adjacent to w, and a hub of a dense graph can make that (and the matrix)
// huge; then only links and the kernel are used.
func (w *ncutWork) twoHopLists(g *graph.Graph, e *graph.EgoNet) bool {
	i := int32(e.Center)
	if n := g.NumNodes(); len(w.head) < n {
		w.head = make([]int32, n)
		for k := range w.head {
			w.head[k] = -1
		}
	}
	w.next, w.member, w.touchedW = w.next[:0], w.member[:0], w.touchedW[:0]
	for a, j := range e.Nodes {
		for _, x := range g.Neighbors(int(j)) {
			if x == i {
				continue
			}
			if w.head[x] < 0 {
				w.touchedW = append(w.touchedW, x)
			}
			w.next = append(w.next, w.head[x])
			w.member = append(w.member, int32(a))
			w.head[x] = int32(len(w.member) - 1)
		}
	}
	cost := 0
	for _, x := range w.touchedW {
		c := 0
		for p := w.head[x]; p >= 0; p = w.next[p] {
			c++
		}
		cost += c * c
	}
	budget := w.pairBudget
	if budget == 0 {
		budget = ncutPairBudget
	}
	return cost <= budget
}

// affinityRow appends row a of the affinity (local index a, node
// e.Nodes[a]) to the CSR arrays: the structural part (links, then common
// neighbours other than the centre when useCN) and, with an embedding, the
// kernel part, symmetric: b in kNN(a) or a in kNN(b), counted once.
func (w *ncutWork) affinityRow(g *graph.Graph, e *graph.EgoNet, a int, useCN, kernel bool) {
	w.epoch++
	if w.epoch == 0 {
		clear(w.stamp)
		w.epoch = 1
	}
	w.touched = w.touched[:0]
	for _, b := range e.Neighbors(a) {
		w.addEntry(b, 1)
	}
	i, j := int32(e.Center), e.Nodes[a]
	dj := float64(g.Degree(int(j)))
	for _, x := range g.Neighbors(int(j)) {
		if x == i || !useCN {
			continue
		}
		for p := w.head[x]; p >= 0; p = w.next[p] {
			if b := w.member[p]; int(b) != a {
				w.addEntry(b, 1/math.Sqrt(dj*float64(g.Degree(int(e.Nodes[b])))))
			}
		}
	}
	if kernel {
		own := w.knn[a*ncutKNN : (a+1)*ncutKNN]
		for k, b := range own {
			if b >= 0 {
				w.addEntry(b, w.knnW[a*ncutKNN+k])
			}
		}
		for p := w.revO[a]; p < w.revO[a+1]; p++ {
			if b := w.rev[p]; !slices.Contains(own, b) {
				w.addEntry(b, w.kernelOf(int(b), int32(a)))
			}
		}
	}
	slices.Sort(w.touched)
	for _, b := range w.touched {
		w.col = append(w.col, b)
		w.val = append(w.val, w.acc[b])
	}
	w.off[a+1] = int32(len(w.col))
}

// addEntry adds x to the current row's entry for b (local index), opening
// the entry if this row has not touched b yet.
func (w *ncutWork) addEntry(b int32, x float64) {
	if w.stamp[b] != w.epoch {
		w.stamp[b] = w.epoch
		w.acc[b] = 0
		w.touched = append(w.touched, b)
	}
	w.acc[b] += x
}

// kernelOf returns the kernel weight of b's kNN entry for a (which exists).
func (w *ncutWork) kernelOf(b int, a int32) float64 {
	for k := b * ncutKNN; k < (b+1)*ncutKNN; k++ {
		if w.knn[k] == a {
			return w.knnW[k]
		}
	}
	return 0
}

// kNN finds each neighbour's ncutKNN nearest neighbours in embedding space
// and their kernel weights exp(−d²/(2s²)), s² the median over neighbours of
// their median squared distance to the others; and the reverse lists.
func (w *ncutWork) kNN(emb *cne.Embedding, e *graph.EgoNet) {
	m := e.NumNodes()
	k := min(ncutKNN, m-1)
	w.knn = vec.Resize(w.knn, m*ncutKNN)
	w.knnW = vec.Resize(w.knnW, m*ncutKNN)
	w.dist = vec.Resize(w.dist, m)
	w.rowMd = vec.Resize(w.rowMd, m)
	for a := 0; a < m; a++ {
		xa := emb.Row(int(e.Nodes[a]))
		for b := 0; b < m; b++ {
			w.dist[b] = vec.SqDist(xa, emb.Row(int(e.Nodes[b])))
		}
		w.dist[a] = math.Inf(1)
		// k smallest by repeated selection (k is tiny).
		row := w.knn[a*ncutKNN : (a+1)*ncutKNN]
		rw := w.knnW[a*ncutKNN : (a+1)*ncutKNN]
		for t := range row {
			row[t] = -1
		}
		for t := 0; t < k; t++ {
			best := -1
			for b := 0; b < m; b++ {
				if b == a || slices.Contains(row[:t], int32(b)) {
					continue
				}
				if best < 0 || w.dist[b] < w.dist[best] {
					best = b
				}
			}
			row[t] = int32(best)
			rw[t] = w.dist[best]
		}
		// Row median of the squared distances to the others.
		d := w.dist[:m]
		d[a] = d[m-1]
		d = d[:m-1]
		w.rowMd[a] = vec.QuickMedian(d)
	}
	s2 := vec.QuickMedian(w.rowMd[:m])
	if !(s2 > 0) {
		s2 = 1
	}
	for a := 0; a < m; a++ {
		for t := 0; t < ncutKNN; t++ {
			if w.knn[a*ncutKNN+t] >= 0 {
				w.knnW[a*ncutKNN+t] = math.Exp(-w.knnW[a*ncutKNN+t] / (2 * s2))
			}
		}
	}
	// Reverse lists: rev[revO[b]:revO[b+1]] are the a with b in kNN(a).
	w.revO = vec.Resize(w.revO, m+1)
	clear(w.revO)
	for _, b := range w.knn[:m*ncutKNN] {
		if b >= 0 {
			w.revO[b+1]++
		}
	}
	for b := 0; b < m; b++ {
		w.revO[b+1] += w.revO[b]
	}
	w.rev = vec.Resize(w.rev, int(w.revO[m]))
	pos := vec.Resize(w.order, m)
	copy(pos, w.revO[:m])
	for a := 0; a < m; a++ {
		for _, b := range w.knn[a*ncutKNN : (a+1)*ncutKNN] {
			if b >= 0 {
				w.rev[pos[b]] = int32(a)
				pos[b]++
			}
		}
	}
	w.order = pos
}

// bisect returns the normalized-cut bisection (+1/−1 per local index) of
// the affinity built by affinity; the result aliases w.
func (w *ncutWork) bisect(m int) []int8 {
	w.deg = vec.Resize(w.deg, m)
	w.isq = vec.Resize(w.isq, m)
	total := 0.0
	for a := 0; a < m; a++ {
		s := 0.0
		for p := w.off[a]; p < w.off[a+1]; p++ {
			s += w.val[p]
		}
		w.deg[a] = s
		total += s
		w.isq[a] = 0
		if s > 0 {
			w.isq[a] = 1 / math.Sqrt(s)
		}
	}
	w.key = vec.Resize(w.key, m)
	if total == 0 {
		for a := range w.key {
			w.key[a] = float64(-a)
		}
	} else {
		w.fiedler(m)
		for a := 0; a < m; a++ {
			w.key[a] = w.v[a] * w.isq[a]
		}
	}
	// Sweep: sides by decreasing key; keep the prefix of least Ncut.
	return w.sweep(m, func(a int, inA []float64) {
		for p := w.off[a]; p < w.off[a+1]; p++ {
			inA[w.col[p]] += w.val[p]
		}
	})
}

// fiedler writes into w.v the eigenvector of the second largest eigenvalue
// of N = D^-1/2 W D^-1/2 (the largest is 1, eigenvector D^1/2·1): with a
// dense eigensolver up to ncutExactMax nodes, else by power iteration on
// (N+I)/2 with the top eigenvector deflated, from a fixed start. Its sign
// is fixed so that the first clearly nonzero entry is positive.
func (w *ncutWork) fiedler(m int) {
	w.v = vec.Resize(w.v, m)
	done := false
	if m <= ncutExactMax {
		if w.sym == nil || w.sym.SymmetricDim() != m {
			w.sym = mat.NewSymDense(m, nil)
		} else {
			w.sym.Zero()
		}
		for a := 0; a < m; a++ {
			for p := w.off[a]; p < w.off[a+1]; p++ {
				if b := int(w.col[p]); b > a {
					w.sym.SetSym(a, b, w.val[p]*w.isq[a]*w.isq[b])
				}
			}
		}
		if w.eig.Factorize(w.sym, true) {
			w.vecs.Reset()
			w.eig.VectorsTo(&w.vecs)
			for a := 0; a < m; a++ {
				w.v[a] = w.vecs.At(a, m-2) // eigenvalues ascend
			}
			done = true
		}
	}
	if !done {
		powerFiedler(m, w.deg, &w.v, &w.u, &w.top, 0x6e637574 /* "ncut" */, 2000, 1e-20,
			func(a int, v []float64) float64 {
				s := 0.0
				for p := w.off[a]; p < w.off[a+1]; p++ {
					b := w.col[p]
					s += w.val[p] * w.isq[b] * v[b]
				}
				return s * w.isq[a]
			})
	}
	for a := 0; a < m; a++ {
		if math.Abs(w.v[a]) > 1e-9 {
			if w.v[a] < 0 {
				for b := range w.v {
					w.v[b] = -w.v[b]
				}
			}
			break
		}
	}
}

// deflateUnit removes from x its component along the unit vector top and
// normalises it.
func deflateUnit(x, top []float64) {
	p := vec.Dot(x, top)
	s := 0.0
	for a := range x {
		x[a] -= p * top[a]
		s += x[a] * x[a]
	}
	if s = math.Sqrt(s); s > 0 {
		for a := range x {
			x[a] /= s
		}
	}
}

// mclTwo returns MCL's split when MCL finds exactly two clusters of two or
// more neighbours: those two sides, each singleton cluster joining the side
// it has more affinity to (per member); nil otherwise. The result aliases w.
func (w *ncutWork) mclTwo(e *graph.EgoNet, clusters [][]int32) []int8 {
	var big [2][]int32
	nb := 0
	for _, c := range clusters {
		if len(c) >= 2 {
			if nb == 2 {
				return nil
			}
			big[nb] = c
			nb++
		}
	}
	if nb != 2 {
		return nil
	}
	m := e.NumNodes()
	w.label = vec.Resize(w.label, m)
	for a := range w.label {
		w.label[a] = 0
	}
	for s, c := range big {
		for _, a := range c {
			w.label[a] = int32(1 - 2*s) // +1, -1
		}
	}
	alt := make([]int8, m)
	for a := 0; a < m; a++ {
		if w.label[a] != 0 {
			alt[a] = int8(w.label[a])
			continue
		}
		var s [2]float64
		for p := w.off[a]; p < w.off[a+1]; p++ {
			switch w.label[w.col[p]] {
			case 1:
				s[0] += w.val[p]
			case -1:
				s[1] += w.val[p]
			}
		}
		alt[a] = 1
		if s[1]/float64(len(big[1])) > s[0]/float64(len(big[0])) {
			alt[a] = -1
		}
	}
	return alt
}

// crossRate is the fraction of pairs across the two sides that are linked
// in the ego network (+Inf when a side is empty).
func crossRate(e *graph.EgoNet, side []int8) float64 {
	var n [2]float64
	x := 0.0
	for a := range side {
		s := 0
		if side[a] < 0 {
			s = 1
		}
		n[s]++
		for _, b := range e.Neighbors(a) {
			if int(b) > a && side[b] != side[a] {
				x++
			}
		}
	}
	if n[0] == 0 || n[1] == 0 {
		return math.Inf(1)
	}
	return x / (n[0] * n[1])
}

// hedge splits each side into its pieces under links (two neighbours of
// one side joined by a chain of links within the side) and returns them as
// groups of original indices.
func (w *ncutWork) hedge(e *graph.EgoNet, side []int8) [][]int32 {
	m := e.NumNodes()
	w.label = vec.Resize(w.label, m)
	for a := range w.label {
		w.label[a] = -1
	}
	var groups [][]int32
	for s := 0; s < m; s++ {
		if w.label[s] >= 0 {
			continue
		}
		c := int32(len(groups))
		w.label[s] = c
		grp := []int32{e.Nodes[s]}
		st := append(w.stack[:0], int32(s))
		for len(st) > 0 {
			a := st[len(st)-1]
			st = st[:len(st)-1]
			for _, b := range e.Neighbors(int(a)) {
				if w.label[b] < 0 && side[b] == side[a] {
					w.label[b] = c
					grp = append(grp, e.Nodes[b])
					st = append(st, b)
				}
			}
		}
		w.stack = st
		groups = append(groups, grp)
	}
	return groups
}

// ncutRejoin is the density below which a cut through a piece stands:
// its two parts must be linked less than this share as densely as inside
// them.
const ncutRejoin = 0.5

// rejoin undoes the cut of every piece (under links) of the ego network
// whose two parts are linked at least ncutRejoin times as densely as the
// parts are inside, moving the piece to the side that holds more of it: a
// cut through a knit neighbourhood that has no community boundary.
func (w *ncutWork) rejoin(e *graph.EgoNet, side []int8) {
	m := e.NumNodes()
	// link pieces of the whole ego net
	w.label = vec.Resize(w.label, m)
	for a := range w.label {
		w.label[a] = -1
	}
	count := int32(0)
	for s := 0; s < m; s++ {
		if w.label[s] >= 0 {
			continue
		}
		w.label[s] = count
		st := append(w.stack[:0], int32(s))
		for len(st) > 0 {
			a := st[len(st)-1]
			st = st[:len(st)-1]
			for _, b := range e.Neighbors(int(a)) {
				if w.label[b] < 0 {
					w.label[b] = count
					st = append(st, b)
				}
			}
		}
		w.stack = st
		count++
	}
	type acc struct{ na, nb, cross, inA, inB float64 }
	pc := make([]acc, count)
	for a := 0; a < m; a++ {
		p := &pc[w.label[a]]
		if side[a] > 0 {
			p.na++
		} else {
			p.nb++
		}
		for _, b := range e.Neighbors(a) {
			if int(b) <= a {
				continue
			}
			switch {
			case side[a] != side[b]:
				p.cross++
			case side[a] > 0:
				p.inA++
			default:
				p.inB++
			}
		}
	}
	for c := range pc {
		p := pc[c]
		if p.na == 0 || p.nb == 0 {
			continue
		}
		pairs := p.na*(p.na-1)/2 + p.nb*(p.nb-1)/2
		din := 1.0
		if pairs > 0 {
			din = (p.inA + p.inB) / pairs
		}
		if p.cross/(p.na*p.nb) < ncutRejoin*din {
			continue
		}
		keep := int8(1)
		if p.nb > p.na {
			keep = -1
		}
		for a := 0; a < m; a++ {
			if w.label[a] == int32(c) {
				side[a] = keep
			}
		}
	}
}
