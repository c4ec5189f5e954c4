package names

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
)

func TestParseText(t *testing.T) {
	n, err := Parse("n.tsv", []byte("\xef\xbb\xbfid\tname\n# comment\n\n11\tJean Valjean\r\n0\t Myriel \nab:7\tX, Y | Z\n11\tJean Valjean\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Names{"11": "Jean Valjean", "0": "Myriel", "ab:7": "X, Y | Z"}
	if len(n) != len(want) {
		t.Fatalf("got %v, want %v", n, want)
	}
	for k, v := range want {
		if n[k] != v {
			t.Errorf("%s: %q, want %q", k, n[k], v)
		}
	}
	if n.Of("11") != "Jean Valjean" || n.Of("99") != "99" || n.Has("99") || !n.Has("0") {
		t.Errorf("Of/Has wrong: %v", n)
	}
}

func TestParseJSON(t *testing.T) {
	for _, in := range []string{
		`{"11": "Valjean", "0": "Myriel", "4:x:2": "Cosette"}`,
		`[{"id": 11, "name": "Valjean"}, {"key": 0, "label": "Myriel"}, {"node": "4:x:2", "name": "Cosette"}]`,
		` [ {"id": 11.0e0, "name": "Valjean"}, {"id": "0", "name": "Myriel"}, {"id": "4:x:2", "name": "Cosette"} ] `,
	} {
		n, err := Parse("n.json", []byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if len(n) != 3 || n["0"] != "Myriel" || n["4:x:2"] != "Cosette" {
			t.Errorf("%s: got %v", in, n)
		}
		if n["11"] != "Valjean" && n["11.0e0"] != "Valjean" {
			t.Errorf("%s: got %v", in, n)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ in, msg string }{
		{"", "n: empty"},
		{"# only a comment\n", "n: no names"},
		{"1\tA\n2 B\n", "n:2: \"2 B\": want id<TAB>name"},
		{"1\tA\n1\tB\n", "n:2: id 1 named twice"},
		{"1\t\n", "n:1: id 1: empty name"},
		{"\tA\n", "n:1: empty id"},
		{`{"1": ["A"]}`, "id 1: the name must be a string or a number"},
		{`[{"id": 1}]`, "element 0: want an object with id and name"},
		{`[1, 2]`, "element 0: want an object"},
		{`{"1": "A"`, "bad JSON"},
		{`{"1": "A"} {}`, "more than one value"},
		{`[{"id": 1, "name": "A"}, {"id": "1", "name": "B"}]`, "element 1: id 1 named twice"},
	}
	for _, c := range cases {
		_, err := Parse("n", []byte(c.in))
		var ne *Error
		if !errors.As(err, &ne) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.msg)
		}
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// The shipped Les Misérables names belong to the ids of lesmis.edges: the
// characters' degrees are the ones known from the novel's graph (Knuth).
func TestLesmisNames(t *testing.T) {
	n, err := ReadFile("../../../testdata/lesmis.names")
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := edgelist.ReadFile("../../../testdata/lesmis.edges", edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	if len(n) != g.NumNodes() {
		t.Fatalf("%d names for %d nodes", len(n), g.NumNodes())
	}
	seen := map[string]bool{}
	maxDeg, maxName := 0, ""
	for i := range g.NumNodes() {
		name, ok := n[g.Key(i)]
		if !ok || seen[name] {
			t.Fatalf("node %s: name %q missing or repeated", g.Key(i), name)
		}
		seen[name] = true
		if g.Degree(i) > maxDeg {
			maxDeg, maxName = g.Degree(i), name
		}
	}
	if maxName != "Valjean" || maxDeg != 36 {
		t.Errorf("highest degree: %s (%d), want Valjean (36)", maxName, maxDeg)
	}
	for _, c := range []struct {
		id, name string
		degree   int
	}{{"0", "Myriel", 10}, {"11", "Valjean", 36}, {"48", "Gavroche", 22}, {"55", "Marius", 19},
		{"27", "Javert", 17}, {"25", "Thenardier", 16}, {"23", "Fantine", 15}, {"26", "Cosette", 11}} {
		i, ok := g.Index(c.id)
		if !ok || n[c.id] != c.name || g.Degree(i) != c.degree {
			t.Errorf("node %s: %q degree %d, want %s degree %d", c.id, n[c.id], g.Degree(i), c.name, c.degree)
		}
	}
	// Myriel's neighbours are the bishop's household and visitors.
	i, _ := g.Index("0")
	var nb []string
	for _, j := range g.Neighbors(i) {
		nb = append(nb, n[g.Key(int(j))])
	}
	if got := strings.Join(nb, ","); !strings.Contains(got, "MlleBaptistine") || !strings.Contains(got, "Napoleon") || !strings.Contains(got, "Valjean") {
		t.Errorf("Myriel's neighbours: %s", got)
	}
}
