package cne

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// Prior is the MaxEnt degree prior of CNE: the least informative edge
// distribution whose expected degrees equal the observed ones. Under it the
// probability of an edge is P(a_ij = 1) = sigmoid(lambda_i + lambda_j), with
// one multiplier per distinct degree. Isolated nodes take no part: their
// multiplier is -Inf (probability 0 with everyone).
type Prior struct {
	// Lambda holds each node's multiplier.
	Lambda []float64
	// Iterations is the number of Newton steps taken.
	Iterations int
	// MaxRelErr is max_i |E[deg_i] - deg_i| / deg_i at the solution.
	MaxRelErr float64

	degrees []int     // distinct degrees, ascending
	counts  []float64 // how many nodes have each distinct degree
	lambdas []float64 // multiplier of each distinct degree
	class   []int32   // each node's index into degrees, -1 if isolated
}

// PriorOptions tunes FitPrior. The zero value gives the defaults.
type PriorOptions struct {
	// Tol is the largest relative error allowed between expected and observed
	// degrees (default 1e-9).
	Tol float64
	// MaxIter bounds the Newton iterations (default 200).
	MaxIter int
}

// LogOdds returns lambda_i + lambda_j, the prior log-odds of an edge i-j.
func (p *Prior) LogOdds(i, j int) float64 { return p.Lambda[i] + p.Lambda[j] }

// Prob returns the prior probability of an edge between i and j.
func (p *Prior) Prob(i, j int) float64 { return sigmoid(p.Lambda[i] + p.Lambda[j]) }

// ExpectedDegrees returns, for every node, its expected degree under the prior
// (self-pairs excluded). It costs O(n + U^2) for U distinct degrees.
func (p *Prior) ExpectedDegrees() []float64 {
	e := expectedByClass(p.lambdas, p.counts)
	out := make([]float64, len(p.Lambda))
	for i, u := range p.class {
		if u >= 0 {
			out[i] = e[u]
		}
	}
	return out
}

// FitPrior solves for the degree prior of g by Newton's method on the convex
// dual, over the distinct degrees only (tens to a few thousand variables,
// whatever the graph's size).
func FitPrior(ctx context.Context, g *graph.Graph, opts PriorOptions) (*Prior, error) {
	if opts.Tol <= 0 {
		opts.Tol = 1e-9
	}
	if opts.MaxIter <= 0 {
		opts.MaxIter = 200
	}
	n := g.NumNodes()
	hist := map[int]int{}
	active := 0
	for i := 0; i < n; i++ {
		if d := g.Degree(i); d > 0 {
			hist[d]++
			active++
		}
	}
	p := &Prior{Lambda: make([]float64, n)}
	for d := range hist {
		p.degrees = append(p.degrees, d)
	}
	slices.Sort(p.degrees)
	U := len(p.degrees)
	p.counts = make([]float64, U)
	delta := make([]float64, U)
	for u, d := range p.degrees {
		p.counts[u] = float64(hist[d])
		delta[u] = float64(d)
	}
	lam := make([]float64, U)
	for u := range lam {
		// Start where every node would be matched if all others had its degree.
		q := min(max(delta[u]/float64(active-1), 1e-12), 1-1e-12)
		lam[u] = math.Log(q/(1-q)) / 2
	}
	if U > 0 {
		it, err := solvePrior(ctx, lam, p.counts, delta, opts)
		p.Iterations = it
		if err != nil {
			return nil, err
		}
	}
	p.lambdas = lam
	e := expectedByClass(lam, p.counts)
	for u := range lam {
		p.MaxRelErr = max(p.MaxRelErr, math.Abs(e[u]-delta[u])/delta[u])
	}
	classOf := make(map[int]int, U)
	for u, d := range p.degrees {
		classOf[d] = u
	}
	p.class = make([]int32, n)
	for i := 0; i < n; i++ {
		if d := g.Degree(i); d > 0 {
			p.class[i] = int32(classOf[d])
			p.Lambda[i] = lam[classOf[d]]
		} else {
			p.class[i] = -1
			p.Lambda[i] = math.Inf(-1)
		}
	}
	if p.MaxRelErr > opts.Tol*1e3 || math.IsNaN(p.MaxRelErr) {
		return p, fmt.Errorf("degree prior did not converge: expected degrees off by %.3g (relative) after %d Newton steps", p.MaxRelErr, p.Iterations)
	}
	return p, nil
}

// expectedByClass returns E[deg] for a node of each degree class:
// sum_v f_v sigmoid(l_u + l_v) minus the self-pair sigmoid(2 l_u).
func expectedByClass(lam, f []float64) []float64 {
	e := make([]float64, len(lam))
	for u, lu := range lam {
		s := 0.0
		for v, lv := range lam {
			s += f[v] * sigmoid(lu+lv)
		}
		e[u] = s - sigmoid(2*lu)
	}
	return e
}

// priorDual is the convex dual whose gradient is f_u (E_u - delta_u):
// 1/2 sum_uv f_u f_v sp(l_u+l_v) - 1/2 sum_u f_u sp(2 l_u) - sum_u f_u delta_u l_u.
func priorDual(lam, f, delta []float64) float64 {
	s := 0.0
	for u, lu := range lam {
		row := 0.0
		for v, lv := range lam {
			row += f[v] * softplus(lu+lv)
		}
		s += f[u] * (row/2 - softplus(2*lu)/2 - delta[u]*lu)
	}
	return s
}

func solvePrior(ctx context.Context, lam, f, delta []float64, opts PriorOptions) (int, error) {
	U := len(lam)
	grad := make([]float64, U)
	step := make([]float64, U)
	trial := make([]float64, U)
	hess := make([]float64, U*U)
	cg := newCGWork(U)
	for it := 0; it < opts.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return it, err
		}
		e := expectedByClass(lam, f)
		worst := 0.0
		for u := range lam {
			grad[u] = f[u] * (e[u] - delta[u])
			worst = max(worst, math.Abs(e[u]-delta[u])/delta[u])
		}
		if worst < opts.Tol {
			return it, nil
		}
		// Hessian of the dual: H_uv = f_u f_v s'(l_u+l_v) off the diagonal,
		// H_uu = f_u (sum_{v!=u} f_v s'_uv + 2 (f_u - 1) s'_uu).
		for u := 0; u < U; u++ {
			diag := 0.0
			for v := 0; v < U; v++ {
				if v == u {
					continue
				}
				h := f[u] * f[v] * dsigmoid(lam[u]+lam[v])
				hess[u*U+v] = h
				diag += h
			}
			hess[u*U+u] = diag + 2*f[u]*(f[u]-1)*dsigmoid(2*lam[u]) + 1e-12*f[u]*f[u]
		}
		for u := range grad {
			step[u] = -grad[u]
		}
		cg.solve(hess, step)
		// Backtracking on the dual. Near the optimum the dual's change falls
		// below its rounding error, so accept a step that lowers the largest
		// relative degree error as well.
		l0 := priorDual(lam, f, delta)
		slope := 0.0
		for u := range grad {
			slope += grad[u] * step[u]
		}
		alpha := 1.0
		for ; alpha > 1e-10; alpha /= 2 {
			for u := range lam {
				trial[u] = lam[u] + alpha*step[u]
			}
			l1 := priorDual(trial, f, delta)
			if l1 <= l0+1e-4*alpha*slope+1e-13*math.Abs(l0) {
				break
			}
		}
		copy(lam, trial)
	}
	return opts.MaxIter, nil
}

// cgWork solves H x = b for a symmetric positive semi-definite H by
// Jacobi-preconditioned conjugate gradients. Its cost is O(U^2) a step,
// which keeps Newton cheap even with thousands of distinct degrees.
type cgWork struct {
	r, z, p, hp []float64
}

func newCGWork(n int) *cgWork {
	return &cgWork{r: make([]float64, n), z: make([]float64, n), p: make([]float64, n), hp: make([]float64, n)}
}

// solve overwrites b with an approximate solution of H x = b.
func (w *cgWork) solve(h, b []float64) {
	n := len(b)
	x := make([]float64, n)
	copy(w.r, b)
	bnorm := 0.0
	for i := range b {
		bnorm += b[i] * b[i]
	}
	if bnorm == 0 {
		return
	}
	rz := 0.0
	for i := range b {
		w.z[i] = w.r[i] / h[i*n+i]
		w.p[i] = w.z[i]
		rz += w.r[i] * w.z[i]
	}
	for k := 0; k < 4*n+20; k++ {
		php := 0.0
		for i := 0; i < n; i++ {
			s := 0.0
			row := h[i*n : i*n+n]
			for j, v := range row {
				s += v * w.p[j]
			}
			w.hp[i] = s
			php += w.p[i] * s
		}
		if php <= 0 {
			break
		}
		a := rz / php
		rnorm := 0.0
		for i := range x {
			x[i] += a * w.p[i]
			w.r[i] -= a * w.hp[i]
			rnorm += w.r[i] * w.r[i]
		}
		if rnorm <= 1e-24*bnorm {
			break
		}
		rzNew := 0.0
		for i := range x {
			w.z[i] = w.r[i] / h[i*n+i]
			rzNew += w.r[i] * w.z[i]
		}
		beta := rzNew / rz
		rz = rzNew
		for i := range x {
			w.p[i] = w.z[i] + beta*w.p[i]
		}
	}
	copy(b, x)
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// dsigmoid is sigmoid'(x) = sigmoid(x) (1 - sigmoid(x)), computed without cancellation.
func dsigmoid(x float64) float64 {
	e := math.Exp(-math.Abs(x))
	return e / ((1 + e) * (1 + e))
}

// softplus is log(1 + e^x), stable for large |x|.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}
