package real

import (
	"math"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/eval"
)

// splitARI scores a proposed split of one name against the truth: the
// adjusted Rand index of the groups against the persons over the name's
// neighbours that appear with exactly one person (those with several or
// none are left out). A neighbour missing from the groups counts as a group
// of its own. It also returns the number of neighbours evaluated and of
// distinct persons among them; ok is false when they span fewer than two
// persons (the name is not evaluated).
func splitARI(neighbours []LabelledNeighbour, groupOf map[string]int) (ari float64, evaluated, persons int, ok bool) {
	var truth, pred []int
	personIndex := map[string]int{}
	for k, nb := range neighbours {
		if len(nb.Persons) != 1 {
			continue
		}
		p, seen := personIndex[nb.Persons[0]]
		if !seen {
			p = len(personIndex)
			personIndex[nb.Persons[0]] = p
		}
		g, in := groupOf[nb.Neighbour]
		if !in {
			g = -1 - k // a group of its own
		}
		truth, pred = append(truth, p), append(pred, g)
	}
	if len(personIndex) < 2 {
		return math.NaN(), len(truth), len(personIndex), false
	}
	ari, _ = eval.ARI(truth, pred) // a label of each per neighbour: no error
	return ari, len(truth), len(personIndex), true
}

// meanInts is the mean of xs (NaN for none).
func meanInts(xs []int) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0
	for _, x := range xs {
		s += x
	}
	return float64(s) / float64(len(xs))
}

// meanFloats is the mean of xs (NaN for none).
func meanFloats(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
