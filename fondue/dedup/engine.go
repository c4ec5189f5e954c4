package dedup

import (
	"context"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
)

// engine holds what Find derives from the input once.
type engine struct {
	in       Input
	o        Options
	targets  []int32 // sorted target nodes
	isTarget []bool
	// allTargets: every node is a target (an edge list, a paper graph):
	// then all neighbours are evidence, not only the non-targets
	allTargets bool
	names      []name // per node (targets only filled)
	tokIDF     map[string]float64
	tokCount   map[string]int // target names holding each token

	// node words of text properties (non-target nodes), word ids sorted unique
	words   [][]int32
	vocab   []string
	wordIDF []float64
	ctxIDF  []float64 // per node as a context node: log(N / degree)
	nums    []*evidence.Property
	prof    []profile // per node (targets only filled)
	// partners: per node its likely duplicates (resolve), nil before
	partners [][]partner
	chains   map[uint64]chain // pairs raised by a chain (transitive)
}

// profile is what the graph says about one target (or one piece of it).
type profile struct {
	hop1  []int32   // non-target neighbours (all when every node is a target), sorted
	co    []int32   // targets two hops away, sorted unique, self excluded
	ctx   []term    // non-target nodes two hops away, by node
	words []term    // title words of the neighbours
	lo    []float64 // per numeric property: smallest value over neighbours (NaN none)
	hi    []float64
	ctxN  float64 // tf-idf norms
	wordN float64
}

type term struct {
	id int32
	n  float32
}

func newEngine(in Input, o Options) *engine {
	n := in.Graph.NumNodes()
	e := &engine{in: in, o: o, isTarget: make([]bool, n)}
	if in.Targets == nil {
		for i := 0; i < n; i++ {
			e.isTarget[i] = true
		}
	} else {
		for _, t := range in.Targets {
			e.isTarget[t] = true
		}
	}
	for i, t := range e.isTarget {
		if t {
			e.targets = append(e.targets, int32(i))
		}
	}
	e.allTargets = len(e.targets) == n
	return e
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the of for and or in on at to from by with without into via
		using based towards toward as is are be its their our we this that these those new
		approach approaches method methods system systems study analysis task tasks model models`) {
		m[w] = true
	}
	return m
}()

// prepare folds the names and builds the profiles.
func (e *engine) prepare(ctx context.Context) error {
	g := e.in.Graph
	n := g.NumNodes()
	e.names = make([]name, n)
	df := map[string]int{}
	for _, t := range e.targets {
		nm := parseName(e.in.Names[t])
		if letters(nm.compact) < 2 {
			nm = name{} // an id such as "4711" or "a:7": not a name
		}
		e.names[t] = nm
		seen := map[string]bool{}
		for _, tok := range nm.tokens {
			if len(tok) > 1 && !seen[tok] {
				seen[tok] = true
				df[tok]++
			}
		}
	}
	e.tokCount = df
	e.tokIDF = make(map[string]float64, len(df))
	nt := float64(len(e.targets))
	for tok, c := range df {
		e.tokIDF[tok] = math.Log(nt / float64(c))
	}
	e.ctxIDF = make([]float64, n)
	for i := 0; i < n; i++ {
		e.ctxIDF[i] = math.Log(float64(n) / float64(max(1, g.Degree(i))))
	}
	// words of the text properties of non-target nodes
	e.words = make([][]int32, n)
	ids := map[string]int32{}
	var wdf []int
	if c := e.in.Context; c != nil {
		for pi := range c.Properties {
			p := &c.Properties[pi]
			if p.Numeric {
				e.nums = append(e.nums, p)
				continue
			}
			for i, s := range p.Text {
				if s == "" || e.isTarget[i] {
					continue
				}
				for _, w := range evidence.Words(s) {
					if len(w) < 2 || stopWords[w] || isNumber(w) {
						continue
					}
					w = p.Name + ":" + w
					id, ok := ids[w]
					if !ok {
						id = int32(len(e.vocab))
						ids[w] = id
						e.vocab = append(e.vocab, w)
						wdf = append(wdf, 0)
					}
					e.words[i] = append(e.words[i], id)
				}
			}
		}
	}
	docs := 0
	for i := range e.words {
		if len(e.words[i]) == 0 {
			continue
		}
		docs++
		slices.Sort(e.words[i])
		e.words[i] = slices.Compact(e.words[i])
		for _, w := range e.words[i] {
			wdf[w]++
		}
	}
	e.wordIDF = make([]float64, len(wdf))
	for w, c := range wdf {
		e.wordIDF[w] = math.Log(float64(max(docs, 1)) / float64(c))
	}
	e.prof = make([]profile, n)
	const chunk = 1024
	return parallel.ForChunks(ctx, e.o.Workers, (len(e.targets)+chunk-1)/chunk, func(_, c int) {
		for _, t := range e.targets[c*chunk : min(len(e.targets), (c+1)*chunk)] {
			e.prof[t] = e.profileOf(t, e.hop1(t))
		}
	})
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (e *engine) hop1(t int32) []int32 {
	var h []int32
	for _, v := range e.in.Graph.Neighbors(int(t)) {
		if e.allTargets || !e.isTarget[v] {
			h = append(h, v)
		}
	}
	slices.Sort(h)
	return slices.Compact(h)
}

// profileOf builds the profile of target t seen through the neighbours hop1
// (all of them, or one piece of a split).
func (e *engine) profileOf(t int32, hop1 []int32) profile {
	g := e.in.Graph
	p := profile{hop1: hop1}
	ctxc := map[int32]float32{}
	wc := map[int32]float32{}
	p.lo = make([]float64, len(e.nums))
	p.hi = make([]float64, len(e.nums))
	for k := range e.nums {
		p.lo[k], p.hi[k] = math.NaN(), math.NaN()
		if v := e.nums[k].Number[t]; !math.IsNaN(v) {
			p.lo[k], p.hi[k] = v, v
		}
	}
	for _, h := range hop1 {
		for _, w := range e.words[h] {
			wc[w]++
		}
		for k, np := range e.nums {
			if v := np.Number[h]; !math.IsNaN(v) {
				if math.IsNaN(p.lo[k]) || v < p.lo[k] {
					p.lo[k] = v
				}
				if math.IsNaN(p.hi[k]) || v > p.hi[k] {
					p.hi[k] = v
				}
			}
		}
		if g.Degree(int(h)) > e.o.MaxFanout {
			continue
		}
		for _, v := range g.Neighbors(int(h)) {
			switch {
			case v == t:
			case e.isTarget[v]:
				p.co = append(p.co, v)
			default:
				ctxc[v]++
			}
		}
	}
	slices.Sort(p.co)
	p.co = slices.Compact(p.co)
	p.ctx, p.ctxN = terms(ctxc, e.ctxIDF)
	p.words, p.wordN = terms(wc, e.wordIDF)
	return p
}

func terms(m map[int32]float32, idf []float64) ([]term, float64) {
	ts := make([]term, 0, len(m))
	for id, c := range m {
		ts = append(ts, term{id, c})
	}
	slices.SortFunc(ts, func(a, b term) int { return int(a.id - b.id) })
	norm := 0.0 // summed in id order: map order would change the last bits
	for _, t := range ts {
		w := float64(t.n) * idf[t.id]
		norm += w * w
	}
	return ts, math.Sqrt(norm)
}

// cosine of the tf-idf vectors; fn sees each shared term's contribution.
func cosine(a, b []term, na, nb float64, idf []float64, fn func(id int32, w float64)) float64 {
	if na == 0 || nb == 0 {
		return 0
	}
	s := 0.0
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].id < b[j].id:
			i++
		case a[i].id > b[j].id:
			j++
		default:
			w := float64(a[i].n) * float64(b[j].n) * idf[a[i].id] * idf[a[i].id]
			s += w
			if fn != nil {
				fn(a[i].id, w)
			}
			i++
			j++
		}
	}
	return s / (na * nb)
}

func intersect(a, b []int32) int {
	c, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			c++
			i++
			j++
		}
	}
	return c
}
