package fondue

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/mcl"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/text/plural"
)

// Phase names a stage of Score, for progress reports and timings.
type Phase string

const (
	PhasePrior     Phase = "prior"
	PhaseEmbedding Phase = "embedding"
	PhaseScoring   Phase = "scoring"
	PhaseSplitting Phase = "splitting"
)

// Progress reports how far a phase of Score has come.
type Progress struct {
	Phase       Phase
	Done, Total int
	// Context, in PhaseScoring with Options.Targets, is the number of
	// nodes there as the others' neighbourhood only; Total counts the
	// nodes scored.
	Context int
}

// Options configures Score. The zero value runs the default method
// (DefaultMethod) with the paper's CNE settings and no split proposals.
type Options struct {
	Method string // one of Methods; default DefaultMethod
	// Seed seeds everything random: the embedding, the random sign vectors
	// and the evidence model. Same graph, options and seed: same result.
	// The splitters use no randomness of their own: their power iterations
	// start from a fixed pseudo-random vector, the same for every seed.
	Seed    uint64
	Workers int // goroutines (default: all cores); results do not depend on it
	// CNE is the embedding's model and training (its seed, goroutines and
	// warm start are Seed, Workers and WarmStart).
	CNE   cne.Options
	Prior cne.PriorOptions
	// RandomSplits is T, the number of random sign vectors tried per node
	// besides the eigenvector sweep (0: DefaultRandomSplits; NoRandomSplits,
	// or any negative value: none).
	RandomSplits int
	// Unnormalized scores ||sum_j b_j (x_i - x_j)||^2 without dividing by
	// b'b = degree. The paper divides, and dividing ranks better on
	// hub-heavy graphs (method.md section 9).
	Unnormalized bool
	// Polish improves the best sign vector by single-sign flips until no
	// flip raises the quotient (not in the paper; never lowers a score).
	Polish bool
	// Targets, when not nil, selects the nodes to score: only nodes i with
	// Targets[i] set get a score, an ambiguity percentile (among the
	// targets) and an entity estimate, and only they can be proposed for a
	// split; the others are context: they shape the embedding and the
	// neighbourhoods but are never ranked (NaN, like isolated nodes). In
	// (:Author)-[:WROTE]->(:Paper) only the authors are targets. Its length
	// is the graph's node count. nil scores every node.
	Targets []bool
	// Context, when not nil, is what the graph says about its nodes besides
	// the links (their kinds and evidence properties): the splits merge the
	// pieces of a neighbourhood that it says are one entity, and the entity
	// estimates count those groups. nil: the links alone.
	Context *evidence.Context
	// Split asks for split proposals for some nodes (none by default).
	Split SplitOptions
	// WarmStart, when set, starts the embedding from a previous run's
	// checkpoint instead of noise (see Checkpoint.WarmStart).
	WarmStart *cne.Checkpoint
	// WarmStartMinShare refuses a WarmStart whose nodes and the graph's
	// overlap less than this (shared nodes over the nodes of either: a
	// checkpoint saved for another graph) with a *WarmStartError; 0
	// accepts any.
	WarmStartMinShare float64
	// KeepState keeps the optimizer state in the result, so that
	// Result.Checkpoint can save it for the next run's warm start.
	KeepState bool
	// Since, when set, makes the run incremental from a previous run's
	// State (Result.State): the nodes whose fingerprint changed (new
	// nodes, changed links) are re-fitted from their saved vectors with
	// every other vector frozen; the nodes whose closed neighbourhood
	// holds such a node are rescored; every other node keeps its saved
	// terms; the global parts (ranks, percentiles, Sure) are computed
	// over all nodes. On an unchanged graph nothing is trained or
	// rescored and the result equals the previous run's. When Since does
	// not fit (another method or options, dimension, or fewer shared
	// nodes than WarmStartMinShare), the run is a full one, warm-started
	// from Since's embedding where it can be, and Result.Incremental
	// says why. Since overrides WarmStart.
	Since *State
	// MoveTolerance and RefitShare narrow an incremental run to what
	// changed enough to matter. A changed node is re-fitted when it is new
	// or at least RefitShare of its links were added or removed (a hub
	// that gained one link of a thousand would move by about a thousandth
	// of a link, less than the noise of the sampled training). A node is
	// rescored when it is new, lost a neighbour that left the graph or
	// became scored or unscored, or when the changes that reach it make
	// up at least RefitShare of its links: its own links added or
	// removed, its changed neighbours whose vectors moved at least
	// MoveTolerance (Euclidean; the links' scale is Sigma1), and its
	// changed neighbours whose added or removed links reach the relations
	// of its pieces (a neighbour of it, or a node sharing a neighbour with
	// it). The other nodes keep terms that are close to, not exactly, a
	// full scoring's. 0: DefaultMoveTolerance, DefaultRefitShare;
	// MoveTolerance negative: exact (every changed node re-fitted, it and
	// its neighbours rescored: the reused terms are exactly a full
	// scoring's of the new embedding); RefitShare negative: every changed
	// node re-fitted, and any change that reaches a node rescores it.
	MoveTolerance float64
	RefitShare    float64
	// RefitHops also re-fits, in an incremental run, the nodes within this
	// many links of the re-fitted changed nodes, so that their
	// neighbourhoods adapt to them (one that moved is rescored, and counts
	// for its neighbours as a changed one does). 0: the changed nodes only.
	RefitHops int
	// Progress, when set, receives progress reports from the calling
	// goroutine: each phase's start (Done 0) and end (Done = Total), and
	// between them every epoch of the embedding, and about every percent
	// of the nodes of scoring and splitting. They change no result.
	Progress func(Progress)
}

// SplitOptions configures split proposals: in Score, which nodes get one
// (a node is chosen if it is among the Top best, or scores at least
// MinAmbiguity, or is listed in Nodes) and by which splitter; in
// ProposeSplits, the splitter. The zero value asks Score for no proposals.
type SplitOptions struct {
	// Splitter proposes the groups. Score makes no proposals when it is
	// nil; ProposeSplits then uses the default, split.Named("").
	Splitter     split.Splitter
	Top          int     // the Top best-ranked nodes
	MinAmbiguity float64 // nodes whose ambiguity (percentile, 0..1] is at least this; 0: none
	Nodes        []int   // explicit node indices
	MCL          mcl.Options
}

// Timings records the wall time of each phase.
type Timings struct {
	Prior, Embedding, Scoring, Splitting time.Duration
}

// Result is the outcome of Score.
type Result struct {
	Method string
	// Scores holds each node's raw score under Method (for FONDUE the best
	// Rayleigh quotient, for MethodCombined the weighted mean of the normal
	// quantiles of two percentiles);
	// NaN for isolated nodes, which cannot be scored.
	Scores []float64
	// Ambiguity is each scored node's percentile in (0, 1]: the fraction of
	// scored nodes whose score is lower or equal (NaN for isolated nodes).
	// Unlike raw scores it is comparable across graphs and runs, so that
	// "ambiguity > 0.99" always means the top 1%.
	Ambiguity []float64
	// Entities is each scored node's estimated number of real entities, at
	// least 1: the effective number of the pieces of its neighbourhood (see
	// EstimateEntities); 0 for the nodes without a score.
	Entities []int
	// Sure says how far the top 1% of the combined ranking, and its top
	// 100 on graphs of more than 100 nodes, stand above chance
	// (score.Sure); nil for the other methods.
	Sure      []score.Sure
	Embedding *cne.Embedding // nil for the baselines
	Prior     *cne.Prior     // nil for the baselines
	CNE       cne.Stats
	Warm      *cne.WarmStats // how the warm start mapped, when there was one
	Proposals []Proposal
	Timings   Timings
	// Incremental says what a run with Options.Since reused, or why it
	// was a full run; nil without Since.
	Incremental *IncrementalStats

	st *structure // with Options.Context: the structural graph and the evidence model
	// For State: the per-node terms and entity estimates of the scored
	// (structural) graph, and its fingerprints when computed.
	terms        *score.Terms
	entities     []int32
	fingerprints []uint64
	rescored     []bool // the nodes an incremental run rescored (tests)
	// From an incremental run: each (structural) node's row in
	// Options.Since, -1 for a new node; nil on a full run.
	from []int
}

// Checkpoint returns what the next run needs to warm-start from this one:
// the embedding by node key, with the optimizer state if Options.KeepState
// was set; with Options.Context, the structural nodes only (context nodes
// are not embedded). It is nil for the baselines, which have no embedding.
func (r *Result) Checkpoint(g *graph.Graph, opts Options) *cne.Checkpoint {
	if r.Embedding == nil {
		return nil
	}
	if st := r.st; st != nil && st.emb != nil {
		// With a Context, the structural nodes (by key) and their state.
		return cne.NewCheckpoint(st.g, st.emb, opts.CNE)
	}
	return cne.NewCheckpoint(g, r.Embedding, opts.CNE)
}

// Unscored returns the targets (Options.Targets; nil: every node) that
// got no score: isolated nodes. Context nodes, unscored by design, are
// not among them. score and sync both warn with it.
func (r *Result) Unscored(targets []bool) []int {
	var u []int
	for i, s := range r.Scores {
		if math.IsNaN(s) && (targets == nil || targets[i]) {
			u = append(u, i)
		}
	}
	return u
}

// Ranking returns the scored nodes, most ambiguous first; ties go to the
// lower node index.
func (r *Result) Ranking() []int { return score.Ranking(r.Scores) }

// ErrNothingToScore is the cause of Score's error for a graph without edges.
var ErrNothingToScore = errors.New("nothing to score")

// WarmStartError reports a warm start from a checkpoint that shares too few
// nodes with the graph (Options.WarmStartMinShare): it was saved for
// another graph, or the node ids changed.
type WarmStartError struct {
	File     string // the checkpoint's file, if known
	Shared   int    // nodes in both the graph and the checkpoint
	Union    int    // nodes in either
	MinShare float64
}

func (e *WarmStartError) Error() string {
	name := "the checkpoint"
	if e.File != "" {
		name = "checkpoint " + e.File
	}
	return fmt.Sprintf("%s and the graph share %d of their %d nodes (%.0f%%), less than %.0f%%: it was saved for another graph, or the node ids changed",
		name, e.Shared, e.Union, 100*float64(e.Shared)/float64(max(e.Union, 1)), 100*e.MinShare)
}

// Score runs a scoring method on g: for FONDUE and the combined method the
// degree prior, the CNE embedding and the per-node quotient (and for the
// combined method the disconnection of each split); optionally split
// proposals for the chosen nodes. It is the one entry point the CLI and the
// connector share.
func Score(ctx context.Context, g *graph.Graph, opts Options) (*Result, error) {
	if opts.Method == "" {
		opts.Method = score.DefaultMethod
	}
	if err := opts.check(g); err != nil {
		return nil, err
	}
	// The scoring phase counts the nodes scored (Targets), the rest are
	// context.
	scored := countScored(g, opts.Targets)
	report := func(ph Phase, done, total int) {
		if opts.Progress == nil {
			return
		}
		p := Progress{Phase: ph, Done: done, Total: total}
		if ph == PhaseScoring {
			p.Done, p.Total, p.Context = int(int64(done)*int64(scored)/int64(max(total, 1))), scored, g.NumNodes()-scored
		}
		opts.Progress(p)
	}
	var res *Result
	var err error
	if opts.Context != nil {
		res, err = scoreContext(ctx, g, opts, report)
	} else {
		res, err = scoreLinks(ctx, g, opts, report)
	}
	if err != nil {
		return nil, err
	}
	if opts.Split.Splitter != nil {
		t0 := time.Now()
		nodes := splitCandidates(res, opts.Split)
		report(PhaseSplitting, 0, len(nodes))
		props, err := ProposeSplits(phaseContext(ctx, opts.Progress, PhaseSplitting, len(nodes), 0), g, res, nodes, opts)
		if err != nil {
			return nil, err
		}
		res.Proposals = props
		res.Timings.Splitting = time.Since(t0)
		report(PhaseSplitting, len(nodes), len(nodes))
	}
	return res, nil
}

// scoreContext scores g with a Context: on the structural graph (the
// targets and their neighbours; every node a target without Targets),
// the entity estimates from the pieces merged by evidence.
func scoreContext(ctx context.Context, g *graph.Graph, opts Options, report func(Phase, int, int)) (*Result, error) {
	if err := opts.Context.Check(g.NumNodes()); err != nil {
		return nil, &OptionsError{Msg: err.Error()}
	}
	targets := opts.Targets
	if targets == nil {
		targets = make([]bool, g.NumNodes())
		for i := range targets {
			targets[i] = true
		}
	}
	o := opts
	o.Targets = targets
	var res *Result
	var err error
	if st := wholeStructure(g, targets); st != nil {
		// No context node: the structural graph is g, scored as without a
		// Context (bit-identical); with no evidence property either, there
		// is nothing to merge by.
		if res, err = scoreLinks(ctx, g, opts, report); err != nil || len(opts.Context.Properties) == 0 {
			return res, err
		}
		st.emb, st.prior, res.st = res.Embedding, res.Prior, st
	} else if res, err = scoreStructure(ctx, g, o); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := evidenceEntities(ctx, g, res, o); err != nil {
		return nil, err
	}
	res.Timings.Scoring += time.Since(t0)
	return res, nil
}

// scoreLinks scores g by its links alone.
func scoreLinks(ctx context.Context, g *graph.Graph, opts Options, report func(Phase, int, int)) (*Result, error) {
	res := &Result{Method: opts.Method}
	var err error
	if score.UsesEmbedding(opts.Method) {
		if err := scoreFONDUE(ctx, g, opts, res, report); err != nil {
			return nil, err
		}
	} else {
		if opts.Since != nil {
			res.Incremental = &IncrementalStats{Full: true, Reason: fmt.Sprintf("method %q fits no embedding: every run is a full one", opts.Method)}
		}
		t0 := time.Now()
		report(PhaseScoring, 0, g.NumNodes())
		scored := countScored(g, opts.Targets)
		pctx := phaseContext(ctx, opts.Progress, PhaseScoring, scored, g.NumNodes()-scored)
		if res.Scores, err = score.Baseline(parallel.SubProgress(pctx, 0, scoringShare), g, opts.Method, opts.Workers, opts.Targets); err != nil {
			return nil, err
		}
		if res.Entities, err = score.Entities(parallel.SubProgress(pctx, scoringShare, 1), g, res.Scores, opts.Workers); err != nil {
			return nil, err
		}
		res.Timings.Scoring = time.Since(t0)
		report(PhaseScoring, g.NumNodes(), g.NumNodes())
	}
	res.Ambiguity = score.Percentiles(res.Scores)
	return res, nil
}

// check refuses, before any work, options that cannot work on g and a
// graph (or a choice of targets) with nothing to score.
func (opts *Options) check(g *graph.Graph) error {
	if !slices.Contains(score.Methods(), opts.Method) {
		return &OptionsError{Msg: fmt.Sprintf("unknown method %q (want one of %v)", opts.Method, score.Methods())}
	}
	if err := CheckSplitter(opts.Split.Splitter, opts.Method); err != nil {
		return err
	}
	if err := opts.Split.MCL.Validate(); err != nil && opts.Split.Splitter != nil {
		return err
	}
	if g.NumEdges() == 0 {
		return fmt.Errorf("graph has no edges (%s): %w", plural.N(g.NumNodes(), "node"), ErrNothingToScore)
	}
	if t := opts.Targets; t != nil {
		if len(t) != g.NumNodes() {
			return &OptionsError{Msg: fmt.Sprintf("Targets has %d entries for a graph of %d nodes", len(t), g.NumNodes())}
		}
		targets, linked := CountTargets(g, t)
		if linked == 0 {
			return fmt.Errorf("none of the %d target nodes has a neighbour: %w", targets, ErrNothingToScore)
		}
	}
	// A dimension up to the default (the paper's 8) works on any graph;
	// beyond it, an embedding with as many dimensions as nodes has room for
	// any graph, says nothing about this one, and is slow.
	if d, def := opts.CNE.WithDefaults().Dim, (cne.Options{}).WithDefaults().Dim; score.UsesEmbedding(opts.Method) && d > def && d >= g.NumNodes() {
		return &OptionsError{Msg: fmt.Sprintf("embedding dimension %d is not smaller than the graph's %d nodes: "+
			"such an embedding has room for any graph and says nothing about this one (and is slow); use a dimension below %d, or the default %d",
			d, g.NumNodes(), g.NumNodes(), def)}
	}
	return nil
}

// CheckSplitter refuses, with an *OptionsError, a splitter that needs an
// embedding after a method that fits none (a baseline); a nil splitter
// passes.
func CheckSplitter(sp split.Splitter, method string) error {
	if sp == nil || !sp.NeedsEmbedding() || score.UsesEmbedding(method) {
		return nil
	}
	return needsEmbedding(sp, method)
}

// needsEmbedding is the error of a splitter that needs an embedding after
// method ("" when unknown), which fits none.
func needsEmbedding(sp split.Splitter, method string) error {
	msg := fmt.Sprintf("splitter %q needs an embedding: score with method %q or %q", sp.Name(), score.MethodCombined, score.MethodFONDUE)
	if method != "" {
		msg += fmt.Sprintf(", not %q", method)
	}
	return &OptionsError{Msg: msg}
}

// Shares of the scoring phase's progress: the scores, then the entity
// estimates; in the combined method's scores, the split's tests, then the
// pieces. (About the shares of their time on the paper's graphs.)
const scoringShare = 0.9

// countScored is the number of nodes Score scores: the Targets, else all.
func countScored(g *graph.Graph, targets []bool) int {
	n, _ := CountTargets(g, targets)
	return n
}

// CountTargets counts the targets of g (Options.Targets; nil: every node)
// and, of them, those with a neighbour: none linked leaves nothing to
// score. The one count of score's, sync's and the engine's checks.
func CountTargets(g *graph.Graph, targets []bool) (selected, linked int) {
	for i := range g.NumNodes() {
		if targets == nil || targets[i] {
			selected++
			if g.Degree(i) > 0 {
				linked++
			}
		}
	}
	return selected, linked
}

// phaseContext returns ctx with, when Score reports progress (progress is
// not nil), a report of the phase's parallel loop (parallel.WithChunkProgress): a
// share of its chunks done is reported as that share of the phase's total
// items (nodes), rounded down, with others (Progress.Context). The chunks of the scoring loops are of about
// equal cost, so the share is that of the work.
func phaseContext(ctx context.Context, progress func(Progress), ph Phase, total, others int) context.Context {
	if progress == nil {
		return ctx
	}
	return parallel.WithChunkProgress(ctx, func(done, chunks int) {
		progress(Progress{Phase: ph, Done: int(int64(done) * int64(total) / int64(chunks)), Total: total, Context: others})
	})
}

func scoreFONDUE(ctx context.Context, g *graph.Graph, opts Options, res *Result, report func(Phase, int, int)) error {
	t0 := time.Now()
	report(PhasePrior, 0, 1)
	prior, err := cne.FitPrior(ctx, g, opts.Prior)
	if err != nil {
		return err
	}
	res.Prior = prior
	res.Timings.Prior = time.Since(t0)
	report(PhasePrior, 1, 1)

	inc := opts.since(g, res)
	if inc == nil && res.Incremental != nil {
		opts.WarmStart = res.Incremental.warm
	}

	t1 := time.Now()
	maxEpochs := opts.CNE.WithDefaults().MaxEpochs
	report(PhaseEmbedding, 0, maxEpochs)
	run := cne.Run{Seed: opts.Seed, Workers: opts.Workers, KeepState: opts.KeepState,
		Progress: func(p cne.Progress) { report(PhaseEmbedding, p.Epoch, p.MaxEpochs) }}
	var emb *cne.Embedding
	if inc != nil {
		emb, err = inc.fit(ctx, g, prior, opts, run, res)
	} else {
		emb, err = fitFull(ctx, g, prior, opts, run, res)
	}
	if err != nil {
		return err
	}
	res.Embedding = emb
	res.Timings.Embedding = time.Since(t1)
	report(PhaseEmbedding, maxEpochs, maxEpochs)

	t2 := time.Now()
	report(PhaseScoring, 0, g.NumNodes())
	scored := countScored(g, opts.Targets)
	pctx := phaseContext(ctx, opts.Progress, PhaseScoring, scored, g.NumNodes()-scored)
	so := opts.scoring()
	terms := score.NewTerms(opts.Method, g.NumNodes())
	var only []bool
	if inc != nil {
		only = inc.reuse(g, emb, &opts, terms, res)
	}
	if err := score.EmbeddingTerms(parallel.SubProgress(pctx, 0, scoringShare), g, emb, so, only, terms); err != nil {
		return err
	}
	res.terms = terms
	res.Scores, res.Sure = score.Combine(g, terms, so)
	mask := make([]bool, g.NumNodes())
	for i, s := range res.Scores {
		mask[i] = !math.IsNaN(s) && (only == nil || only[i])
	}
	ents, err := score.EstimateEntities(parallel.SubProgress(pctx, scoringShare, 1), g, mask, opts.Workers)
	if err != nil {
		return err
	}
	res.entities = make([]int32, len(ents))
	for i, e := range ents {
		if only == nil || only[i] { // 0 for a node no longer scored
			res.entities[i] = int32(e)
		} else if k := inc.from[i]; k >= 0 {
			res.entities[i] = inc.s.Entities[k]
		}
	}
	res.Entities = make([]int, len(ents))
	for i, e := range res.entities {
		res.Entities[i] = int(e)
	}
	res.Timings.Scoring = time.Since(t2)
	report(PhaseScoring, g.NumNodes(), g.NumNodes())
	return nil
}

// fitFull fits the embedding of g from scratch, or from Options.WarmStart.
func fitFull(ctx context.Context, g *graph.Graph, prior *cne.Prior, opts Options, run cne.Run, res *Result) (*cne.Embedding, error) {
	if opts.WarmStart != nil {
		init, ws, err := opts.WarmStart.WarmStart(g, opts.CNE, opts.Seed)
		if err != nil {
			return nil, fmt.Errorf("warm start: %w", err)
		}
		if union := g.NumNodes() + ws.Dropped; float64(ws.Reused) < opts.WarmStartMinShare*float64(union) {
			return nil, &WarmStartError{File: opts.WarmStart.File, Shared: ws.Reused, Union: union, MinShare: opts.WarmStartMinShare}
		}
		run.Init, run.ReuseInit = init, true // this fit's alone
		res.Warm = &ws
	}
	emb, st, err := cne.Fit(ctx, g, prior, opts.CNE, run)
	if err != nil {
		return nil, err
	}
	res.CNE = st
	return emb, nil
}

// ScoreEmbedding scores every node of g from a CNE embedding of it, as
// Score does after fitting one: with FONDUE's quotient (opts.Method
// MethodFONDUE) or the combined method (MethodCombined, the default), using
// opts.RandomSplits, Unnormalized, Polish, Seed and Workers. Isolated nodes
// get NaN. It lets a caller score one embedding both ways.
func ScoreEmbedding(ctx context.Context, g *graph.Graph, emb *cne.Embedding, opts Options) ([]float64, error) {
	return score.Embedding(ctx, g, emb, opts.scoring())
}

// scoring returns the options of the scores: the one road of Seed,
// Workers and the sign vectors' settings to package score, and through
// split.Input to the splitters.
func (o *Options) scoring() score.Options {
	return score.Options{Method: o.Method, Seed: o.Seed, Workers: o.Workers, RandomSplits: o.RandomSplits,
		Unnormalized: o.Unnormalized, Polish: o.Polish, Targets: o.Targets}
}

// splitCandidates returns the nodes chosen by so, best-ranked first, without duplicates.
func splitCandidates(res *Result, so SplitOptions) []int {
	seen := map[int]bool{}
	var nodes []int
	add := func(i int) {
		if i >= 0 && i < len(res.Scores) && !seen[i] && !math.IsNaN(res.Scores[i]) {
			seen[i] = true
			nodes = append(nodes, i)
		}
	}
	for k, i := range res.Ranking() {
		if k < so.Top || (so.MinAmbiguity > 0 && res.Ambiguity[i] >= so.MinAmbiguity) {
			add(i)
		}
	}
	for _, i := range so.Nodes {
		add(i)
	}
	return nodes
}
