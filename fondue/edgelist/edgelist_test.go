package edgelist

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

func readString(t *testing.T, s string, hm HeaderMode) (*graph.Graph, Stats, error) {
	t.Helper()
	return Read(strings.NewReader(s), "test.edges", hm)
}

func TestReadEdgeListFormats(t *testing.T) {
	cases := []struct {
		name, in     string
		nodes, edges int
		header       bool
		keys         []string
	}{
		{"spaces", "1 2\n2 3\n", 3, 2, false, []string{"1", "2", "3"}},
		{"tabs and CRLF", "1\t2\r\n2\t3\r\n", 3, 2, false, nil},
		{"commas", "1,2\n2,3\n3,1\n", 3, 3, false, nil},
		{"comma and space", "1, 2\n", 2, 1, false, nil},
		{"comments", "# c\n% k\n\n1 2\n  # indented comment\n", 2, 1, false, nil},
		{"known header", "source,target\n1,2\n", 2, 1, true, nil},
		{"unknown header before numbers", "from_id to_id\n1 2\n", 2, 1, true, nil},
		{"string ids", "alice bob\nbob carol\n", 3, 2, false, []string{"alice", "bob", "carol"}},
		{"string ids single line", "alice bob\n", 2, 1, false, nil},
		{"weights", "1 2 0.5\n2 3 7\n", 3, 2, false, nil},
		{"header with weight", "u v weight\n1 2 0.5\n", 2, 1, true, nil},
		{"no final newline", "1 2\n2 3", 3, 2, false, nil},
		{"duplicates and loops", "1 2\n2 1\n1 2\n3 3\n", 3, 1, false, nil},
		{"mixed ids", "1 a\n007 7\n", 4, 2, false, []string{"007", "1", "7", "a"}},
		{"key order", "30 4\n4 100\n", 3, 2, false, []string{"4", "30", "100"}},
		{"string key order", "bob alice\ncarol bob\n", 3, 2, false, []string{"alice", "bob", "carol"}},
		{"negative and large ids", "-5 9223372036854775807\n", 2, 1, false, []string{"-5", "9223372036854775807"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, st, err := readString(t, c.in, HeaderAuto)
			if err != nil {
				t.Fatal(err)
			}
			if g.NumNodes() != c.nodes || g.NumEdges() != c.edges || st.Header != c.header {
				t.Fatalf("got %d nodes, %d edges, header %v; want %d, %d, %v", g.NumNodes(), g.NumEdges(), st.Header, c.nodes, c.edges, c.header)
			}
			for i, k := range c.keys {
				if g.Key(i) != k {
					t.Errorf("key %d = %q, want %q", i, g.Key(i), k)
				}
				if j, ok := g.Index(k); !ok || j != i {
					t.Errorf("Index(%q) = %d, %v; want %d", k, j, ok, i)
				}
			}
		})
	}
}

func TestReadEdgeListCounts(t *testing.T) {
	g, st, err := readString(t, "1 2\n2 1\n1 2\n3 3\n2 4\n", HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	if st.Edges != 5 || g.SelfLoops() != 1 || g.Duplicates() != 2 {
		t.Fatalf("edges %d, self-loops %d, duplicates %d; want 5, 1, 2", st.Edges, g.SelfLoops(), g.Duplicates())
	}
	// Node 3 only had a self-loop: it is kept, isolated.
	i3, ok := g.Index("3")
	if !ok || g.Degree(i3) != 0 {
		t.Fatalf("node 3: present %v, degree %d", ok, g.Degree(i3))
	}
	if iso := g.Isolated(); len(iso) != 1 || iso[0] != i3 {
		t.Fatalf("isolated = %v, want [%d]", iso, i3)
	}
}

func TestReadEdgeListHeaderModes(t *testing.T) {
	in := "10 20\n20 30\n"
	g, _, err := readString(t, in, HeaderFirst)
	if err != nil || g.NumEdges() != 1 {
		t.Fatalf("HeaderFirst: %v, %d edges", err, g.NumEdges())
	}
	g, _, err = readString(t, "source target\n1 2\n", HeaderNone)
	if err != nil || g.NumEdges() != 2 {
		t.Fatalf("HeaderNone: %v, %d edges", err, g.NumEdges())
	}
}

func TestReadEdgeListErrors(t *testing.T) {
	long := "1 " + strings.Repeat("9", 50<<20) + "\n"
	garbage := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(r.UintN(256))
	}
	cases := []struct {
		name, in string
		line     int
		msg      string
	}{
		{"empty", "", 0, "no edges"},
		{"only comments", "# nothing\n\n", 0, "no edges"},
		{"one field", "1 2\n3\n", 2, "found 1 field"},
		{"four fields", "1 2 3 4\n", 1, "found 4 fields"},
		{"non-numeric weight", "1 2 0.5\n2 3 heavy\n", 2, `weight "heavy" is not a number`},
		{"50 MB line", "1 2\n" + long, 2, "line longer than"},
		{"binary garbage", string(garbage), 1, "not a text edge list"},
		{"NUL byte", "1 2\n3\x004 5\n", 2, "invalid byte 0x00"},
		{"invalid UTF-8", "1 2\n\xff\xfe 3\n", 2, "invalid byte"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readString(t, c.in, HeaderAuto)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			if pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) || pe.File != "test.edges" {
				t.Fatalf("got %q (line %d), want line %d containing %q", err, pe.Line, c.line, c.msg)
			}
			want := "test.edges:"
			if !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %q does not start with %q", err, want)
			}
		})
	}
}

func TestReadEdgeListOneEdge(t *testing.T) {
	g, _, err := readString(t, "a b\n", HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumNodes() != 2 || g.NumEdges() != 1 || !g.HasEdge(0, 1) {
		t.Fatalf("got %d nodes %d edges", g.NumNodes(), g.NumEdges())
	}
}

func TestReadEdgeListFile(t *testing.T) {
	g, st, err := ReadFile("../testdata/netscience.edges", HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumNodes() != 379 || g.NumEdges() != 914 || st.Header {
		t.Fatalf("netscience: %d nodes, %d edges, header %v", g.NumNodes(), g.NumEdges(), st.Header)
	}
	path := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(path, []byte("1 2\n1 2 3 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = ReadFile(path, HeaderAuto)
	if err == nil || !strings.HasPrefix(err.Error(), path+":2: ") {
		t.Fatalf("err = %v, want it to start with %s:2:", err, path)
	}
	if _, _, err := ReadFile(filepath.Join(t.TempDir(), "missing"), HeaderAuto); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: err = %v", err)
	}
}

func FuzzReadEdgeList(f *testing.F) {
	f.Add([]byte("1 2\n2 3\n"), uint8(0))
	f.Add([]byte("source,target\na,b\n"), uint8(0))
	f.Add([]byte("1 2 x\n"), uint8(0))
	f.Add([]byte("\xef\xbb\xbf\"Alice Smith\",\"Bob\"\n\"a\n#b\",c\n"), uint8(1))
	f.Add([]byte("Alice Smith\tBob\n% c\n\"x\"\"y\"\t1\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		name := []string{"fuzz", "fuzz.csv", "fuzz.tsv"}[kind%3]
		g, st, err := Read(bytes.NewReader(data), name, HeaderAuto)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if !strings.HasPrefix(err.Error(), name+":") || strings.Contains(err.Error(), "\n") && pe.Line == 0 {
				t.Fatalf("error %q does not start with %s:", err, name)
			}
			return
		}
		if st.Format == FormatAuto || st.Edges == 0 {
			t.Fatalf("stats %+v", st)
		}
		for i := 0; i < g.NumNodes(); i++ {
			k := g.Key(i)
			if j, ok := g.Index(k); !ok || j != i {
				t.Fatalf("key %q of node %d maps back to %d, %v", k, i, j, ok)
			}
			if k == "" || strings.TrimSpace(k) != k || strings.HasPrefix(k, "\ufeff") {
				t.Fatalf("node id %q: empty, padded or with a byte-order mark", k)
			}
		}
	})
}
