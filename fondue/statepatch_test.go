package fondue

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
)

// sameState reports the first field in which a and b differ, bit for bit,
// or "".
func sameState(a, b *State) string {
	ca, cb := a.Checkpoint, b.Checkpoint
	i32 := slices.Equal[[]int32]
	switch {
	case a.Method != b.Method || a.Digest != b.Digest:
		return "header"
	case !slices.Equal(a.Fingerprints, b.Fingerprints):
		return "fingerprints"
	case !sameFloats(a.Terms.FONDUE, b.Terms.FONDUE) || !sameFloats(a.Terms.Disconnection, b.Terms.Disconnection) ||
		!sameFloats(a.Terms.Pieces, b.Terms.Pieces):
		return "terms"
	case !i32(a.Entities, b.Entities):
		return "entities"
	case !i32(a.Degrees, b.Degrees) || !i32(a.Neighbors, b.Neighbors):
		return "links"
	case a.EvidenceDigest != b.EvidenceDigest || !i32(a.EvidenceEntities, b.EvidenceEntities) ||
		!slices.Equal(a.EvidencePrints, b.EvidencePrints):
		return "evidence"
	case ca.Dim != cb.Dim || ca.Sigma1 != cb.Sigma1 || ca.Sigma2 != cb.Sigma2 || !slices.Equal(ca.Keys, cb.Keys):
		return "checkpoint header"
	case !sameFloats(ca.X, cb.X) || !sameFloats(ca.M, cb.M) || !sameFloats(ca.V, cb.V):
		return "vectors"
	case ca.Step != cb.Step || math.Float64bits(ca.Peak) != math.Float64bits(cb.Peak) || !sameFloats(ca.History, cb.History):
		return "optimizer"
	}
	return ""
}

// nightState scores g from since and returns the state it leaves (not
// saved).
func nightState(t *testing.T, g *graph.Graph, opts Options, since *State) *State {
	t.Helper()
	opts.KeepState, opts.Since = true, since
	res, err := Score(context.Background(), g, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res.State(g, opts)
}

func readState(t *testing.T, path string) *State {
	t.Helper()
	s, err := ReadStateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStatePatch saves nights as patches and reads each back equal to the
// state saved, with and without evidence; a patch cut short or corrupted is
// ignored (the state before it is read) and written over by the next.
func TestStatePatch(t *testing.T) {
	g := testkit.ReadGraph(t, "netscience")
	_, kg, c := kgPair(t)
	p, _ := kg.Index("p:0")
	a := -1
	for i := range kg.NumNodes() {
		if strings.HasPrefix(kg.Key(i), "a:") && !slices.Contains(kg.Neighbors(p), int32(i)) {
			a = i
			break
		}
	}
	for _, tc := range []struct {
		name   string
		g      *graph.Graph
		opts   Options
		change [][2]int // edges added, one night each; the last one's save is damaged
	}{
		{"links", g, Options{Seed: 3, Workers: 2}, [][2]int{{5, g.NumNodes() - 7}, {11, g.NumNodes() - 20}, {17, g.NumNodes() - 30}}},
		{"evidence", kg, Options{Seed: 3, Workers: 2, Targets: authors(kg), Context: c}, [][2]int{{p, a}, {p, a + 1}, {p, a + 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state")
			first := nightState(t, tc.g, tc.opts, nil)
			if err := first.WriteFile(path); err != nil {
				t.Fatal(err)
			}
			prev, h := readState(t, path), tc.g
			base, _ := os.Stat(path)
			var sizes []int64
			for n, e := range tc.change[:2] {
				h = withEdge(t, h, e[0], e[1], false)
				s := nightState(t, h, tc.opts, prev)
				saved, err := s.WriteFileSince(path, prev)
				if err != nil {
					t.Fatal(err)
				}
				if !saved.Patch || saved.Rows == 0 || saved.Rows >= s.Checkpoint.Len()/4 {
					t.Fatalf("night %d: saved %+v of %d rows, want a patch of a few rows", n+2, saved, s.Checkpoint.Len())
				}
				back := readState(t, path)
				if d := sameState(back, s); d != "" {
					t.Fatalf("night %d: the state read back differs in its %s", n+2, d)
				}
				st, _ := os.Stat(path)
				sizes = append(sizes, st.Size())
				prev = back
			}
			if sizes[1]-base.Size() >= base.Size()/4 {
				t.Fatalf("file %d bytes after two patches, the whole state %d", sizes[1], base.Size())
			}

			// A patch cut short, then one corrupted: the state before it.
			e := tc.change[2]
			h = withEdge(t, h, e[0], e[1], false)
			s := nightState(t, h, tc.opts, prev)
			if _, err := s.WriteFileSince(path, prev); err != nil {
				t.Fatal(err)
			}
			full, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range [][]byte{full[:sizes[1]+10], full[:len(full)-1], flip(full, int(sizes[1])+30)} {
				if err := os.WriteFile(path, bad, 0o644); err != nil {
					t.Fatal(err)
				}
				if sameState(readState(t, path), prev) != "" {
					t.Fatal("a damaged last patch was not ignored")
				}
			}
			// The next save writes over the damaged bytes.
			stale := readState(t, path)
			saved, err := s.WriteFileSince(path, stale)
			if err != nil || !saved.Patch {
				t.Fatalf("over a damaged patch: %+v, %v", saved, err)
			}
			if d := sameState(readState(t, path), s); d != "" {
				t.Fatalf("over a damaged patch: the state read back differs in its %s", d)
			}
		})
	}
}

func flip(b []byte, at int) []byte {
	b = slices.Clone(b)
	b[at] ^= 0x10
	return b
}

// TestStatePatchWhole checks that a state is written whole when a patch
// cannot say it: no state read, other keys, a file that changed since it
// was read, too many rows changed.
func TestStatePatchWhole(t *testing.T) {
	g := testkit.ReadGraph(t, "netscience")
	opts := Options{Seed: 3, Workers: 2}
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	first := nightState(t, g, opts, nil)
	if err := first.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	prev := readState(t, path)
	h := withEdge(t, g, 5, g.NumNodes()-7, false)
	next := nightState(t, h, opts, prev)
	reseeded := opts
	reseeded.Seed = 4
	other := nightState(t, h, reseeded, nil) // every row moved
	keys := make([]string, g.NumNodes())
	for i := range keys {
		keys[i] = "x" + g.Key(i)
	}
	renamed, err := g.WithKeys(keys)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		s     *State
		prev  func() *State
		setup func()
	}{
		{"no state read", next, func() *State { return nil }, nil},
		{"read from another file", next, func() *State { p := *prev; p.File = path + "2"; return &p }, nil},
		{"other keys", nightState(t, renamed, opts, nil), func() *State { return prev }, nil},
		{"every row changed", other, func() *State { return prev }, nil},
		{"file changed since read", next, func() *State { return prev }, func() {
			if err := other.WriteFile(path); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		if err := first.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		if c.setup != nil {
			c.setup()
		}
		saved, err := c.s.WriteFileSince(path, c.prev())
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(path)
		if saved.Patch || saved.Bytes != st.Size() {
			t.Fatalf("%s: saved %+v, file %d bytes; want the state whole", c.name, saved, st.Size())
		}
		if d := sameState(readState(t, path), c.s); d != "" {
			t.Fatalf("%s: the state read back differs in its %s", c.name, d)
		}
	}
}

// reshaped returns g without node drop and with a node "new" placed
// before node at, linked to the nodes links (g's indices); order, when
// set, is the order of g's other nodes instead of g's.
func reshaped(t *testing.T, g *graph.Graph, drop, at int, links []int, order []int) *graph.Graph {
	t.Helper()
	if order == nil {
		order = make([]int, g.NumNodes())
		for i := range order {
			order[i] = i
		}
	}
	idx := map[int]int{}
	var keys []string
	for _, i := range order {
		if i == at {
			keys = append(keys, "new")
		}
		if i != drop {
			idx[i] = len(keys)
			keys = append(keys, g.Key(i))
		}
	}
	var e [][2]int
	for i := range g.NumNodes() {
		for _, j := range g.Neighbors(i) {
			if int(j) > i && i != drop && int(j) != drop {
				e = append(e, [2]int{idx[i], idx[int(j)]})
			}
		}
	}
	nw := slices.Index(keys, "new")
	for _, j := range links {
		e = append(e, [2]int{nw, idx[j]})
	}
	h, err := graph.NewGraph(len(keys), e)
	if err != nil {
		t.Fatal(err)
	}
	if h, err = h.WithKeys(keys); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestStatePatchRows checks patches of nights that remove a node and add
// one, and that rows kept out of their order are written whole.
func TestStatePatchRows(t *testing.T) {
	g := testkit.ReadGraph(t, "netscience")
	opts := Options{Seed: 3, Workers: 2}
	path := filepath.Join(t.TempDir(), "state")
	if err := nightState(t, g, opts, nil).WriteFile(path); err != nil {
		t.Fatal(err)
	}
	prev := readState(t, path)
	// Node 10 leaves, "new" joins before node 20, linked to 3 and 40.
	h := reshaped(t, g, 10, 20, []int{3, 40}, nil)
	s := nightState(t, h, opts, prev)
	saved, err := s.WriteFileSince(path, prev)
	if err != nil {
		t.Fatal(err)
	}
	if !saved.Patch || saved.Rows == 0 || saved.Rows >= s.Checkpoint.Len()/4 {
		t.Fatalf("a node removed and one added: saved %+v of %d rows, want a patch of a few rows", saved, s.Checkpoint.Len())
	}
	back := readState(t, path)
	if d := sameState(back, s); d != "" {
		t.Fatalf("a node removed and one added: the state read back differs in its %s", d)
	}
	// The same graph with two nodes in each other's place: one of them is
	// removed and added again.
	order := make([]int, g.NumNodes())
	for i := range order {
		order[i] = i
	}
	order[30], order[31] = 31, 30
	swapped := reshaped(t, g, 10, 20, []int{3, 40}, order)
	s2 := nightState(t, swapped, opts, back)
	if saved, err = s2.WriteFileSince(path, back); err != nil || !saved.Patch {
		t.Fatalf("two rows swapped: saved %+v, %v; want a patch", saved, err)
	}
	if d := sameState(readState(t, path), s2); d != "" {
		t.Fatalf("two rows swapped: the state read back differs in its %s", d)
	}
}

// TestRowsSince checks rowsSince's mappings on edits of a key list: every
// row kept is the same key, in old's order; a row is new only when its key
// is not in old, unless many rows changed (then a key may be written
// whole); rows out of order beyond the look-ahead give nil.
func TestRowsSince(t *testing.T) {
	old := make([]string, 5000)
	for i := range old {
		old[i] = fmt.Sprint("k", i)
	}
	edit := func(remove func(int) bool, add func(int) bool) []string {
		var keys []string
		for i, k := range old {
			if add(i) {
				keys = append(keys, fmt.Sprint("new", i))
			}
			if !remove(i) {
				keys = append(keys, k)
			}
		}
		return keys
	}
	inOld := map[string]bool{}
	for _, k := range old {
		inOld[k] = true
	}
	check := func(name string, keys []string, exact bool) {
		from := rowsSince(keys, old)
		if from == nil {
			t.Fatalf("%s: nil", name)
		}
		next := 0
		for k, r := range from {
			switch {
			case r >= 0 && (int(r) < next || old[r] != keys[k]):
				t.Fatalf("%s: row %d (%s) mapped to %d (%s), after %d", name, k, keys[k], r, old[r], next)
			case r >= 0:
				next = int(r) + 1
			case exact && inOld[keys[k]]:
				t.Fatalf("%s: row %d (%s) is in old, mapped as new", name, k, keys[k])
			}
		}
	}
	none := func(int) bool { return false }
	check("same", old, true)
	check("a few removed and added", edit(func(i int) bool { return i%97 == 5 }, func(i int) bool { return i%89 == 3 }), true)
	check("a block removed", edit(func(i int) bool { return i >= 1000 && i < 1500 }, none), true)
	check("a block added", edit(none, func(i int) bool { return i >= 2000 && i < 2300 }), true)
	swapped := slices.Clone(old)
	swapped[10], swapped[11] = swapped[11], swapped[10]
	check("two swapped", swapped, false)
	reversed := slices.Clone(old)
	slices.Reverse(reversed)
	if rowsSince(reversed, old) != nil {
		t.Fatal("reversed: want nil")
	}
}

// TestReadArray reads more values than the reserve of an unknown size:
// grown by append without a size, whole with the reader's size, and a
// count past the size (a corrupt one) fails as cut short.
func TestReadArray(t *testing.T) {
	n := uint64(1<<20 + 5)
	want := make([]int32, n)
	for i := range want {
		want[i] = int32(i*7 - 3)
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, want); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{-1, int64(buf.Len())} {
		got, err := readArray[int32](bytes.NewReader(buf.Bytes()), n, size)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("size %d: %v, values equal %v", size, err, slices.Equal(got, want))
		}
		if whole := cap(got) == len(got); whole != (size >= 0) {
			t.Fatalf("size %d: made whole %v (cap %d for %d)", size, whole, cap(got), len(got))
		}
	}
	if _, err := readArray[int32](bytes.NewReader(buf.Bytes()), n+1, int64(buf.Len())); err == nil || err.Error() != "truncated" {
		t.Fatalf("a count past the file: %v, want truncated", err)
	}
}
