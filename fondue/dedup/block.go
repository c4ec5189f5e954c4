package dedup

import (
	"cmp"
	"context"
	"hash/fnv"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
)

// Candidates: pairs of targets that share a block key. Name keys: each
// token of 2+ letters (a possible surname, whatever the order) with the
// initial of each other token; the surname alone; the whole folded name.
// Context keys: targets with a common co-author and a common name token.
// A block larger than MaxBlock gives no pairs (finer keys still do), so the
// number of candidates is at most (keys per node) * MaxBlock per node.

type keyed struct {
	key  uint64
	node int32
}

func hashKey(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// nameKeys returns the blocking keys of a folded name.
func nameKeys(nm name, buf []uint64) []uint64 {
	toks := nm.tokens
	if len(toks) == 0 {
		return buf
	}
	buf = append(buf, hashKey("c", nm.compact))
	for i, t := range toks {
		if len(t) < 2 {
			continue
		}
		for j, u := range toks {
			if j != i {
				buf = append(buf, hashKey("n", t, u[:1]))
			}
		}
	}
	if last := toks[len(toks)-1]; len(last) >= 2 && len(toks) > 1 {
		buf = append(buf, hashKey("l", last))
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

// candidates returns the candidate pairs as codes a<<32|b (a < b), sorted.
func (e *engine) candidates(ctx context.Context) ([]uint64, error) {
	var ks []keyed
	var buf []uint64
	for _, t := range e.targets {
		buf = nameKeys(e.names[t], buf[:0])
		for _, k := range buf {
			ks = append(ks, keyed{k, t})
		}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.key != b.key {
			if a.key < b.key {
				return -1
			}
			return 1
		}
		return int(a.node - b.node)
	})
	var pairs []uint64
	for i := 0; i < len(ks); {
		j := i
		for j < len(ks) && ks[j].key == ks[i].key {
			j++
		}
		if j-i <= e.o.MaxBlock {
			pairs = blockPairs(ks[i:j], pairs)
		}
		i = j
	}
	// context blocks: per target b, its co-authors sharing a name token
	const chunk = 256
	nch := (len(e.targets) + chunk - 1) / chunk
	out := make([][]uint64, nch)
	err := parallel.ForChunks(ctx, e.o.Workers, nch, func(_, c int) {
		var local []uint64
		var kb []keyed
		for _, b := range e.targets[c*chunk : min(len(e.targets), (c+1)*chunk)] {
			kb = kb[:0]
			for _, a := range e.prof[b].co {
				seen := map[string]bool{}
				for _, t := range e.names[a].tokens {
					if len(t) > 1 && !seen[t] {
						seen[t] = true
						kb = append(kb, keyed{hashKey(t), a})
					}
				}
			}
			slices.SortFunc(kb, func(x, y keyed) int {
				if x.key != y.key {
					if x.key < y.key {
						return -1
					}
					return 1
				}
				return int(x.node - y.node)
			})
			for i := 0; i < len(kb); {
				j := i
				for j < len(kb) && kb[j].key == kb[i].key {
					j++
				}
				if j-i <= e.o.MaxBlock {
					local = blockPairs(kb[i:j], local)
				}
				i = j
			}
		}
		slices.Sort(local)
		out[c] = slices.Compact(local)
	})
	if err != nil {
		return nil, err
	}
	for _, l := range out {
		pairs = append(pairs, l...)
	}
	slices.Sort(pairs)
	pairs = slices.Compact(pairs)
	linked, err := e.linkedCandidates(ctx, pairs)
	if err != nil {
		return nil, err
	}
	if len(linked) > 0 {
		pairs = append(pairs, linked...)
		slices.Sort(pairs)
		pairs = slices.Compact(pairs)
	}
	return pairs, nil
}

// linkedCandidates gives candidates to the targets without a name (an edge
// list, a paper graph; a name of fewer than two letters, an id such as
// "4711" or "a:7", counts as none) that no name key paired. With each such target a, the others b of them whose
// neighbours are most linked to a's: walks a-x-y-b (x a neighbour of a, y
// one of b), divided by b's degree; the best max(MaxLinked, 2 x a's
// degree), ties by node index. Neighbours of more than MaxFanout links are
// not walked through, and a's own neighbours are not its candidates (a
// person is not their own co-author). So at most MaxLinked x targets + 4 x
// links candidates, found in the walks of length 3 from each target.
//
// Chosen on planted duplicates of the development seeds (101-103, 1%): the
// walks divided by b's degree held more of the planted pairs than divided
// by its square root (email 16 of 30 for 6, fb-sc 105 of 120 for 37) or
// counting shared neighbours too; twice the degree held 25 of email's 30
// (16 with MaxLinked alone). Named targets get no such candidates: on
// acl-dup (dev half) giving them to the named targets no key paired added
// 6k co-author pairs and lowered AP .779 -> .778.
func (e *engine) linkedCandidates(ctx context.Context, pairs []uint64) ([]uint64, error) {
	g := e.in.Graph
	n := g.NumNodes()
	inS := slices.Clone(e.isTarget)
	for _, c := range pairs {
		a, b := unpair(c)
		inS[a], inS[b] = false, false
	}
	var set []int32
	for _, t := range e.targets {
		if inS[t] = inS[t] && len(e.names[t].tokens) == 0; inS[t] {
			set = append(set, t)
		}
	}
	if len(set) < 2 {
		return nil, nil
	}
	const chunk = 256
	nch := (len(set) + chunk - 1) / chunk
	out := make([][]uint64, nch)
	type buf struct {
		cnt     []float64
		touched []int32
	}
	bufs := make([]*buf, e.o.Workers)
	err := parallel.ForChunks(ctx, e.o.Workers, nch, func(w, c int) {
		if bufs[w] == nil {
			bufs[w] = &buf{cnt: make([]float64, n)}
		}
		bf := bufs[w]
		var local []uint64
		var best []int32
		for _, a := range set[c*chunk : min(len(set), (c+1)*chunk)] {
			bf.touched = bf.touched[:0]
			add := func(b int32) {
				if bf.cnt[b] == 0 {
					bf.touched = append(bf.touched, b)
				}
				bf.cnt[b]++
			}
			for _, x := range g.Neighbors(int(a)) {
				if g.Degree(int(x)) > e.o.MaxFanout {
					continue
				}
				for _, y := range g.Neighbors(int(x)) {
					if y == a || g.Degree(int(y)) > e.o.MaxFanout {
						continue
					}
					for _, z := range g.Neighbors(int(y)) {
						if z != a && z != x && inS[z] {
							add(z)
						}
					}
				}
			}
			for _, x := range g.Neighbors(int(a)) { // not its own neighbours
				if bf.cnt[x] != 0 {
					bf.cnt[x] = -1
				}
			}
			best = best[:0]
			for _, b := range bf.touched {
				if bf.cnt[b] > 0 {
					bf.cnt[b] /= float64(g.Degree(int(b)))
					best = append(best, b)
				}
			}
			slices.SortFunc(best, func(x, y int32) int {
				if c := cmp.Compare(bf.cnt[y], bf.cnt[x]); c != 0 {
					return c
				}
				return cmp.Compare(x, y)
			})
			for _, b := range best[:min(len(best), max(e.o.MaxLinked, 2*g.Degree(int(a))))] {
				local = append(local, uint64(min(a, b))<<32|uint64(max(a, b)))
			}
			for _, b := range bf.touched {
				bf.cnt[b] = 0
			}
		}
		out[c] = local
	})
	if err != nil {
		return nil, err
	}
	var linked []uint64
	for _, l := range out {
		linked = append(linked, l...)
	}
	return linked, nil
}

func blockPairs(ks []keyed, pairs []uint64) []uint64 {
	for x := 0; x < len(ks); x++ {
		for y := x + 1; y < len(ks); y++ {
			a, b := ks[x].node, ks[y].node
			if a == b {
				continue
			}
			if a > b {
				a, b = b, a
			}
			pairs = append(pairs, uint64(a)<<32|uint64(b))
		}
	}
	return pairs
}

func unpair(c uint64) (int32, int32) { return int32(c >> 32), int32(uint32(c)) }
