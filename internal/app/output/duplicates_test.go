package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/dedup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

func dupPairs() []dedup.Pair {
	return []dedup.Pair{
		{A: 0, B: 2, Score: 3.5, Reasons: []dedup.Reason{{Kind: "name", Text: "same name up to case", Weight: 2}, {Kind: "co-authors", Text: "2 shared co-authors", Weight: 1.5}}},
		{A: 1, B: 3, Score: -0.25},
	}
}

// The TSV parses back with encoding/csv, names with tabs and quotes
// included; the reasons are their texts joined by "; ".
func TestDuplicatesTSV(t *testing.T) {
	g, err := graph.NewGraph(4, [][2]int{{0, 1}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if g, err = g.WithKeys([]string{"a:1", "a:2", "a:3", "a 4"}); err != nil {
		t.Fatal(err)
	}
	d := Duplicates{Graph: g, Pairs: dupPairs(), Names: []string{"Thomas Lucas", "tab\there", "Thomas LUCAS", `say "hi"`}}
	var buf bytes.Buffer
	if err := d.WriteTSV(&buf, true); err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(&buf)
	r.Comma = '\t'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%v:\n%s", err, buf.String())
	}
	want := [][]string{
		{"a", "b", "score", "name_a", "name_b", "reasons"},
		{"a:1", "a:3", "3.5", "Thomas Lucas", "Thomas LUCAS", "same name up to case; 2 shared co-authors"},
		{"a:2", "a 4", "-0.25", "tab\there", `say "hi"`, ""},
	}
	for k, w := range want {
		if strings.Join(recs[k], "\x00") != strings.Join(w, "\x00") {
			t.Errorf("line %d: %q, want %q", k, recs[k], w)
		}
	}
	buf.Reset()
	if err := d.WriteTSV(&buf, false); err != nil || strings.HasPrefix(buf.String(), "a\tb") || strings.Count(buf.String(), "\n") != 2 {
		t.Errorf("without header: %v %q", err, buf.String())
	}
}

// The JSON keeps integer ids numbers, as score prints them, and spells
// every reason as kind, text and weight; no pair is an empty list.
func TestDuplicatesJSON(t *testing.T) {
	g, err := graph.NewGraph(4, [][2]int{{0, 1}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	d := Duplicates{Graph: g, Pairs: dupPairs(), Names: []string{"A", "B", "C", "D"}}
	var buf bytes.Buffer
	if err := d.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	want := `[
  {"a":0,"b":2,"score":3.5,"nameA":"A","nameB":"C","reasons":[{"kind":"name","text":"same name up to case","weight":2},{"kind":"co-authors","text":"2 shared co-authors","weight":1.5}]},
  {"a":1,"b":3,"score":-0.25,"nameA":"B","nameB":"D","reasons":[]}
]
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	var back []Pair
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back) != 2 {
		t.Errorf("does not read back: %v", err)
	}
	buf.Reset()
	d.Pairs = nil
	if err := d.WriteJSON(&buf); err != nil || buf.String() != "[]\n" {
		t.Errorf("no pairs: %v %q", err, buf.String())
	}
}
