package edgelist

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// A UTF-8 byte-order mark is not part of the first node id: a triangle
// stays a triangle.
func TestReadEdgeListBOM(t *testing.T) {
	for _, name := range []string{"t.txt", "t.csv", "<stdin>"} {
		for _, in := range []string{"\xef\xbb\xbf1 2\n2 3\n3 1\n", "\xef\xbb\xbf1,2\n2,3\n3,1\n", "\xef\xbb\xbf# c\n1\t2\n2\t3\n3\t1\n"} {
			if strings.HasSuffix(name, ".csv") && !strings.Contains(in, ",") {
				continue
			}
			g, _, err := Read(strings.NewReader(in), name, HeaderAuto)
			if err != nil {
				t.Fatalf("%s %q: %v", name, in, err)
			}
			if g.NumNodes() != 3 || g.NumEdges() != 3 || !g.IntKeys() {
				t.Errorf("%s %q: %d nodes, %d edges, int keys %v; want a triangle on 1, 2, 3", name, in, g.NumNodes(), g.NumEdges(), g.IntKeys())
			}
		}
	}
}

// Quoted ids, as Neo4j and spreadsheet tools export them: spaces, commas,
// doubled quotes and newlines inside quotes.
func TestReadEdgeListQuoted(t *testing.T) {
	cases := []struct {
		name, file, in string
		format         Format
		header         bool
		edges          [][2]string
	}{
		{"csv quoted", "g.csv", "\"Alice Smith\",\"Bob\"\n\"Bob\",Carol\n", FormatCSV, false,
			[][2]string{{"Alice Smith", "Bob"}, {"Bob", "Carol"}}},
		{"csv sniffed", "g.edges", "\"Alice Smith\",\"Bob\"\n", FormatCSV, false, [][2]string{{"Alice Smith", "Bob"}}},
		{"stdin sniffed with header", "<stdin>", "\"source\",\"target\"\n\"Smith, J.\",\"Doe, J.\"\n\"Doe, J.\",1\n", FormatCSV, true,
			[][2]string{{"Smith, J.", "Doe, J."}, {"Doe, J.", "1"}}},
		{"doubled quotes", "g.csv", "\"Dwayne \"\"The Rock\"\" Johnson\",Bob\n", FormatCSV, false,
			[][2]string{{`Dwayne "The Rock" Johnson`, "Bob"}}},
		{"newline and comment inside quotes", "g.csv", "\"a\n# not a comment\",b\n# a comment\nb,c\n", FormatCSV, false,
			[][2]string{{"a\n# not a comment", "b"}, {"b", "c"}}},
		{"spaces around fields", "g.csv", "1 , 2\n 2,3 \n", FormatCSV, false, [][2]string{{"1", "2"}, {"2", "3"}}},
		{"weight", "g.csv", "source,target,weight\n\"x y\",z,0.5\n", FormatCSV, true, [][2]string{{"x y", "z"}}},
		{"crlf", "g.csv", "\"a b\",c\r\nc,d\r\n", FormatCSV, false, [][2]string{{"a b", "c"}, {"c", "d"}}},
		{"tsv by name", "g.tsv", "Alice Smith\tBob\n\"Carol\tX\"\tBob\n", FormatTSV, false,
			[][2]string{{"Alice Smith", "Bob"}, {"Carol\tX", "Bob"}}},
		{"tsv sniffed", "g.txt", "source\ttarget\nAlice Smith\tBob, Jr.\n", FormatTSV, true, [][2]string{{"Alice Smith", "Bob, Jr."}}},
		{"tabs without spaces stay whitespace", "g.txt", "1\t\t2\n2\t3\n", FormatWhitespace, false, [][2]string{{"1", "2"}, {"2", "3"}}},
		{"percent comment in csv", "g.csv", "% konect\n1,2\n", FormatCSV, false, [][2]string{{"1", "2"}}},
		{"tab inside quotes sniffed", "<stdin>", "\"Tab\tName\",\"Bob\"\n", FormatCSV, false, [][2]string{{"Tab\tName", "Bob"}}},
		{"comma inside quotes sniffed", "g.txt", "\"Smith, J.\"\tBob\n", FormatTSV, false, [][2]string{{"Smith, J.", "Bob"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, st, err := Read(strings.NewReader(c.in), c.file, HeaderAuto)
			if err != nil {
				t.Fatal(err)
			}
			if st.Format != c.format || st.Header != c.header || g.NumEdges() != len(c.edges) {
				t.Fatalf("format %v header %v, %d edges; want %v, %v, %d", st.Format, st.Header, g.NumEdges(), c.format, c.header, len(c.edges))
			}
			for _, e := range c.edges {
				i, ok1 := g.Index(e[0])
				j, ok2 := g.Index(e[1])
				if !ok1 || !ok2 || !g.HasEdge(i, j) {
					t.Errorf("edge %q-%q missing", e[0], e[1])
				}
			}
		})
	}
}

func TestReadEdgeListCSVErrors(t *testing.T) {
	cases := []struct {
		name, file, in string
		line           int
		msg            string
	}{
		{"bare quote", "g.csv", "1,2\n3,4\"x\n", 2, `column 4: bare " in non-quoted-field`},
		{"unterminated quote", "g.csv", "1,2\n\"3,4\n5,6\n", 2, `extraneous or missing " in quoted-field`},
		{"line after a multi-line field", "g.csv", "\"a\nb\",c\nd\n", 3, `found 1 field "d"`},
		{"tabs in a csv file", "g.csv", "1\t2\n", 1, "read as CSV"},
		{"empty id", "g.csv", "1,\n", 1, "node id 2 is empty"},
		{"quoted id in a whitespace list", "g.txt", "1 2\n\"a b\" c\n", 2, "quoted ids need a CSV or TSV file"},
		{"quoted id with a space", "g.txt", "1 2\n\"3 4\" 5\n", 2, `quoted id "3 4" in a file read as whitespace-separated`},
		{"quoted id with a space, unclosed", "g.txt", "1 2\n5 \"3 4\n", 2, `quoted id "3 4 (no closing quote) in a file read as whitespace-separated`},
		{"spaces in a whitespace list", "g.txt", "1 2\nAlice Smith Bob\n", 2, "ids with spaces need a CSV or TSV file"},
		{"binary in csv", "g.csv", "1,2\n3,\x00\n", 2, "invalid byte 0x00"},
		{"four fields", "g.csv", "1,2,3,4\n", 1, "found 4 fields"},
		{"only a header", "g.csv", "source,target\n", 0, "no edges"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Read(strings.NewReader(c.in), c.file, HeaderAuto)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			if pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) || !strings.HasPrefix(err.Error(), c.file+":") {
				t.Fatalf("got %q (line %d), want line %d containing %q", err, pe.Line, c.line, c.msg)
			}
		})
	}
	_, _, err := Read(strings.NewReader("# nothing\n"), "g.txt", HeaderAuto)
	if !errors.Is(err, ErrNoEdges) {
		t.Fatalf("no edges: err = %v, want ErrNoEdges", err)
	}
}

func TestEdgeListFormatFromName(t *testing.T) {
	for name, want := range map[string]Format{"a.csv": FormatCSV, "A.CSV": FormatCSV, "a.tsv": FormatTSV, "x/a.tab": FormatTSV,
		"a.edges": FormatAuto, "a.txt": FormatAuto, "<stdin>": FormatAuto, "csv": FormatAuto} {
		if got := FormatFromName(name); got != want {
			t.Errorf("FormatFromName(%q) = %v, want %v", name, got, want)
		}
	}
}

// genCSV writes a random edge list with encoding/csv's writer: ids with
// spaces, commas, tabs, quotes, newlines and non-ASCII letters, optional
// weights, comment and blank lines between records. tabs=false keeps tabs
// out of the ids (a sniffed file with tabs is read as TSV or whitespace).
func genCSV(seed uint64, comma rune, tabs bool) []byte {
	r := rand.New(rand.NewPCG(seed, 77))
	alphabet := []string{"a", "b", "Z", "0", "1", "7", " ", ",", "\"", "\n", "#", "%", "é", "-", "."}
	if tabs {
		alphabet = append(alphabet, "\t")
	}
	id := func(first bool) string {
		for {
			var sb strings.Builder
			for range 1 + r.IntN(6) {
				sb.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			s := sb.String()
			if r.IntN(4) == 0 {
				s = fmt.Sprint(r.IntN(20)) // integer ids too
			}
			if strings.TrimSpace(s) == "" || first && strings.ContainsAny(s[:1], "#%") {
				continue
			}
			return s
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Comma = comma
	w.UseCRLF = r.IntN(2) == 0
	for range 1 + r.IntN(30) {
		rec := []string{id(true), id(false)}
		if r.IntN(4) == 0 {
			rec = append(rec, []string{"1", "0.25", " 2", "-3e2"}[r.IntN(4)])
		}
		w.Write(rec)
		w.Flush()
		switch r.IntN(8) {
		case 0:
			buf.WriteString("# comment, \"with\" quotes\n")
		case 1:
			buf.WriteString("\n")
		}
	}
	w.Flush()
	return buf.Bytes()
}

// checkAgainstCSV reads data with Read and with encoding/csv (ids
// trimmed, '#' comments), and fails unless both give the same graph.
func checkAgainstCSV(t *testing.T, data []byte, name string, comma rune) {
	t.Helper()
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comma, cr.Comment, cr.FieldsPerRecord = comma, '#', -1
	want := map[[2]string]bool{}
	nodes := map[string]bool{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("encoding/csv: %v", err)
		}
		u, v := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])
		nodes[u], nodes[v] = true, true
		if u > v {
			u, v = v, u
		}
		if u != v {
			want[[2]string{u, v}] = true
		}
	}
	g, _, err := Read(bytes.NewReader(data), name, HeaderNone)
	if err != nil {
		t.Fatalf("%v\n%q", err, data)
	}
	if g.NumNodes() != len(nodes) || g.NumEdges() != len(want) {
		t.Fatalf("%d nodes, %d edges; encoding/csv: %d, %d\n%q", g.NumNodes(), g.NumEdges(), len(nodes), len(want), data)
	}
	for e := range want {
		i, ok1 := g.Index(e[0])
		j, ok2 := g.Index(e[1])
		if !ok1 || !ok2 || !g.HasEdge(i, j) {
			t.Fatalf("edge %q-%q of encoding/csv missing\n%q", e[0], e[1], data)
		}
	}
}

// The reader agrees with encoding/csv on generated CSV and TSV files, by
// name and (for commas) sniffed.
func TestReadEdgeListMatchesEncodingCSV(t *testing.T) {
	for seed := range uint64(300) {
		checkAgainstCSV(t, genCSV(seed, ',', true), "gen.csv", ',')
		checkAgainstCSV(t, genCSV(seed, '\t', true), "gen.tsv", '\t')
		checkAgainstCSV(t, genCSV(seed, ',', false), "<stdin>", ',')
	}
}

func FuzzReadEdgeListMatchesEncodingCSV(f *testing.F) {
	f.Add(uint64(1), uint8(0))
	f.Add(uint64(2), uint8(1))
	f.Add(uint64(3), uint8(2))
	f.Fuzz(func(t *testing.T, seed uint64, kind uint8) {
		switch kind % 3 {
		case 0:
			checkAgainstCSV(t, genCSV(seed, ',', true), "gen.csv", ',')
		case 1:
			checkAgainstCSV(t, genCSV(seed, '\t', true), "gen.tsv", '\t')
		default:
			checkAgainstCSV(t, genCSV(seed, ',', false), "gen", ',')
		}
	})
}
