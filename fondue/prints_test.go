package fondue

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// The evidence fingerprints and digest as of 986211e, hashing the keys
// where they are read: the reference for the key hashes computed once.

func refEvidencePrints(g *graph.Graph, c *evidence.Context, st *structure, owners []int, pieces [][][]int32) []uint64 {
	memo := make([]uint64, len(st.nodes))
	member := func(i int32) uint64 {
		if h := memo[st.index[i]]; h != 0 {
			return h
		}
		h := mix64(fnv64a(g.Key(int(i))) ^ uint64(kindOf(c, int(i))+1))
		for _, p := range c.Properties {
			if p.Numeric {
				h = mix64(h ^ math.Float64bits(p.Number[i]))
			} else {
				h = mix64(h ^ fnv64a(p.Text[i]))
			}
		}
		var ctx uint64
		for _, j := range g.Neighbors(int(i)) {
			if !st.mark[j] {
				ctx += mix64(fnv64a(g.Key(int(j))) ^ uint64(kindOf(c, int(j))+1))
			}
		}
		h = mix64(h^mix64(ctx)) | 1
		memo[st.index[i]] = h
		return h
	}
	out := make([]uint64, len(st.nodes))
	for k, i := range owners {
		h := mix64(fnv64a(g.Key(i)))
		for _, grp := range pieces[k] {
			h = mix64(h ^ uint64(len(grp)))
			for _, u := range grp {
				h = mix64(h ^ member(u))
			}
		}
		out[st.index[i]] = h | 1
	}
	return out
}

func refEvidenceDigest(g *graph.Graph, c *evidence.Context, targets []bool, seed uint64) uint64 {
	h := mix64(seed ^ 0xe71de)
	add := func(x uint64) { h = mix64(h ^ x + 0x9e3779b97f4a7c15) }
	for _, k := range c.Kinds {
		add(fnv64a(k))
	}
	for _, p := range c.Properties {
		add(fnv64a(p.Name) + uint64(b2u(p.Numeric)))
	}
	add(uint64(g.NumNodes()))
	for i := range g.NumNodes() {
		add(fnv64a(g.Key(i)))
		add(uint64(kindOf(c, i))<<2 | uint64(b2u(targets == nil || targets[i])))
		for _, p := range c.Properties {
			if p.Numeric {
				add(math.Float64bits(p.Number[i]))
			} else {
				add(fnv64a(p.Text[i]))
			}
		}
		nb := g.Neighbors(i)
		add(uint64(len(nb)))
		for _, j := range nb {
			add(uint64(j))
		}
	}
	return h
}

// TestEvidencePrintsMatchReference checks the evidence fingerprints and
// digest against the code that hashed every key where it read it, with
// numeric and text properties, with and without kinds.
func TestEvidencePrintsMatchReference(t *testing.T) {
	_, kg, c := kgPair(t)
	title := evidence.Property{Name: "title", Text: make([]string, kg.NumNodes())}
	for i := range title.Text {
		if kg.Key(i)[0] == 'p' {
			title.Text[i] = fmt.Sprintf("graph entity %d", i%7)
		}
	}
	c.Properties = append(c.Properties, title)
	targets := authors(kg)
	opts := Options{Seed: 3, Targets: targets, Context: c}
	res, err := Score(context.Background(), kg, opts)
	if err != nil {
		t.Fatal(err)
	}
	st := res.st
	owners, pieces, _, err := fitEvidence(context.Background(), kg, st, res.Scores, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(owners) == 0 {
		t.Fatal("no scored target")
	}
	noKinds := *c
	noKinds.Kind = nil
	for _, cc := range []*evidence.Context{c, &noKinds} {
		kh := keyHashes(kg)
		got, want := evidencePrints(kg, cc, st, owners, pieces, kh), refEvidencePrints(kg, cc, st, owners, pieces)
		if !slices.Equal(got, want) {
			t.Fatalf("kinds %v: fingerprints differ", cc.Kind != nil)
		}
		if slices.Equal(got, make([]uint64, len(got))) {
			t.Fatal("no fingerprint")
		}
		for _, tg := range [][]bool{targets, nil} {
			if got, want := evidenceDigest(kg, cc, tg, 3, kh), refEvidenceDigest(kg, cc, tg, 3); got != want {
				t.Fatalf("kinds %v: digest %x, want %x", cc.Kind != nil, got, want)
			}
		}
	}
}
