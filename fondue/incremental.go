package fondue

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// An incremental run (Options.Since). A node's terms (score.Terms) depend
// on its ego network (its neighbours and their links) and on the vectors
// of itself and its neighbours; its entity estimate on the ego network
// alone. The fingerprint of a node hashes its neighbours' keys, so a node
// whose terms may have changed has a changed fingerprint itself or among
// its neighbours, or a neighbour whose vector moved. The run trains only
// changed nodes (C: new, or another fingerprint), so only they move. The
// exact rule (MoveTolerance < 0) trains all of C and rescores C and its
// neighbours: every other node keeps saved terms that are exactly what a
// full computation on the new embedding gives (the random streams are
// per node index, so a node whose index shifted keeps the terms of its
// old streams). The default rule trains and rescores only where the
// changes make up RefitShare of a node's links (see Options).

// since is the plan of an incremental run.
type since struct {
	s       *State
	from    []int   // per node: its row in s, -1 for a new node
	changed []int32 // C, ascending
	fp      []uint64
	stats   *IncrementalStats
	offsets []int   // of the saved rows in s.Neighbors (linkDiff)
	train   []int32 // the rows re-fitted, ascending
}

// ring returns the nodes within hops links of nodes (ascending), nodes
// included.
func ring(g *graph.Graph, nodes []int32, hops int) []int32 {
	if hops <= 0 || len(nodes) == 0 {
		return nodes
	}
	mark := make([]bool, g.NumNodes())
	front := nodes
	for _, c := range nodes {
		mark[c] = true
	}
	for range hops {
		var next []int32
		for _, c := range front {
			for _, j := range g.Neighbors(int(c)) {
				if !mark[j] {
					mark[j] = true
					next = append(next, j)
				}
			}
		}
		front = next
	}
	var out []int32
	for i, m := range mark {
		if m {
			out = append(out, int32(i))
		}
	}
	return out
}

// since returns the plan of an incremental run from opts.Since, or nil
// for a full run; with Since set, res.Incremental says which and why (and
// holds the full run's warm start).
func (opts *Options) since(g *graph.Graph, res *Result) *since {
	s := opts.Since
	if s == nil {
		return nil
	}
	full := func(reason string, warm bool) *since {
		res.Incremental = &IncrementalStats{Full: true, Reason: reason}
		if warm {
			res.Incremental.warm = s.Checkpoint
		}
		return nil
	}
	name := "the saved state"
	if s.File != "" {
		name = s.File
	}
	ck := s.Checkpoint
	if ck == nil {
		return full(name+" holds no embedding", false)
	}
	if d := opts.CNE.WithDefaults().Dim; ck.Dim != d {
		return full(fmt.Sprintf("%s has dimension %d, the run uses %d", name, ck.Dim, d), false)
	}
	from, shared := rowsOf(g, ck)
	if union := g.NumNodes() + ck.Len() - shared; float64(shared) < opts.WarmStartMinShare*float64(union) {
		return full(fmt.Sprintf("%s shares %d of the %d nodes (below %.0f%%)", name, shared, union, 100*opts.WarmStartMinShare), false)
	}
	n := ck.Len()
	switch {
	case s.Terms == nil:
		return full(name+" holds no scores (a checkpoint): a warm start only", true)
	case s.Method != opts.Method:
		return full(fmt.Sprintf("%s was saved by method %q, the run uses %q", name, s.Method, opts.Method), true)
	case s.Digest != opts.digest():
		return full(name+" was saved with other options (seed, embedding or sign vectors)", true)
	case len(s.Fingerprints) != n || len(s.Terms.FONDUE) != n || len(s.Entities) != n ||
		(s.Terms.Disconnection != nil && (len(s.Terms.Disconnection) != n || len(s.Terms.Pieces) != n)) ||
		(s.Terms.Disconnection == nil) != (opts.Method == score.MethodFONDUE) || !linksFit(s):
		return full(name+" is inconsistent (its per-node arrays do not match its embedding)", true)
	}
	in := &since{s: s, from: from, fp: Fingerprints(g, opts.Targets), stats: &IncrementalStats{}}
	for i, k := range from {
		if k < 0 || s.Fingerprints[k] != in.fp[i] {
			in.changed = append(in.changed, int32(i))
		}
	}
	in.stats.Changed = len(in.changed)
	res.Incremental, res.fingerprints, res.from = in.stats, in.fp, from
	return in
}

// linksFit reports whether the saved links are absent or consistent: a
// degree per row, as many neighbours as they sum to, every one a row.
func linksFit(s *State) bool {
	if s.Degrees == nil {
		return s.Neighbors == nil
	}
	n, sum := s.Checkpoint.Len(), 0
	for _, d := range s.Degrees {
		if d < 0 {
			return false
		}
		sum += int(d)
	}
	if len(s.Degrees) != n || sum != len(s.Neighbors) {
		return false
	}
	for _, r := range s.Neighbors {
		if r < 0 || int(r) >= n {
			return false
		}
	}
	return true
}

// rowsOf maps each node of g to its row in ck by key (-1 when absent),
// and counts the nodes found. A row whose key is that of the node after
// the previous row's (nodes kept in order, the usual night) needs no
// look-up.
func rowsOf(g *graph.Graph, ck *cne.Checkpoint) (from []int, shared int) {
	n := g.NumNodes()
	from = make([]int, n)
	for i := range from {
		from[i] = -1
	}
	next := 0
	for k, key := range ck.Keys {
		i, ok := next, next < n && g.Key(next) == key
		if !ok {
			i, ok = g.Index(key)
		}
		if ok {
			next = i + 1
		}
		if ok && from[i] < 0 {
			from[i] = k
			shared++
		}
	}
	return from, shared
}

// fit re-fits the embedding from the saved one, training the changed
// nodes only (none: the saved vectors as they are).
func (in *since) fit(ctx context.Context, g *graph.Graph, prior *cne.Prior, opts Options, run cne.Run, res *Result) (*cne.Embedding, error) {
	init, ws, err := in.s.Checkpoint.WarmStart(g, opts.CNE, opts.Seed)
	if err != nil {
		return nil, fmt.Errorf("warm start: %w", err)
	}
	res.Warm = &ws
	share := opts.refitShare()
	if opts.moveTolerance() < 0 {
		share = 0 // exact: every changed node
	}
	train := ring(g, in.trainable(g, share), opts.RefitHops)
	in.train = train
	in.stats.Trained = len(train)
	if len(train) == 0 {
		return init, nil
	}
	// init is this fit's alone: Fit may train in its arrays.
	run.Init, run.Trainable, run.ReuseInit = init, train, true
	emb, st, err := cne.Fit(ctx, g, prior, opts.CNE, run)
	if err != nil {
		return nil, err
	}
	res.CNE = st
	return emb, nil
}

// DefaultRefitShare is Options.RefitShare's default.
const DefaultRefitShare = 0.1

// refitShare resolves Options.RefitShare (negative: 0, every changed node).
func (o *Options) refitShare() float64 {
	switch {
	case o.RefitShare == 0:
		return DefaultRefitShare
	case o.RefitShare < 0:
		return 0
	}
	return o.RefitShare
}

// trainable returns the changed nodes to re-fit: the new ones, and those
// at least share of whose links (of the larger of their old and new
// degree) were added or removed; all of them without saved links.
func (in *since) trainable(g *graph.Graph, share float64) []int32 {
	if share <= 0 || in.s.Degrees == nil {
		return in.changed
	}
	toNew := in.toNew()
	var out, diff []int32
	for _, c := range in.changed {
		k := in.from[c]
		if k < 0 {
			out = append(out, c)
			continue
		}
		var gone bool
		diff, gone = in.linkDiff(g, int(c), toNew, diff[:0])
		if d := max(g.Degree(int(c)), int(in.s.Degrees[k])); gone || float64(len(diff)) >= share*float64(d) {
			out = append(out, c)
		}
	}
	return out
}

// DefaultMoveTolerance is Options.MoveTolerance's default.
const DefaultMoveTolerance = 0.01

// moveTolerance resolves Options.MoveTolerance (negative: exact).
func (o *Options) moveTolerance() float64 {
	if o.MoveTolerance == 0 {
		return DefaultMoveTolerance
	}
	return o.MoveTolerance
}

// reuse copies the saved terms of the nodes that keep them into t and
// returns the nodes to rescore (rescore).
func (in *since) reuse(g *graph.Graph, emb *cne.Embedding, opts *Options, t *score.Terms, res *Result) []bool {
	only := in.rescore(g, emb, opts.moveTolerance(), opts.refitShare(), opts.Targets)
	st := in.s.Terms
	for i, k := range in.from {
		if only[i] {
			in.stats.Rescored++
			continue
		}
		in.stats.Reused++
		t.FONDUE[i] = st.FONDUE[k]
		if t.Disconnection != nil {
			t.Disconnection[i], t.Pieces[i] = st.Disconnection[k], st.Pieces[k]
		}
	}
	res.rescored = only
	return only
}

// rescore returns the nodes whose terms are computed. Exact (tol < 0):
// the changed nodes and their neighbours. Else a node is rescored when
// it is new, lost a neighbour that left the graph, or became scored or
// unscored, or when the changes that reach it make up at least share of
// its links (any, with share 0): a link of its own added or removed, a
// neighbour c that changed and whose vector moved at least tol (or is
// new), or a changed neighbour c with a link added or removed to a node
// x that is its neighbour or shares a neighbour other than c with it
// (the relations of its pieces and disconnection). A node below the
// share keeps terms that are then close to, not exactly, a full
// scoring's; so do degree-dependent choices of the terms (the budgets of
// the two-hop pass and of the sampled pairs), which are not followed.
func (in *since) rescore(g *graph.Graph, emb *cne.Embedding, tol, share float64, targets []bool) []bool {
	n := g.NumNodes()
	only := make([]bool, n)
	exact := tol < 0 || in.s.Degrees == nil
	count := make([]int32, n)
	var toNew []int32 // saved row -> node, -1 when gone
	var diff []int32
	for _, c := range in.changed {
		k := in.from[c]
		nb := g.Neighbors(int(c))
		if exact || k < 0 {
			only[c] = true
			for _, j := range nb {
				only[j] = true
			}
			continue
		}
		if toNew == nil {
			toNew = in.toNew()
		}
		var gone bool
		diff, gone = in.linkDiff(g, int(c), toNew, diff[:0])
		scored := len(nb) > 0 && (targets == nil || targets[c])
		if gone || scored == math.IsNaN(in.s.Terms.FONDUE[k]) {
			only[c] = true
		}
		count[c] += int32(len(diff))
		if moved(emb.Row(int(c)), in.s.Checkpoint.X[k*emb.Dim:(k+1)*emb.Dim]) >= tol {
			for _, j := range nb {
				count[j]++
			}
			continue
		}
		for _, i := range nb {
			for _, x := range diff {
				if x != i && (g.HasEdge(int(i), int(x)) || shareOther(g.Neighbors(int(i)), g.Neighbors(int(x)), c)) {
					count[i]++
					break
				}
			}
		}
	}
	// Trained nodes that did not change (RefitHops): one that moved is
	// rescored, and counts for its neighbours.
	isChanged := make([]bool, n)
	for _, c := range in.changed {
		isChanged[c] = true
	}
	for _, r := range in.train {
		k := in.from[r]
		if isChanged[r] || k < 0 || (!exact && moved(emb.Row(int(r)), in.s.Checkpoint.X[k*emb.Dim:(k+1)*emb.Dim]) < tol) {
			continue
		}
		only[r] = true
		for _, j := range g.Neighbors(int(r)) {
			if exact {
				only[j] = true
			} else {
				count[j]++
			}
		}
	}
	if exact {
		return only
	}
	for i, m := range count {
		d := g.Degree(i)
		if k := in.from[i]; k >= 0 {
			d = max(d, int(in.s.Degrees[k]))
		}
		if m > 0 && float64(m) >= share*float64(d) {
			only[i] = true
		}
	}
	return only
}

// moved is the distance between two vectors.
func moved(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += (a[k] - b[k]) * (a[k] - b[k])
	}
	return math.Sqrt(s)
}

// toNew maps each saved row to its node in the graph, -1 when gone.
func (in *since) toNew() []int32 {
	out := make([]int32, in.s.Checkpoint.Len())
	for k := range out {
		out[k] = -1
	}
	for i, k := range in.from {
		if k >= 0 {
			out[k] = int32(i)
		}
	}
	return out
}

// linkDiff appends to diff the nodes whose link with c was added or
// removed since the saved run, and reports whether c lost a link to a
// node no longer in the graph.
func (in *since) linkDiff(g *graph.Graph, c int, toNew []int32, diff []int32) ([]int32, bool) {
	k := in.from[c]
	off := 0
	if in.offsets == nil {
		in.offsets = make([]int, len(in.s.Degrees)+1)
		for r, d := range in.s.Degrees {
			in.offsets[r+1] = in.offsets[r] + int(d)
		}
	}
	off = in.offsets[k]
	var old []int32
	gone := false
	for _, r := range in.s.Neighbors[off : off+int(in.s.Degrees[k])] {
		if j := toNew[r]; j >= 0 {
			old = append(old, j)
		} else {
			gone = true
		}
	}
	slices.Sort(old)
	nb := g.Neighbors(c)
	a, b := 0, 0
	for a < len(old) || b < len(nb) {
		switch {
		case b == len(nb) || (a < len(old) && old[a] < nb[b]):
			diff = append(diff, old[a])
			a++
		case a == len(old) || nb[b] < old[a]:
			diff = append(diff, nb[b])
			b++
		default:
			a++
			b++
		}
	}
	return diff, gone
}

// shareOther reports whether the sorted lists a and b share a node other
// than skip.
func shareOther(a, b []int32, skip int32) bool {
	p, q := 0, 0
	for p < len(a) && q < len(b) {
		switch {
		case a[p] < b[q]:
			p++
		case a[p] > b[q]:
			q++
		default:
			if a[p] != skip {
				return true
			}
			p++
			q++
		}
	}
	return false
}
