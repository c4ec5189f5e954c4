package memory

import (
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// ForEngine returns the Options of Predict that the engine's options set:
// the dimension, workers, exact-mode size and negative ratio of the fit,
// whether the optimizer's state is kept (a checkpoint), whether a saved
// state is held (opts.Since, an incremental run), whether the method
// fits an embedding, and a split phase when a splitter is chosen. The one
// place where score, estimate and sync turn fondue.Options into an
// estimate's; ForGraph adds what the graph tells.
func ForEngine(opts fondue.Options) Options {
	return Options{Dim: opts.CNE.Dim, Workers: opts.Workers, KeepState: opts.KeepState, Since: opts.Since != nil,
		ExactMaxNode: opts.CNE.ExactMaxNodes, NegRatio: opts.CNE.NegRatio,
		Split: opts.Split.Splitter != nil, NoEmbedding: !score.UsesEmbedding(opts.Method)}
}

// ForGraph returns the Options of Predict for fondue.Score(ctx, g, opts):
// ForEngine's, from g its key type and largest degree, and with
// opts.Context what the context and the engine's scoring on it hold
// (Held: ForContext). The caller adds what it holds itself (FromFile,
// SourceLoad, more Held, Sink).
func ForGraph(g *graph.Graph, opts fondue.Options) Options {
	o := ForEngine(opts)
	o.StringKeys, o.MaxDegree = !g.IntKeys(), int64(g.MaxDegree())
	o.Held = ForContext(g, opts)
	return o
}

// ForContext is what scoring g with opts.Context holds beside the graph
// (Context, with the structural graph of opts.Targets); nil without a
// Context. Files (score) and Neo4j (sync) both count it here.
func ForContext(g *graph.Graph, opts fondue.Options) []Part {
	if opts.Context == nil {
		return nil
	}
	return Context(contextOptions(g, opts))
}

// HeldByContext is what opts.Context itself holds (ContextHeld), without
// what scoring with it allocates; nil without a Context.
func HeldByContext(g *graph.Graph, opts fondue.Options) []Part {
	if opts.Context == nil {
		return nil
	}
	return ContextHeld(contextOptions(g, opts))
}

// contextOptions describes opts.Context on g for Context.
func contextOptions(g *graph.Graph, opts fondue.Options) ContextOptions {
	o := ContextOptions{Nodes: int64(g.NumNodes())}
	s, e := fondue.StructureSize(g, opts.Targets)
	o.StructuralNodes, o.StructuralEdges = int64(s), int64(e)
	for _, p := range opts.Context.Properties {
		if p.Numeric {
			o.Numeric++
			continue
		}
		o.Text++
		for _, v := range p.Text {
			o.TextBytes += int64(len(v))
		}
	}
	return o
}
