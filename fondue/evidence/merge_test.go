package evidence

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// world builds a small knowledge graph: authors (targets) with papers, the
// papers with venues and keywords; the tests add the pieces to merge.
type world struct {
	edges   [][2]int
	kind    []int32
	year    []float64
	title   []string
	owners  []int
	pieces  [][][]int32
	targets []bool
}

const (
	kAuthor = iota
	kPaper
	kVenue
	kKeyword
)

func (w *world) node(kind int32) int {
	w.kind = append(w.kind, kind)
	w.year = append(w.year, math.NaN())
	w.title = append(w.title, "")
	w.targets = append(w.targets, kind == kAuthor)
	return len(w.kind) - 1
}

func (w *world) link(a, b int) { w.edges = append(w.edges, [2]int{a, b}) }

// author adds an author whose papers are given, one piece per paper.
func (w *world) author(papers ...int) int {
	a := w.node(kAuthor)
	var ps [][]int32
	for _, p := range papers {
		w.link(a, p)
		ps = append(ps, []int32{int32(p)})
	}
	w.owners = append(w.owners, a)
	w.pieces = append(w.pieces, ps)
	return a
}

func (w *world) paper(year float64, context ...int) int {
	p := w.node(kPaper)
	w.year[p] = year
	for _, c := range context {
		w.link(p, c)
	}
	return p
}

func (w *world) build(t *testing.T) (*graph.Graph, *Context) {
	g, err := graph.NewGraph(len(w.kind), w.edges)
	if err != nil {
		t.Fatal(err)
	}
	c := &Context{Kinds: []string{"Author", "Paper", "Venue", "Keyword"}, Kind: w.kind,
		Properties: []Property{{Name: "title", Text: w.title}, {Name: "year", Numeric: true, Number: w.year}}}
	return g, c
}

func (w *world) structural() []bool {
	s := make([]bool, len(w.kind))
	for i, k := range w.kind {
		s[i] = k == kAuthor || k == kPaper
	}
	return s
}

// background adds n authors with two papers each: the two share a venue of
// their own and a year; every paper has the hub keyword.
func (w *world) background(n, hub int) {
	for b := range n {
		v := w.node(kVenue)
		y := float64(1900 + (b*37)%200)
		w.author(w.paper(y, v, hub), w.paper(y, v, hub))
	}
}

func TestMergeRareVenueNotHubKeyword(t *testing.T) {
	var w world
	hub := w.node(kKeyword)
	w.background(80, hub)
	rare := w.node(kVenue)
	// Pieces 0 and 1 share a venue found nowhere else; 2 and 3 only the
	// hub keyword that every paper has. Years far apart throughout.
	p := []int{w.paper(1900, rare, hub), w.paper(2050, rare, hub), w.paper(1950, hub), w.paper(2000, hub)}
	// Titles that share "graphs" and stop words, which are no reasons.
	w.title[p[0]], w.title[p[1]] = "The rise of graphs in a year", "The fall of graphs and a year"
	w.author(p...)
	g, c := w.build(t)
	m, err := Fit(context.Background(), g, c, w.structural(), w.owners, w.pieces, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	groups, reasons := m.Merge(w.pieces[len(w.pieces)-1])
	want := [][]int32{{int32(p[0]), int32(p[1])}, {int32(p[2])}, {int32(p[3])}}
	if !slices.EqualFunc(groups, want, slices.Equal[[]int32]) {
		t.Fatalf("groups %v, want %v", groups, want)
	}
	if len(reasons[0]) == 0 || reasons[0][0].Node != rare || reasons[0][0].Kind != "Venue" {
		t.Fatalf("reasons of the merged group %+v, want the rare venue %d first", reasons[0], rare)
	}
	var words []string
	for _, r := range reasons[0] {
		if r.Kind == "title" {
			words = append(words, r.Value)
		}
	}
	if slices.Sort(words); !slices.Equal(words, []string{"graphs", "year"}) {
		t.Fatalf("title reasons %q, want graphs and year (no stop words)", words)
	}
	if reasons[1] != nil || reasons[2] != nil {
		t.Fatalf("groups that joined nothing have reasons %+v, %+v", reasons[1], reasons[2])
	}
	// The hub keyword is on every paper: it says nothing, whatever its weight.
	if wt := m.Weights(); wt[kKeyword] != 0 {
		t.Fatalf("keyword block weight %v, want 0 (every pair shares the hub)", wt[kKeyword])
	}
}

func TestMergeYearsCloseNotFar(t *testing.T) {
	var w world
	hub := w.node(kKeyword)
	w.background(120, hub)
	// Same year: one entity by the background's rule; 80 years apart: not.
	near := []int{w.paper(1931, hub), w.paper(1931, hub)}
	far := []int{w.paper(1910, hub), w.paper(1990, hub)}
	w.author(near...)
	w.author(far...)
	g, c := w.build(t)
	m, err := Fit(context.Background(), g, c, w.structural(), w.owners, w.pieces, Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if gs, _ := m.Merge(w.pieces[len(w.pieces)-2]); len(gs) != 1 {
		t.Fatalf("papers of the same year: %d groups, want 1", len(gs))
	}
	if gs, _ := m.Merge(w.pieces[len(w.pieces)-1]); len(gs) != 2 {
		t.Fatalf("papers 80 years apart: %d groups, want 2", len(gs))
	}
}

func TestIDF(t *testing.T) {
	var w world
	hub := w.node(kKeyword)
	w.background(10, hub) // 20 papers, each venue on 2, the hub on all
	rare := w.node(kVenue)
	x := w.paper(2000, rare, hub)
	w.title[x] = "The Graph Embedding, graphs"
	y := w.paper(2001, hub)
	w.title[y] = "graph of the web"
	w.author(x, y)
	g, c := w.build(t)
	m, err := Fit(context.Background(), g, c, w.structural(), w.owners, w.pieces, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	n := 22.0 // members of all pieces
	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		{"hub keyword", m.IDF(hub, "", ""), math.Log(n / 22)},
		{"background venue", m.IDF(w.kind2node(kVenue), "", ""), math.Log(n / 2)},
		{"venue on one paper", m.IDF(rare, "", ""), 0},
		{"title word graph (2 papers)", m.IDF(-1, "title", "graph"), math.Log(n / 2)},
		{"title word embedding (1 paper)", m.IDF(-1, "title", "embedding"), 0},
		{"stop word the (2 papers): no word", m.IDF(-1, "title", "the"), 0},
	} {
		if math.Abs(tc.got-tc.want) > 1e-12 {
			t.Errorf("%s: IDF %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// kind2node returns the first node of a kind.
func (w *world) kind2node(k int32) int { return slices.Index(w.kind, k) }

// Words splits at what is not a letter or digit, lower-cases, and leaves
// out the stop words (there are 33, "A" and "THE" among them once
// lower-cased; "from" and "graph" are none).
func TestWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Graph-Embedding of  KGs, 2nd ed.", []string{"graph", "embedding", "kgs", "2nd", "ed"}},
		{"A Survey on Learning in THE Wild, and from Graphs", []string{"survey", "learning", "wild", "from", "graphs"}},
		{"to be or not to be", nil},
		{"", nil},
	} {
		if got := Words(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if len(stopWords) != 33 {
		t.Errorf("%d stop words, want Lucene's 33", len(stopWords))
	}
}

// pairs picks, at every step of a merge, the pair a scan of all pairs
// picks (the largest positive margin, the first in row order among
// equals), on random margins with many ties and negative ones.
func TestPairsAgainstScan(t *testing.T) {
	r := rng.SplitMix{S: 5}
	for trial := range 300 {
		k := 2 + int(r.Intn(12))
		mg := make([][]float64, k)
		for a := range mg {
			mg[a] = make([]float64, k)
		}
		draw := func() float64 { return float64(int(r.Intn(5))-2) / 2 } // -1 .. 1, ties
		set := func(a, b int) {
			mg[a][b] = draw()
			mg[b][a] = mg[a][b]
		}
		for a := range k {
			for b := range a {
				set(a, b)
			}
		}
		ps := newPairs(mg)
		for {
			wa, wb, best := -1, -1, 0.0
			for a := range k {
				for b := a + 1; b < k; b++ {
					if ps.alive[a] && ps.alive[b] && mg[a][b] > best {
						wa, wb, best = a, b, mg[a][b]
					}
				}
			}
			ba, bb := ps.best()
			if ba != wa || bb != wb {
				t.Fatalf("trial %d: pairs picks (%d, %d), a scan (%d, %d)", trial, ba, bb, wa, wb)
			}
			if ba < 0 {
				break
			}
			ps.alive[bb] = false
			for c := range k {
				if ps.alive[c] && c != ba {
					set(ba, c)
				}
			}
			ps.merged(ba, bb)
		}
	}
}

// Two pieces alone in their size bin give one different-entity pair, not
// perBin copies of it, and no null of their own: the copies filled the
// pooled null, and a null drawn from two pieces moved every merge of that
// size when a third piece appeared on the next night.
func TestNullSamplesDistinctPieces(t *testing.T) {
	var w world
	hub := w.node(kKeyword)
	w.background(120, hub) // 240 pieces of one paper (bin 0)
	for range 2 {          // two pieces of two papers (bin 1)
		a := w.node(kAuthor)
		p, q := w.paper(1950, hub), w.paper(1951, hub)
		w.link(a, p)
		w.link(a, q)
		w.owners = append(w.owners, a)
		w.pieces = append(w.pieces, [][]int32{{int32(p), int32(q)}})
	}
	g, c := w.build(t)
	m, err := Fit(context.Background(), g, c, w.structural(), w.owners, w.pieces, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// bin pairs (0,0): 5,000 of the 28,680 pairs; (0,1): all 240 x 2 = 480;
	// (1,1): the one pair. Only (0,0) has 200 pieces a side: the others
	// read the pooled 5,481.
	if n := len(m.null[0][0]); n != 5000 {
		t.Fatalf("%d samples of one-paper pieces, want 5000", n)
	}
	for _, b := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {4, 4}} {
		if n := len(m.null[b[0]][b[1]]); n != 5000+480+1 {
			t.Fatalf("null of bins %v: %d samples, want the pooled 5481", b, n)
		}
	}
}

// TestMarginAgainstCombine checks the bounded margin of Merge against
// sims and combine: the same value when it is positive, not positive
// when that is not, for thresholds about each pair's similarity.
func TestMarginAgainstCombine(t *testing.T) {
	var w world
	hub := w.node(kKeyword)
	w.background(60, hub)
	venues := []int{w.node(kVenue), w.node(kVenue), w.node(kVenue)}
	r := rng.SplitMix{S: 7}
	var ps []int
	for k := range 24 {
		ctx := []int{hub}
		if k%3 != 0 {
			ctx = append(ctx, venues[r.Intn(3)])
		}
		ps = append(ps, w.paper(float64(1950+r.Intn(60)), ctx...))
	}
	w.author(ps...)
	g, c := w.build(t)
	m, err := Fit(context.Background(), g, c, w.structural(), w.owners, w.pieces, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var prs []*profile
	for _, pc := range w.pieces[len(w.pieces)-1] {
		prs = append(prs, m.newProfile(pc))
	}
	// Two merged profiles too: non-integer means.
	m.add(prs[0], prs[1])
	m.add(prs[2], prs[3])
	s := make([]float64, m.nBlocks())
	var pos, skipped int
	for a := range prs {
		for b := range a {
			m.sims(prs[a], prs[b], s)
			v := m.combine(s)
			for _, thr := range []float64{v - 0.5, v - 1e-12, v, v + 1e-12, v + 0.01, v + 0.5, 0} {
				got, want := m.margin(prs[a], prs[b], s, thr), v-thr
				switch {
				case want > 0 && got != want:
					t.Fatalf("pieces %d, %d, threshold %v: margin %v, want %v", a, b, thr, got, want)
				case want <= 0 && got > 0:
					t.Fatalf("pieces %d, %d, threshold %v: margin %v, want none positive (%v)", a, b, thr, got, want)
				case want > 0:
					pos++
				case got != want:
					skipped++
				}
			}
		}
	}
	if pos == 0 || skipped == 0 {
		t.Fatalf("%d positive margins, %d bounded: the test covers neither branch", pos, skipped)
	}
}

// TestMergeGroupsIsMergeAll checks that the groups of MergeGroups are
// MergeAll's, on neighbourhoods where pieces merge.
func TestMergeGroupsIsMergeAll(t *testing.T) {
	var w world
	hub := w.node(kKeyword)
	w.background(60, hub)
	venues := []int{w.node(kVenue), w.node(kVenue)}
	for a := range 5 {
		var ps []int
		for k := range 6 {
			ps = append(ps, w.paper(float64(1950+10*(k%2)), venues[(a+k)%2], hub))
		}
		w.author(ps...)
	}
	g, c := w.build(t)
	m, err := Fit(context.Background(), g, c, w.structural(), w.owners, w.pieces, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := m.MergeAll(context.Background(), w.pieces, 2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.MergeGroups(context.Background(), w.pieces, 2)
	if err != nil {
		t.Fatal(err)
	}
	merged := false
	for k := range want {
		merged = merged || len(want[k]) < len(w.pieces[k])
		if !slices.EqualFunc(got[k], want[k], slices.Equal[[]int32]) {
			t.Fatalf("neighbourhood %d: groups %v, want %v", k, got[k], want[k])
		}
	}
	if !merged {
		t.Fatal("no neighbourhood merged: the test compares nothing")
	}
}

// refMerge merges like Merge by brute force: every pair's similarity
// from sims and combine, each step the largest positive margin (the first
// pair in row order among equals).
func refMerge(m *Model, groups [][]int32) [][]int32 {
	k := len(groups)
	cl := make([][]int32, k)
	pr := make([]*profile, k)
	alive := make([]bool, k)
	for i, g := range groups {
		cl[i], pr[i], alive[i] = slices.Clone(g), m.newProfile(g), true
	}
	thr := func(a, b int) float64 {
		v := m.null[sizeBin(pr[a].size)][sizeBin(pr[b].size)]
		if len(v) == 0 {
			return 0
		}
		return v[min(len(v)-1, int((1-m.alpha)*float64(len(v))))]
	}
	s := make([]float64, m.nBlocks())
	for {
		ba, bb, best := -1, -1, 0.0
		for a := range k {
			for b := a + 1; b < k; b++ {
				if !alive[a] || !alive[b] {
					continue
				}
				m.sims(pr[a], pr[b], s)
				if v := m.combine(s) - thr(a, b); v > best {
					ba, bb, best = a, b, v
				}
			}
		}
		if ba < 0 {
			break
		}
		m.add(pr[ba], pr[bb])
		cl[ba] = append(cl[ba], cl[bb]...)
		alive[bb] = false
	}
	var out [][]int32
	for a := range k {
		if alive[a] {
			slices.Sort(cl[a])
			out = append(out, cl[a])
		}
	}
	slices.SortStableFunc(out, func(a, b []int32) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return int(a[0] - b[0])
	})
	return out
}

// TestMergeAgainstBruteForce checks Merge (its bounds, the pairs that
// share no token, the row bests) against refMerge on neighbourhoods of
// many pieces: papers of a few venues, some alone, years near and far,
// pieces of one and of several papers.
func TestMergeAgainstBruteForce(t *testing.T) {
	var w world
	hub := w.node(kKeyword)
	w.background(80, hub)
	venues := []int{w.node(kVenue), w.node(kVenue), w.node(kVenue), w.node(kVenue)}
	r := rng.SplitMix{S: 11}
	for range 8 {
		var ps [][]int32
		for range 12 + int(r.Intn(20)) {
			var pc []int32
			for range 1 + int(r.Intn(3)) {
				ctx := []int{hub}
				if r.Intn(4) != 0 {
					ctx = append(ctx, venues[r.Intn(uint32(len(venues)))])
				} else {
					ctx = append(ctx, w.node(kVenue)) // a venue of its own
				}
				p := w.paper(float64(1960+r.Intn(40)), ctx...)
				pc = append(pc, int32(p))
			}
			ps = append(ps, pc)
		}
		a := w.node(kAuthor)
		for _, pc := range ps {
			for _, p := range pc {
				w.link(a, int(p))
			}
		}
		w.owners = append(w.owners, a)
		w.pieces = append(w.pieces, ps)
	}
	g, c := w.build(t)
	m, err := Fit(context.Background(), g, c, w.structural(), w.owners, w.pieces, Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	merges := 0
	for k := len(w.pieces) - 8; k < len(w.pieces); k++ {
		want := refMerge(m, w.pieces[k])
		got, _ := m.Merge(w.pieces[k])
		if !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
			t.Fatalf("neighbourhood %d: groups %v, want %v", k, got, want)
		}
		merges += len(w.pieces[k]) - len(want)
	}
	if merges == 0 {
		t.Fatal("no piece merged: the test compares nothing")
	}
	t.Logf("%d merges", merges)
}

// TestMergeJoinsThroughMergedGroup: pieces a and b share a venue, b and c
// another; a and c share none, but once a holds b, a and c do, and merge.
func TestMergeJoinsThroughMergedGroup(t *testing.T) {
	var w world
	hub := w.node(kKeyword)
	w.background(80, hub)
	vx, vy := w.node(kVenue), w.node(kVenue)
	pa, pb1, pb2, pc := w.paper(1970, hub, vx), w.paper(1972, hub, vx), w.paper(1974, hub, vy), w.paper(1976, hub, vy)
	w.author(pa, pb1, pb2, pc)
	last := len(w.pieces) - 1
	ps := [][]int32{{int32(pa)}, {int32(pb1), int32(pb2)}, {int32(pc)}}
	w.pieces[last] = ps
	g, c := w.build(t)
	m, err := Fit(context.Background(), g, c, w.structural(), w.owners, w.pieces, Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	a, b, cc := m.newProfile(ps[0]), m.newProfile(ps[1]), m.newProfile(ps[2])
	if m.sharing([]*profile{a, cc})[1] {
		t.Fatal("a and c share a token")
	}
	// c joins the merged a and b by the venue b brings, not by the years.
	m.add(a, b)
	null := m.null[sizeBin(3)][sizeBin(1)]
	thr := null[min(len(null)-1, int((1-m.alpha)*float64(len(null))))]
	if tl, mg := m.tokenless(a, cc, thr), m.margin(a, cc, make([]float64, m.nBlocks()), thr); tl > 0 || mg <= 0 {
		t.Fatalf("margins of a and b merged with c: %v without the tokens, %v with them; want one not positive, one positive", tl, mg)
	}
	want := refMerge(m, ps)
	got, _ := m.Merge(ps)
	if len(want) != 1 || !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
		t.Fatalf("groups %v, want %v, one group", got, want)
	}
}
