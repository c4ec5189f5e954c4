package cne

import "github.com/fondue-neo4j/fondue-neo4j/fondue/internal/fitsize"

// tuning holds the settings of a fit that only tests change: the locality
// renumbering's threshold, the ranking-stability stop's parameters and a
// hook into every epoch. It is a field of Options (unexported, so that
// callers cannot set it) and reaches the fit through fondue.Score too. The
// zero value means the defaults; the methods below resolve them.
type tuning struct {
	// reorderMinBytes replaces fitsize.ReorderMinBytes, the embedding size
	// above which sampled mode renumbers the nodes for locality; negative
	// renumbers every sampled fit.
	reorderMinBytes int64
	// The ranking-stability stop (cne_stop.go): check every stableEvery
	// epochs a sample of at most stableSample nodes; stop when the top
	// stableTop share overlaps the previous check's by stableOverlap;
	// score with FONDUE's eigenvector sweep instead of the spread when
	// stableEigenSweep is set.
	stableEvery      int
	stableSample     int
	stableTop        float64
	stableOverlap    float64
	stableEigenSweep bool
	// epochHook, when set, sees the fit after every epoch (1-based); while
	// it is set, the fit also records which worker computed each chunk.
	epochHook func(f *cneFit, epoch int)
}

// The defaults of the ranking-stability stop (see cne_stop.go).
const (
	stableEvery   = 20
	stableSample  = fitsize.StableSample
	stableTop     = 0.10
	stableOverlap = 0.95
)

func (t tuning) reorderAbove() int64 {
	if t.reorderMinBytes != 0 {
		return t.reorderMinBytes
	}
	return fitsize.ReorderMinBytes
}

func (t tuning) every() int       { return positiveOr(t.stableEvery, stableEvery) }
func (t tuning) sample() int      { return positiveOr(t.stableSample, stableSample) }
func (t tuning) top() float64     { return positiveOr(t.stableTop, stableTop) }
func (t tuning) overlap() float64 { return positiveOr(t.stableOverlap, stableOverlap) }

// positiveOr returns v if it is positive, else the default def.
func positiveOr[T int | float64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}
