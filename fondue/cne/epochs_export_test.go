//go:build epochs

package cne

// WithStabilityStop returns o with the parameters of the ranking-stability
// stop set, for the epochs measurement (epochs_test.go): check every
// `every` epochs a sample of at most `sample` nodes, stop at `overlap` of
// the top `top` share; score with the eigenvector sweep when sweep is set.
func WithStabilityStop(o Options, every, sample int, top, overlap float64, sweep bool) Options {
	o.tune.stableEvery, o.tune.stableSample = every, sample
	o.tune.stableTop, o.tune.stableOverlap = top, overlap
	o.tune.stableEigenSweep = sweep
	return o
}
