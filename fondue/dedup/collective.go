package dedup

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
)

// A co-author of one node may be a duplicate of a co-author of the other:
// "M. Negri" wrote with "B. Magnini", "Matteo Negri" with "Bernardo
// Magnini". Once every candidate is scored, such co-authors count as
// shared, each by the probability that the two are one entity (softCo),
// and the pairs that gain one are scored again. Only the pairs more
// likely one entity than not (score > 0) count, and only where the
// co-authors are reached through nodes that are not compared (papers):
// where every node is compared, a pair's score rests on the same links
// that would count it. The weights are those already learned: a resolved
// co-author is measured as a shared one.

// partner is a candidate pair seen from one of its nodes: the other node
// and the pair's score (log-odds that the two are one entity).
type partner struct {
	y int32
	s float64
}

// rescore resolves the co-authors by the scores, then scores again the
// pairs that share a resolved co-author, in place.
func (e *engine) rescore(ctx context.Context, m *model, cands []uint64, scores []float64) error {
	if e.allTargets {
		return nil
	}
	// scored on the old scores: the partners are set before any is changed
	e.partners = partnersOf(e.in.Graph.NumNodes(), cands, scores)
	const chunk = 4096
	return parallel.ForChunks(ctx, e.o.Workers, (len(cands)+chunk-1)/chunk, func(_, c int) {
		xg := make([]float64, m.nGraph)
		xn := make([]float64, len(nameFeatures))
		for i := c * chunk; i < min(len(cands), (c+1)*chunk); i++ {
			a, b := unpair(cands[i])
			if n, _ := e.softCo(&e.prof[a], &e.prof[b]); n > 0 {
				scores[i] = e.score(m, a, b, xg, xn)
			}
		}
	})
}

// partnersOf lists per node its candidates more likely one entity with
// it than not (score > 0), in candidate order: since the candidates are
// sorted codes a<<32|b (a < b), each list is sorted by node.
func partnersOf(n int, cands []uint64, scores []float64) [][]partner {
	partners := make([][]partner, n)
	for i, c := range cands {
		if scores[i] > 0 {
			a, b := unpair(c)
			partners[a] = append(partners[a], partner{b, scores[i]})
			partners[b] = append(partners[b], partner{a, scores[i]})
		}
	}
	return partners
}

// softCo is the expected number of co-authors of p and q that are not one
// node but likely one entity, and how many: for each co-author x of one
// only, the best probability of a partner of x among the co-authors of
// the other only; of the two directions the smaller.
func (e *engine) softCo(p, q *profile) (float64, int) {
	if e.partners == nil {
		return 0, 0
	}
	s1, n1 := e.softCoDir(p, q)
	if s1 == 0 {
		return 0, 0 // the smaller already
	}
	s2, n2 := e.softCoDir(q, p)
	if s2 < s1 {
		return s2, n2
	}
	return s1, n1
}

func (e *engine) softCoDir(p, q *profile) (float64, int) {
	s, n := 0.0, 0
	for _, x := range p.co {
		px := e.partners[x]
		if len(px) == 0 {
			continue
		}
		if _, ok := slices.BinarySearch(q.co, x); ok {
			continue
		}
		best := 0.0
		take := func(y int32, sc float64) {
			if sigmoid(sc) <= best {
				return
			}
			if _, ok := slices.BinarySearch(p.co, y); ok {
				return
			}
			best = sigmoid(sc)
		}
		// partners of x among q's co-authors: the shorter list walked, the
		// other searched (a common name has hundreds of partners)
		if len(px) <= len(q.co) {
			for _, pt := range px {
				if _, ok := slices.BinarySearch(q.co, pt.y); ok {
					take(pt.y, pt.s)
				}
			}
		} else {
			for _, y := range q.co {
				if k, ok := slices.BinarySearchFunc(px, y, byPartner); ok {
					take(y, px[k].s)
				}
			}
		}
		if best > 0 {
			s += best
			n++
		}
	}
	return s, n
}

func byPartner(pt partner, y int32) int { return cmp.Compare(pt.y, y) }

// A pair whose two nodes are both likely one entity with a third is
// likely one entity itself: "Jeff Bilmes" and "J. A. Bilmes" through
// "Jeff A. Bilmes". With p the pair's probability and t that of the best
// chain through one third node (the product of its two, both more likely
// one entity than not), the pair is one entity unless neither says so:
// 1 - (1-p)(1-t), the two taken as independent. Nothing is learned: the
// scores are combined as probabilities. They are not independent where
// the three names fold alike: such pairs, certain already, add their
// log-odds (scores near 40 on acl-dup); the order below moves little. A
// bound alone, max(p, t), ranked worse (bench/README.md). Only where co-authors count
// resolved (rescore), for the same reason.

// chain is a pair's best chain: the third node and what it added.
type chain struct {
	via  int32
	lift float64
}

// transitive raises the scores of the pairs with a chain, in place, from
// the scores as they were, and keeps each raised pair's chain for its
// reasons.
func (e *engine) transitive(ctx context.Context, cands []uint64, scores []float64) error {
	if e.partners == nil {
		return nil
	}
	partners := partnersOf(e.in.Graph.NumNodes(), cands, scores) // of the scores now
	const chunk = 4096
	nc := (len(cands) + chunk - 1) / chunk
	raised := make([][]int, nc)
	lifted := make([][]float64, nc)
	vias := make([][]int32, nc)
	err := parallel.ForChunks(ctx, e.o.Workers, nc, func(_, c int) {
		for i := c * chunk; i < min(len(cands), (c+1)*chunk); i++ {
			a, b := unpair(cands[i])
			// the best chain has the smallest 1 - t = (1-p1) + p1 (1-p2)
			// (so written: no cancellation when t is near 1)
			// the thirds are the nodes in both partner lists, walked in
			// order (neither holds a or b itself)
			best, via := 1.0, int32(-1)
			pa, pb := partners[a], partners[b]
			for j, k := 0, 0; j < len(pa) && k < len(pb); {
				switch {
				case pa[j].y < pb[k].y:
					j++
				case pa[j].y > pb[k].y:
					k++
				default:
					if u := sigmoid(-pa[j].s) + sigmoid(pa[j].s)*sigmoid(-pb[k].s); u < best {
						best, via = u, pa[j].y
					}
					j++
					k++
				}
			}
			// log-odds of q = 1 - (1-p)(1-t): log q - log(1-p) - log(1-t)
			v := sigmoid(-scores[i]) * best
			if via < 0 || v == 0 {
				continue // no chain, or the pair is certain already
			}
			if s := math.Log1p(-v) + softplus(scores[i]) - math.Log(best); s > scores[i] {
				raised[c] = append(raised[c], i)
				lifted[c] = append(lifted[c], s)
				vias[c] = append(vias[c], via)
			}
		}
	})
	if err != nil {
		return err
	}
	e.chains = map[uint64]chain{}
	for c := range raised {
		for k, i := range raised[c] {
			e.chains[cands[i]] = chain{vias[c][k], lifted[c][k] - scores[i]}
		}
	}
	for c := range raised {
		for k, i := range raised[c] {
			scores[i] = lifted[c][k]
		}
	}
	return nil
}
