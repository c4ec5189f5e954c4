package metrics

import (
	"encoding/json"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
)

// Stat summarises one number over seeds.
type Stat struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"` // sample standard deviation (0 for one seed)
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	N    int     `json:"n"`
}

// NewStat summarises xs, leaving out the NaNs; with none left every field
// is NaN and N is 0.
func NewStat(xs []float64) Stat {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return Stat{Mean: math.NaN(), SD: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	s := Stat{N: len(v), Min: slices.Min(v), Max: slices.Max(v)}
	for _, x := range v {
		s.Mean += x
	}
	s.Mean /= float64(len(v))
	if len(v) > 1 {
		ss := 0.0
		for _, x := range v {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.SD = math.Sqrt(ss / float64(len(v)-1))
	}
	return s
}

// MarshalJSON writes a Stat with no values as null (JSON has no NaN).
func (s Stat) MarshalJSON() ([]byte, error) {
	if s.N == 0 {
		return []byte("null"), nil
	}
	type plain Stat
	return json.Marshal(plain(s))
}

// CNE describes the embedding of one seed.
type CNE struct {
	Mode      string `json:"mode"`
	Epochs    int    `json:"epochs"`
	Converged bool   `json:"converged"`
}

// NewCNE records the statistics of a fit.
func NewCNE(s cne.Stats) *CNE {
	return &CNE{Mode: s.Mode.String(), Epochs: s.Epochs, Converged: s.Converged}
}
