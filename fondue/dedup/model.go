package dedup

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// Features. The graph part compares two profiles; the name part two names.
// No size feature: split pieces are smaller than whole nodes, so a size
// weight would learn the split, not duplicates (dev half: AP .746 -> .750
// without it, variant AP .482 -> .489).
// "linked neighbours" is for graphs whose every node is a target (no
// papers between people): the share of each one's neighbours linked to the
// other's; where neighbours are never targets it is 0 and weighs 0.
var graphFeatures = []string{"shared co-authors (log)", "co-author overlap", "shared neighbours (log)",
	"context cosine", "title-word cosine", "linked neighbours"}

var nameFeatures = []string{"same folded name", "same letters (spacing differs)", "equal tokens", "nickname/short tokens", "initial matches",
	"unmatched name parts", "unmatched initials", "reordered", "first names differ", "same last token",
	"Jaro-Winkler", "rarity of shared token", "tokens one letter apart"}

func (e *engine) nGraph() int { return len(graphFeatures) + len(e.nums) }

// graphVec writes the graph features of two profiles into x.
func (e *engine) graphVec(p, q *profile, x []float64) {
	soft, _ := e.softCo(p, q)
	co := float64(intersect(p.co, q.co)) + soft
	x[0] = math.Log1p(co)
	if m := min(len(p.co), len(q.co)); m > 0 {
		x[1] = co / float64(m)
	} else {
		x[1] = 0
	}
	x[2] = 0
	if !e.allTargets {
		// the pieces of a split share no neighbour by construction, so the
		// weight learned says a shared neighbour (a paper) is evidence
		// against: two name strings on one paper are (almost) never one
		// person. When neighbours are targets too (people), two records of
		// one person may share a friend: not counted
		x[2] = math.Log1p(float64(intersect(p.hop1, q.hop1)))
	}
	x[3] = cosine(p.ctx, q.ctx, p.ctxN, q.ctxN, e.ctxIDF, nil)
	x[4] = cosine(p.words, q.words, p.wordN, q.wordN, e.wordIDF, nil)
	x[5] = 0
	if d := len(p.hop1) + len(q.hop1); d > 0 {
		x[5] = float64(intersect(p.hop1, q.co)+intersect(q.hop1, p.co)) / float64(d)
	}
	// numeric properties (years): the gap between the two ranges, 0 when
	// they overlap or one is unknown
	for k := range e.nums {
		gap := 0.0
		if !math.IsNaN(p.lo[k]) && !math.IsNaN(q.lo[k]) {
			gap = max(0, max(p.lo[k], q.lo[k])-min(p.hi[k], q.hi[k]))
		}
		x[len(graphFeatures)+k] = math.Log1p(gap)
	}
}

// nameVec writes the name features of two folded names into x.
func (e *engine) nameVec(a, b *name, x []float64) {
	for i := range x {
		x[i] = 0
	}
	if len(a.tokens) == 0 || len(b.tokens) == 0 {
		return
	}
	al := align(a.tokens, b.tokens)
	x[0] = b2f(sameTokens(a, b))
	x[1] = b2f(a.compact == b.compact && x[0] == 0)
	x[2] = float64(al.exact)
	x[3] = float64(al.nick)
	x[4] = float64(al.initial)
	x[5] = float64(al.freeA + al.freeB)
	x[6] = float64(al.initA + al.initB)
	x[7] = b2f(!al.inOrder)
	x[8] = b2f(al.firstConflict)
	x[9] = b2f(al.lastEqual)
	x[10] = jaroWinkler(a.compact, b.compact)
	x[11] = e.rareShared(a, b)
	x[12] = float64(al.near)
}

func (e *engine) rareShared(a, b *name) float64 {
	best := 0.0
	for _, t := range a.tokens {
		if len(t) > 1 && slices.Contains(b.tokens, t) {
			best = max(best, e.tokIDF[t])
		}
	}
	return best
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// lambda is the L2 penalty of both fits, on standardised features: small,
// it only keeps separable features finite.
const lambda = 1.0

// model is the fitted scorer: score = name log-odds + graph log-likelihood ratio.
type model struct {
	graph, name          *logit
	llrShift             float64 // graph eta minus this = log-likelihood ratio
	positives, negatives int
	nGraph               int
	numNames             []string
}

func (m *model) weights() []Weight {
	var ws []Weight
	add := func(l *logit, names []string, pre string) {
		for i, nm := range names {
			ws = append(ws, Weight{pre + nm, l.w[i] / l.sd[i]})
		}
	}
	gn := slices.Clone(graphFeatures)
	for _, p := range m.numNames {
		gn = append(gn, p+" gap (log)")
	}
	add(m.graph, gn, "graph: ")
	add(m.name, nameFeatures, "name: ")
	return ws
}

// fit learns the weights in two steps, so that names cannot confound the
// graph. Graph: positives are targets whose neighbours are split in two
// random pieces of unequal sizes (real duplicates often have one paper),
// where the name is the same; negatives random candidate pairs. Names
// (fitNames): a split target's name against a varied copy, and candidate
// pairs with the same words after folding, against the other candidates.
// The score adds the two log-likelihood ratios.
func (e *engine) fit(ctx context.Context, cands []uint64) (*model, error) {
	seed := uint64(e.o.Seed)
	dg := e.nGraph()
	var gx [][]float64
	var gy []float64
	// positives
	split := e.splitSample(seed)
	pos := make([][]float64, len(split))
	if err := parallel.ForChunks(ctx, e.o.Workers, len(split), func(_, i int) {
		t := split[i]
		r := rng.SplitMix{S: rng.StreamSeed(seed, 102, uint64(t), 0)}
		h := slices.Clone(e.prof[t].hop1)
		for k := len(h) - 1; k > 0; k-- {
			j := int(r.Intn(uint32(k + 1)))
			h[k], h[j] = h[j], h[k]
		}
		cut := 1 + int(r.Intn(uint32(len(h)-1)))
		a, b := slices.Clone(h[:cut]), slices.Clone(h[cut:])
		slices.Sort(a)
		slices.Sort(b)
		pa, pb := e.profileOf(t, a), e.profileOf(t, b)
		x := make([]float64, dg)
		e.graphVec(&pa, &pb, x)
		pos[i] = x
	}); err != nil {
		return nil, err
	}
	negIdx := sample(seqCodes(len(cands)), e.o.Samples, rng.StreamSeed(seed, 103, 0, 0))
	neg := make([][]float64, len(negIdx))
	for i, c := range negIdx {
		a, b := unpair(cands[c])
		x := make([]float64, dg)
		e.graphVec(&e.prof[a], &e.prof[b], x)
		neg[i] = x
	}
	if len(pos) == 0 || len(neg) == 0 {
		return nil, fmt.Errorf("%w (%d nodes with two neighbours or more, %d candidate pairs)", ErrTooLittle, len(pos), len(neg))
	}
	gx = append(append(gx, pos...), neg...)
	for range pos {
		gy = append(gy, 1)
	}
	for range neg {
		gy = append(gy, 0)
	}
	gl, err := fitLogit(gx, gy, nil, lambda)
	if err != nil {
		return nil, err
	}
	m := &model{graph: gl, llrShift: math.Log(float64(len(pos)) / float64(len(neg))),
		positives: len(pos), negatives: len(neg), nGraph: dg}
	for _, p := range e.nums {
		m.numNames = append(m.numNames, p.Name)
	}
	unseen, err := e.fitNames(m, split, cands, seed)
	if err != nil {
		return nil, err
	}
	if err := e.fitUnseen(ctx, m, cands, unseen, seed); err != nil {
		return nil, err
	}
	return m, nil
}

// splitSample returns up to Samples targets of two neighbours or more, to
// be split (the positives).
func (e *engine) splitSample(seed uint64) []int32 {
	var split []int32
	for _, t := range e.targets {
		if len(e.prof[t].hop1) >= 2 {
			split = append(split, t)
		}
	}
	return sample(split, e.o.Samples, rng.StreamSeed(seed, 101, 0, 0))
}

// sample returns up to k items of s chosen by a seeded shuffle, in order.
func sample[T any](s []T, k int, seed uint64) []T {
	if len(s) <= k {
		return s
	}
	r := rng.SplitMix{S: seed}
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	for i := 0; i < k; i++ {
		j := i + int(r.Intn(uint32(len(s)-i)))
		idx[i], idx[j] = idx[j], idx[i]
	}
	idx = idx[:k]
	slices.Sort(idx)
	out := make([]T, k)
	for i, j := range idx {
		out[i] = s[j]
	}
	return out
}

func seqCodes(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// score is the log-odds of a pair.
func (e *engine) score(m *model, a, b int32, xg, xn []float64) float64 {
	e.graphVec(&e.prof[a], &e.prof[b], xg)
	e.nameVec(&e.names[a], &e.names[b], xn)
	return m.name.eta(xn) + m.graph.eta(xg) - m.llrShift
}

func (e *engine) scoreAll(ctx context.Context, m *model, cands []uint64) ([]float64, error) {
	scores := make([]float64, len(cands))
	const chunk = 4096
	err := parallel.ForChunks(ctx, e.o.Workers, (len(cands)+chunk-1)/chunk, func(_, c int) {
		xg := make([]float64, m.nGraph)
		xn := make([]float64, len(nameFeatures))
		for i := c * chunk; i < min(len(cands), (c+1)*chunk); i++ {
			a, b := unpair(cands[i])
			scores[i] = e.score(m, a, b, xg, xn)
		}
	})
	return scores, err
}

// reasons explains a pair in plain words, strongest first.
func (e *engine) reasons(m *model, a, b int) []Reason {
	xg := make([]float64, m.nGraph)
	xn := make([]float64, len(nameFeatures))
	pa, pb := &e.prof[a], &e.prof[b]
	e.graphVec(pa, pb, xg)
	na, nb := &e.names[a], &e.names[b]
	e.nameVec(na, nb, xn)
	var rs []Reason
	add := func(kind, text string, w float64) {
		if text != "" {
			rs = append(rs, Reason{kind, text, w})
		}
	}
	// name
	nw := 0.0
	for i := range xn {
		nw += m.name.contrib(i, xn[i])
	}
	add("name", e.nameText(a, b, na, nb), nw)
	gc := func(i int) float64 { return m.graph.contrib(i, xg[i]) }
	co := intersect(pa.co, pb.co)
	soft := ""
	if _, n := e.softCo(pa, pb); n > 0 {
		soft = fmt.Sprintf(" (+%d likely the same as one of the other's)", n)
	}
	switch {
	case e.allTargets && co > 0: // no papers between: the nodes two links away
		add("co-authors", plural(co, "shared node")+" two links away", gc(0)+gc(1))
	case e.allTargets:
		add("co-authors", "no shared node two links away", gc(0)+gc(1))
	case co > 0:
		add("co-authors", plural(co, "shared co-author")+soft, gc(0)+gc(1))
	default:
		add("co-authors", "no shared co-author"+soft, gc(0)+gc(1))
	}
	if sh := intersect(pa.hop1, pb.hop1); sh > 0 {
		add("shared", plural(sh, "shared neighbour")+" (both linked to one node)", gc(2))
	}
	if ln := intersect(pa.hop1, pb.co) + intersect(pb.hop1, pa.co); ln > 0 {
		add("linked", fmt.Sprintf("%d of %d neighbours linked to the other's", ln, len(pa.hop1)+len(pb.hop1)), gc(5))
	}
	if txt := e.topShared(pa.ctx, pb.ctx, pa.ctxN, pb.ctxN, e.ctxIDF, func(id int32) string {
		nm := e.in.Names[id]
		if nm == "" {
			nm = e.in.Graph.Key(int(id))
		}
		if c := e.in.Context; c != nil && c.Kind != nil && c.Kind[id] >= 0 {
			nm = strings.ToLower(c.Kinds[c.Kind[id]]) + " " + nm
		}
		return nm
	}); txt != "" {
		add("context", txt, gc(3))
	}
	if txt := e.topShared(pa.words, pb.words, pa.wordN, pb.wordN, e.wordIDF, func(id int32) string {
		_, w, _ := strings.Cut(e.vocab[id], ":")
		return w
	}); txt != "" {
		add("words", "title words "+txt, gc(4))
	}
	for k, p := range e.nums {
		if math.IsNaN(pa.lo[k]) || math.IsNaN(pb.lo[k]) {
			continue
		}
		w := m.graph.contrib(len(graphFeatures)+k, xg[len(graphFeatures)+k])
		lo, hi := max(pa.lo[k], pb.lo[k]), min(pa.hi[k], pb.hi[k])
		if lo <= hi {
			add("years", fmt.Sprintf("%s %s", p.Name, span(lo, hi)), w)
		} else {
			add("years", fmt.Sprintf("%s %s vs %s", p.Name, span(pa.lo[k], pa.hi[k]), span(pb.lo[k], pb.hi[k])), w)
		}
	}
	if ch, ok := e.chains[uint64(min(a, b))<<32|uint64(max(a, b))]; ok {
		nm := e.in.Names[ch.via]
		if nm == "" {
			nm = e.in.Graph.Key(int(ch.via))
		}
		add("transitive", fmt.Sprintf("both likely the same as %q", nm), ch.lift)
	}
	slices.SortStableFunc(rs, func(x, y Reason) int {
		switch {
		case x.Weight > y.Weight:
			return -1
		case x.Weight < y.Weight:
			return 1
		}
		return 0
	})
	return rs
}

func span(lo, hi float64) string {
	if lo == hi {
		return fmt.Sprintf("%g", lo)
	}
	return fmt.Sprintf("%g-%g", lo, hi)
}

func plural(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return fmt.Sprintf("%d %ss", n, s)
}

// topShared names the (up to 3) shared terms that count most.
func (e *engine) topShared(a, b []term, na, nb float64, idf []float64, label func(int32) string) string {
	type tw struct {
		id int32
		w  float64
	}
	var ts []tw
	cosine(a, b, na, nb, idf, func(id int32, w float64) { ts = append(ts, tw{id, w}) })
	if len(ts) == 0 {
		return ""
	}
	slices.SortStableFunc(ts, func(x, y tw) int {
		switch {
		case x.w > y.w:
			return -1
		case x.w < y.w:
			return 1
		}
		return int(x.id - y.id)
	})
	var parts []string
	for _, t := range ts[:min(3, len(ts))] {
		parts = append(parts, label(t.id))
	}
	s := strings.Join(parts, ", ")
	if len(ts) > 3 {
		s += fmt.Sprintf(" (+%d)", len(ts)-3)
	}
	return s
}

// nameText says how two names relate.
func (e *engine) nameText(a, b int, na, nb *name) string {
	if len(na.tokens) == 0 || len(nb.tokens) == 0 {
		return ""
	}
	if na.compact == nb.compact {
		sa, sb := e.in.Names[a], e.in.Names[b]
		switch {
		case na.lower == nb.lower && strings.EqualFold(strings.Join(strings.Fields(sa), " "), strings.Join(strings.Fields(sb), " ")):
			return "same name up to case"
		case na.lower == nb.lower:
			return "same name up to case, punctuation or spacing"
		}
		return "same name after folding accents"
	}
	al := align(na.tokens, nb.tokens)
	var parts []string
	if al.exact > 0 && al.freeA+al.freeB == 0 && al.nick == 0 && al.initial == 0 && !al.inOrder {
		return "same names in another order"
	}
	if al.nick > 0 {
		parts = append(parts, "short form or nickname")
	}
	if al.near > 0 {
		parts = append(parts, "spelling one letter apart")
	}
	if al.initial > 0 && al.freeA+al.freeB == 0 {
		parts = append(parts, "initials agree")
	}
	if !al.inOrder {
		parts = append(parts, "order differs")
	}
	if al.firstConflict {
		parts = append(parts, "first names differ")
	} else if n := al.freeA + al.freeB; n > 0 {
		parts = append(parts, plural(n, "unmatched name part"))
	}
	if tok, n := e.rarestShared(na, nb); n > 0 {
		parts = append(parts, fmt.Sprintf("%q in %s", tok, plural(n, "name")))
	}
	return strings.Join(parts, ", ")
}

// fitNames fits the name weights: positives are the names of the split
// targets against a varied copy (vary), negatives the candidate pairs.
// It returns the features that no positive holds (fitUnseen).
func (e *engine) fitNames(m *model, split []int32, cands []uint64, seed uint64) ([]int, error) {
	var x [][]float64
	var y []float64
	for _, t := range split {
		if len(e.names[t].tokens) == 0 {
			continue // no name: nothing to vary
		}
		r := rng.SplitMix{S: rng.StreamSeed(seed, 105, uint64(t), 0)}
		v := vary(e.names[t], &r)
		row := make([]float64, len(nameFeatures))
		e.nameVec(&e.names[t], &v, row)
		x = append(x, row)
		y = append(y, 1)
	}
	// candidate pairs: the same words after folding are (weak) positives, as
	// a normalising ingestion would merge them; other names negatives, but
	// not the same letters spaced differently (neither: fitUnseen weighs them).
	npos, nneg := len(x), 0
	var negs []int
	for i, c := range cands {
		a, b := unpair(c)
		na, nb := &e.names[a], &e.names[b]
		switch {
		case len(na.tokens) == 0 || len(nb.tokens) == 0:
			// a pair without a name says nothing about names
		case sameTokens(na, nb):
			row := make([]float64, len(nameFeatures))
			e.nameVec(na, nb, row)
			x = append(x, row)
			y = append(y, 1)
			npos++
		case na.compact != nb.compact:
			negs = append(negs, i)
		}
	}
	for _, c := range sample(negs, 2*e.o.Samples, rng.StreamSeed(seed, 106, 0, 0)) {
		a, b := unpair(cands[c])
		row := make([]float64, len(nameFeatures))
		e.nameVec(&e.names[a], &e.names[b], row)
		x = append(x, row)
		y = append(y, 0)
		nneg++
	}
	if npos == 0 || nneg == 0 {
		// no names, or no two kinds of name pair to learn from: the names
		// add nothing (a log-ratio of a zero count would be infinite)
		m.name = zeroLogit(len(nameFeatures))
		return nil, nil
	}
	nl, err := fitLogit(x, y, nil, lambda)
	if err != nil {
		return nil, err
	}
	nl.b -= math.Log(float64(npos) / float64(nneg))
	m.name = nl
	// the features no positive holds: held by negatives alone (one letter
	// apart), or by no row (the same letters spaced differently, neither)
	var unseen []int
	for j := range nameFeatures {
		inPos := false
		for r, row := range x {
			inPos = inPos || row[j] != 0 && y[r] == 1
		}
		if !inPos {
			unseen = append(unseen, j)
		}
	}
	return unseen, nil
}

// sameTokens: the same words after folding case, accents and punctuation.
func sameTokens(a, b *name) bool { return slices.Equal(a.tokens, b.tokens) }

// rarestShared returns the shared token of 2+ letters in fewest target
// names, and that number (0 when none).
func (e *engine) rarestShared(a, b *name) (string, int) {
	best, bn := "", 0
	for _, t := range a.tokens {
		if len(t) > 1 && slices.Contains(b.tokens, t) {
			if n := e.tokCount[t]; bn == 0 || n < bn || n == bn && t < best {
				best, bn = t, n
			}
		}
	}
	return best, bn
}
