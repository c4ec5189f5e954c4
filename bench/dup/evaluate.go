package dup

import (
	"math"

	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
)

// Pair is a candidate pair of nodes (indices) with its score, higher =
// more likely one entity.
type Pair struct {
	A, B  int
	Score float64
}

// Row is one method's numbers on one half.
type Row struct {
	P100      float64            `json:"p100"`
	AP        float64            `json:"ap"`
	VariantAP float64            `json:"variant_ap"`
	RAtP90    float64            `json:"r_at_p90"`
	Cluster   metrics.Clustering `json:"cluster"`
	Ranked    int                `json:"ranked"`  // candidate pairs of the half
	Reached   int                `json:"reached"` // truth pairs of the half among them
	Truth     int                `json:"truth"`   // truth pairs of the half
	Variants  int                `json:"variants"`
}

// InHalf says whether the pair a, b is ranked in half h, and whether it is
// a truth pair. The rule (bench/README.md, "Duplicates"): a pair is in h
// when neither node is left out (homonym strings, non-Authors) and each
// node is of a person of h or of a person with a single string; it is a
// truth pair when both are of one person. A pair joining a dev person's
// node to a test person's is in neither half.
func (d *ACL) InHalf(a, b int, h string) (in, truth bool) {
	ca, cb := d.Class[a], d.Class[b]
	if ca == classExclude || cb == classExclude || (ca != h && ca != classSingle) || (cb != h && cb != classSingle) {
		return false, false
	}
	return true, d.Person[a] >= 0 && d.Person[a] == d.Person[b]
}

// Evaluate measures pairs on half h (bench/README.md, "Duplicates").
func (d *ACL) Evaluate(pairs []Pair, h string) Row {
	r := Row{Truth: d.Truth[h][""], Variants: d.Truth[h]["variant"]}
	var scores, vscores []float64
	var pos, vpos []bool
	var ends [][2]int
	for _, p := range pairs {
		in, truth := d.InHalf(p.A, p.B, h)
		if !in || math.IsNaN(p.Score) {
			continue
		}
		scores, pos = append(scores, p.Score), append(pos, truth)
		ends = append(ends, [2]int{p.A, p.B})
		kind := ""
		if truth {
			r.Reached++
			kind = d.Kind[[2]int{min(p.A, p.B), max(p.A, p.B)}]
		}
		if kind != "surface" { // variant AP ranks without the surface pairs
			vscores, vpos = append(vscores, p.Score), append(vpos, kind == "variant")
		}
	}
	r.Ranked = len(scores)
	r.P100 = metrics.PrecisionAt(scores, pos, 100)
	r.AP = metrics.AveragePrecision(scores, pos, r.Truth)
	r.VariantAP = metrics.AveragePrecision(vscores, vpos, r.Variants)
	r.RAtP90 = metrics.RecallAtPrecision(scores, pos, r.Truth, 0.9)
	person := make([]int, len(d.Person))
	for i, p := range d.Person {
		person[i] = -1
		if d.Class[i] == h {
			person[i] = p
		}
	}
	r.Cluster = metrics.BestClusterF1(ends, scores, person, r.Truth)
	return r
}
