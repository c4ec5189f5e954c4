package score

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/mcl"
)

// egoComponents returns the number of connected components of the ego net:
// the CC baseline of [P §3.2], where a node whose neighbours fall into
// several unconnected groups looks like several entities merged. Higher
// means more ambiguous; an empty ego net has 0 components.
func egoComponents(e *graph.EgoNet) int {
	return baselineComponents(e, nil)
}

// egoClustering returns the local clustering coefficient of the ego net's
// centre: the fraction of pairs of its neighbours that are linked,
// 2·T/(k·(k−1)) for k neighbours with T links among them (the triangles
// through the centre). A node with fewer than two neighbours has no pair and
// gets 0, the convention of Neo4j GDS (gds.localClusteringCoefficient).
func egoClustering(e *graph.EgoNet) float64 {
	k := e.NumNodes()
	if k < 2 {
		return 0
	}
	return float64(2*e.NumEdges()) / (float64(k) * float64(k-1))
}

// LocalClustering returns every node's local clustering coefficient (see
// egoClustering: 0 for nodes of degree below 2), computed in parallel on
// workers goroutines (≤ 0: all cores); the result does not depend on the
// number of workers. It is the raw coefficient behind the "lcc" baseline,
// comparable with gds.localClusteringCoefficient on the same graph.
func LocalClustering(ctx context.Context, g *graph.Graph, workers int) ([]float64, error) {
	return baselineParallel(ctx, g, workers, func(w *baselineWorker, i int) (float64, error) {
		e, err := g.Ego(i, &w.ego)
		if err != nil {
			return 0, err
		}
		return egoClustering(e), nil
	})
}

// lccScore is the "lcc" baseline's score of a node: the fraction of its
// neighbour pairs that are not linked, 1 − LCC, and 0 for a node with fewer
// than two neighbours (no pair at all, so no unlinked pair: the least
// ambiguous score, tied with a node whose neighbours form a clique). Two
// entities merged into one node bring two neighbourhoods that are hardly
// linked to each other, so most pairs across them are unlinked.
func lccScore(e *graph.EgoNet) float64 {
	if e.NumNodes() < 2 {
		return 0
	}
	return 1 - egoClustering(e)
}

// baselineComponents counts components with union-find; parent is a
// reusable buffer (may be nil).
func baselineComponents(e *graph.EgoNet, parent []int32) int {
	n := e.NumNodes()
	parent = vec.Resize(parent, n)
	for k := range parent {
		parent[k] = int32(k)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]] // path halving
			x = parent[x]
		}
		return x
	}
	comps := n
	for u := 0; u < n; u++ {
		for _, v := range e.Neighbors(u) {
			if int(v) <= u {
				continue
			}
			a, b := find(int32(u)), find(v)
			if a != b {
				// Attach the larger root under the smaller: deterministic.
				if a < b {
					a, b = b, a
				}
				parent[a] = b
				comps--
			}
		}
	}
	return comps
}

// normalizedCut returns the normalized cut of the ego net under the given
// clustering, NC = Σ_c cut(C_c)/vol(C_c), the NC baseline of [P §3.2] (after
// Saha et al. 2015). cut(C) is the number of ego-net edges with exactly one
// end in C and vol(C) = Σ_{u∈C} deg_ego(u) = 2·(edges inside C) + cut(C); a
// cluster with vol 0 (an isolated node) contributes 0 (0/0 := 0). The sum
// grows with the number of well-separated clusters, so higher means more
// ambiguous.
//
// The paper writes the denominator as W(C,C) + W(C,C̄). Read with
// W(A,B) = Σ_{u∈A,v∈B} w_uv, as in Shi and Malik's normalized cut (which
// Saha et al. build on), W(C,C) counts every edge inside C twice, once per
// ordered pair, and the denominator is the volume assoc(C,V) = Σ deg; that is
// the reading used here. Counting inner edges once instead would give a
// quantity that is not Shi–Malik's NCut, with no stated reason for the
// change; "the rest" is taken to be the rest of the ego net.
//
// clusters should partition the local indices 0..e.NumNodes()-1. A node in no
// cluster is treated as outside every cluster (edges to it are cut edges and
// it adds no term); normalizedCut panics if a node is in two clusters or out
// of range.
func normalizedCut(e *graph.EgoNet, clusters [][]int32) float64 {
	ncut, _ := baselineNC(e, clusters, nil)
	return ncut
}

// normalizedAssociation returns Σ_c assoc(C_c)/vol(C_c), where assoc(C) =
// vol(C) - cut(C) counts the ego-net edges inside C (twice), so each term is
// the share of a cluster's volume that stays inside it (0/0 := 0). It is the
// NC baseline's score: it grows with the number of clusters that are
// internally connected and separate from each other, which is how an
// ambiguous node's neighbourhood looks. The normalized cut itself does the
// opposite: it is 0 when the clusters are perfectly separate. Measured on
// the paper's contractions (10 seeds at r = 10%), the association
// reproduces the paper's NC column (netscience .837 vs .841; polbooks .719
// vs .716 with the paper's tie convention) where the cut gives about .56.
// For clusters that all have edges it equals the number of clusters minus
// the normalized cut.
func normalizedAssociation(e *graph.EgoNet, clusters [][]int32) float64 {
	_, nassoc := baselineNC(e, clusters, nil)
	return nassoc
}

// baselineNC returns the normalized cut and the normalized association.
func baselineNC(e *graph.EgoNet, clusters [][]int32, label []int32) (ncut, nassoc float64) {
	n := e.NumNodes()
	label = vec.Resize(label, n)
	for k := range label {
		label[k] = -1
	}
	// The clusters come from MCL's clustering of e (the nc baseline) or
	// from tests: no caller input reaches these panics, which guard the
	// invariant that they partition the ego net.
	for c, cl := range clusters {
		for _, u := range cl {
			if u < 0 || int(u) >= n {
				panic(fmt.Sprintf("fondue.normalizedCut: node %d out of range [0,%d)", u, n))
			}
			if label[u] >= 0 {
				panic(fmt.Sprintf("fondue.normalizedCut: node %d in clusters %d and %d", u, label[u], c))
			}
			label[u] = int32(c)
		}
	}
	for _, cl := range clusters {
		cut, vol := 0, 0
		for _, u := range cl {
			nb := e.Neighbors(int(u))
			vol += len(nb)
			for _, v := range nb {
				if label[v] != label[u] {
					cut++
				}
			}
		}
		if vol > 0 {
			ncut += float64(cut) / float64(vol)
			nassoc += float64(vol-cut) / float64(vol)
		}
	}
	return ncut, nassoc
}

// baselineWorker holds one goroutine's buffers.
type baselineWorker struct {
	ego   graph.EgoNet
	mcl   mcl.Workspace
	label []int32
}

// baselineChunk is the number of nodes a worker takes at a time in
// Baseline; the context is checked before every chunk. Small chunks
// keep the load balanced when a few hubs dominate the cost.
const baselineChunk = 64

// Baseline computes a baseline ambiguity score for every node of g:
// "degree" (the degree in g), "cc" (egoComponents of the ego net), "nc"
// (normalizedAssociation of the ego net's MCL clustering with default
// mcl.Options; see there why the association and not the cut) or "lcc" (the
// fraction of neighbour pairs that are unlinked, 1 − egoClustering, and 0
// below two neighbours; not in the paper). Higher means more ambiguous for
// all four; the first three are the paper's [P §3.2]. Isolated nodes get NaN:
// they have no ego net, and AUC and NDCG skip NaN scores. So do the nodes
// not set in targets, when targets is not nil (Options.Targets).
//
// Nodes are spread over workers goroutines (≤ 0 means runtime.GOMAXPROCS);
// each score depends only on its node, so the result does not depend on the
// number of workers. Cancelling ctx stops the work within one chunk of
// nodes per worker (one chunk is a few dozen nodes; one hub's MCL is not
// interrupted) and returns ctx's error.
func Baseline(ctx context.Context, g *graph.Graph, method string, workers int, targets []bool) ([]float64, error) {
	var score func(w *baselineWorker, e *graph.EgoNet) float64
	switch method {
	case "degree":
		return baselineParallel(ctx, g, workers, func(_ *baselineWorker, i int) (float64, error) {
			if g.Degree(i) == 0 || (targets != nil && !targets[i]) {
				return math.NaN(), nil
			}
			return float64(g.Degree(i)), nil
		})
	case "cc":
		score = func(w *baselineWorker, e *graph.EgoNet) float64 {
			w.label = vec.Resize(w.label, e.NumNodes())
			return float64(baselineComponents(e, w.label))
		}
	case "nc":
		score = func(w *baselineWorker, e *graph.EgoNet) float64 {
			cl, _ := w.mcl.Cluster(e, mcl.Options{}) // the defaults are valid
			w.label = vec.Resize(w.label, e.NumNodes())
			_, nassoc := baselineNC(e, cl, w.label)
			return nassoc
		}
	case "lcc":
		score = func(_ *baselineWorker, e *graph.EgoNet) float64 { return lccScore(e) }
	default:
		return nil, fmt.Errorf("fondue: unknown baseline method %q (valid: %q)", method, BaselineMethods())
	}
	return baselineParallel(ctx, g, workers, func(w *baselineWorker, i int) (float64, error) {
		if g.Degree(i) == 0 || (targets != nil && !targets[i]) {
			return math.NaN(), nil
		}
		e, err := g.Ego(i, &w.ego)
		if err != nil {
			return 0, err
		}
		return score(w, e), nil
	})
}

// baselineParallel evaluates score for every node on workers goroutines,
// in chunks of baselineChunk nodes, checking ctx before every chunk (and
// reporting progress when ctx asks for it, parallel.WithChunkProgress). The error
// is ctx's, or else the first node's (in index order) that score returned.
func baselineParallel(ctx context.Context, g *graph.Graph, workers int, score func(w *baselineWorker, i int) (float64, error)) ([]float64, error) {
	n := g.NumNodes()
	out := make([]float64, n)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunks := (n + baselineChunk - 1) / baselineChunk
	workers = max(1, min(workers, chunks))
	errs := make([]error, chunks)
	chunk := func(w *baselineWorker, c int) {
		for i := c * baselineChunk; i < min(n, (c+1)*baselineChunk); i++ {
			var err error
			if out[i], err = score(w, i); err != nil {
				errs[c] = err
				return
			}
		}
	}
	t := parallel.NewChunkTicker(ctx, chunks) // progress, when Score asks for it
	if workers == 1 {
		w := &baselineWorker{}
		for c := range chunks {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			chunk(w, c)
			t.FinishedHere()
		}
	} else if !baselineWorkers(ctx, workers, chunks, chunk, t) {
		return nil, ctx.Err()
	}
	if err := parallel.FirstError(errs); err != nil {
		return nil, err
	}
	return out, nil
}

// baselineWorkers runs chunk for every chunk on workers goroutines (each
// with its buffers) and reports whether they ran them all: false when ctx
// was cancelled before some chunk.
func baselineWorkers(ctx context.Context, workers, chunks int, chunk func(w *baselineWorker, c int), t *parallel.ChunkTicker) bool {
	var next atomic.Int64
	var stopped atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &baselineWorker{}
			for !stopped.Load() {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				if ctx.Err() != nil {
					stopped.Store(true)
					return
				}
				chunk(w, c)
				t.Finished()
			}
		}()
	}
	t.Wait(&wg)
	return !stopped.Load()
}
