package score

import (
	"context"
	"fmt"
	"math"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/errs"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
)

// Terms are the per-node parts of an embedding's scores, the expensive
// ones: each depends only on the node's ego network (its neighbours'
// links) and the vectors of the node and its neighbours. Combine turns
// them into scores with the cheap global parts (ranks, the disconnection
// weight, Sure). An incremental run keeps the terms of the nodes nothing
// touched and computes the others (EmbeddingTerms with a mask).
type Terms struct {
	FONDUE []float64 // the best Rayleigh quotient; NaN for nodes not scored
	// Combined method only (nil for MethodFONDUE): the disconnection of
	// the split behind the quotient and the effective number of pieces of
	// the neighbourhood (touch relation).
	Disconnection, Pieces []float64
}

// NewTerms returns terms of n nodes for method, every entry NaN.
func NewTerms(method string, n int) *Terms {
	nan := func() []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = math.NaN()
		}
		return x
	}
	t := &Terms{FONDUE: nan()}
	if method != MethodFONDUE {
		t.Disconnection, t.Pieces = nan(), nan()
	}
	return t
}

// EmbeddingTerms computes the terms of the nodes i with only[i] set (all
// when only is nil) into t, which holds one entry per node of g; the other
// entries are left as they are. Each node's terms are those
// EmbeddingSure computes for it (the same random streams), whatever the
// mask and opts.Workers.
func EmbeddingTerms(ctx context.Context, g *graph.Graph, emb *cne.Embedding, opts Options, only []bool, t *Terms) error {
	if emb == nil || emb.Len() != g.NumNodes() {
		return &errs.OptionsError{Msg: fmt.Sprintf("scoring needs an embedding of the graph's %d nodes", g.NumNodes())}
	}
	n := g.NumNodes()
	if len(t.FONDUE) != n {
		return fmt.Errorf("terms have %d nodes, the graph %d", len(t.FONDUE), n)
	}
	p := opts.signParams()
	mask := only
	if mask != nil && p.Targets != nil {
		mask = make([]bool, n)
		for i := range mask {
			mask[i] = only[i] && p.Targets[i]
		}
	}
	if mask != nil {
		p.Targets = mask
	}
	put := func(dst, src []float64) {
		for i, v := range src {
			if only == nil || only[i] {
				dst[i] = v
			}
		}
	}
	switch opts.Method {
	case MethodFONDUE:
		s, err := fondueScores(ctx, g, emb, p)
		if err != nil {
			return err
		}
		put(t.FONDUE, s)
		return nil
	case "", MethodCombined:
		fs, disc, err := splitDisconnection(parallel.SubProgress(ctx, 0, combinedShare), g, emb, p)
		if err != nil {
			return err
		}
		eff, err := effectivePieces(parallel.SubProgress(ctx, combinedShare, 1), g, scoredOf(fs), p.Workers, true)
		if err != nil {
			return err
		}
		put(t.FONDUE, fs)
		put(t.Disconnection, disc)
		put(t.Pieces, eff)
		return nil
	}
	return &errs.OptionsError{Msg: fmt.Sprintf("method %q does not score an embedding (want %q or %q)", opts.Method, MethodCombined, MethodFONDUE)}
}

// Combine returns the scores of terms t under opts.Method and, for the
// combined method, how sure its top is: the global parts of EmbeddingSure,
// which cost a few sorts of the nodes.
func Combine(g *graph.Graph, t *Terms, opts Options) ([]float64, []Sure) {
	if opts.Method == MethodFONDUE {
		return append([]float64(nil), t.FONDUE...), nil
	}
	ev := graphEvidence(t.Disconnection, t.Pieces)
	ct := combineTerms(g, t.FONDUE, ev, disconnectionWeight(g, ev))
	scores := ct.scores()
	count := 0
	for _, ok := range ct.ok {
		if ok {
			count++
		}
	}
	return scores, surenessAt(g, ct, scores, surePlaces(count), opts.Seed)
}
