package fondue

import (
	"context"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// structure is the structural graph of a scoring with a Context and
// Targets: the targets and their neighbours, with the links among them
// (the induced subgraph, nodes in the graph's order). Scores, embedding
// and pieces are computed on it; every other node is context, evidence
// only.
type structure struct {
	g       *graph.Graph
	nodes   []int32 // structural index -> graph index
	index   []int32 // graph index -> structural index, -1 for context
	mark    []bool  // graph index: structural
	targets []bool  // per structural node
	// The sub-result's embedding and prior, for the splitters.
	emb   *cne.Embedding
	prior *cne.Prior
	model *evidence.Model
	// For State: the evidence digest of the graph (evidenceDigest) and
	// per node the targets' evidence fingerprints (evidencePrints).
	digest uint64
	prints []uint64
}

func newStructure(g *graph.Graph, targets []bool) (*structure, error) {
	n := g.NumNodes()
	st := &structure{mark: make([]bool, n), index: make([]int32, n)}
	for i, t := range targets {
		if t {
			st.mark[i] = true
			for _, j := range g.Neighbors(i) {
				st.mark[j] = true
			}
		}
	}
	if k := countTrue(st.mark); k > 0 {
		st.nodes, st.targets = make([]int32, 0, k), make([]bool, 0, k)
	}
	for i := range n {
		st.index[i] = -1
		if st.mark[i] {
			st.index[i] = int32(len(st.nodes))
			st.nodes = append(st.nodes, int32(i))
			st.targets = append(st.targets, targets[i])
		}
	}
	var edges [][2]int
	for a, i := range st.nodes {
		for _, j := range g.Neighbors(int(i)) {
			if b := st.index[j]; b > int32(a) {
				edges = append(edges, [2]int{a, int(b)})
			}
		}
	}
	sg, err := graph.NewGraph(len(st.nodes), edges)
	if err != nil {
		return nil, err
	}
	if st.g, err = sg.WithKeysOf(g, st.nodes, st.index); err != nil {
		return nil, err
	}
	return st, nil
}

// countTrue returns the number of set entries of b.
func countTrue(b []bool) int {
	k := 0
	for _, v := range b {
		if v {
			k++
		}
	}
	return k
}

// wholeStructure returns the structure of g when every node is a target
// or a target's neighbour (no context node): the structural graph is g
// itself. nil when there are context nodes.
func wholeStructure(g *graph.Graph, targets []bool) *structure {
	n := g.NumNodes()
	mark := make([]bool, n)
	for i, t := range targets {
		if t {
			mark[i] = true
			for _, j := range g.Neighbors(i) {
				mark[j] = true
			}
		}
	}
	if slices.Contains(mark, false) {
		return nil
	}
	st := &structure{g: g, mark: mark, index: make([]int32, n), nodes: make([]int32, n), targets: targets}
	for i := range n {
		st.index[i], st.nodes[i] = int32(i), int32(i)
	}
	return st
}

// StructureSize returns the nodes and links of the structural graph that
// Score builds with a Context: targets (nil: every node) and their
// neighbours, and the links among them. For the memory estimate
// (memory.Context).
func StructureSize(g *graph.Graph, targets []bool) (nodes, edges int) {
	mark := make([]bool, g.NumNodes())
	for i := range mark {
		if targets == nil || targets[i] {
			mark[i] = true
			for _, j := range g.Neighbors(i) {
				mark[j] = true
			}
		}
	}
	for i, ok := range mark {
		if ok {
			nodes++
			for _, j := range g.Neighbors(i) {
				if int(j) > i && mark[j] {
					edges++
				}
			}
		}
	}
	return nodes, edges
}

// toFull maps groups of structural indices to graph indices, in place.
func (st *structure) toFull(groups [][]int32) {
	for _, grp := range groups {
		for k, j := range grp {
			grp[k] = st.nodes[j]
		}
	}
}

// scoreStructure scores g with a Context and Targets: on the structural
// graph, results mapped back (context nodes NaN, 0; their embedding rows
// placed by placeContext), then the entity
// estimates by evidence and the proposals.
func scoreStructure(ctx context.Context, g *graph.Graph, opts Options) (*Result, error) {
	st, err := newStructure(g, opts.Targets)
	if err != nil {
		return nil, err
	}
	sub := opts
	sub.Targets, sub.Context, sub.Split = st.targets, nil, SplitOptions{}
	if opts.WarmStart != nil {
		sub.WarmStart = st.structural(g, opts.WarmStart)
	}
	if s := opts.Since; s != nil && s.Terms == nil {
		// A checkpoint file: its warm start, without the context nodes.
		sub.Since = &State{Checkpoint: st.structural(g, s.Checkpoint), File: s.File}
	}
	r, err := Score(ctx, st.g, sub)
	if err != nil {
		return nil, err
	}
	n := g.NumNodes()
	res := &Result{Method: r.Method, CNE: r.CNE, Warm: r.Warm, Timings: r.Timings, Sure: r.Sure, st: st,
		Incremental: r.Incremental, terms: r.terms, entities: r.entities, fingerprints: r.fingerprints, rescored: r.rescored, from: r.from,
		Scores: make([]float64, n), Ambiguity: make([]float64, n), Entities: make([]int, n)}
	for i := range n {
		res.Scores[i], res.Ambiguity[i] = math.NaN(), math.NaN()
	}
	for a, i := range st.nodes {
		res.Scores[i], res.Ambiguity[i], res.Entities[i] = r.Scores[a], r.Ambiguity[a], r.Entities[a]
	}
	if r.Embedding != nil {
		d := r.Embedding.Dim
		res.Embedding = &cne.Embedding{Dim: d, X: make([]float64, n*d)}
		for a, i := range st.nodes {
			copy(res.Embedding.Row(int(i)), r.Embedding.Row(a))
		}
		st.placeContext(g, res.Embedding)
		st.emb = r.Embedding
	}
	if r.Prior != nil {
		res.Prior = &cne.Prior{Lambda: make([]float64, n), Iterations: r.Prior.Iterations, MaxRelErr: r.Prior.MaxRelErr}
		for i := range res.Prior.Lambda {
			res.Prior.Lambda[i] = math.Inf(-1)
		}
		for a, i := range st.nodes {
			res.Prior.Lambda[i] = r.Prior.Lambda[a]
		}
		st.prior = r.Prior
	}
	return res, nil
}

// fitEvidence returns the pieces of every scored target (graph indices)
// and the evidence model fitted on them.
func fitEvidence(ctx context.Context, g *graph.Graph, st *structure, scores []float64, opts Options) ([]int, [][][]int32, *evidence.Model, error) {
	var owners, sub []int
	for i, s := range scores {
		if !math.IsNaN(s) {
			owners = append(owners, i)
			sub = append(sub, int(st.index[i]))
		}
	}
	pieces := make([][][]int32, len(owners))
	workers := min(parallel.WorkerCount(opts.Workers), max(1, len(owners)))
	ws := make([]struct {
		p score.Pieces
		e graph.EgoNet
	}, workers)
	errs := make([]error, len(owners))
	err := parallel.ForChunks(ctx, workers, len(owners), func(w, k int) {
		e, err := st.g.Ego(sub[k], &ws[w].e)
		if err != nil {
			errs[k] = err
			return
		}
		pieces[k] = ws[w].p.Groups(st.g, e)
		st.toFull(pieces[k])
	})
	if err == nil {
		err = parallel.FirstError(errs)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	m, err := evidence.Fit(ctx, g, opts.Context, st.mark, owners, pieces, evidence.Options{Seed: opts.Seed})
	return owners, pieces, m, err
}

// evidenceEntities fits the evidence model of a scored result and sets the
// entity estimates of its targets from the merged pieces. An incremental
// run whose graph, Context and targets are those of the saved run (the
// evidence digest of Options.Since) keeps the saved estimates, without
// fitting the model. On a changed graph the model is fitted again over
// all targets, and the targets whose evidence fingerprint changed are
// merged again; the others keep their saved estimates (close to, not
// exactly, what the refitted model gives), except under the exact rule
// (MoveTolerance < 0), which merges every target.
func evidenceEntities(ctx context.Context, g *graph.Graph, res *Result, opts Options) error {
	st := res.st
	kh := keyHashes(g)
	st.digest = evidenceDigest(g, opts.Context, opts.Targets, opts.Seed, kh)
	if sameEvidence(st, res, opts.Since) {
		// The saved estimates, as a full run would compute them. The model
		// waits for the splits.
		for a, i := range st.nodes {
			if st.targets[a] && !math.IsNaN(res.Scores[i]) {
				res.Entities[i] = int(opts.Since.EvidenceEntities[a])
			}
		}
		st.prints = opts.Since.EvidencePrints
		return nil
	}
	owners, pieces, m, err := fitEvidence(ctx, g, st, res.Scores, opts)
	if err != nil {
		return err
	}
	st.model = m
	st.prints = evidencePrints(g, opts.Context, st, owners, pieces, kh)
	s, keep := opts.Since, keepsEstimates(res, opts)
	kept := make([]bool, len(owners))
	for k, i := range owners {
		if !keep {
			break
		}
		a := st.index[i]
		if r := res.from[a]; r >= 0 && s.EvidenceEntities[r] > 0 && s.EvidencePrints[r] == st.prints[a] {
			res.Entities[i] = int(s.EvidenceEntities[r])
			kept[k], pieces[k] = true, nil // not merged
		}
	}
	merged, err := m.MergeGroups(ctx, pieces, opts.Workers)
	if err != nil {
		return err
	}
	n := 0
	for k, i := range owners {
		if !kept[k] {
			res.Entities[i] = max(1, entityCount(merged[k]))
			n++
		}
	}
	if res.Incremental != nil {
		res.Incremental.Merged = n
	}
	return nil
}

// keepsEstimates reports whether an incremental run may keep the saved
// entity estimates of the targets whose evidence fingerprint is unchanged.
func keepsEstimates(res *Result, opts Options) bool {
	s := opts.Since
	return s != nil && res.Incremental != nil && !res.Incremental.Full && opts.moveTolerance() >= 0 &&
		s.EvidenceEntities != nil && len(s.EvidencePrints) == len(s.EvidenceEntities) && res.from != nil
}

// evidencePrints returns per structural node of a scored target a hash of
// what its entity estimate depends on besides the evidence model (0 for
// the other nodes): its pieces, in order, by their members' keys, and per
// member what its profile holds: its evidence values and the key and kind
// of each of its context neighbours (venues, keywords; co-authors only
// through the pieces). pieces[k] are owners[k]'s, in graph indices; kh
// holds the nodes' key hashes (keyHashes).
func evidencePrints(g *graph.Graph, c *evidence.Context, st *structure, owners []int, pieces [][][]int32, kh []uint64) []uint64 {
	// node is a node's key and kind, hashed once: a member's start, and a
	// context node's share of every member it neighbours.
	node := make([]uint64, g.NumNodes())
	for i, h := range kh {
		node[i] = mix64(h ^ uint64(kindOf(c, i)+1))
	}
	memo := make([]uint64, g.NumNodes()) // per member (graph index), 0 until hashed
	member := func(i int32) uint64 {
		if h := memo[i]; h != 0 {
			return h
		}
		h := node[i]
		for _, p := range c.Properties {
			if p.Numeric {
				h = mix64(h ^ math.Float64bits(p.Number[i]))
			} else {
				h = mix64(h ^ fnv64a(p.Text[i]))
			}
		}
		var ctx uint64 // a bag: the sum needs no sort
		for _, j := range g.Neighbors(int(i)) {
			if !st.mark[j] {
				ctx += node[j]
			}
		}
		h = mix64(h^mix64(ctx)) | 1
		memo[i] = h
		return h
	}
	out := make([]uint64, len(st.nodes))
	for k, i := range owners {
		h := mix64(kh[i])
		for _, grp := range pieces[k] {
			h = mix64(h ^ uint64(len(grp)))
			for _, u := range grp {
				h = mix64(h ^ member(u))
			}
		}
		out[st.index[i]] = h | 1 // never 0: 0 is "not a scored target"
	}
	return out
}

// keyHashes returns FNV-64a of every node's key of g, in order.
func keyHashes(g *graph.Graph) []uint64 {
	kh := make([]uint64, g.NumNodes())
	for i := range kh {
		kh[i] = fnv64a(g.Key(i))
	}
	return kh
}

// sameEvidence reports whether an incremental run can keep the entity
// estimates of s: its evidence digest is this run's, nothing structural
// changed, and the structural nodes are its rows in order.
func sameEvidence(st *structure, res *Result, s *State) bool {
	if s == nil || res.Incremental == nil || res.Incremental.Full || res.Incremental.Changed != 0 ||
		s.EvidenceEntities == nil || s.EvidenceDigest != st.digest || len(res.from) != s.Checkpoint.Len() ||
		len(s.EvidenceEntities) != len(res.from) {
		return false
	}
	for a, k := range res.from {
		if k != a {
			return false
		}
	}
	return true
}

// evidenceDigest hashes all that the evidence model and the entity
// estimates depend on besides the options: every node of g in order (its
// key, kind, target flag and evidence values) and its links, the kinds
// and the properties' names, and the seed. Equal digests, equal graphs
// for the evidence. kh holds the nodes' key hashes (keyHashes).
func evidenceDigest(g *graph.Graph, c *evidence.Context, targets []bool, seed uint64, kh []uint64) uint64 {
	h := mix64(seed ^ 0xe71de)
	add := func(x uint64) { h = mix64(h ^ x + 0x9e3779b97f4a7c15) }
	for _, k := range c.Kinds {
		add(fnv64a(k))
	}
	for _, p := range c.Properties {
		add(fnv64a(p.Name) + uint64(b2u(p.Numeric)))
	}
	add(uint64(g.NumNodes()))
	for i := range g.NumNodes() {
		add(kh[i])
		add(uint64(kindOf(c, i))<<2 | uint64(b2u(targets == nil || targets[i])))
		for _, p := range c.Properties {
			if p.Numeric {
				add(math.Float64bits(p.Number[i]))
			} else {
				add(fnv64a(p.Text[i]))
			}
		}
		nb := g.Neighbors(i)
		add(uint64(len(nb)))
		for _, j := range nb {
			add(uint64(j))
		}
	}
	return h
}

// kindOf is node i's kind index, -1 when unknown.
func kindOf(c *evidence.Context, i int) int32 {
	if c.Kind == nil {
		return -1
	}
	return c.Kind[i]
}

// entityCount is the number of entities behind merged groups: their
// effective number exp(H), H the entropy of the groups' shares of the
// members (k equal groups count k; stray small groups count little).
func entityCount(groups [][]int32) int {
	total, h := 0.0, 0.0
	for _, g := range groups {
		total += float64(len(g))
	}
	for _, g := range groups {
		p := float64(len(g)) / total
		h -= p * math.Log(p)
	}
	return int(math.Round(math.Exp(h)))
}

// structural returns the checkpoint without the rows of g's context nodes
// (a checkpoint saved without a Context holds them): the warm start of the
// structural graph neither reuses nor counts them as dropped.
func (st *structure) structural(g *graph.Graph, ck *cne.Checkpoint) *cne.Checkpoint {
	keep := func(k int) bool {
		i, ok := g.Index(ck.Keys[k])
		return !ok || st.mark[i]
	}
	all := true
	for k := range ck.Keys {
		all = all && keep(k)
	}
	if all {
		return ck
	}
	out := *ck
	out.Keys, out.X, out.M, out.V = nil, nil, nil, nil
	d := ck.Dim
	for k, key := range ck.Keys {
		if !keep(k) {
			continue
		}
		out.Keys = append(out.Keys, key)
		out.X = append(out.X, ck.X[k*d:(k+1)*d]...)
		if ck.M != nil && ck.V != nil {
			out.M = append(out.M, ck.M[k*d:(k+1)*d]...)
			out.V = append(out.V, ck.V[k*d:(k+1)*d]...)
		}
	}
	return &out
}

// placeContext sets the embedding row of each context node to the mean of
// its structural neighbours' rows (where a warm start places a new node),
// so that no row is a meaningless zero; a context node without structural
// neighbours keeps zeros.
func (st *structure) placeContext(g *graph.Graph, emb *cne.Embedding) {
	for i := range g.NumNodes() {
		if st.mark[i] {
			continue
		}
		row, k := emb.Row(i), 0
		for _, j := range g.Neighbors(i) {
			if st.mark[j] {
				for c, x := range emb.Row(int(j)) {
					row[c] += x
				}
				k++
			}
		}
		for c := range row {
			if k > 0 {
				row[c] /= float64(k)
			}
		}
	}
}
