package mcl

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/errs"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// Options are the Markov clustering parameters. The paper does not give
// them; the defaults are those of run_mcl in the PyPI package
// markov-clustering (GuyAllard/markov_clustering), the tool the NC baseline
// most likely used. The zero value selects all defaults.
type Options struct {
	// Expansion is the matrix power taken per iteration (default 2; must be
	// at least 2 as in run_mcl).
	Expansion int
	// Inflation is the elementwise power taken per iteration (default 2;
	// must exceed 1).
	Inflation float64
	// LoopValue is the weight of the self-loop put on every node before the
	// first normalisation (default 1). Since 0 selects the default, a
	// negative value means no self-loops.
	LoopValue float64
	// MaxIter bounds the number of iterations (default 100).
	MaxIter int
	// PruneThreshold: entries below it are dropped after every inflation,
	// except each column's largest (default 0.001; negative disables
	// pruning).
	PruneThreshold float64
}

// Validate reports options that cannot work (Expansion 1 or negative,
// Inflation 1 or less, negative MaxIter, a LoopValue or PruneThreshold that
// is not a number) as an *OptionsError.
func (o Options) Validate() error {
	_, err := o.mclResolved()
	return err
}

// mclResolved replaces zero fields by the defaults and checks the rest.
func (o Options) mclResolved() (Options, error) {
	if o.Expansion == 0 {
		o.Expansion = 2
	}
	if o.Inflation == 0 {
		o.Inflation = 2
	}
	if o.LoopValue == 0 {
		o.LoopValue = 1
	} else if o.LoopValue < 0 {
		o.LoopValue = 0
	}
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	if o.PruneThreshold == 0 {
		o.PruneThreshold = 0.001
	} else if o.PruneThreshold < 0 {
		o.PruneThreshold = 0
	}
	if o.Expansion < 2 || !(o.Inflation > 1) || o.MaxIter < 0 || math.IsNaN(o.LoopValue) ||
		math.IsInf(o.LoopValue, 0) || math.IsNaN(o.PruneThreshold) {
		return o, &errs.OptionsError{Msg: fmt.Sprintf("invalid MCL options %+v: Expansion must be at least 2, Inflation above 1, MaxIter not negative", o)}
	}
	return o, nil
}

// Convergence tolerances of numpy.allclose, which run_mcl uses.
const (
	mclRTol = 1e-5
	mclATol = 1e-8
)

// mclMatrix is a column-stored sparse matrix: column j has rows
// row[ptr[j]:ptr[j+1]] (ascending) with values val[ptr[j]:ptr[j+1]].
type mclMatrix struct {
	ptr []int
	row []int32
	val []float64
}

func (m *mclMatrix) reset(n int) {
	if cap(m.ptr) < n+1 {
		m.ptr = make([]int, n+1, vec.GrowCap(n+1))
	}
	m.ptr = m.ptr[:1]
	m.ptr[0] = 0
	m.row = m.row[:0]
	m.val = m.val[:0]
}

// Workspace holds the buffers of Markov clustering so that clustering the
// ego net of every node of a large graph does not allocate per node. The zero
// value is ready to use; a workspace must not be shared between goroutines.
type Workspace struct {
	cur, nxt, tmp, tmp2 mclMatrix

	acc     []float64 // dense accumulator of one product column
	stamp   []uint32  // stamp[i] == epoch: acc[i] is live for this column
	epoch   uint32
	touched []int32

	// cluster extraction
	isAttr   []bool
	attrs    []int32
	rowPtr   []int32 // supports of the attractor rows, by attractor rank
	rowIdx   []int32
	rank     []int32 // attractor -> rank in attrs
	group    []int32 // attractor rank -> group (identical row support)
	groupRep []int32 // group -> smallest attractor of the group
	groupCl  []int32 // group -> output cluster, -1 if not yet seen
	cluster  []int32 // node -> output cluster
	counts   []int32
	flat     []int32
	out      [][]int32

	iterations int
	converged  bool
}

// Iterations reports how many iterations the last Cluster call ran and
// whether it stopped because the matrix converged (rather than at MaxIter).
func (w *Workspace) Iterations() (n int, converged bool) { return w.iterations, w.converged }

var mclPool = sync.Pool{New: func() any { return new(Workspace) }}

// clusterMCL clusters the ego net e with Markov clustering and returns a partition
// of its local indices 0..e.NumNodes()-1: each cluster sorted, clusters
// ordered by their smallest member. It allocates its result; use an
// Workspace to cluster many ego nets. See Workspace.Cluster for the
// exact semantics and the errors.
func clusterMCL(e *graph.EgoNet, opts Options) ([][]int32, error) {
	w := mclPool.Get().(*Workspace)
	defer mclPool.Put(w)
	cl, err := w.Cluster(e, opts)
	if err != nil {
		return nil, err
	}
	flat := slices.Clone(w.flat)
	out := make([][]int32, len(cl))
	off := 0
	for c, m := range cl {
		out[c] = flat[off : off+len(m) : off+len(m)]
		off += len(m)
	}
	return out, nil
}

// Cluster runs MCL on the unweighted adjacency of e and returns the
// partition; the result aliases the workspace and is valid until its next
// use. Invalid options (see Options.Validate) return an *OptionsError.
//
// The iteration is that of run_mcl in GuyAllard/markov_clustering (read at
// commit 9ca5203, the 0.0.6 code): the diagonal is set to LoopValue, columns
// are L1-normalised (an all-zero column stays zero), and every iteration
// (1) keeps a copy M_prev, (2) expands M ← M^Expansion, (3) inflates
// M ← normalise(M .^ Inflation), (4) prunes: entries < PruneThreshold become
// 0 except the largest entry of each column (numpy argmax: the first, i.e.
// smallest row, on ties), with no renormalisation afterwards, and (5) stops
// when max |M − M_prev| − rtol·|M_prev| ≤ atol (numpy.allclose with rtol
// 1e-5, atol 1e-8). Pruning and the convergence check run every iteration
// (pruning_frequency = convergence_check_frequency = 1, the defaults), and
// the check comes after pruning. Inflation, normalisation and pruning act on
// one column at a time, so here they are applied to each column of the last
// expansion product as soon as it is computed: the expanded matrix is never
// stored unpruned, which bounds memory by about 1/PruneThreshold entries per
// column even for dense ego nets of hubs. The numbers are the same as doing
// the three steps on whole matrices.
//
// Extraction: run_mcl's get_clusters makes one cluster per attractor (a node
// with a nonzero diagonal entry) from the nonzero entries of its row, and
// drops duplicate clusters. Those clusters may overlap, so a partition is
// forced: attractors with identical row supports form one cluster (the
// deduplication; it also keeps a clique whose members are all attractors
// together when rounding makes their entries differ in the last bit), and
// node j joins the cluster containing the attractor with the largest entry
// in column j, ties going to the cluster whose smallest attractor is
// smallest. A node with no attractor entry in its column, and a node isolated
// in the ego net, is a singleton. The computation is sequential and
// deterministic.
func (w *Workspace) Cluster(e *graph.EgoNet, opts Options) ([][]int32, error) {
	o, err := opts.mclResolved()
	if err != nil {
		return nil, err
	}
	n := e.NumNodes()
	w.prepare(n)
	w.initial(e, o.LoopValue)
	w.iterations, w.converged = 0, false
	for it := 0; it < o.MaxIter; it++ {
		// M^Expansion = M·(M·(…·M)); all but the last product are stored raw.
		right := &w.cur
		for p := 2; p < o.Expansion; p++ {
			w.product(&w.tmp2, &w.cur, right, n, nil)
			w.tmp, w.tmp2 = w.tmp2, w.tmp
			right = &w.tmp
		}
		w.product(&w.nxt, &w.cur, right, n, &o)
		w.iterations = it + 1
		done := w.close(n)
		w.cur, w.nxt = w.nxt, w.cur
		if done {
			w.converged = true
			break
		}
	}
	return w.extract(n), nil
}

// prepare sizes the dense per-node buffers for an n-node ego net.
func (w *Workspace) prepare(n int) {
	if len(w.acc) < n {
		c := vec.GrowCap(n)
		w.acc = make([]float64, c)
		w.stamp = make([]uint32, c)
		w.epoch = 0
	}
}

// initial sets w.cur to the column-normalised adjacency of e with the
// diagonal set to loop.
func (w *Workspace) initial(e *graph.EgoNet, loop float64) {
	n := e.NumNodes()
	m := &w.cur
	m.reset(n)
	for j := 0; j < n; j++ {
		start := len(m.row)
		nb := e.Neighbors(j)
		// Insert the diagonal at its sorted place.
		k := vec.Search(nb, int32(j))
		for _, i := range nb[:k] {
			m.row = append(m.row, i)
			m.val = append(m.val, 1)
		}
		if loop > 0 {
			m.row = append(m.row, int32(j))
			m.val = append(m.val, loop)
		}
		for _, i := range nb[k:] {
			m.row = append(m.row, i)
			m.val = append(m.val, 1)
		}
		mclNormalize(m.val[start:])
		m.ptr = append(m.ptr, len(m.row))
	}
}

// mclNormalize divides v by its sum (in index order), leaving an all-zero v
// unchanged as sklearn.preprocessing.normalize does.
func mclNormalize(v []float64) {
	s := 0.0
	for _, x := range v {
		s += x
	}
	if s == 0 {
		return
	}
	for k := range v {
		v[k] /= s
	}
}

// product sets dst = a·b. With fin != nil every column of the product is
// inflated, normalised and pruned (run_mcl's steps 3 and 4) before it is
// stored. Column j of a·b is Σ_k b[k,j]·a[:,k], summed into a dense
// accumulator in ascending k, so each entry gets the same floating-point
// sum as a dense row-by-column product.
func (w *Workspace) product(dst, a, b *mclMatrix, n int, fin *Options) {
	dst.reset(n)
	acc, stamp := w.acc, w.stamp
	for j := 0; j < n; j++ {
		w.epoch++
		if w.epoch == 0 { // wrapped: forget all stamps
			clear(stamp)
			w.epoch = 1
		}
		ep := w.epoch
		t := w.touched[:0]
		for p := b.ptr[j]; p < b.ptr[j+1]; p++ {
			k, bv := b.row[p], b.val[p]
			for q := a.ptr[k]; q < a.ptr[k+1]; q++ {
				i := a.row[q]
				if stamp[i] != ep {
					stamp[i] = ep
					acc[i] = 0
					t = append(t, i)
				}
				acc[i] += a.val[q] * bv
			}
		}
		// Rows in ascending order: sort a short list, scan a long one.
		if len(t)*8 < n {
			slices.Sort(t)
		} else {
			t = t[:0]
			for i := 0; i < n; i++ {
				if stamp[i] == ep {
					t = append(t, int32(i))
				}
			}
		}
		w.touched = t
		if fin == nil {
			for _, i := range t {
				dst.row = append(dst.row, i)
				dst.val = append(dst.val, acc[i])
			}
			dst.ptr = append(dst.ptr, len(dst.row))
			continue
		}
		// Inflate and normalise.
		s := 0.0
		for _, i := range t {
			x := acc[i]
			if fin.Inflation == 2 {
				x *= x
			} else {
				x = math.Pow(x, fin.Inflation)
			}
			acc[i] = x
			s += x
		}
		if s != 0 {
			for _, i := range t {
				acc[i] /= s
			}
		}
		// Prune, keeping the first largest entry.
		best, bestV := int32(-1), 0.0
		for _, i := range t {
			if acc[i] > bestV {
				best, bestV = i, acc[i]
			}
		}
		for _, i := range t {
			x := acc[i]
			if x != 0 && (x >= fin.PruneThreshold || i == best) {
				dst.row = append(dst.row, i)
				dst.val = append(dst.val, x)
			}
		}
		dst.ptr = append(dst.ptr, len(dst.row))
	}
}

// close reports whether w.nxt is close to w.cur in numpy.allclose's sense,
// |new − old| ≤ atol + rtol·|old| for every entry (old = the matrix before
// the iteration), merging the two sorted columns.
func (w *Workspace) close(n int) bool {
	x, y := &w.nxt, &w.cur
	ok := func(nv, ov float64) bool {
		return math.Abs(nv-ov)-mclRTol*math.Abs(ov) <= mclATol
	}
	for j := 0; j < n; j++ {
		p, pe := x.ptr[j], x.ptr[j+1]
		q, qe := y.ptr[j], y.ptr[j+1]
		for p < pe || q < qe {
			switch {
			case q == qe || (p < pe && x.row[p] < y.row[q]):
				if !ok(x.val[p], 0) {
					return false
				}
				p++
			case p == pe || y.row[q] < x.row[p]:
				if !ok(0, y.val[q]) {
					return false
				}
				q++
			default:
				if !ok(x.val[p], y.val[q]) {
					return false
				}
				p++
				q++
			}
		}
	}
	return true
}

// extract turns the final matrix w.cur into the partition described at
// Cluster.
func (w *Workspace) extract(n int) [][]int32 {
	w.findAttractors(n)
	w.attractorSupports(n)
	w.groupAttractors()
	w.assignToGroups(n)
	nc := w.numberClusters(n)
	return w.layOut(n, nc)
}

// findAttractors lists in w.attrs, ascending, the attractors of w.cur: the
// nodes with a positive diagonal entry. It sets w.isAttr and, for each
// attractor, w.rank (its index in w.attrs).
func (w *Workspace) findAttractors(n int) {
	m := &w.cur
	w.isAttr = vec.Resize(w.isAttr, n)
	w.rank = vec.Resize(w.rank, n)
	w.attrs = w.attrs[:0]
	for j := 0; j < n; j++ {
		rows := m.row[m.ptr[j]:m.ptr[j+1]]
		k := vec.Search(rows, int32(j))
		w.isAttr[j] = k < len(rows) && rows[k] == int32(j) && m.val[m.ptr[j]+k] > 0
		if w.isAttr[j] {
			w.rank[j] = int32(len(w.attrs))
			w.attrs = append(w.attrs, int32(j))
		}
	}
}

// attractorSupports stores the supports of the attractor rows of w.cur
// (column indices ascending) in w.rowPtr and w.rowIdx; see support.
func (w *Workspace) attractorSupports(n int) {
	m := &w.cur
	na := len(w.attrs)
	w.rowPtr = vec.Resize(w.rowPtr, na+1)
	clear(w.rowPtr)
	for _, i := range m.row {
		if w.isAttr[i] {
			w.rowPtr[w.rank[i]+1]++
		}
	}
	for r := 0; r < na; r++ {
		w.rowPtr[r+1] += w.rowPtr[r]
	}
	w.rowIdx = vec.Resize(w.rowIdx, int(w.rowPtr[na]))
	w.counts = vec.Resize(w.counts, na)
	copy(w.counts, w.rowPtr[:na])
	for j := 0; j < n; j++ {
		for p := m.ptr[j]; p < m.ptr[j+1]; p++ {
			if i := m.row[p]; w.isAttr[i] {
				r := w.rank[i]
				w.rowIdx[w.counts[r]] = int32(j)
				w.counts[r]++
			}
		}
	}
}

// support is the support of the row of the attractor of rank r.
func (w *Workspace) support(r int32) []int32 { return w.rowIdx[w.rowPtr[r]:w.rowPtr[r+1]] }

// groupAttractors groups attractors with identical supports: it sorts
// ranks by support, then by attractor index, so each group's first member
// is its smallest. It sets w.group and w.groupRep.
func (w *Workspace) groupAttractors() {
	na := len(w.attrs)
	order := vec.Resize(w.counts, na) // reuse: counts is free again
	for r := range order {
		order[r] = int32(r)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := slices.Compare(w.support(a), w.support(b)); c != 0 {
			return c
		}
		return int(a - b)
	})
	w.group = vec.Resize(w.group, na)
	w.groupRep = w.groupRep[:0]
	for k, r := range order {
		if k == 0 || !slices.Equal(w.support(order[k-1]), w.support(r)) {
			w.groupRep = append(w.groupRep, w.attrs[r])
		}
		w.group[r] = int32(len(w.groupRep) - 1)
	}
	w.counts = order
}

// assignToGroups sets w.cluster[j] to the group of the attractor with the
// largest positive entry in column j (ties: the group with the smaller
// representative), or -1 if there is none.
func (w *Workspace) assignToGroups(n int) {
	m := &w.cur
	w.cluster = vec.Resize(w.cluster, n)
	for j := 0; j < n; j++ {
		bg, bv := int32(-1), 0.0
		for p := m.ptr[j]; p < m.ptr[j+1]; p++ {
			i, v := m.row[p], m.val[p]
			if !w.isAttr[i] || v <= 0 {
				continue
			}
			g := w.group[w.rank[i]]
			if bg < 0 || v > bv || (v == bv && w.groupRep[g] < w.groupRep[bg]) {
				bg, bv = g, v
			}
		}
		w.cluster[j] = bg
	}
}

// numberClusters numbers the clusters by smallest member, turning w.cluster
// from groups into cluster numbers (a node in no group is a cluster of its
// own), and returns the number of clusters.
func (w *Workspace) numberClusters(n int) int32 {
	w.groupCl = vec.Resize(w.groupCl, len(w.groupRep))
	for g := range w.groupCl {
		w.groupCl[g] = -1
	}
	nc := int32(0)
	for j := 0; j < n; j++ {
		g := w.cluster[j]
		if g < 0 {
			w.cluster[j] = nc
			nc++
			continue
		}
		if w.groupCl[g] < 0 {
			w.groupCl[g] = nc
			nc++
		}
		w.cluster[j] = w.groupCl[g]
	}
	return nc
}

// layOut lays the nc clusters of w.cluster out in w.flat and returns them
// as w.out, each sorted.
func (w *Workspace) layOut(n int, nc int32) [][]int32 {
	w.counts = vec.Resize(w.counts, int(nc)+1)
	clear(w.counts)
	for j := 0; j < n; j++ {
		w.counts[w.cluster[j]+1]++
	}
	for c := int32(0); c < nc; c++ {
		w.counts[c+1] += w.counts[c]
	}
	w.flat = vec.Resize(w.flat, n)
	if cap(w.out) < int(nc) {
		w.out = make([][]int32, nc, vec.GrowCap(int(nc)))
	}
	w.out = w.out[:nc]
	for c := range w.out {
		w.out[c] = w.flat[w.counts[c]:w.counts[c]:w.counts[c+1]]
	}
	for j := 0; j < n; j++ {
		c := w.cluster[j]
		w.out[c] = append(w.out[c], int32(j))
	}
	return w.out
}
