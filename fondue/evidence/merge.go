package evidence

import (
	"context"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// The merge of pieces. A piece of a target's neighbourhood (a set of its
// neighbours, the members) has a profile: per block (a context kind, a
// text property, a numeric property) the context nodes adjacent to its
// members or the words of their text, each weighted by how rare it is
// among all members of all pieces (IDF: log N/df), and the mean of each
// numeric property. Two profiles compare block by block (cosine; for a
// number exp(-|mean difference|/scale), the scale being the median
// difference between two members drawn at random), and the blocks combine
// with weights learnt from the graph itself: two pieces of one target are
// more often one entity than pieces of two targets that share no
// neighbour, which are different ones; a block's weight is how far it
// separates the two kinds of pairs (difference of means over the pooled
// variance, 0 when it does not). (Halves of one piece would overrate what
// one piece has in common, such as its time: see bench/SPLITTERS.md.)
// Pieces merge, most alike first, while the pair is more alike than the
// Quantile of the different-entity pairs of the same sizes.

// DefaultQuantile is the quantile of the different-entity similarities
// above which two pieces merge.
const DefaultQuantile = 0.99

// Options configures Fit. The zero value is the default.
type Options struct {
	Quantile float64 // default DefaultQuantile
	Seed     uint64  // seeds the samples of pairs
}

// Model weighs and merges pieces of the neighbourhoods of one graph.
type Model struct {
	g          *graph.Graph
	c          *Context
	structural []bool
	nKinds     int   // token blocks: kinds 0..nKinds-1, then "unknown kind"
	text       []int // property index of each text block (after the kinds)
	numeric    []int // property index of each numeric block (after text)
	words      []map[string]int32
	wordList   [][]string
	idf        map[key]float64
	scale      []float64               // per numeric block
	weights    []float64               // per block
	cache      []*memberToks           // per node, once it is a member
	null       [nBins][nBins][]float64 // sorted different-entity similarities by size bins
	alpha      float64
}

// key is one token: a block and a context node or word id.
type key struct {
	block int32
	id    int32
}

// nBins is the number of piece size classes: 1, 2, 3-4, 5-8, 9+ members.
const nBins = 5

func sizeBin(n int) int {
	b := 0
	for s := 1; s < n && b < nBins-1; s *= 2 {
		b++
	}
	return b
}

func (m *Model) nTokenBlocks() int { return m.nKinds + 1 + len(m.text) }
func (m *Model) nBlocks() int      { return m.nTokenBlocks() + len(m.numeric) }

// tokens appends member u's tokens (before weighting).
func (m *Model) tokens(u int32, buf []key) []key {
	for _, x := range m.g.Neighbors(int(u)) {
		if m.structural != nil && m.structural[x] {
			continue
		}
		k := int32(m.nKinds)
		if m.c.Kind != nil && m.c.Kind[x] >= 0 {
			k = m.c.Kind[x]
		}
		buf = append(buf, key{k, x})
	}
	for t, p := range m.text {
		for _, w := range Words(m.c.Properties[p].Text[u]) {
			if id, ok := m.words[t][w]; ok {
				buf = append(buf, key{int32(m.nKinds + 1 + t), id})
			}
		}
	}
	return buf
}

// Words returns the lower-cased words of a text (runs of letters and
// digits), stop words left out: they are the evidence words of text
// properties, and so the words a reason can show.
func Words(s string) []string {
	ws := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return slices.DeleteFunc(ws, func(w string) bool { return stopWords[w] })
}

// stopWords are English words too common to be evidence that two pieces
// are one entity ("a", "in", "and"): Lucene's English stop words
// (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), lower-case.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true,
	"but": true, "by": true, "for": true, "if": true, "in": true, "into": true, "is": true,
	"it": true, "no": true, "not": true, "of": true, "on": true, "or": true, "such": true,
	"that": true, "the": true, "their": true, "then": true, "there": true, "these": true,
	"they": true, "this": true, "to": true, "was": true, "will": true, "with": true,
}

// profile is a piece's (or a merged group's) evidence: its tokens sorted
// by key with their summed weights (sorted, so that sums do not depend on
// a map's order), and the sums of its numeric properties.
type profile struct {
	size  int
	keys  []key
	w     []float64
	norm2 []float64 // per token block
	sum   []float64 // per numeric block
	count []float64
}

func keyCmp(a, b key) int {
	if a.block != b.block {
		return int(a.block - b.block)
	}
	return int(a.id - b.id)
}

func (m *Model) newProfile(members []int32) *profile {
	return m.initProfile(&profile{}, members, make([]float64, m.nTokenBlocks()+2*len(m.numeric)))
}

// initProfile sets p to the profile of members, its norms and sums in buf
// (zero, nTokenBlocks + 2 x the numeric blocks long), and returns it.
func (m *Model) initProfile(p *profile, members []int32, buf []float64) *profile {
	nt, nn := m.nTokenBlocks(), len(m.numeric)
	*p = profile{size: len(members), norm2: buf[:nt:nt], sum: buf[nt : nt+nn : nt+nn], count: buf[nt+nn : nt+2*nn : nt+2*nn]}
	for _, u := range members {
		for b, q := range m.numeric {
			if v := m.c.Properties[q].Number[u]; !math.IsNaN(v) {
				p.sum[b] += v
				p.count[b]++
			}
		}
	}
	if len(members) == 1 {
		// The member's own slices: a profile never changes its slices in
		// place (add makes new ones).
		c := m.memberTokens(members[0])
		p.keys, p.w = c.keys, c.w
	} else {
		toks := make([]*memberToks, len(members))
		total := 0
		for k, u := range members {
			toks[k] = m.memberTokens(u)
			total += len(toks[k].keys)
		}
		keys, ws := make([]key, 0, total), make([]float64, 0, total)
		for _, c := range toks {
			keys, ws = append(keys, c.keys...), append(ws, c.w...)
		}
		idx := make([]int, len(keys))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return keyCmp(keys[a], keys[b]) })
		for _, i := range idx {
			if n := len(p.keys); n > 0 && p.keys[n-1] == keys[i] {
				p.w[n-1] += ws[i]
				continue
			}
			p.keys = append(p.keys, keys[i])
			p.w = append(p.w, ws[i])
		}
	}
	m.norms(p)
	return p
}

// memberTokens returns member u's distinct tokens, sorted, and their IDF
// weights (computed once per member Fit saw).
func (m *Model) memberTokens(u int32) *memberToks {
	if c := m.cache[u]; c != nil {
		return c
	}
	// Not a member Fit saw: computed, not kept (Merge runs concurrently).
	toks := m.tokens(u, nil)
	slices.SortFunc(toks, keyCmp)
	toks = slices.Compact(toks)
	w := make([]float64, 0, len(toks))
	kept := toks[:0]
	for _, k := range toks {
		if v := m.idf[k]; v > 0 {
			kept = append(kept, k)
			w = append(w, v)
		}
	}
	return &memberToks{kept, w}
}

type memberToks struct {
	keys []key
	w    []float64
}

func (m *Model) norms(p *profile) {
	clear(p.norm2)
	for i, k := range p.keys {
		p.norm2[k.block] += p.w[i] * p.w[i]
	}
}

// shared calls fn for every token of both a and b, in key order.
func shared(a, b *profile, fn func(k key, wa, wb float64)) {
	for i, j := 0, 0; i < len(a.keys) && j < len(b.keys); {
		switch c := keyCmp(a.keys[i], b.keys[j]); {
		case c == 0:
			fn(a.keys[i], a.w[i], b.w[j])
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
}

func (m *Model) add(p, q *profile) {
	p.size += q.size
	keys := make([]key, 0, len(p.keys)+len(q.keys))
	w := make([]float64, 0, len(p.keys)+len(q.keys))
	i, j := 0, 0
	for i < len(p.keys) || j < len(q.keys) {
		switch {
		case j == len(q.keys) || i < len(p.keys) && keyCmp(p.keys[i], q.keys[j]) < 0:
			keys, w = append(keys, p.keys[i]), append(w, p.w[i])
			i++
		case i == len(p.keys) || keyCmp(p.keys[i], q.keys[j]) > 0:
			keys, w = append(keys, q.keys[j]), append(w, q.w[j])
			j++
		default:
			keys, w = append(keys, p.keys[i]), append(w, p.w[i]+q.w[j])
			i++
			j++
		}
	}
	p.keys, p.w = keys, w
	for b := range p.sum {
		p.sum[b] += q.sum[b]
		p.count[b] += q.count[b]
	}
	m.norms(p)
}

// sims fills s with the per-block similarities of a and b.
func (m *Model) sims(a, b *profile, s []float64) {
	clear(s)
	shared(a, b, func(k key, wa, wb float64) { s[k.block] += wa * wb })
	for blk := 0; blk < m.nTokenBlocks(); blk++ {
		if s[blk] > 0 {
			s[blk] /= math.Sqrt(a.norm2[blk] * b.norm2[blk])
		}
	}
	for t := range m.numeric {
		if a.count[t] > 0 && b.count[t] > 0 {
			d := math.Abs(a.sum[t]/a.count[t] - b.sum[t]/b.count[t])
			s[m.nTokenBlocks()+t] = math.Exp(-d / m.scale[t])
		}
	}
}

// margin returns combine(sims(a, b)) - thr when it is positive, else a
// value that is not positive either: only positive margins merge, so a
// pair whose similarity cannot beat thr even with every numeric block at
// its most (1) skips the numeric blocks' exponentials. The bound is exact
// in floating point: the weights are not negative, each numeric term is
// at most its weight and rounding is monotone, so the sum in combine's
// order is at most the bound's.
func (m *Model) margin(a, b *profile, s []float64, thr float64) float64 {
	clear(s)
	shared(a, b, func(k key, wa, wb float64) { s[k.block] += wa * wb })
	v := 0.0
	for blk := range m.nTokenBlocks() {
		if s[blk] > 0 {
			s[blk] /= math.Sqrt(a.norm2[blk] * b.norm2[blk])
		}
		v += m.weights[blk] * s[blk]
	}
	return m.numericMargin(a, b, v, thr)
}

// tokenless is margin(a, b) when a and b share no token of a block whose
// weight is not 0: every token block adds its weight times 0.
func (m *Model) tokenless(a, b *profile, thr float64) float64 {
	v := 0.0
	for _, w := range m.weights[:m.nTokenBlocks()] {
		v += w * 0
	}
	return m.numericMargin(a, b, v, thr)
}

// numericMargin is the end of margin, from the token blocks' sum v.
func (m *Model) numericMargin(a, b *profile, v, thr float64) float64 {
	nt := m.nTokenBlocks()
	bound := v
	for t := range m.numeric {
		if a.count[t] > 0 && b.count[t] > 0 {
			bound += m.weights[nt+t]
		} else {
			bound += m.weights[nt+t] * 0
		}
	}
	if d := bound - thr; d <= 0 {
		return d
	}
	for t := range m.numeric {
		x := 0.0
		if a.count[t] > 0 && b.count[t] > 0 {
			d := math.Abs(a.sum[t]/a.count[t] - b.sum[t]/b.count[t])
			x = math.Exp(-d / m.scale[t])
		}
		v += m.weights[nt+t] * x
	}
	return v - thr
}

func (m *Model) combine(s []float64) float64 {
	v := 0.0
	for b, w := range m.weights {
		v += w * s[b]
	}
	return v
}

// Fit learns the weights and thresholds from the pieces of the graph's
// targets: pieces[t] are the pieces of node owners[t] (graph indices of
// its neighbours). structural marks the nodes that are not context (nil:
// none is context). The result does not depend on o.Workers.
func Fit(ctx context.Context, g *graph.Graph, c *Context, structural []bool, owners []int, pieces [][][]int32, o Options) (*Model, error) {
	if err := c.Check(g.NumNodes()); err != nil {
		return nil, err
	}
	if o.Quantile <= 0 || o.Quantile >= 1 {
		o.Quantile = DefaultQuantile
	}
	m := &Model{g: g, c: c, structural: structural, nKinds: len(c.Kinds), idf: map[key]float64{}}
	for p, prop := range c.Properties {
		if prop.Numeric {
			m.numeric = append(m.numeric, p)
		} else {
			m.text = append(m.text, p)
		}
	}
	// The members of all pieces, once each: the population of the IDF.
	// Marked, then read off in order: ascending, no sort.
	seen := make([]bool, g.NumNodes())
	nm := 0
	for _, ps := range pieces {
		for _, pc := range ps {
			for _, u := range pc {
				if !seen[u] {
					seen[u] = true
					nm++
				}
			}
		}
	}
	members := make([]int32, 0, nm)
	for u, ok := range seen {
		if ok {
			members = append(members, int32(u))
		}
	}
	m.words = make([]map[string]int32, len(m.text))
	m.wordList = make([][]string, len(m.text))
	for t, p := range m.text {
		m.words[t] = map[string]int32{}
		for _, u := range members {
			for _, w := range Words(c.Properties[p].Text[u]) {
				if _, ok := m.words[t][w]; !ok {
					m.words[t][w] = int32(len(m.wordList[t]))
					m.wordList[t] = append(m.wordList[t], w)
				}
			}
		}
	}
	// Each member's distinct tokens, sorted, in one array (member k's are
	// toks[off[k]:off[k+1]]): counted here, filtered for the cache below.
	df := map[key]int{}
	var toks []key
	off := make([]int, len(members)+1)
	for k, u := range members {
		at := len(toks)
		toks = m.tokens(u, toks)
		own := toks[at:]
		slices.SortFunc(own, keyCmp)
		own = slices.Compact(own)
		toks = toks[:at+len(own)]
		for _, k := range own {
			df[k]++
		}
		off[k+1] = len(toks)
	}
	n := float64(len(members))
	for k, d := range df {
		if d < 2 { // on one member only: never shared, it would only dilute
			continue
		}
		m.idf[k] = math.Log(n / float64(d))
	}
	// The cache: memberTokens of every member, the tokens with an IDF kept
	// in place in toks, each member's slices capped to their length.
	m.cache = make([]*memberToks, g.NumNodes())
	cached := make([]memberToks, len(members))
	w := make([]float64, 0, len(toks))
	kept := 0
	for k, u := range members {
		at := kept
		for _, t := range toks[off[k]:off[k+1]] {
			if v := m.idf[t]; v > 0 {
				toks[kept] = t
				w = append(w, v)
				kept++
			}
		}
		cached[k] = memberToks{toks[at:kept:kept], w[at:kept:kept]}
		m.cache[u] = &cached[k]
	}
	r := rng.SplitMix{S: rng.StreamSeed(o.Seed, 0xe71de, 0, 0)}
	m.scale = make([]float64, len(m.numeric))
	for t, p := range m.numeric {
		vals := make([]float64, 0, len(members))
		for _, u := range members {
			if v := c.Properties[p].Number[u]; !math.IsNaN(v) {
				vals = append(vals, v)
			}
		}
		var diffs []float64
		for k := 0; k < 4000 && len(vals) > 1; k++ {
			diffs = append(diffs, math.Abs(vals[r.Intn(uint32(len(vals)))]-vals[r.Intn(uint32(len(vals)))]))
		}
		m.scale[t] = math.Max(quantile(diffs, 0.5), 1e-9)
	}

	// Pieces by size bin, with their owners, each bin allocated once.
	// first[t] counts the pieces of the targets before t: piece a of all,
	// in order, is found by a search (pieceAt).
	type ref struct{ t, k int32 }
	var byBin [nBins][]ref
	var binSize [nBins]int
	first := make([]int, len(pieces)+1)
	for t, ps := range pieces {
		for _, pc := range ps {
			binSize[sizeBin(len(pc))]++
		}
		first[t+1] = first[t] + len(ps)
	}
	for b, c := range binSize {
		if c > 0 {
			byBin[b] = make([]ref, 0, c)
		}
	}
	for t, ps := range pieces {
		for k, pc := range ps {
			byBin[sizeBin(len(pc))] = append(byBin[sizeBin(len(pc))], ref{int32(t), int32(k)})
		}
	}
	nAll := first[len(pieces)]
	pieceAt := func(a int) ref {
		t := sort.Search(len(pieces), func(t int) bool { return first[t+1] > a })
		return ref{int32(t), int32(a - first[t])}
	}
	profiles := map[ref]*profile{}
	prof := func(x ref) *profile {
		if p, ok := profiles[x]; ok {
			return p
		}
		p := m.newProfile(pieces[x.t][x.k])
		profiles[x] = p
		return p
	}
	nb := m.nBlocks()
	// Different entities: pieces of two targets without a common neighbour.
	const perBin = 5000
	type sample struct {
		s      []float64
		ba, bb int
	}
	var null []sample
	for ba := 0; ba < nBins; ba++ {
		for bb := ba; bb < nBins; bb++ {
			A, B := byBin[ba], byBin[bb]
			if len(A) == 0 || len(B) == 0 {
				continue
			}
			// no more samples than distinct pairs: two pieces alone in a
			// bin would otherwise fill the pooled null with copies of one
			// pair, and move every threshold when a third appears
			want := int64(perBin)
			if ba == bb {
				want = min(want, int64(len(A))*int64(len(A)-1)/2)
			} else {
				want = min(want, int64(len(A))*int64(len(B)))
			}
			for k, tries := 0, 0; int64(k) < want && tries < 4*perBin; tries++ {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				x, y := A[r.Intn(uint32(len(A)))], B[r.Intn(uint32(len(B)))]
				if x.t == y.t || shareNeighbour(g, owners[x.t], owners[y.t]) {
					continue
				}
				s := make([]float64, nb)
				m.sims(prof(x), prof(y), s)
				null = append(null, sample{s, ba, bb})
				k++
			}
		}
	}
	// Likely the same entity: two pieces of one target (a mix of one and
	// several entities, richer in one than pairs of different targets).
	var pos [][]float64
	for k := 0; k < 6000 && nAll > 0; k++ {
		x := pieceAt(int(r.Intn(uint32(nAll))))
		ps := pieces[x.t]
		y := int32(r.Intn(uint32(len(ps))))
		if y == x.k {
			continue
		}
		s := make([]float64, nb)
		m.sims(prof(x), prof(ref{x.t, y}), s)
		pos = append(pos, s)
	}
	m.weights = make([]float64, nb)
	for b := range nb {
		var mp, vp, mn, vn float64
		for _, s := range pos {
			mp += s[b]
		}
		for _, s := range null {
			mn += s.s[b]
		}
		if len(pos) == 0 || len(null) == 0 {
			continue
		}
		mp /= float64(len(pos))
		mn /= float64(len(null))
		for _, s := range pos {
			vp += (s[b] - mp) * (s[b] - mp)
		}
		for _, s := range null {
			vn += (s.s[b] - mn) * (s.s[b] - mn)
		}
		v := (vp/float64(len(pos)) + vn/float64(len(null))) / 2
		if mp > mn {
			m.weights[b] = (mp - mn) / (v + 1e-6)
		}
	}
	var pooled []float64
	var byPair [nBins][nBins][]float64
	for _, s := range null {
		v := m.combine(s.s)
		pooled = append(pooled, v)
		byPair[s.ba][s.bb] = append(byPair[s.ba][s.bb], v)
	}
	m.alpha = 1 - o.Quantile
	slices.Sort(pooled)
	for a := range nBins {
		for b := a; b < nBins; b++ {
			// a bin pair's own null needs 200 samples, and as many pieces on
			// each side: two pieces of a size drawn 5,000 times describe those
			// two, not the size (merged groups of that size are common)
			t := pooled
			if len(byPair[a][b]) >= 200 && min(len(byBin[a]), len(byBin[b])) >= 200 {
				t = byPair[a][b]
				slices.Sort(t)
			}
			m.null[a][b], m.null[b][a] = t, t
		}
	}
	return m, nil
}

// shareNeighbour reports whether nodes a and b have a common neighbour.
func shareNeighbour(g *graph.Graph, a, b int) bool {
	x, y := g.Neighbors(a), g.Neighbors(b)
	for i, j := 0, 0; i < len(x) && j < len(y); {
		switch {
		case x[i] == y[j]:
			return true
		case x[i] < y[j]:
			i++
		default:
			j++
		}
	}
	return false
}

// quantile returns the q-quantile of v (sorted in place), 0 for none.
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[min(len(v)-1, int(q*float64(len(v))))]
}

// Weights returns the weight of each block: the context kinds (Kinds, then
// nodes of unknown kind), the text properties, the numeric properties, in
// the order of Context.Properties within each.
func (m *Model) Weights() []float64 { return slices.Clone(m.weights) }

// IDF returns the weight of a context node or word as evidence: log N/df
// for the N members of the pieces Fit saw and the df of them that carry
// it; 0 when none does.
func (m *Model) IDF(node int, property, word string) float64 {
	if node >= 0 {
		k := int32(m.nKinds)
		if m.c.Kind != nil && m.c.Kind[node] >= 0 {
			k = m.c.Kind[node]
		}
		return m.idf[key{k, int32(node)}]
	}
	for t, p := range m.text {
		if m.c.Properties[p].Name == property {
			if id, ok := m.words[t][word]; ok {
				return m.idf[key{int32(m.nKinds + 1 + t), id}]
			}
		}
	}
	return 0
}

// Merge merges the groups of one neighbourhood (graph indices of its
// members) that the evidence says are one entity, most alike first. It
// returns the merged groups (each sorted, largest first) and, per group,
// the strongest shared evidence that joined it (nil for a group that
// joined nothing).
func (m *Model) Merge(groups [][]int32) ([][]int32, [][]Reason) {
	return m.merge(groups, true)
}

// merge is Merge, the reasons left out (nil) unless reasons is set.
func (m *Model) merge(groups [][]int32, reasons bool) ([][]int32, [][]Reason) {
	k := len(groups)
	if k == 1 {
		// Nothing to merge with: the group, sorted, without reasons.
		g := slices.Clone(groups[0])
		slices.Sort(g)
		return [][]int32{g}, [][]Reason{nil}
	}
	cl := make([][]int32, k)
	pr := make([]*profile, k)
	contrib := make([]map[key]float64, k)
	// The profiles and their norms and sums, in two allocations.
	prs, per := make([]profile, k), m.nTokenBlocks()+2*len(m.numeric)
	buf := make([]float64, k*per)
	for i, grp := range groups {
		cl[i] = slices.Clone(grp)
		pr[i] = m.initProfile(&prs[i], grp, buf[i*per:(i+1)*per])
	}
	nb := m.nBlocks()
	s := make([]float64, nb)
	q := 1 - m.alpha
	var thr [nBins][nBins]float64
	for a := range nBins {
		for b := range nBins {
			if v := m.null[a][b]; len(v) > 0 {
				thr[a][b] = v[min(len(v)-1, int(q*float64(len(v))))]
			}
		}
	}
	sh := m.sharing(pr)
	margin := func(a, b int) float64 {
		t := thr[sizeBin(pr[a].size)][sizeBin(pr[b].size)]
		if !sh[a*k+b] {
			return m.tokenless(pr[a], pr[b], t)
		}
		return m.margin(pr[a], pr[b], s, t)
	}
	mg := make([][]float64, k)
	for a := range k {
		mg[a] = make([]float64, k)
		for b := range a {
			mg[a][b] = margin(a, b)
			mg[b][a] = mg[a][b]
		}
	}
	ps := newPairs(mg)
	alive := ps.alive
	for {
		ba, bb := ps.best()
		if ba < 0 {
			break
		}
		// Record what they share, then merge bb into ba.
		x, y := pr[ba], pr[bb]
		if reasons {
			if contrib[ba] == nil {
				contrib[ba] = map[key]float64{}
			}
			shared(x, y, func(kk key, w, v float64) {
				contrib[ba][kk] += m.weights[kk.block] * w * v / math.Sqrt(x.norm2[kk.block]*y.norm2[kk.block])
			})
			for _, kk := range sortedKeys(contrib[bb]) {
				contrib[ba][kk] += contrib[bb][kk]
			}
		}
		m.add(x, y)
		for c := range k {
			// ba now holds bb's tokens too.
			sh[ba*k+c] = sh[ba*k+c] || sh[bb*k+c]
			sh[c*k+ba] = sh[ba*k+c]
		}
		cl[ba] = append(cl[ba], cl[bb]...)
		alive[bb] = false
		for c := range k {
			if alive[c] && c != ba {
				mg[ba][c] = margin(ba, c)
				mg[c][ba] = mg[ba][c]
			}
		}
		ps.merged(ba, bb)
	}
	type out struct {
		grp []int32
		rs  []Reason
	}
	var res []out
	for a := range k {
		if !alive[a] {
			continue
		}
		slices.Sort(cl[a])
		o := out{grp: cl[a]}
		if reasons {
			o.rs = m.reasons(contrib[a], pr[a])
		}
		res = append(res, o)
	}
	slices.SortStableFunc(res, func(a, b out) int {
		if len(a.grp) != len(b.grp) {
			return len(b.grp) - len(a.grp)
		}
		return int(a.grp[0] - b.grp[0])
	})
	gs := make([][]int32, len(res))
	rs := make([][]Reason, len(res))
	for i, o := range res {
		gs[i], rs[i] = o.grp, o.rs
	}
	return gs, rs
}

// sharing returns which profiles share a token of a block whose weight
// is not 0 (row-major, k x k): the margins of the others need no walk
// over their tokens (tokenless). On a knowledge graph most pieces of a
// neighbourhood share no venue, and a walk over every pair was most of
// a merge.
func (m *Model) sharing(pr []*profile) []bool {
	k := len(pr)
	sh := make([]bool, k*k)
	type tok struct {
		k key
		p int32
	}
	var toks []tok
	for i, p := range pr {
		for _, kk := range p.keys {
			if m.weights[kk.block] != 0 {
				toks = append(toks, tok{kk, int32(i)})
			}
		}
	}
	slices.SortFunc(toks, func(a, b tok) int {
		if c := keyCmp(a.k, b.k); c != 0 {
			return c
		}
		return int(a.p - b.p)
	})
	for lo := 0; lo < len(toks); {
		hi := lo + 1
		for hi < len(toks) && toks[hi].k == toks[lo].k {
			hi++
		}
		for x := lo; x < hi; x++ {
			for y := lo; y < x; y++ {
				a, b := int(toks[x].p), int(toks[y].p)
				sh[a*k+b], sh[b*k+a] = true, true
			}
		}
		lo = hi
	}
	return sh
}

// pairs finds the pair of live groups to merge next: the largest positive
// margin, the first pair (a < b, in row order) among equals, as a scan of
// every pair would; each row keeps its best, so a merge costs the rows it
// touches instead of a scan of all pairs.
type pairs struct {
	mg    [][]float64 // symmetric margins
	alive []bool
	col   []int     // per row a: the first b > a with the row's largest positive margin, -1 for none
	val   []float64 // its margin
}

func newPairs(mg [][]float64) *pairs {
	k := len(mg)
	p := &pairs{mg: mg, alive: make([]bool, k), col: make([]int, k), val: make([]float64, k)}
	for a := range k {
		p.alive[a] = true
	}
	for a := range k {
		p.row(a)
	}
	return p
}

// row recomputes row a's best.
func (p *pairs) row(a int) {
	p.col[a], p.val[a] = -1, 0
	for b := a + 1; b < len(p.mg); b++ {
		if p.alive[b] && p.mg[a][b] > p.val[a] {
			p.col[a], p.val[a] = b, p.mg[a][b]
		}
	}
}

// best returns the pair to merge, or -1, -1 when no margin is positive.
func (p *pairs) best() (int, int) {
	ba, best := -1, 0.0
	for a, c := range p.col {
		if p.alive[a] && c >= 0 && p.val[a] > best {
			ba, best = a, p.val[a]
		}
	}
	if ba < 0 {
		return -1, -1
	}
	return ba, p.col[ba]
}

// merged updates the rows after bb (now dead) was merged into ba, whose
// margins with every live group changed.
func (p *pairs) merged(ba, bb int) {
	for a := range p.col {
		switch {
		case !p.alive[a]:
		case a == ba || p.col[a] == ba || p.col[a] == bb:
			p.row(a)
		case a < ba:
			if v := p.mg[a][ba]; v > p.val[a] || (v == p.val[a] && v > 0 && ba < p.col[a]) {
				p.col[a], p.val[a] = ba, v
			}
		}
	}
}

// maxReasons is the number of reasons kept per group.
const maxReasons = 5

func (m *Model) reasons(contrib map[key]float64, p *profile) []Reason {
	if len(contrib) == 0 {
		return nil
	}
	var out []Reason
	for _, k := range sortedKeys(contrib) {
		w := contrib[k]
		if w <= 0 {
			continue
		}
		r := Reason{Node: -1, Weight: w}
		switch {
		case int(k.block) < m.nKinds:
			r.Kind, r.Node = m.c.Kinds[k.block], int(k.id)
		case int(k.block) == m.nKinds:
			r.Node = int(k.id)
		default:
			t := int(k.block) - m.nKinds - 1
			r.Kind, r.Value = m.c.Properties[m.text[t]].Name, m.wordList[t][k.id]
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Reason) int {
		if a.Weight != b.Weight {
			if a.Weight > b.Weight {
				return -1
			}
			return 1
		}
		if a.Node != b.Node {
			return a.Node - b.Node
		}
		return strings.Compare(a.Value, b.Value)
	})
	out = out[:min(len(out), maxReasons)]
	for t, q := range m.numeric {
		if p.count[t] > 0 && m.weights[m.nTokenBlocks()+t] > 0 {
			out = append(out, Reason{Kind: m.c.Properties[q].Name, Node: -1,
				Value: strconv.FormatFloat(p.sum[t]/p.count[t], 'f', 0, 64), Weight: m.weights[m.nTokenBlocks()+t]})
		}
	}
	return out
}

// MergeAll merges the groups of many neighbourhoods on up to workers
// goroutines; the result does not depend on workers.
func (m *Model) MergeAll(ctx context.Context, groups [][][]int32, workers int) ([][][]int32, [][][]Reason, error) {
	return m.mergeAll(ctx, groups, workers, true)
}

// MergeGroups is MergeAll without the reasons, which cost a good share
// of a merge: the groups alone, for the entity estimates.
func (m *Model) MergeGroups(ctx context.Context, groups [][][]int32, workers int) ([][][]int32, error) {
	gs, _, err := m.mergeAll(ctx, groups, workers, false)
	return gs, err
}

func (m *Model) mergeAll(ctx context.Context, groups [][][]int32, workers int, reasons bool) ([][][]int32, [][][]Reason, error) {
	gs := make([][][]int32, len(groups))
	rs := make([][][]Reason, len(groups))
	workers = min(parallel.WorkerCount(workers), max(1, len(groups)))
	err := parallel.ForChunks(ctx, workers, len(groups), func(_, k int) {
		if len(groups[k]) > 0 {
			gs[k], rs[k] = m.merge(groups[k], reasons)
		}
	})
	return gs, rs, err
}

func sortedKeys(mp map[key]float64) []key {
	ks := make([]key, 0, len(mp))
	for k := range mp {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, keyCmp)
	return ks
}
