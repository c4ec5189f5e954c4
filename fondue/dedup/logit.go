package dedup

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// logit is a logistic regression on standardised features.
type logit struct {
	mean, sd []float64
	w        []float64 // per standardised feature
	b        float64
}

// eta returns the log-odds of x.
func (l *logit) eta(x []float64) float64 {
	s := l.b
	for i, v := range x {
		s += l.w[i] * (v - l.mean[i]) / l.sd[i]
	}
	return s
}

// contrib is feature i's part of the log-odds of x (relative to the mean).
func (l *logit) contrib(i int, v float64) float64 { return l.w[i] * (v - l.mean[i]) / l.sd[i] }

// setWeight sets feature i's weight to v per unit of the raw feature,
// keeping the log-odds of every x whose feature i is 0.
func (l *logit) setWeight(i int, v float64) {
	old := l.w[i] / l.sd[i]
	l.b += (v - old) * l.mean[i]
	l.w[i] = v * l.sd[i]
}

// zeroLogit is the logit of d features that says nothing: log-odds 0.
func zeroLogit(d int) *logit {
	l := &logit{mean: make([]float64, d), sd: make([]float64, d), w: make([]float64, d)}
	for i := range l.sd {
		l.sd[i] = 1
	}
	return l
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	ez := math.Exp(z)
	return ez / (1 + ez)
}

// fitLogit fits P(y=1|x) = sigmoid(b + w.z(x)) by Newton's method (IRLS)
// with an L2 penalty lambda on w (not on b); y may be soft (in [0,1]),
// sw weighs the rows (nil = 1). Features are standardised first.
func fitLogit(x [][]float64, y, sw []float64, lambda float64) (*logit, error) {
	if len(x) == 0 {
		return nil, errors.New("dedup: nothing to fit")
	}
	d := len(x[0])
	l := &logit{mean: make([]float64, d), sd: make([]float64, d), w: make([]float64, d)}
	tot := 0.0
	wt := func(r int) float64 {
		if sw == nil {
			return 1
		}
		return sw[r]
	}
	for r, row := range x {
		tot += wt(r)
		for i, v := range row {
			l.mean[i] += wt(r) * v
		}
	}
	for i := range l.mean {
		l.mean[i] /= tot
	}
	for r, row := range x {
		for i, v := range row {
			dv := v - l.mean[i]
			l.sd[i] += wt(r) * dv * dv
		}
	}
	for i := range l.sd {
		l.sd[i] = math.Sqrt(l.sd[i] / tot)
		if l.sd[i] < 1e-9 {
			l.sd[i] = 1 // a constant feature: its weight stays 0 under the penalty
		}
	}
	// parameters theta = (b, w...), z = (1, standardised x)
	p := d + 1
	theta := make([]float64, p)
	z := make([]float64, p)
	grad := make([]float64, p)
	hess := mat.NewSymDense(p, nil)
	prevLoss := math.Inf(1)
	for iter := 0; iter < 50; iter++ {
		for i := range grad {
			grad[i] = 0
		}
		hess.Zero()
		h := make([]float64, p*p)
		loss := 0.0
		for r, row := range x {
			z[0] = 1
			for i, v := range row {
				z[i+1] = (v - l.mean[i]) / l.sd[i]
			}
			eta := 0.0
			for i := range z {
				eta += theta[i] * z[i]
			}
			pr := sigmoid(eta)
			w := wt(r)
			loss += w * (softplus(eta) - y[r]*eta)
			g := w * (pr - y[r])
			c := w * pr * (1 - pr)
			for i := range z {
				grad[i] += g * z[i]
				ci := c * z[i]
				for j := i; j < p; j++ {
					h[i*p+j] += ci * z[j]
				}
			}
		}
		for i := 1; i < p; i++ {
			grad[i] += lambda * theta[i]
			h[i*p+i] += lambda
			loss += lambda / 2 * theta[i] * theta[i]
		}
		h[0] += 1e-9
		for i := 0; i < p; i++ {
			for j := i; j < p; j++ {
				hess.SetSym(i, j, h[i*p+j])
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(hess) {
			return nil, errors.New("dedup: logistic fit: singular Hessian")
		}
		step := mat.NewVecDense(p, nil)
		if err := ch.SolveVecTo(step, mat.NewVecDense(p, grad)); err != nil {
			return nil, err
		}
		for i := range theta {
			theta[i] -= step.AtVec(i)
		}
		if math.Abs(prevLoss-loss) < 1e-10*(1+math.Abs(loss)) {
			break
		}
		prevLoss = loss
	}
	l.b = theta[0]
	copy(l.w, theta[1:])
	return l, nil
}

// softplus is log(1 + e^z), computed stably.
func softplus(z float64) float64 {
	if z > 30 {
		return z
	}
	return math.Log1p(math.Exp(z))
}
