//go:build epochs

package cne

// SetStabilityStop sets the parameters of the ranking-stability stop for
// the epochs measurement (epochs_test.go) and returns a function that
// restores them.
func SetStabilityStop(every, sample int, top, overlap float64) func() {
	e, s, t, o := stableEvery, stableSample, stableTop, stableOverlap
	stableEvery, stableSample, stableTop, stableOverlap = every, sample, top, overlap
	return func() { stableEvery, stableSample, stableTop, stableOverlap = e, s, t, o }
}

// SetStabilityEigenSweep makes the stop score with the eigenvector sweep.
func SetStabilityEigenSweep(on bool) func() {
	old := stableEigenSweep
	stableEigenSweep = on
	return func() { stableEigenSweep = old }
}
