package output

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// score --output json carries each group's reasons: a context node by its
// display name (its id without one), a property by its value; none when
// the proposal has none.
func TestRankingJSONReasons(t *testing.T) {
	nm := names.Names{"v": "Very Large Data Bases"}
	r := ranking(t, []string{"p1", "p2", "a", "v"}, nm)
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("reasons")) {
		t.Fatalf("reasons without context:\n%s", buf.String())
	}
	r.Result.Proposals[0].Reasons = [][]evidence.Reason{
		{{Kind: "Venue", Node: 3, Weight: 2.5}, {Kind: "year", Node: -1, Value: "2006", Weight: 0.75}},
		{{Kind: "Keyword", Node: 1, Weight: 1}},
	}
	buf.Reset()
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var rows []Node
	if err := json.Unmarshal(buf.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	want := [][]splitplan.Reason{
		{{Kind: "Venue", Value: "Very Large Data Bases", Weight: 2.5}, {Kind: "year", Value: "2006", Weight: 0.75}},
		{{Kind: "Keyword", Value: "p2", Weight: 1}},
	}
	got, _ := json.Marshal(rows[0].Reasons)
	w, _ := json.Marshal(want)
	if rows[0].Node.Text() != "a" || string(got) != string(w) || rows[1].Reasons != nil {
		t.Fatalf("reasons %s, want %s\n%s", got, w, buf.String())
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"reasons":[[{"kind":"Venue","value":"Very Large Data Bases","weight":2.5}`)) {
		t.Errorf("JSON spelling:\n%s", buf.String())
	}
}
