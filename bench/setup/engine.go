package setup

import "github.com/fondue-neo4j/fondue-neo4j/fondue"

// Engine is the engine's configuration as the results record it: the
// options of a run with their defaults resolved.
type Engine struct {
	BaseSeed      uint64  `json:"base_seed"`
	Dim           int     `json:"dim"`
	Sigma1        float64 `json:"sigma1"`
	Sigma2        float64 `json:"sigma2"`
	LearningRate  float64 `json:"learning_rate"`
	MaxEpochs     int     `json:"max_epochs"`
	Tol           float64 `json:"tol"`
	NegRatio      int     `json:"neg_ratio"`
	Mode          string  `json:"mode"`
	ExactMaxNodes int     `json:"exact_max_nodes"`
	RandomSplits  int     `json:"random_splits"`
	Normalized    bool    `json:"normalized"`
	Polish        bool    `json:"polish"`
	PriorTol      float64 `json:"prior_tol,omitempty"`
	PriorMaxIter  int     `json:"prior_max_iter,omitempty"`
}

// NewEngine resolves the engine options' defaults for the record.
func NewEngine(o fondue.Options) Engine {
	c := o.CNE
	def := func(x, d float64) float64 {
		if x <= 0 {
			return d
		}
		return x
	}
	idef := func(x, d int) int {
		if x <= 0 {
			return d
		}
		return x
	}
	rs := o.RandomSplits
	switch {
	case rs == 0:
		rs = 100
	case rs < 0:
		rs = 0
	}
	return Engine{
		BaseSeed: o.Seed, Dim: idef(c.Dim, 8), Sigma1: def(c.Sigma1, 1), Sigma2: def(c.Sigma2, 2),
		LearningRate: def(c.LearningRate, 0.1), MaxEpochs: idef(c.MaxEpochs, 2000), Tol: def(c.Tol, 1e-3),
		NegRatio: idef(c.NegRatio, 5), Mode: c.Mode.String(), ExactMaxNodes: idef(c.ExactMaxNodes, 1000),
		RandomSplits: rs, Normalized: !o.Unnormalized, Polish: o.Polish,
		PriorTol: o.Prior.Tol, PriorMaxIter: o.Prior.MaxIter,
	}
}
