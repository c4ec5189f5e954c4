package fondue

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Mode selects how CNE evaluates its objective.
type Mode int

const (
	// ModeAuto uses ModeExact up to CNEOptions.ExactMaxNodes nodes and
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

// CNEOptions configures the embedding. The zero value gives the defaults,
// which are those of the FONDUE paper (sigma1=1, sigma2=2, d=8) and of the
// authors' CNE code (Adam with learning rate 0.1, up to 2000 epochs, 5
// negatives per positive).
type CNEOptions struct {
	Dim          int     // embedding dimension d (default 8)
	Sigma1       float64 // spread of distances between linked nodes (default 1)
	Sigma2       float64 // spread of distances between unlinked nodes (default 2); must exceed Sigma1
	LearningRate float64 // Adam step size (default 0.1)
	MaxEpochs    int     // epoch limit (default 2000)
	// Tol stops training when the mean gradient norm of the last 100 epochs
	// is within Tol (relative) of the mean of the last 10: the norm has
	// stopped falling (default 1e-3). In exact mode, whose gradient has no
	// sampling noise and keeps falling geometrically, training also stops
	// once the norm is below Tol times its largest value.
	Tol      float64
	NegRatio int  // negatives drawn per edge in sampled mode (default 5)
	Mode     Mode // exact or sampled objective (default auto)
	// ExactMaxNodes is the largest graph ModeAuto fits exactly (default 1000).
	ExactMaxNodes int
	Seed          uint64
	Workers       int // goroutines (default: all cores); results do not depend on it
	// Init, when set, is the starting embedding (a warm start) instead of
	// N(0,1) noise. It must have one row per node and Dim columns.
	Init *Embedding
	// Progress, when set, is called after every epoch from the fitting goroutine.
	Progress func(CNEProgress)
}

// CNEProgress reports one finished epoch.
type CNEProgress struct {
	Epoch     int // 1-based
	MaxEpochs int
	GradNorm  float64
}

// CNEStats describes a finished fit.
type CNEStats struct {
	Mode      Mode
	Epochs    int
	Converged bool    // the stopping test fired before MaxEpochs
	GradNorm  float64 // gradient norm of the last epoch
	Duration  time.Duration
}

// Embedding holds one Dim-dimensional vector per node, row-major.
type Embedding struct {
	Dim int
	X   []float64
}

// Len returns the number of rows.
func (e *Embedding) Len() int { return len(e.X) / e.Dim }

// Row returns node i's vector; it aliases the embedding.
func (e *Embedding) Row(i int) []float64 { return e.X[i*e.Dim : (i+1)*e.Dim : (i+1)*e.Dim] }

func (o CNEOptions) withDefaults() CNEOptions {
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
		o.Tol = 1e-3
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
func (o CNEOptions) Validate() error {
	o = o.withDefaults()
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
	stopLong  = 100
)

// cneModel holds what the objective needs: the graph, the prior's
// multipliers and the constants of the posterior
//
//	P_ij = 1 / (1 + exp(z_ij)),  z_ij = -(l_i + l_j) + log(s1/s2) + gamma d_ij^2 / 2,
//
// with gamma = 1/s1^2 - 1/s2^2: the closed form of
// p N(d; s1) / (p N(d; s1) + (1-p) N(d; s2)) for half-normal distance densities.
type cneModel struct {
	g         *Graph
	lam       []float64
	dim       int
	gamma     float64
	halfGamma float64
	logRatio  float64 // log(s1/s2)
}

func newCNEModel(g *Graph, p *Prior, o CNEOptions) *cneModel {
	gamma := 1/(o.Sigma1*o.Sigma1) - 1/(o.Sigma2*o.Sigma2)
	return &cneModel{g: g, lam: p.Lambda, dim: o.Dim, gamma: gamma, halfGamma: gamma / 2,
		logRatio: math.Log(o.Sigma1 / o.Sigma2)}
}

// z returns the posterior log-odds of a non-edge for the pair (i, j) at squared distance d2.
func (m *cneModel) z(i, j int, d2 float64) float64 {
	return m.logRatio - m.lam[i] - m.lam[j] + m.halfGamma*d2
}

// Posterior returns P(a_ij = 1 | X) under the model.
func (m *cneModel) posterior(X []float64, i, j int) float64 {
	return 1 / (1 + math.Exp(m.z(i, j, sqDist(X, m.dim, i, j))))
}

func sqDist(X []float64, d, i, j int) float64 {
	xi, xj := X[i*d:(i+1)*d], X[j*d:(j+1)*d]
	s := 0.0
	for k := range xi {
		t := xi[k] - xj[k]
		s += t * t
	}
	return s
}

// objective returns the exact log-likelihood
// O(X) = sum_{i<j} a_ij log P_ij + (1 - a_ij) log(1 - P_ij), computed in log
// space (log P = -softplus(z), log(1-P) = -softplus(-z)). It costs O(n^2 d)
// and exists for tests and small graphs.
func (m *cneModel) objective(X []float64) float64 {
	n := m.g.NumNodes()
	o := 0.0
	for i := 0; i < n; i++ {
		if m.g.Degree(i) == 0 {
			continue
		}
		for j := i + 1; j < n; j++ {
			if m.g.Degree(j) == 0 {
				continue
			}
			z := m.z(i, j, sqDist(X, m.dim, i, j))
			if m.g.HasEdge(i, j) {
				o -= softplus(z)
			} else {
				o -= softplus(-z)
			}
		}
	}
	return o
}

// gradExactRow writes into g the gradient of the loss -O with respect to x_i:
//
//	-dO/dx_i = gamma * sum_{j != i} (a_ij - P_ij) (x_i - x_j).
//
// It follows from d log P/dx_i = -gamma (1-P)(x_i - x_j) and
// d log(1-P)/dx_i = gamma P (x_i - x_j).
func (m *cneModel) gradExactRow(X []float64, i int, g []float64) {
	clear(g)
	if m.g.Degree(i) == 0 {
		return
	}
	d := m.dim
	xi := X[i*d : (i+1)*d]
	nb := m.g.Neighbors(i)
	p := 0
	n := m.g.NumNodes()
	base := m.logRatio - m.lam[i]
	for j := 0; j < n; j++ {
		a := 0.0
		if p < len(nb) && int(nb[p]) == j {
			a = 1
			p++
		}
		if j == i || math.IsInf(m.lam[j], -1) {
			continue
		}
		xj := X[j*d : (j+1)*d]
		d2 := 0.0
		for k := range xi {
			t := xi[k] - xj[k]
			d2 += t * t
		}
		P := 1 / (1 + math.Exp(base-m.lam[j]+m.halfGamma*d2))
		c := m.gamma * (a - P)
		for k := range xi {
			g[k] += c * (xi[k] - xj[k])
		}
	}
}

// sampler draws negatives for one row without allocating: marker[j] == i+1
// flags the neighbours of row i (the marks are only ever set to a row's own
// neighbours, so stale marks from earlier epochs are still correct).
type sampler struct {
	marker []int32
	pool   []int32 // non-isolated nodes, or nil when there are none isolated
	n      uint32  // number of candidates
}

// gradSampledRow writes into g an unbiased estimate of the loss gradient for
// row i: every edge term exactly, plus NegRatio x deg_i non-edges drawn
// uniformly with replacement, each weighted by (#non-neighbours)/(#draws).
// When the draws would outnumber the non-neighbours, all of them are used
// with weight 1 instead.
func (m *cneModel) gradSampledRow(X []float64, i int, g []float64, negRatio int, s *sampler, r *splitmix) {
	clear(g)
	deg := m.g.Degree(i)
	if deg == 0 {
		return
	}
	d := m.dim
	xi := X[i*d : (i+1)*d]
	nb := m.g.Neighbors(i)
	stamp := int32(i + 1)
	base := m.logRatio - m.lam[i]
	for _, j32 := range nb {
		j := int(j32)
		s.marker[j] = stamp
		xj := X[j*d : (j+1)*d]
		d2 := 0.0
		for k := range xi {
			t := xi[k] - xj[k]
			d2 += t * t
		}
		P := 1 / (1 + math.Exp(base-m.lam[j]+m.halfGamma*d2))
		c := m.gamma * (1 - P)
		for k := range xi {
			g[k] += c * (xi[k] - xj[k])
		}
	}
	nonNb := int(s.n) - 1 - deg
	if nonNb <= 0 {
		return
	}
	s.marker[i] = stamp
	draws := negRatio * deg
	negative := func(j int, w float64) {
		xj := X[j*d : (j+1)*d]
		d2 := 0.0
		for k := range xi {
			t := xi[k] - xj[k]
			d2 += t * t
		}
		P := 1 / (1 + math.Exp(base-m.lam[j]+m.halfGamma*d2))
		c := -m.gamma * P * w
		for k := range xi {
			g[k] += c * (xi[k] - xj[k])
		}
	}
	if draws >= nonNb {
		for c := uint32(0); c < s.n; c++ {
			j := int(c)
			if s.pool != nil {
				j = int(s.pool[c])
			}
			if s.marker[j] != stamp {
				negative(j, 1)
			}
		}
		return
	}
	w := float64(nonNb) / float64(draws)
	for t := 0; t < draws; {
		j := int(r.intn(s.n))
		if s.pool != nil {
			j = int(s.pool[j])
		}
		if s.marker[j] == stamp {
			continue
		}
		negative(j, w)
		t++
	}
}

// FitCNE fits a Conditional Network Embedding of g under prior p by Adam on
// the negative log-likelihood. The result depends only on the graph, the
// prior and the options (Seed included), not on Workers.
func FitCNE(ctx context.Context, g *Graph, p *Prior, opts CNEOptions) (*Embedding, CNEStats, error) {
	start := time.Now()
	o := opts.withDefaults()
	if err := o.Validate(); err != nil {
		return nil, CNEStats{}, err
	}
	n := g.NumNodes()
	if len(p.Lambda) != n {
		return nil, CNEStats{}, fmt.Errorf("prior has %d nodes, graph %d", len(p.Lambda), n)
	}
	mode := o.Mode
	if mode == ModeAuto {
		mode = ModeSampled
		if n <= o.ExactMaxNodes {
			mode = ModeExact
		}
	}
	st := CNEStats{Mode: mode}
	d := o.Dim
	emb := &Embedding{Dim: d, X: make([]float64, n*d)}
	if o.Init != nil {
		if o.Init.Dim != d || o.Init.Len() != n {
			return nil, st, fmt.Errorf("initial embedding is %dx%d, want %dx%d", o.Init.Len(), o.Init.Dim, n, d)
		}
		copy(emb.X, o.Init.X)
	} else {
		r := splitmix{s: streamSeed(o.Seed, streamInit, 0, 0)}
		for k := range emb.X {
			emb.X[k] = r.norm()
		}
	}
	if n < 2 || g.NumEdges() == 0 {
		st.Duration = time.Since(start)
		return emb, st, nil
	}

	m := newCNEModel(g, p, o)
	X := emb.X
	grad := make([]float64, n*d)
	mom := make([]float64, n*d)
	vel := make([]float64, n*d)

	// Fixed chunks of similar cost: the per-chunk squared norms are summed in
	// chunk order, so the stopping test sees the same numbers for any Workers.
	var bounds []int
	if mode == ModeExact {
		bounds = rowChunks(n, float64(1<<16), func(int) float64 { return float64(n) })
	} else {
		bounds = rowChunks(n, float64(1<<14), func(i int) float64 {
			return float64(g.Degree(i)*(1+o.NegRatio) + 4)
		})
	}
	chunks := len(bounds) - 1
	workers := min(workerCount(o.Workers), chunks)
	sq := make([]float64, chunks)
	samplers := make([]*sampler, workers)
	if mode == ModeSampled {
		var pool []int32
		if iso := g.Isolated(); len(iso) > 0 {
			pool = make([]int32, 0, n-len(iso))
			for i := 0; i < n; i++ {
				if g.Degree(i) > 0 {
					pool = append(pool, int32(i))
				}
			}
		}
		cand := uint32(n)
		if pool != nil {
			cand = uint32(len(pool))
		}
		for w := range samplers {
			samplers[w] = &sampler{marker: make([]int32, n), pool: pool, n: cand}
		}
	}

	var hist []float64
	peak := 0.0
	b1t, b2t := 1.0, 1.0
	for epoch := 0; epoch < o.MaxEpochs; epoch++ {
		err := forChunks(ctx, workers, chunks, func(w, c int) {
			s := 0.0
			for i := bounds[c]; i < bounds[c+1]; i++ {
				gi := grad[i*d : (i+1)*d]
				if mode == ModeExact {
					m.gradExactRow(X, i, gi)
				} else {
					r := splitmix{s: streamSeed(o.Seed, streamNegatives, uint64(epoch), uint64(i))}
					m.gradSampledRow(X, i, gi, o.NegRatio, samplers[w], &r)
				}
				for _, v := range gi {
					s += v * v
				}
			}
			sq[c] = s
		})
		if err != nil {
			return nil, st, err
		}
		norm := 0.0
		for _, v := range sq {
			norm += v
		}
		norm = math.Sqrt(norm)
		if math.IsNaN(norm) || math.IsInf(norm, 0) {
			return nil, st, errors.New("CNE diverged: gradient is not finite (try a smaller learning rate)")
		}
		// Adam, elementwise; it is cheap next to the gradient, so it stays serial.
		b1t *= adamBeta1
		b2t *= adamBeta2
		lr := o.LearningRate
		for k, gk := range grad {
			mom[k] = adamBeta1*mom[k] + (1-adamBeta1)*gk
			vel[k] = adamBeta2*vel[k] + (1-adamBeta2)*gk*gk
			mh := mom[k] / (1 - b1t)
			vh := vel[k] / (1 - b2t)
			X[k] -= lr * mh / (math.Sqrt(vh) + adamEps)
		}
		hist = append(hist, norm)
		st.Epochs = epoch + 1
		st.GradNorm = norm
		if o.Progress != nil {
			o.Progress(CNEProgress{Epoch: epoch + 1, MaxEpochs: o.MaxEpochs, GradNorm: norm})
		}
		peak = max(peak, norm)
		if mode == ModeExact && norm < o.Tol*peak {
			st.Converged = true
			break
		}
		if epoch > stopShort {
			long := mean(hist[max(0, len(hist)-stopLong):])
			short := mean(hist[len(hist)-stopShort:])
			if math.Abs(long/short-1) < o.Tol {
				st.Converged = true
				break
			}
		}
	}
	st.Duration = time.Since(start)
	return emb, st, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
