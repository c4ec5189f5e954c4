package cne

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// Mode selects how CNE evaluates its objective.
type Mode int

const (
	// ModeAuto uses ModeExact up to Options.ExactMaxNodes nodes and
	// ModeSampled above.
	ModeAuto Mode = iota
	// ModeExact sums over all n(n-1)/2 pairs every epoch: O(n^2 d).
	ModeExact
	// ModeSampled keeps every edge and draws NegRatio x degree random
	// non-neighbours per node and epoch, reweighted to keep the gradient
	// unbiased: O(m d) per epoch.
	ModeSampled
)

func (m Mode) String() string {
	switch m {
	case ModeExact:
		return "exact"
	case ModeSampled:
		return "sampled"
	}
	return "auto"
}

// ParseMode parses "auto", "exact" or "sampled".
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(s) {
	case "auto", "":
		return ModeAuto, nil
	case "exact":
		return ModeExact, nil
	case "sampled":
		return ModeSampled, nil
	}
	return 0, fmt.Errorf("unknown CNE mode %q (want auto, exact or sampled)", s)
}

// Options configures the embedding: the model and its training. The zero
// value gives the defaults (WithDefaults), which are those of the FONDUE
// paper (sigma1=1, sigma2=2, d=8) and of the authors' CNE code (Adam with
// learning rate 0.1, up to 2000 epochs, 5 negatives per positive). How one
// fit runs (its seed, goroutines, warm start) is Fit's Run.
type Options struct {
	Dim          int     // embedding dimension d (default 8)
	Sigma1       float64 // spread of distances between linked nodes (default 1)
	Sigma2       float64 // spread of distances between unlinked nodes (default 2); must exceed Sigma1
	LearningRate float64 // Adam step size (default 0.1)
	MaxEpochs    int     // epoch limit (default 2000)
	// Tol stops training when the mean gradient norm of the last 50 epochs
	// is within Tol (relative) of the mean of the last 10: the norm has
	// stopped falling (default 1e-2; the authors' code compares 100 and 10
	// epochs with 1e-3, but AUC stops rising well before the gradient norm
	// settles: method.md section 1.3). In exact mode, whose
	// gradient has no sampling noise and keeps falling geometrically,
	// training also stops once the norm is below Tol/10 times its largest value.
	Tol      float64
	NegRatio int  // negatives drawn per edge in sampled mode (default 5)
	Mode     Mode // exact or sampled objective (default auto)
	// ExactMaxNodes is the largest graph ModeAuto fits exactly (default 1000).
	ExactMaxNodes int
	// NoiseStart starts from the plain N(0,1) noise, the paper's start,
	// instead of the smoothed start (see smoothedStart in cne_init.go).
	// Without Init, the default smooths that same noise over the graph.
	NoiseStart bool
	// NoStabilityStop turns off the ranking-stability stop (see
	// cne_stop.go), leaving the gradient-norm test of Tol and MaxEpochs.
	// The stop is never used on warm starts.
	NoStabilityStop bool

	tune tuning // settings that only tests change (tuning.go)
}

// Run is how one fit runs, besides its Options: the seed, the goroutines,
// a warm start and the progress reports. The zero value starts from seed
// 0's noise on all cores.
type Run struct {
	Seed    uint64
	Workers int // goroutines (default: all cores); results do not depend on it
	// Init, when set, is the starting embedding (a warm start) instead of
	// N(0,1) noise. It must have one row per node and Dim columns. If it
	// carries optimizer state (see Checkpoint.WarmStart), training resumes
	// it: Adam's moments and the stopping test's history continue, so that
	// a graph that changed a little converges in a few epochs.
	Init *Embedding
	// ReuseInit lets Fit take Init's vectors and optimizer moments as its
	// own working arrays instead of copying them, for an Init made for
	// this fit alone (Checkpoint.WarmStart's): Fit overwrites them, and
	// the returned embedding may share them, so Init must not be used
	// after the call. The result is the same. False: Init is only read.
	ReuseInit bool
	// KeepState keeps the optimizer state in the returned embedding, for
	// saving as a Checkpoint.
	KeepState bool
	// Progress, when set, is called after every epoch from the fitting goroutine.
	Progress func(Progress)
	// Trainable, when not nil, trains only these rows (node indices,
	// ascending) from Init, which it needs; every other row keeps Init's
	// vector exactly. An epoch then costs in proportion to the rows'
	// degrees, not to the graph (see fitSubset). Empty: nothing moves.
	Trainable []int32
}

// Progress reports one finished epoch.
type Progress struct {
	Epoch     int // 1-based
	MaxEpochs int
	GradNorm  float64
}

// Stats describes a finished fit.
type Stats struct {
	Mode      Mode
	Epochs    int
	Converged bool    // a stopping test fired before MaxEpochs
	Stable    bool    // it was the ranking-stability stop
	GradNorm  float64 // gradient norm of the last epoch
	Duration  time.Duration
}

// Embedding holds one Dim-dimensional vector per node, row-major, and
// optionally the optimizer state that produced it.
type Embedding struct {
	Dim int
	X   []float64

	state *adamState
}

// adamState is what resuming Adam needs: both moments (row-major like X),
// the number of steps taken, and the recent gradient norms that the
// stopping test looks at.
type adamState struct {
	m, v    []float64
	step    int
	history []float64
	peak    float64 // the largest gradient norm of the whole fit
}

// Len returns the number of rows.
func (e *Embedding) Len() int { return len(e.X) / e.Dim }

// Row returns node i's vector; it aliases the embedding.
func (e *Embedding) Row(i int) []float64 { return e.X[i*e.Dim : (i+1)*e.Dim : (i+1)*e.Dim] }

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.Dim <= 0 {
		o.Dim = 8
	}
	if o.Sigma1 <= 0 {
		o.Sigma1 = 1
	}
	if o.Sigma2 <= 0 {
		o.Sigma2 = 2
	}
	if o.LearningRate <= 0 {
		o.LearningRate = 0.1
	}
	if o.MaxEpochs <= 0 {
		o.MaxEpochs = 2000
	}
	if o.Tol <= 0 {
		o.Tol = 1e-2
	}
	if o.NegRatio <= 0 {
		o.NegRatio = 5
	}
	if o.ExactMaxNodes <= 0 {
		o.ExactMaxNodes = 1000
	}
	return o
}

// Validate reports options that cannot work.
func (o Options) Validate() error {
	o = o.WithDefaults()
	if o.Sigma2 <= o.Sigma1 {
		return fmt.Errorf("sigma2 (%g) must be larger than sigma1 (%g)", o.Sigma2, o.Sigma1)
	}
	if o.Dim > 1024 {
		return fmt.Errorf("embedding dimension %d is too large (max 1024)", o.Dim)
	}
	return nil
}

// Adam's constants, as in the authors' CNE code. beta2 is close to 1, which
// keeps the effective step size stable under the noise of negative sampling.
const (
	adamBeta1 = 0.9
	adamBeta2 = 0.9999
	adamEps   = 1e-8
)

// The stopping test compares the mean gradient norm over the last
// stopLong epochs with the mean over the last stopShort epochs.
const (
	stopShort = 10
	stopLong  = 50
)

// Fit fits a Conditional Network Embedding of g under prior p by Adam on
// the negative log-likelihood. The result depends only on the graph, the
// prior, the options and r.Seed (and r.Init), not on r.Workers.
func Fit(ctx context.Context, g *graph.Graph, p *Prior, opts Options, r Run) (*Embedding, Stats, error) {
	start := time.Now()
	o := opts.WithDefaults()
	if err := o.Validate(); err != nil {
		return nil, Stats{}, err
	}
	n := g.NumNodes()
	if len(p.Lambda) != n {
		return nil, Stats{}, fmt.Errorf("prior has %d nodes, graph %d", len(p.Lambda), n)
	}
	st := Stats{Mode: o.resolveMode(n)}
	f, err := newCNEFit(g, p, o, r, st.Mode)
	if err != nil {
		return nil, st, err
	}
	if r.Trainable != nil {
		return f.fitSubset(ctx, st, start)
	}
	if n < 2 || g.NumEdges() == 0 {
		st.Duration = time.Since(start)
		return f.emb, st, nil
	}
	f.prepare()
	if r.Init == nil && !o.NoiseStart {
		if err := f.smooth(ctx); err != nil {
			return nil, st, err
		}
	}
	var stop *stabilityStop
	if r.Init == nil && !o.NoStabilityStop {
		stop = newStabilityStop(f.g, o.Dim, o.tune)
	}
	for epoch := 0; epoch < o.MaxEpochs; epoch++ {
		norm, err := f.gradient(ctx, epoch)
		if err != nil {
			return nil, st, err
		}
		f.adamStep()
		f.hist = append(f.hist, norm)
		st.Epochs = epoch + 1
		if o.tune.epochHook != nil {
			o.tune.epochHook(f, epoch+1)
		}
		st.GradNorm = norm
		if r.Progress != nil {
			r.Progress(Progress{Epoch: epoch + 1, MaxEpochs: o.MaxEpochs, GradNorm: norm})
		}
		f.peak = max(f.peak, norm)
		if f.converged(epoch, norm) {
			st.Converged = true
			break
		}
		if stop != nil && (epoch+1)%o.tune.every() == 0 && stop.check(f.g, f.emb) {
			st.Converged, st.Stable = true, true
			break
		}
	}
	f.finish()
	st.Duration = time.Since(start)
	return f.emb, st, nil
}

// resolveMode returns the mode ModeAuto stands for on n nodes.
func (o Options) resolveMode(n int) Mode {
	if o.Mode != ModeAuto {
		return o.Mode
	}
	if n <= o.ExactMaxNodes {
		return ModeExact
	}
	return ModeSampled
}

// cneFit is one run of Fit: the embedding, Adam's state, and the
// per-epoch work split into chunks.
type cneFit struct {
	o    Options
	r    Run
	mode Mode
	g    *graph.Graph // renumbered when order is set
	lam  []float64
	emb  *Embedding
	// order, when set, renumbers the nodes for locality: row k of every
	// per-node array is node order[k] (see prepare).
	order []int32

	// Adam. A warm start without optimizer state (vectors only) primes
	// Adam's second moment with the first gradient and skips the bias
	// correction, as if training had been going on: the first steps are
	// then about LearningRate/10, where a fresh Adam would move every
	// coordinate by a full LearningRate and undo much of the warm start.
	mom, vel, grad []float64
	step           int
	b1t, b2t       float64 // adamBeta1^step, adamBeta2^step
	primeAdam      bool
	hist           []float64 // gradient norms, for the stopping test
	peak           float64   // the largest gradient norm of the whole fit

	m       *cneModel
	rows    []int32   // the rows trained (Run.Trainable); nil: all
	near    *nearRows // with rows in sampled mode: them and their neighbours packed
	bounds  []int     // chunk c is rows [bounds[c], bounds[c+1]) (of rows, when set)
	sq      []float64 // per-chunk sums of squared gradient entries
	workers int
	pool    negativePool
	work    []blockWork // per worker
	ranBy   []int32     // the worker of each chunk in the last epoch; only under tune.epochHook
}

// newCNEFit sets up the starting point: r.Init (a warm start, with its
// optimizer state if it has one) or N(0,1) noise from the seed.
func newCNEFit(g *graph.Graph, p *Prior, o Options, r Run, mode Mode) (*cneFit, error) {
	n, d := g.NumNodes(), o.Dim
	f := &cneFit{o: o, r: r, mode: mode, g: g, lam: p.Lambda, emb: &Embedding{Dim: d}}
	if r.Init == nil {
		f.emb.X, f.mom, f.vel = make([]float64, n*d), make([]float64, n*d), make([]float64, n*d)
		noise := rng.SplitMix{S: rng.StreamSeed(r.Seed, rng.StreamInit, 0, 0)}
		for k := range f.emb.X {
			f.emb.X[k] = noise.Norm()
		}
		return f, nil
	}
	if r.Init.Dim != d || r.Init.Len() != n {
		return nil, fmt.Errorf("initial embedding is %dx%d, want %dx%d", r.Init.Len(), r.Init.Dim, n, d)
	}
	// take returns a working copy of one of Init's arrays, or with
	// ReuseInit the array itself.
	take := func(a []float64) []float64 {
		if r.ReuseInit && len(a) == n*d {
			return a
		}
		out := make([]float64, n*d)
		copy(out, a)
		return out
	}
	f.emb.X = take(r.Init.X)
	if s := r.Init.state; s != nil {
		f.mom, f.vel = take(s.m), take(s.v)
		f.step = s.step
		f.hist = append(f.hist, s.history...)
		f.peak = s.peak
	} else {
		f.mom, f.vel = make([]float64, n*d), make([]float64, n*d)
		f.primeAdam = true
	}
	return f, nil
}

// prepare renumbers the nodes for locality when that pays, builds the
// model and splits the rows into chunks.
func (f *cneFit) prepare() {
	o, n, d := f.o, f.g.NumNodes(), f.o.Dim
	// In sampled mode on graphs whose vectors outgrow the caches, renumber
	// the nodes so that neighbours sit close in memory (about 10% faster
	// epochs at 10^6 nodes); every per-node array is mapped back at the end.
	if f.mode == ModeSampled && int64(n)*int64(d)*8 > o.tune.reorderAbove() {
		f.order = f.g.BFSOrder()
		f.g = f.g.Permute(f.order)
		lam := make([]float64, n)
		for k, old := range f.order {
			lam[k] = f.lam[old]
		}
		f.lam = lam
		f.emb.X = permuteRows(f.emb.X, d, f.order, false)
		f.mom = permuteRows(f.mom, d, f.order, false)
		f.vel = permuteRows(f.vel, d, f.order, false)
	}
	f.m = newCNEModel(f.g, &Prior{Lambda: f.lam}, o)
	f.grad = make([]float64, n*d)
	f.bounds = cneChunks(f.g, f.mode, o.NegRatio)
	chunks := len(f.bounds) - 1
	f.workers = min(parallel.WorkerCount(f.r.Workers), chunks)
	f.sq = make([]float64, chunks)
	f.pool = newNegativePool(f.g)
	f.work = make([]blockWork, f.workers)
	if o.tune.epochHook != nil {
		f.ranBy = make([]int32, chunks)
	}
	f.b1t, f.b2t = math.Pow(adamBeta1, float64(f.step)), math.Pow(adamBeta2, float64(f.step))
}

// adamStep moves the embedding by one step of Adam along f.grad. Every
// entry moves on its own, so the entries are split into fixed ranges over
// the workers: the result does not depend on the split.
func (f *cneFit) adamStep() {
	if f.rows != nil {
		f.adamRows()
		return
	}
	f.beginStep(func() { f.primeRange(0, len(f.grad)) })
	total := len(f.grad)
	chunks := (total + adamChunk - 1) / adamChunk
	// The background context: a step is never left half done.
	_ = parallel.ForChunks(context.Background(), f.workers, chunks, func(_, c int) {
		f.adamRange(c*adamChunk, min(total, (c+1)*adamChunk))
	})
}

// beginStep starts an Adam step: the bias corrections advance, and on the
// first step after a restart (primeAdam) prime sets the velocities first.
func (f *cneFit) beginStep(prime func()) {
	if f.primeAdam {
		prime()
		f.step = 1 << 20
		f.b1t, f.b2t = 0, 0
		f.primeAdam = false
	}
	f.b1t *= adamBeta1
	f.b2t *= adamBeta2
	f.step++
}

// primeRange sets the velocities of entries [lo, hi) to their squared
// gradients.
func (f *cneFit) primeRange(lo, hi int) {
	for k := lo; k < hi; k++ {
		f.vel[k] = f.grad[k] * f.grad[k]
	}
}

// adamChunk is the number of entries of one range of adamStep.
const adamChunk = 1 << 15

// adamRange applies the current Adam step to entries [lo, hi).
func (f *cneFit) adamRange(lo, hi int) {
	f.adam(f.emb.X[lo:hi], f.mom[lo:hi], f.vel[lo:hi], f.grad[lo:hi])
}

// adam applies the current Adam step to the entries X, with their moments
// mom and vel and gradient grad (as long as X).
func (f *cneFit) adam(X, mom, vel, grad []float64) {
	lr, c1, c2 := f.o.LearningRate, 1-f.b1t, 1-f.b2t
	mom, vel, grad = mom[:len(X)], vel[:len(X)], grad[:len(X)]
	for k, gk := range grad {
		mom[k] = adamBeta1*mom[k] + (1-adamBeta1)*gk
		vel[k] = adamBeta2*vel[k] + (1-adamBeta2)*gk*gk
		mh := mom[k] / c1
		vh := vel[k] / c2
		X[k] -= lr * mh / (math.Sqrt(vh) + adamEps)
	}
}

// converged is the stopping test after epoch (0-based) with gradient norm
// norm (already in f.hist and f.peak).
func (f *cneFit) converged(epoch int, norm float64) bool {
	// A warm start trains at least stopShort+1 epochs before any test,
	// so that new and changed nodes move before training can stop.
	if f.mode == ModeExact && (f.r.Init == nil || epoch > stopShort) && norm < f.o.Tol/10*f.peak {
		return true
	}
	if epoch > stopShort {
		long := mean(f.hist[max(0, len(f.hist)-stopLong):])
		short := mean(f.hist[len(f.hist)-stopShort:])
		if math.Abs(long/short-1) < f.o.Tol {
			return true
		}
	}
	return false
}

// finish maps the rows back to the graph's numbering and keeps the
// optimizer state when asked.
func (f *cneFit) finish() {
	d := f.o.Dim
	if f.order != nil {
		f.emb.X = permuteRows(f.emb.X, d, f.order, true)
		if f.r.KeepState {
			f.mom = permuteRows(f.mom, d, f.order, true)
			f.vel = permuteRows(f.vel, d, f.order, true)
		}
	}
	if f.r.KeepState {
		f.emb.state = &adamState{m: f.mom, v: f.vel, step: f.step,
			history: f.hist[max(0, len(f.hist)-stopLong):], peak: f.peak}
	}
}

// permuteRows returns rows of a (d columns) reordered: row k of the result
// is row order[k] of a, or with inverse set, row order[k] of the result is
// row k of a.
func permuteRows(a []float64, d int, order []int32, inverse bool) []float64 {
	out := make([]float64, len(a))
	for k, old := range order {
		o := int(old)
		if inverse {
			copy(out[o*d:(o+1)*d], a[k*d:(k+1)*d])
		} else {
			copy(out[k*d:(k+1)*d], a[o*d:(o+1)*d])
		}
	}
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
