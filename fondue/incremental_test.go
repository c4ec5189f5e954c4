package fondue

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// sameFloats reports whether a and b are equal bit for bit (NaN equal to NaN).
func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// night scores g from state (nil: a first, full night) and returns the
// result and the state it leaves, through a file.
func night(t *testing.T, g *graph.Graph, opts Options, state *State) (*Result, *State) {
	t.Helper()
	opts.KeepState, opts.Since = true, state
	res, err := Score(context.Background(), g, opts)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state")
	if err := res.State(g, opts).WriteFile(path); err != nil {
		t.Fatal(err)
	}
	s, err := ReadStateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return res, s
}

func TestIncrementalUnchangedIsIdentical(t *testing.T) {
	g := testkit.ReadGraph(t, "netscience")
	for _, method := range []string{score.MethodCombined, score.MethodFONDUE} {
		for _, w := range []int{1, 4} {
			opts := Options{Method: method, Seed: 3, Workers: w}
			first, st := night(t, g, opts, nil)
			second, _ := night(t, g, opts, st)
			inc := second.Incremental
			if inc == nil || inc.Full || inc.Changed != 0 || inc.Trained != 0 || inc.Rescored != 0 || inc.Reused != g.NumNodes() {
				t.Fatalf("%s/%d: unchanged graph: %+v", method, w, inc)
			}
			if second.CNE.Epochs != 0 {
				t.Fatalf("%s/%d: %d epochs on an unchanged graph", method, w, second.CNE.Epochs)
			}
			if !sameFloats(first.Scores, second.Scores) || !sameFloats(first.Ambiguity, second.Ambiguity) ||
				!slices.Equal(first.Entities, second.Entities) || !slices.Equal(first.Sure, second.Sure) ||
				!sameFloats(first.Embedding.X, second.Embedding.X) {
				t.Fatalf("%s/%d: the second night differs from the first", method, w)
			}
		}
	}
}

// bruteRescore returns the nodes of h to rescore after g, by the rules
// of Options.MoveTolerance and RefitShare written out on key sets: a node
// that is new or whose neighbours' keys differ is changed. Exact (tol <
// 0): the changed nodes and their neighbours. Else a node is rescored
// when it is new, lost a neighbour that left the graph or became scored
// or unscored (oldScored), or when its own added and removed links, and
// its changed neighbours c that are new, moved (vectors before and
// after, by key) at least tol, or have an added or removed partner x
// that is its neighbour or shares a neighbour other than c with it, make
// up at least share of its links (of the larger degree; any, share 0).
func bruteRescore(g, h *graph.Graph, before, after func(key string) []float64, tol, share float64, oldScored func(key string) bool) []bool {
	nbKeys := func(x *graph.Graph, i int) map[string]bool {
		ks := map[string]bool{}
		for _, j := range x.Neighbors(i) {
			ks[x.Key(int(j))] = true
		}
		return ks
	}
	diff := func(a, b map[string]bool) []string {
		var d []string
		for x := range a {
			if !b[x] {
				d = append(d, x)
			}
		}
		for x := range b {
			if !a[x] {
				d = append(d, x)
			}
		}
		return d
	}
	n := h.NumNodes()
	changed := make([]bool, n)
	for i := range changed {
		k, ok := g.Index(h.Key(i))
		changed[i] = !ok || !maps.Equal(nbKeys(g, k), nbKeys(h, i))
	}
	out := make([]bool, n)
	for i := range out {
		key := h.Key(i)
		k, ok := g.Index(key)
		// An unchanged node that moved (re-fitted with RefitHops).
		movedBy := func(j int) float64 {
			if changed[j] {
				return 0
			}
			return moved(before(h.Key(j)), after(h.Key(j)))
		}
		if tol < 0 {
			out[i] = changed[i] || movedBy(i) > 0
			for _, c := range h.Neighbors(i) {
				out[i] = out[i] || changed[c] || movedBy(int(c)) > 0
			}
			continue
		}
		if movedBy(i) >= tol {
			out[i] = true
		}
		if !ok {
			out[i] = true
			continue
		}
		mine, was := nbKeys(h, i), nbKeys(g, k)
		count := 0
		if changed[i] {
			for x := range was {
				if _, ok := h.Index(x); !ok {
					out[i] = true
				}
			}
			if oldScored(key) != (h.Degree(i) > 0) {
				out[i] = true
			}
			count += len(diff(was, mine))
		}
		for _, c := range h.Neighbors(i) {
			if !changed[c] {
				if movedBy(int(c)) >= tol {
					count++
				}
				continue
			}
			ckey := h.Key(int(c))
			ck, ok := g.Index(ckey)
			if !ok || moved(before(ckey), after(ckey)) >= tol {
				count++
				continue
			}
			reach := false
			for _, x := range diff(nbKeys(g, ck), nbKeys(h, int(c))) {
				xi, ok := h.Index(x)
				if !ok || x == key {
					continue
				}
				if mine[x] {
					reach = true
				}
				for y := range nbKeys(h, xi) {
					if y != ckey && mine[y] {
						reach = true
					}
				}
			}
			if reach {
				count++
			}
		}
		if count > 0 && float64(count) >= share*float64(max(len(mine), len(was))) {
			out[i] = true
		}
	}
	return out
}

// withEdge returns g (same keys) with the edge a-b added, or removed when
// remove is set.
func withEdge(t *testing.T, g *graph.Graph, a, b int, remove bool) *graph.Graph {
	if remove {
		return withEdges(t, g, [][2]int{{a, b}}, nil)
	}
	return withEdges(t, g, nil, [][2]int{{a, b}})
}

// withEdges returns g (same keys) with the edges remove removed and add
// added.
func withEdges(t *testing.T, g *graph.Graph, remove, add [][2]int) *graph.Graph {
	gone := map[[2]int]bool{}
	for _, r := range remove {
		gone[[2]int{min(r[0], r[1]), max(r[0], r[1])}] = true
	}
	var e [][2]int
	for i := range g.NumNodes() {
		for _, j := range g.Neighbors(i) {
			if int(j) > i && !gone[[2]int{i, int(j)}] {
				e = append(e, [2]int{i, int(j)})
			}
		}
	}
	e = append(e, add...)
	keys := make([]string, g.NumNodes())
	for i := range keys {
		keys[i] = g.Key(i)
	}
	h, err := graph.NewGraph(g.NumNodes(), e)
	if err != nil {
		t.Fatal(err)
	}
	if h, err = h.WithKeys(keys); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestIncrementalOneEdge(t *testing.T) {
	g := testkit.ReadGraph(t, "netscience")
	opts := Options{Seed: 3, Workers: 2}
	_, st := night(t, g, opts, nil)
	// A hub's edge removed, and an edge added between two far nodes.
	hub := 0
	for i := range g.NumNodes() {
		if g.Degree(i) > g.Degree(hub) {
			hub = i
		}
	}
	cases := map[string]*graph.Graph{
		"remove": withEdge(t, g, hub, int(g.Neighbors(hub)[0]), true),
		"add":    withEdge(t, g, 5, g.NumNodes()-7, false),
	}
	for name, h := range cases {
		var ref *Result
		for _, w := range []int{1, 4} {
			o := opts
			o.Workers = w
			o.MoveTolerance, o.RefitShare = -1, -1
			res, _ := night(t, h, o, st)
			row := func(e []float64, x *graph.Graph) func(string) []float64 {
				return func(key string) []float64 {
					i, _ := x.Index(key)
					return e[i*8 : (i+1)*8]
				}
			}
			before, after := row(st.Checkpoint.X, g), row(res.Embedding.X, h)
			oldScored := func(key string) bool {
				k, _ := g.Index(key)
				return !math.IsNaN(st.Terms.FONDUE[k])
			}
			if want := bruteRescore(g, h, before, after, -1, 0, oldScored); !slices.Equal(res.rescored, want) {
				t.Fatalf("%s: rescored set differs from the brute-force one", name)
			}
			// A tolerance no move reaches: the rule of the changed links.
			const tol = 1e9
			o.MoveTolerance = tol
			near, _ := night(t, h, o, st)
			if !sameFloats(near.Embedding.X, res.Embedding.X) {
				t.Fatalf("%s: the tolerance changed the embedding", name)
			}
			want := bruteRescore(g, h, before, after, tol, 0, oldScored)
			if !slices.Equal(near.rescored, want) {
				t.Fatalf("%s: rescored set (tolerance %g) differs from the brute-force one", name, tol)
			}
			if near.Incremental.Rescored >= res.Incremental.Rescored {
				t.Fatalf("%s: the tolerance rescored %d nodes, exact %d", name, near.Incremental.Rescored, res.Incremental.Rescored)
			}
			// The defaults: the hub that lost one link of many keeps its
			// vector; the rule of the changed links for its neighbours.
			o.MoveTolerance, o.RefitShare = 0, 0
			def, _ := night(t, h, o, st)
			trained := 2
			if name == "remove" {
				trained = 1
			}
			if def.Incremental.Trained != trained {
				t.Fatalf("%s: defaults trained %d nodes, want %d", name, def.Incremental.Trained, trained)
			}
			if want := bruteRescore(g, h, before, row(def.Embedding.X, h), DefaultMoveTolerance, DefaultRefitShare, oldScored); !slices.Equal(def.rescored, want) {
				t.Fatalf("%s: rescored set (defaults) differs from the brute-force one", name)
			}
			if d, e := def.Incremental.Rescored, res.Incremental.Rescored; d > e || (name == "remove" && d == e) {
				t.Fatalf("%s: the defaults rescored %d nodes, the exact run %d", name, d, e)
			}
			// A ring of one hop: the trained nodes and their neighbours.
			for _, tol := range []float64{-1, 0} {
				o.MoveTolerance, o.RefitHops = tol, 1
				rg, _ := night(t, h, o, st)
				if rg.Incremental.Trained <= def.Incremental.Trained {
					t.Fatalf("%s: a ring of one hop trained %d nodes, without %d", name, rg.Incremental.Trained, def.Incremental.Trained)
				}
				want := bruteRescore(g, h, before, row(rg.Embedding.X, h), o.moveTolerance(), o.refitShare(), oldScored)
				if !slices.Equal(rg.rescored, want) {
					t.Fatalf("%s: rescored set (ring, tolerance %g) differs from the brute-force one", name, tol)
				}
				all := score.NewTerms(score.MethodCombined, h.NumNodes())
				if err := score.EmbeddingTerms(context.Background(), h, rg.Embedding, opts.scoring(), nil, all); err != nil {
					t.Fatal(err)
				}
				if tol < 0 && !sameFloats(all.FONDUE, rg.terms.FONDUE) {
					t.Fatalf("%s: ring, exact: terms differ from a full scoring of the same embedding", name)
				}
			}
			o.RefitHops = 0
			inc := res.Incremental
			if inc.Full || inc.Changed != 2 || inc.Trained != 2 {
				t.Fatalf("%s: %+v, want 2 changed and trained", name, inc)
			}
			// Every vector but the two changed nodes' is the saved one.
			moved := 0
			for i := range h.NumNodes() {
				if !sameFloats(res.Embedding.Row(i), st.Checkpoint.X[i*8:(i+1)*8]) {
					moved++
				}
			}
			if moved > 2 {
				t.Fatalf("%s: %d vectors moved, want at most the 2 trained", name, moved)
			}
			// The reused terms are those a full scoring of the new
			// embedding gives.
			all := score.NewTerms(score.MethodCombined, h.NumNodes())
			if err := score.EmbeddingTerms(context.Background(), h, res.Embedding, opts.scoring(), nil, all); err != nil {
				t.Fatal(err)
			}
			if !sameFloats(all.FONDUE, res.terms.FONDUE) || !sameFloats(all.Disconnection, res.terms.Disconnection) || !sameFloats(all.Pieces, res.terms.Pieces) {
				t.Fatalf("%s: terms differ from a full scoring of the same embedding", name)
			}
			ents, err := score.Entities(context.Background(), h, res.Scores, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ents, res.Entities) {
				t.Fatalf("%s: entities differ from a full estimate", name)
			}
			if ref != nil && (!sameFloats(ref.Scores, res.Scores) || !slices.Equal(ref.Sure, res.Sure)) {
				t.Fatalf("%s: 4 workers differ from 1", name)
			}
			ref = res
		}
	}
}

func TestIncrementalFallsBackToFull(t *testing.T) {
	g := testkit.ReadGraph(t, "karate")
	opts := Options{Seed: 3}
	_, st := night(t, g, opts, nil)
	dir := t.TempDir()
	ckPath := filepath.Join(dir, "ck")
	if err := st.Checkpoint.WriteFile(ckPath); err != nil {
		t.Fatal(err)
	}
	ck, err := ReadStateFile(ckPath)
	if err != nil {
		t.Fatal(err)
	}
	other := opts
	other.Seed = 4
	dim := opts
	dim.CNE.Dim = 4
	for _, c := range []struct {
		name   string
		opts   Options
		since  *State
		reason string
		warm   bool
	}{
		{"checkpoint", opts, ck, "holds no scores", true},
		{"seed", other, st, "other options", true},
		{"method", Options{Seed: 3, Method: score.MethodFONDUE}, st, "method", true},
		{"dimension", dim, st, "dimension 8", false},
	} {
		res, _ := night(t, g, c.opts, c.since)
		inc := res.Incremental
		if inc == nil || !inc.Full || !strings.Contains(inc.Reason, c.reason) || (res.Warm != nil) != c.warm {
			t.Fatalf("%s: %+v (warm %v), want a full run because of %q", c.name, inc, res.Warm != nil, c.reason)
		}
	}
	// Another graph: below WarmStartMinShare.
	h := testkit.ReadGraph(t, "lesmis")
	o := opts
	o.WarmStartMinShare = 0.5
	relabel := make([]string, h.NumNodes())
	for i := range relabel {
		relabel[i] = "x" + h.Key(i)
	}
	h, _ = h.WithKeys(relabel)
	res, _ := night(t, h, o, st)
	if !res.Incremental.Full || !strings.Contains(res.Incremental.Reason, "shares 0") {
		t.Fatalf("another graph: %+v", res.Incremental)
	}
}

// oldVersion turns the bytes of a state file, without its checksum, into
// a file of an older version: the version in the header, FNV-64a after.
func oldVersion(b []byte, version uint32) []byte {
	binary.LittleEndian.PutUint32(b[8:], version)
	h := fnv.New64a()
	h.Write(b)
	return binary.LittleEndian.AppendUint64(b, h.Sum64())
}

// A version 1 state file (before the evidence) is still read: the same
// state, without evidence, and the next night is incremental.
func TestStateVersion1(t *testing.T) {
	g := testkit.ReadGraph(t, "karate")
	opts := Options{Seed: 3}
	first, st := night(t, g, opts, nil)
	var buf bytes.Buffer
	if err := st.Write(&buf); err != nil {
		t.Fatal(err)
	}
	v2 := buf.Bytes()
	// Version 1: the same bytes without the evidence flag (0 here, after
	// the links) and the checksum, as version 1.
	n := st.Checkpoint.Len()
	flag := 8 + 4 + 1 + len(st.Method) + 8 + 8 + 1 + 8*n + 3*8*n + 4*n + 4*n + 8 + 4*len(st.Neighbors)
	if v2[flag] != 0 {
		t.Fatalf("byte %d is %d, want the evidence flag 0", flag, v2[flag])
	}
	v1 := oldVersion(slices.Concat(v2[:flag], v2[flag+1:len(v2)-4]), 1)
	back, err := ReadState(bytes.NewReader(v1))
	if err != nil {
		t.Fatal(err)
	}
	if back.Digest != st.Digest || !slices.Equal(back.Fingerprints, st.Fingerprints) || !slices.Equal(back.Neighbors, st.Neighbors) ||
		!sameFloats(back.Checkpoint.X, st.Checkpoint.X) || back.EvidenceEntities != nil {
		t.Fatal("version 1: another state")
	}
	second, _ := night(t, g, opts, back)
	if s := second.Incremental; s == nil || s.Full || !sameFloats(first.Scores, second.Scores) {
		t.Fatalf("from version 1: %+v", s)
	}
}

// With a Context the state holds the evidence: its digest, estimates and
// fingerprints survive a round trip, a version 3 file (FNV-64a) is still
// read, and a version 2 file (without the fingerprints), without them.
func TestStateVersion2(t *testing.T) {
	_, kg, c := kgPair(t)
	_, st := night(t, kg, Options{Seed: 3, Targets: authors(kg), Context: c}, nil)
	n := st.Checkpoint.Len()
	if st.EvidenceDigest == 0 || len(st.EvidenceEntities) != n || len(st.EvidencePrints) != n {
		t.Fatalf("state without the evidence: digest %x, %d estimates, %d fingerprints for %d rows",
			st.EvidenceDigest, len(st.EvidenceEntities), len(st.EvidencePrints), n)
	}
	var buf bytes.Buffer
	if err := st.Write(&buf); err != nil {
		t.Fatal(err)
	}
	v3 := buf.Bytes()
	back, err := ReadState(bytes.NewReader(v3))
	if err != nil {
		t.Fatal(err)
	}
	if back.EvidenceDigest != st.EvidenceDigest || !slices.Equal(back.EvidenceEntities, st.EvidenceEntities) ||
		!slices.Equal(back.EvidencePrints, st.EvidencePrints) {
		t.Fatal("the evidence changed in a round trip")
	}
	// Version 3: the same bytes with an FNV-64a checksum.
	v3fnv := oldVersion(slices.Clone(v3[:len(v3)-4]), 3)
	if back, err = ReadState(bytes.NewReader(v3fnv)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.EvidencePrints, st.EvidencePrints) || !sameFloats(back.Checkpoint.V, st.Checkpoint.V) {
		t.Fatal("version 3: another state")
	}
	// Version 2: the same bytes without the fingerprints' flag and values
	// (after the estimates) and the checksum, as version 2.
	flag := 8 + 4 + 1 + len(st.Method) + 8 + 8 + 1 + 8*n + 3*8*n + 4*n + 4*n + 8 + 4*len(st.Neighbors)
	prints := flag + 1 + 8 + 4*n
	if v3[flag] != 1 || v3[prints] != 1 {
		t.Fatalf("bytes %d and %d are %d and %d, want the evidence flags 1", flag, prints, v3[flag], v3[prints])
	}
	v2 := oldVersion(slices.Concat(v3[:prints], v3[prints+1+8*n:len(v3)-4]), 2)
	if back, err = ReadState(bytes.NewReader(v2)); err != nil {
		t.Fatal(err)
	}
	if back.EvidenceDigest != st.EvidenceDigest || !slices.Equal(back.EvidenceEntities, st.EvidenceEntities) ||
		back.EvidencePrints != nil || !sameFloats(back.Checkpoint.X, st.Checkpoint.X) {
		t.Fatal("version 2: another state")
	}
}

func TestStateFileErrors(t *testing.T) {
	g := testkit.ReadGraph(t, "karate")
	_, st := night(t, g, Options{Seed: 3}, nil)
	path := filepath.Join(t.TempDir(), "state")
	if err := st.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadStateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Digest != st.Digest || back.Method != st.Method || !slices.Equal(back.Fingerprints, st.Fingerprints) ||
		!sameFloats(back.Terms.Pieces, st.Terms.Pieces) || !slices.Equal(back.Entities, st.Entities) ||
		!sameFloats(back.Checkpoint.X, st.Checkpoint.X) || !sameFloats(back.Checkpoint.V, st.Checkpoint.V) {
		t.Fatal("state changed in a round trip")
	}
	flipped := slices.Clone(data)
	flipped[len(flipped)/2] ^= 0x10
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", data[:len(data)*2/3], "truncated"},
		{"truncated header", data[:10], "truncated"},
		{"corrupted", flipped, "corrupt"},
	} {
		p := filepath.Join(t.TempDir(), "bad")
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadStateFile(p)
		var se *StateError
		if err == nil || !errors.As(err, &se) || se.File != p || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error %v, want a *StateError naming %s and saying %q", c.name, err, p, c.want)
		}
	}
}

// TestIncrementalSubsetTraining checks cne's subset training: frozen rows
// keep their vectors bit for bit, and the result does not depend on the
// workers.
func TestIncrementalSubsetTraining(t *testing.T) {
	g := testkit.ReadGraph(t, "netscience")
	prior, err := cne.FitPrior(context.Background(), g, cne.PriorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []cne.Mode{cne.ModeExact, cne.ModeSampled} {
		o := cne.Options{Mode: mode, MaxEpochs: 300}
		base, _, err := cne.Fit(context.Background(), g, prior, o, cne.Run{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		rows := []int32{3, 40, 41, 200}
		var ref []float64
		for _, w := range []int{1, 4} {
			emb, st, err := cne.Fit(context.Background(), g, prior, o, cne.Run{Seed: 1, Workers: w, Init: base, Trainable: rows})
			if err != nil {
				t.Fatal(err)
			}
			if st.Epochs == 0 {
				t.Fatalf("%v: no epoch", mode)
			}
			for i := range g.NumNodes() {
				same := sameFloats(emb.Row(i), base.Row(i))
				if slices.Contains(rows, int32(i)) == same {
					t.Fatalf("%v: row %d moved %v, trainable %v", mode, i, !same, slices.Contains(rows, int32(i)))
				}
			}
			if ref != nil && !sameFloats(ref, emb.X) {
				t.Fatalf("%v: 4 workers differ from 1", mode)
			}
			ref = emb.X
		}
	}
}

// With a Context, the scores of the structural graph are incremental; the
// entity estimates are kept on an unchanged graph (no neighbourhood
// merged), and on a changed one merged anew for the targets whose
// evidence changed: a changed context link (a paper's venue) changes no
// structural node, merges the paper's authors only and gives a full run's
// result; the exact rule, or a state without evidence fingerprints
// (version 2), merges every target.
func TestIncrementalContext(t *testing.T) {
	_, kg, c := kgPair(t)
	opts := Options{Seed: 3, Targets: authors(kg), Context: c, Workers: 2}
	first, st := night(t, kg, opts, nil)
	same, _ := night(t, kg, opts, st)
	if inc := same.Incremental; inc == nil || inc.Full || inc.Changed != 0 || inc.Rescored != 0 {
		t.Fatalf("unchanged: %+v", inc)
	}
	if !sameFloats(first.Scores, same.Scores) || !sameFloats(first.Ambiguity, same.Ambiguity) || !slices.Equal(first.Entities, same.Entities) {
		t.Fatal("unchanged: the second night differs")
	}
	if same.Incremental.Merged != 0 {
		t.Fatalf("unchanged: %d neighbourhoods merged, want none", same.Incremental.Merged)
	}
	// The splits fit the evidence model the unchanged night skipped.
	sp := opts
	sp.Split = SplitOptions{Splitter: split.Named(""), Top: 5}
	a, _ := night(t, kg, sp, nil)
	b, _ := night(t, kg, sp, st)
	if len(a.Proposals) == 0 || !reflect.DeepEqual(a.Proposals, b.Proposals) {
		t.Fatalf("unchanged, with splits: %d proposals, the incremental night's differ: %v", len(a.Proposals), !reflect.DeepEqual(a.Proposals, b.Proposals))
	}
	if b.Incremental.Merged != 0 {
		t.Fatalf("unchanged, with splits: %d neighbourhoods merged for the estimates, want none", b.Incremental.Merged)
	}
	p, _ := kg.Index("p:0")
	v := -1
	for _, j := range kg.Neighbors(p) {
		if strings.HasPrefix(kg.Key(int(j)), "v:") {
			v = int(j)
		}
	}
	other, _ := kg.Index("v:9")
	if v == other {
		other, _ = kg.Index("v:8")
	}
	h := withEdge(t, withEdge(t, kg, p, v, true), p, other, false)
	inc, _ := night(t, h, opts, st)
	full, _ := night(t, h, opts, nil)
	if s := inc.Incremental; s.Full || s.Changed != 0 || s.Rescored != 0 {
		t.Fatalf("venue changed: %+v, want nothing structural changed", s)
	}
	if !sameFloats(full.Scores, inc.Scores) || !slices.Equal(full.Entities, inc.Entities) {
		t.Fatal("venue changed: the incremental night differs from a full run")
	}
	scored := 0
	for _, s := range inc.Scores {
		if !math.IsNaN(s) {
			scored++
		}
	}
	targets, wrote := authors(kg), 0
	for _, j := range kg.Neighbors(p) {
		if targets[j] {
			wrote++
		}
	}
	if inc.Incremental.Merged != wrote || wrote == 0 {
		t.Fatalf("venue changed: %d neighbourhoods merged, want the paper's %d authors", inc.Incremental.Merged, wrote)
	}
	exact := opts
	exact.MoveTolerance = -1
	v2 := *st
	v2.EvidencePrints = nil
	for name, run := range map[string]func() *Result{
		"exact rule": func() *Result { r, _ := night(t, h, exact, st); return r },
		"version 2":  func() *Result { r, _ := night(t, h, opts, &v2); return r },
	} {
		r := run()
		if r.Incremental.Merged != scored || !slices.Equal(full.Entities, r.Entities) {
			t.Fatalf("venue changed, %s: %d neighbourhoods merged, want all %d", name, r.Incremental.Merged, scored)
		}
	}
}

// TestRowsOf checks rowsOf against a look-up of every key: rows in the
// graph's order with nodes gone and new, rows out of order, a key saved
// twice (the first row counts) and keys absent from the graph.
func TestRowsOf(t *testing.T) {
	var b graph.Builder
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		b.AddNode(k)
	}
	g := b.Build()
	for _, keys := range [][]string{
		{"a", "b", "c", "d", "e", "f", "g"},
		{"a", "c", "d", "x", "f", "g", "h"}, // b and e gone, x and h not in g
		{"f", "g", "a", "b", "e", "d", "c"},
		{"a", "b", "b", "c", "a", "g"},
		{},
	} {
		from, shared := rowsOf(g, &cne.Checkpoint{Keys: keys})
		want, n := make([]int, g.NumNodes()), 0
		for i := range want {
			want[i] = slices.Index(keys, g.Key(i))
			if want[i] >= 0 {
				n++
			}
		}
		if !slices.Equal(from, want) || shared != n {
			t.Errorf("keys %q: rows %v (%d shared), want %v (%d)", keys, from, shared, want, n)
		}
	}
}

// The rescored nodes of an incremental run get the entity estimates of a
// full count on the new graph, after many changes at once, 0 for a node
// that lost its last link (it kept its saved estimate before).
func TestIncrementalRescoredEntities(t *testing.T) {
	// A sparse random graph: many nodes of one or two links.
	rng := rand.New(rand.NewPCG(7, 7))
	var edges [][2]int
	for range 600 {
		edges = append(edges, [2]int{rng.IntN(500), rng.IntN(500)})
	}
	g := withEdges(t, mustGraph(t, 500), nil, edges)
	opts := Options{Seed: 3, Workers: 2}
	_, st := night(t, g, opts, nil)
	var remove, add [][2]int
	for range 40 {
		a := rng.IntN(g.NumNodes())
		if d := g.Degree(a); d > 0 {
			remove = append(remove, [2]int{a, int(g.Neighbors(a)[rng.IntN(d)])})
		}
		add = append(add, [2]int{rng.IntN(g.NumNodes()), rng.IntN(g.NumNodes())})
	}
	h := withEdges(t, g, remove, add)
	res, _ := night(t, h, opts, st)
	ents, err := score.Entities(context.Background(), h, res.Scores, 1)
	if err != nil {
		t.Fatal(err)
	}
	unscored := 0
	for i := range h.NumNodes() {
		if !res.rescored[i] {
			continue
		}
		if k, _ := g.Index(h.Key(i)); h.Degree(i) == 0 && g.Degree(k) > 0 {
			unscored++
		}
		if ents[i] != res.Entities[i] {
			t.Fatalf("node %d (degree %d): entities %d, a full count %d", i, h.Degree(i), res.Entities[i], ents[i])
		}
	}
	if unscored == 0 {
		t.Fatal("no rescored node lost its last link: the test checks less than it says")
	}
}

// mustGraph returns a graph of n nodes keyed "n0", "n1", ..., without links.
func mustGraph(t *testing.T, n int) *graph.Graph {
	g, err := graph.NewGraph(n, nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("n%d", i)
	}
	if g, err = g.WithKeys(keys); err != nil {
		t.Fatal(err)
	}
	return g
}
