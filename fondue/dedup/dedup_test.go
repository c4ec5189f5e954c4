package dedup

import (
	"context"
	"fmt"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// planted is a generated co-authorship graph: groups of authors writing
// papers together, some authors split into two nodes (the second with a
// varied name). Authors first, then papers.
type planted struct {
	in    Input
	dups  map[[2]int]bool // planted pairs (a < b)
	nAuth int
}

var (
	firsts = []string{"Anna", "Boris", "Chen", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas",
		"Karim", "Lucia", "Marek", "Nadia", "Oscar", "Priya", "Quentin", "Rosa", "Sven", "Tomas"}
	lasts = []string{"Abel", "Berg", "Costa", "Dahl", "Egger", "Fuchs", "Gomez", "Hahn", "Ivanov", "Jung",
		"Klein", "Lopez", "Moreau", "Novak", "Ortiz", "Petit", "Quinn", "Roth", "Silva", "Tanaka",
		"Ueda", "Vogel", "Weber", "Xu", "Young", "Zhang"}
)

func makePlanted(t testing.TB, groups, perGroup, papersPer int, seed uint64) planted {
	t.Helper()
	r := rng.SplitMix{S: seed}
	var names []string
	var wrote [][2]int // author, paper
	paper := 0
	for g := 0; g < groups; g++ {
		base := len(names)
		for k := 0; k < perGroup; k++ {
			names = append(names, firsts[r.Intn(uint32(len(firsts)))]+" "+lasts[r.Intn(uint32(len(lasts)))])
		}
		for p := 0; p < perGroup*papersPer/3; p++ {
			seen := map[int]bool{}
			for len(seen) < 3 {
				seen[base+int(r.Intn(uint32(perGroup)))] = true
			}
			for a := range seen {
				wrote = append(wrote, [2]int{a, paper})
			}
			paper++
		}
	}
	// plant: every 7th author gives some of its papers to a new node
	dups := map[[2]int]bool{}
	nOrig := len(names)
	for a := 0; a < nOrig; a += 7 {
		b := len(names)
		first, last, _ := cutSpace(names[a])
		names = append(names, first[:1]+". "+last)
		moved := 0
		for i := range wrote {
			if wrote[i][0] == a && moved < 2 {
				wrote[i][0] = b
				moved++
			}
		}
		dups[[2]int{a, b}] = true
	}
	nA := len(names)
	var edges [][2]int
	for _, w := range wrote {
		edges = append(edges, [2]int{w[0], nA + w[1]})
	}
	g, err := graph.NewGraph(nA+paper, edges)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]string, nA+paper)
	copy(all, names)
	targets := make([]int, nA)
	for i := range targets {
		targets[i] = i
	}
	return planted{in: Input{Graph: g, Names: all, Targets: targets}, dups: dups, nAuth: nA}
}

func cutSpace(s string) (string, string, bool) {
	for i := range s {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// averagePrecision of the planted pairs in a ranking (missing pairs count as
// never retrieved).
func averagePrecision(pairs []Pair, truth map[[2]int]bool) float64 {
	hit, sum := 0, 0.0
	for i, p := range pairs {
		if truth[[2]int{p.A, p.B}] {
			hit++
			sum += float64(hit) / float64(i+1)
		}
	}
	return sum / float64(len(truth))
}

func TestFindPlanted(t *testing.T) {
	pl := makePlanted(t, 40, 12, 6, 7)
	res, err := Find(context.Background(), pl.in, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, p := range res.Pairs {
		if pl.dups[[2]int{p.A, p.B}] {
			found++
		}
	}
	if found != len(pl.dups) {
		t.Errorf("candidates hold %d of %d planted pairs", found, len(pl.dups))
	}
	ap := averagePrecision(res.Pairs, pl.dups)
	// names alone cannot tell "A. Berg" from the other A.-Bergs of other
	// groups; the shared co-authors can.
	if ap < 0.7 {
		t.Errorf("planted AP %.3f < 0.7", ap)
	}
	fmt.Printf("planted AP %.3f, %d candidates, top %+v\n", ap, res.Candidates, res.Pairs[0])
}
