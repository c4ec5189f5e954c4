package fondue

import (
	"context"
	"fmt"

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
	in.stats.Trained = len(in.changed)
	if len(in.changed) == 0 {
		return init, nil
	}
	run.Init, run.Trainable = init, in.changed
	emb, st, err := cne.Fit(ctx, g, prior, opts.CNE, run)
	if err != nil {
		return nil, err
	}
	res.CNE = st
	return emb, nil
}

// reuse copies the saved terms of the nodes that keep them into t and
// returns the nodes to rescore: the closed neighbourhood of the changed
// (and so trained) nodes.
func (in *since) reuse(g *graph.Graph, t *score.Terms, res *Result) []bool {
	only := make([]bool, g.NumNodes())
	for _, c := range in.changed {
		only[c] = true
		for _, j := range g.Neighbors(int(c)) {
			only[j] = true
		}
	}
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
