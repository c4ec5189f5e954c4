package memory

import (
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// ForEngine returns the Options of Predict that the engine's options set:
// the dimension, workers, exact-mode size and negative ratio of the fit,
// whether the optimizer's state is kept (a checkpoint), whether the method
// fits an embedding, and a split phase when a splitter is chosen. The one
// place where score, estimate and sync turn fondue.Options into an
// estimate's; ForGraph adds what the graph tells.
func ForEngine(opts fondue.Options) Options {
	return Options{Dim: opts.CNE.Dim, Workers: opts.Workers, KeepState: opts.KeepState,
		ExactMaxNode: opts.CNE.ExactMaxNodes, NegRatio: opts.CNE.NegRatio,
		Split: opts.Split.Splitter != nil, NoEmbedding: !score.UsesEmbedding(opts.Method)}
}

// ForGraph returns the Options of Predict for fondue.Score(ctx, g, opts):
// ForEngine's, and from g its key type and largest degree. The caller
// adds what it holds itself (FromFile, SourceLoad, Held, Sink).
func ForGraph(g *graph.Graph, opts fondue.Options) Options {
	o := ForEngine(opts)
	o.StringKeys, o.MaxDegree = !g.IntKeys(), int64(g.MaxDegree())
	return o
}
