// Package fondue finds ambiguous nodes in a graph: nodes that stand for two
// or more real-world entities. It fits a Conditional Network Embedding (CNE)
// with a MaxEnt degree prior, scores every node by how well its neighbours
// split in two (the FONDUE Rayleigh quotient, combined by default with how
// disconnected the two sides are), and proposes how to split the most
// ambiguous nodes. It has no database or file dependencies.
//
// Score is the one call that scores a graph:
//
//	var b graph.Builder
//	b.AddEdge("alice", "bob") // ... every edge, by node key
//	g := b.Build()
//	res, err := fondue.Score(ctx, g, fondue.Options{Seed: 1})
//	if err != nil { ... } // errors.Is(err, fondue.ErrNothingToScore), errors.As(err, &optsErr)
//	top := res.Ranking()[:10] // most ambiguous first; res.Ambiguity[i] is a percentile
//	props, err := fondue.ProposeSplits(ctx, g, res, top, fondue.Options{Seed: 1})
//	for _, p := range props {
//		fmt.Println(g.Key(p.Node), p.Ambiguity, len(p.Groups)) // Groups: neighbours, one group per new node
//	}
//
// A nightly job scores again what changed only: keep the State of a run
// and pass it to the next one as Options.Since.
//
//	opts.KeepState = true
//	res, err := fondue.Score(ctx, g, opts)
//	err = res.State(g, opts).WriteFile("state") // after the results are safe
//	opts.Since, err = fondue.ReadStateFile("state") // the next night
//	res, err = fondue.Score(ctx, g2, opts) // res.Incremental: what it reused, or why it ran in full
//	_, err = res.State(g2, opts).WriteFileSince("state", opts.Since) // appends the rows that changed
//
// Options follow one convention: the zero value of every field is the
// default, and a field that can be switched off has an explicit value for
// "none" (NoRandomSplits; a nil SplitOptions.Splitter asks Score for no
// proposals). Score can also make the proposals itself (Options.Split).
//
// The steps of the method are packages, along the data flow
// (source -> graph -> embedding -> scores -> splits -> sink): fondue/graph
// (the graph and its builder), fondue/cne (the degree prior, CNE and its
// checkpoints), fondue/score (FONDUE, the combined method, the pieces and
// the baselines; score.Methods), fondue/split (the splitters), with
// fondue/mcl (Markov clustering) and fondue/memory (the memory estimate).
// Package bench/research has research splitters that plug into
// ProposeSplits the same way. Related packages: fondue/edgelist reads
// edge-list files into a graph. The evaluation (bench/eval: contraction,
// AUC, ARI) and the synthetic graphs (bench/generate) are the bench's.
package fondue
