package dedup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
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
	decoy int // same name as the first planted node (index nOrig), another person
}

var (
	// first names in pairs of one initial, so that "A. Berg" is ambiguous
	firsts = []string{"Anna", "Adam", "Boris", "Bianca", "Chen", "Carla", "Dmitri", "Dora", "Elena", "Emil",
		"Farid", "Fiona", "Greta", "Gustav", "Hiro", "Hanna", "Ines", "Igor", "Jonas", "Julia"}
	lasts = []string{"Abel", "Berg", "Costa", "Dahl", "Egger", "Fuchs", "Gomez", "Hahn", "Ivanov", "Jung",
		"Klein", "Lopez", "Moreau", "Novak", "Ortiz", "Petit", "Quinn", "Roth", "Silva", "Tanaka",
		"Ueda", "Vogel", "Weber", "Xu", "Young", "Zhang"}
)

func makePlanted(t testing.TB, groups, perGroup, papersPer int, seed uint64) planted {
	t.Helper()
	if groups*perGroup > len(firsts)*len(lasts)*4/5 {
		t.Fatalf("%d authors: too many for distinct names", groups*perGroup)
	}
	r := rng.SplitMix{S: seed}
	var names []string
	var wrote [][2]int // author, paper
	paper := 0
	used := map[string]bool{}
	for g := 0; g < groups; g++ {
		base := len(names)
		for k := 0; k < perGroup; k++ {
			for { // distinct names: homonyms are another problem
				nm := firsts[r.Intn(uint32(len(firsts)))] + " " + lasts[r.Intn(uint32(len(lasts)))]
				if !used[nm] {
					used[nm] = true
					names = append(names, nm)
					break
				}
			}
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
	// a decoy: the first planted node's name again, on papers of another
	// group (a different person with the same printed name)
	decoy := len(names)
	names = append(names, names[nOrig])
	moved := 0
	for i := range wrote {
		if wrote[i][0] >= perGroup*(groups-1) && wrote[i][0] < nOrig && moved < 2 {
			wrote[i][0] = decoy
			moved++
		}
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
	// titles: a word of the group's topic and two of a common vocabulary;
	// years by group
	title := make([]string, nA+paper)
	year := make([]float64, nA+paper)
	for i := range year {
		year[i] = math.NaN()
	}
	for _, w := range wrote {
		p, grp := nA+w[1], w[1]*3/(perGroup*papersPer)
		if title[p] == "" {
			title[p] = fmt.Sprintf("topic%d word%d word%d", grp, r.Intn(40), r.Intn(40))
			year[p] = float64(2000 + grp%20)
		}
	}
	ctx := &evidence.Context{Properties: []evidence.Property{
		{Name: "title", Text: title}, {Name: "year", Numeric: true, Number: year}}}
	return planted{in: Input{Graph: g, Names: all, Targets: targets, Context: ctx}, dups: dups, nAuth: nA, decoy: decoy}
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
	pl := makePlanted(t, 30, 12, 6, 7)
	res, err := Find(context.Background(), pl.in, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	rank := map[[2]int]int{}
	for i, p := range res.Pairs {
		rank[[2]int{p.A, p.B}] = i
		if pl.dups[[2]int{p.A, p.B}] {
			found++
		}
		if p.A >= p.B {
			t.Fatalf("pair %d: A %d >= B %d", i, p.A, p.B)
		}
		if i > 0 && p.Score > res.Pairs[i-1].Score {
			t.Fatalf("pairs not sorted by score at %d", i)
		}
	}
	if found != len(pl.dups) {
		t.Errorf("candidates hold %d of %d planted pairs", found, len(pl.dups))
	}
	// names alone (Jaro-Winkler on the same candidates) cannot tell which
	// "A. Berg" is Anna Berg's piece; the graph can.
	byName := slices.Clone(res.Pairs)
	for i := range byName {
		byName[i].Score = jaroWinkler(parseName(pl.in.Names[byName[i].A]).compact, parseName(pl.in.Names[byName[i].B]).compact)
	}
	slices.SortStableFunc(byName, func(a, b Pair) int { return cmp.Compare(b.Score, a.Score) })
	ap, apName := averagePrecision(res.Pairs, pl.dups), averagePrecision(byName, pl.dups)
	if ap < apName+0.2 {
		t.Errorf("planted AP %.3f, names alone %.3f: the graph adds less than 0.2", ap, apName)
	}
	t.Logf("planted AP %.3f, names alone %.3f", ap, apName)
	// the planted piece (shares co-authors) above the decoy of the same name
	orig := 0 // the first planted pair is (0, nOrig)
	var piece int
	for d := range pl.dups {
		if d[0] == orig {
			piece = d[1]
		}
	}
	rp, ok1 := rank[[2]int{orig, piece}]
	rd, ok2 := rank[[2]int{orig, pl.decoy}]
	if !ok1 || !ok2 {
		t.Fatalf("candidates miss the piece (%v) or the decoy (%v)", ok1, ok2)
	}
	t.Logf("piece rank %d, decoy rank %d", rp, rd)
	if rp >= rd {
		t.Errorf("piece with shared co-authors ranked %d, the decoy without %d", rp, rd)
	}
	for _, r := range res.Pairs[rp].Reasons {
		if r.Kind == "co-authors" && !strings.Contains(r.Text, "shared co-author") {
			t.Errorf("co-author reason %q", r.Text)
		}
	}
	if len(res.Pairs[rp].Reasons) == 0 {
		t.Error("no reasons")
	}
}

func TestFindDeterministicAcrossWorkers(t *testing.T) {
	pl := makePlanted(t, 20, 10, 6, 3)
	var first *Result
	for _, w := range []int{1, 2, 5, 2, 1} {
		res, err := Find(context.Background(), pl.in, Options{Seed: 9, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if !reflect.DeepEqual(first, res) {
			t.Fatalf("workers %d: result differs from workers 1", w)
		}
	}
}

func TestFindTop(t *testing.T) {
	pl := makePlanted(t, 20, 10, 6, 3)
	all, err := Find(context.Background(), pl.in, Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	top, err := Find(context.Background(), pl.in, Options{Seed: 2, Top: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Pairs) != 5 || len(all.Pairs) != all.Candidates || !reflect.DeepEqual(top.Pairs, all.Pairs[:5]) {
		t.Errorf("Top 5: %d pairs of %d candidates, prefix equal %v", len(top.Pairs), all.Candidates, reflect.DeepEqual(top.Pairs, all.Pairs[:5]))
	}
}

func TestFindBadInput(t *testing.T) {
	pl := makePlanted(t, 2, 5, 3, 1)
	in := pl.in
	in.Names = in.Names[:3]
	if _, err := Find(context.Background(), in, Options{}); !errors.Is(err, ErrInput) {
		t.Errorf("short Names: %v", err)
	}
	in = pl.in
	in.Targets = []int{-1}
	if _, err := Find(context.Background(), in, Options{}); !errors.Is(err, ErrInput) {
		t.Errorf("bad target: %v", err)
	}
}

func TestEstimateCoversResult(t *testing.T) {
	pl := makePlanted(t, 30, 12, 6, 5)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Find(context.Background(), pl.in, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc) // the result: pairs and reasons
	peak, phases := Estimate(int64(pl.in.Graph.NumNodes()), int64(pl.in.Graph.NumEdges()), int64(pl.nAuth), int64(res.Candidates), Options{})
	var est int64
	for _, ph := range phases {
		if ph.Bytes > peak {
			t.Errorf("phase %s: %d bytes over the peak %d", ph.Phase, ph.Bytes, peak)
		}
		for _, p := range ph.Parts {
			if p.Name == "pairs with reasons" {
				est += p.Bytes
			}
		}
	}
	if held > est || held < est/4 {
		t.Errorf("result holds %d bytes, estimate of pairs and reasons %d", held, est)
	}
	runtime.KeepAlive(res)
}
