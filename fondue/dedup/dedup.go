package dedup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
)

// Input is the graph and what is known about its nodes.
type Input struct {
	Graph *graph.Graph
	// Names is the name string of each node ("" = none), from the name
	// property; context nodes' names (venues) are used in reasons.
	Names []string
	// Targets are the node indices that may be duplicates (the score
	// labels); nil = every node.
	Targets []int
	// Context holds node kinds and evidence properties (title, year) as the
	// split evidence reads them; nil = none.
	Context *evidence.Context
}

// Defaults of Options, decided here only.
const (
	DefaultMaxBlock  = 64     // largest block whose pairs all become candidates
	DefaultMaxFanout = 500    // neighbours of larger degree are not followed for co-authors and context
	DefaultSamples   = 100000 // positives (split nodes) and negatives (candidate pairs) to fit on
	DefaultMaxLinked = 32     // context candidates per target that no name key pairs
)

// Options configures Find. The zero value is the default.
type Options struct {
	Top     int // pairs returned, best first; 0 = every candidate pair scored
	Seed    int64
	Workers int // 0 = GOMAXPROCS; the output is identical for any value
	// MaxBlock is the largest block (nodes sharing a key) whose pairs are
	// all candidates; larger blocks are left to finer keys. 0 = DefaultMaxBlock.
	MaxBlock int
	// MaxFanout: neighbours of larger degree (huge papers, hubs) are not
	// followed to co-authors and context. 0 = DefaultMaxFanout.
	MaxFanout int
	// Samples is the number of positives and of negatives the weights are
	// fitted on. 0 = DefaultSamples.
	Samples int
	// MaxLinked: a target without a name gets as candidates, among such
	// targets, the max(MaxLinked, 2 x its degree) whose neighbours are most
	// linked to its neighbours (block.go).
	// 0 = DefaultMaxLinked.
	MaxLinked int
}

func (o Options) withDefaults() Options {
	if o.MaxBlock <= 0 {
		o.MaxBlock = DefaultMaxBlock
	}
	if o.MaxFanout <= 0 {
		o.MaxFanout = DefaultMaxFanout
	}
	if o.Samples <= 0 {
		o.Samples = DefaultSamples
	}
	if o.MaxLinked <= 0 {
		o.MaxLinked = DefaultMaxLinked
	}
	o.Workers = parallel.WorkerCount(o.Workers)
	return o
}

// Reason is one piece of evidence about a pair, in plain words.
type Reason struct {
	Kind   string  // "name", "co-authors", "context", "words", "years", "shared", "linked", "transitive"
	Text   string  // e.g. "3 shared co-authors"
	Weight float64 // its contribution to the score (log-odds; negative = against)
}

// Pair is a scored candidate pair.
type Pair struct {
	A, B    int     // node indices, A < B
	Score   float64 // log-likelihood ratio, names plus graph; higher = more likely one entity
	Reasons []Reason
}

// Weight is one learned feature weight (per unit of the raw feature).
type Weight struct {
	Feature string
	Weight  float64
}

// Result is the outcome of Find.
type Result struct {
	Pairs      []Pair
	Candidates int // candidate pairs scored
	Positives  int // split nodes the graph weights were fitted on
	Negatives  int // candidate pairs used as negatives
	Weights    []Weight
}

// ErrInput reports an Input that does not fit its graph.
var ErrInput = errors.New("dedup: bad input")

// ErrTooLittle reports a graph with too little in it to learn the weights
// from: no target with two neighbours to split, or no candidate pair.
var ErrTooLittle = errors.New("dedup: too little in the graph to learn the weights from")

// Find scores candidate duplicate pairs among the targets.
func Find(ctx context.Context, in Input, o Options) (*Result, error) {
	o = o.withDefaults()
	if in.Graph == nil {
		return nil, fmt.Errorf("%w: no graph", ErrInput)
	}
	n := in.Graph.NumNodes()
	if len(in.Names) != n {
		return nil, fmt.Errorf("%w: %d names for %d nodes", ErrInput, len(in.Names), n)
	}
	for _, t := range in.Targets {
		if t < 0 || t >= n {
			return nil, fmt.Errorf("%w: target %d out of range [0,%d)", ErrInput, t, n)
		}
	}
	if err := in.Context.Check(n); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	e := newEngine(in, o)
	if err := e.prepare(ctx); err != nil {
		return nil, err
	}
	cands, err := e.candidates(ctx)
	if err != nil {
		return nil, err
	}
	m, err := e.fit(ctx, cands)
	if err != nil {
		return nil, err
	}
	scores, err := e.scoreAll(ctx, m, cands)
	if err != nil {
		return nil, err
	}
	if err := e.rescore(ctx, m, cands, scores); err != nil {
		return nil, err
	}
	if err := e.transitive(ctx, cands, scores); err != nil {
		return nil, err
	}
	// best first; ties by node indices (the codes sort as (A, B))
	order := make([]int32, len(cands))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int {
		if c := cmp.Compare(scores[y], scores[x]); c != 0 {
			return c
		}
		return cmp.Compare(cands[x], cands[y])
	})
	if o.Top > 0 && len(order) > o.Top {
		order = order[:o.Top]
	}
	pairs := make([]Pair, len(order))
	const chunk = 1024
	err = parallel.ForChunks(ctx, o.Workers, (len(order)+chunk-1)/chunk, func(_, c int) {
		for i := c * chunk; i < min(len(order), (c+1)*chunk); i++ {
			a, b := unpair(cands[order[i]])
			pairs[i] = Pair{A: int(a), B: int(b), Score: scores[order[i]], Reasons: e.reasons(m, int(a), int(b))}
		}
	})
	if err != nil {
		return nil, err
	}
	return &Result{
		Pairs: pairs, Candidates: len(cands),
		Positives: m.positives, Negatives: m.negatives,
		Weights: m.weights(),
	}, nil
}
