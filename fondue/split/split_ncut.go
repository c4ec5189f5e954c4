package split

import (
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// NCut names the default splitter, normalized cut over the pieces of a
// neighbourhood; the package documentation says what it does, step by step.
const NCut = "ncut"

// Default is the splitter used when a split is asked for without
// naming one (score --split, the connector's split mode).
const Default = NCut

// ncutWork is one worker's scratch space, by step of the splitter.
type ncutWork struct {
	pairBudget int // replaces ncutPairBudget when set (tests)

	twoHop ncutTwoHop   // step 2: the neighbours adjacent to each node outside the ego net
	near   ncutNearest  // step 2: the nearest neighbours in embedding space
	aff    ncutAffinity // step 2: the sparse affinity
	cut    ncutSpectral // step 3: the bisection
	// Steps 4 to 6 (MCL check, rejoin, hedge): a label per local index
	// and a stack for the searches.
	label []int32
	stack []int32
}

// splitNCut splits node i by the steps of the package documentation: the
// pieces alone when links reach fewer than half of its neighbours (step
// 1, score.LinkPoor), else the affinity (step 2, split_ncut_affinity.go),
// its bisection (step 3, split_ncut_bisect.go), the MCL check (step 4),
// rejoin and hedge (5, 6).
func splitNCut(g *graph.Graph, in *Input, i int, w *splitWorker) ([][]int32, error) {
	e, err := g.Ego(i, &w.ego)
	if err != nil {
		return nil, err
	}
	m := e.NumNodes()
	if m < 2 {
		return [][]int32{slices.Clone(e.Nodes)}, nil
	}
	if score.LinkPoor(e) {
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
		for p := w.aff.off[a]; p < w.aff.off[a+1]; p++ {
			if cb := int(w.label[w.aff.col[p]]); cb != ca {
				C[ca*k+cb] += w.aff.val[p]
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
		for p := w.aff.off[a]; p < w.aff.off[a+1]; p++ {
			switch w.label[w.aff.col[p]] {
			case 1:
				s[0] += w.aff.val[p]
			case -1:
				s[1] += w.aff.val[p]
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
