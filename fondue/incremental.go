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
// the changed nodes (C: new, or another fingerprint), so only they move,
// and rescores the closed neighbourhood of C; every other node keeps its
// saved terms, which are then exactly what a full computation on the new
// embedding would give (the random streams are per node index, so a node
// whose index shifted keeps the terms of its old streams).

// since is the plan of an incremental run.
type since struct {
	s       *State
	from    []int   // per node: its row in s, -1 for a new node
	changed []int32 // C, ascending
	fp      []uint64
	stats   *IncrementalStats
	offsets []int // of the saved rows in s.Neighbors (linkDiff)
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
	switch {
	case s.Terms == nil:
		return full(name+" holds no scores (a checkpoint): a warm start only", true)
	case s.Method != opts.Method:
		return full(fmt.Sprintf("%s was saved by method %q, the run uses %q", name, s.Method, opts.Method), true)
	case s.Digest != opts.digest():
		return full(name+" was saved with other options (seed, embedding or sign vectors)", true)
	}
	in := &since{s: s, from: from, fp: Fingerprints(g, opts.Targets), stats: &IncrementalStats{}}
	for i, k := range from {
		if k < 0 || s.Fingerprints[k] != in.fp[i] {
			in.changed = append(in.changed, int32(i))
		}
	}
	in.stats.Changed = len(in.changed)
	res.Incremental, res.fingerprints = in.stats, in.fp
	return in
}

// rowsOf maps each node of g to its row in ck by key (-1 when absent),
// and counts the nodes found.
func rowsOf(g *graph.Graph, ck *cne.Checkpoint) (from []int, shared int) {
	from = make([]int, g.NumNodes())
	for i := range from {
		from[i] = -1
	}
	for k, key := range ck.Keys {
		if i, ok := g.Index(key); ok && from[i] < 0 {
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
	train := in.trainable(g, opts.refitShare())
	in.stats.Trained = len(train)
	if len(train) == 0 {
		return init, nil
	}
	run.Init, run.Trainable = init, train
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
func (in *since) reuse(g *graph.Graph, emb *cne.Embedding, tol float64, t *score.Terms, res *Result) []bool {
	only := in.rescore(g, emb, tol)
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

// rescore returns the nodes whose terms are computed: the changed nodes
// (and so trained) and their neighbours. With tol >= 0, a changed node
// whose vector moved less than tol (a saved node whose rows it still
// has) passes on only what its changed links change: a neighbour i is
// rescored when a node x whose link with c was added or removed is i's
// neighbour or shares a neighbour other than c with i, the relations
// of i's pieces and disconnection. (Degree-dependent choices of those,
// the budgets of the two-hop pass and of the sampled pairs, are not
// followed: an approximation.)
func (in *since) rescore(g *graph.Graph, emb *cne.Embedding, tol float64) []bool {
	only := make([]bool, g.NumNodes())
	var toNew []int32 // saved row -> node, -1 when gone
	var diff []int32
	for _, c := range in.changed {
		only[c] = true
		k := in.from[c]
		nb := g.Neighbors(int(c))
		if tol < 0 || k < 0 || in.s.Degrees == nil || moved(emb.Row(int(c)), in.s.Checkpoint.X[k*emb.Dim:(k+1)*emb.Dim]) >= tol {
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
		for _, i := range nb {
			if only[i] {
				continue
			}
			if gone {
				only[i] = true
				continue
			}
			for _, x := range diff {
				if x != i && (g.HasEdge(int(i), int(x)) || shareOther(g.Neighbors(int(i)), g.Neighbors(int(x)), c)) {
					only[i] = true
					break
				}
			}
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
