package splitplan

import (
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// Provenance is the list SkipOnClone skips, and a caller's change to the
// list it got changes nothing else.
func TestProvenanceIsACopy(t *testing.T) {
	got := Provenance()
	want := []string{PropSplitKey, PropSplitRun, PropSplitFrom, PropSplitFromID, PropSplitGroup, PropSplitAt, PropSplitRuns}
	if !slices.Equal(got, want) {
		t.Fatalf("Provenance() = %v, want %v", got, want)
	}
	got[0] = "name"
	if p := Provenance(); p[0] != PropSplitKey {
		t.Fatalf("a change to the returned list reached the next call: %v", p)
	}
	skip := (&Plan{IDProperty: "uid", SkipProperties: []string{"name"}}).SkipOnClone()
	if !slices.Equal(skip, append([]string{"name", "uid"}, want...)) {
		t.Fatalf("SkipOnClone = %v", skip)
	}
}

// A plan's keys and ids read back exactly as written: integers (all of
// int64) as integer keys, strings (numeric-looking ones too) as string
// keys, a node not found (no id) as null; and the plan writes the same
// bytes again.
func TestPlanJSONRoundTrip(t *testing.T) {
	in := `{"runId":"r","createdAt":"2025-01-01T00:00:00.000Z","splitter":"ncut","idProperty":"uid","markerLabel":"FondueSplit","nodes":[` +
		`{"id":"4:x:1","key":9223372036854775807,"ambiguity":1,"score":2,"groups":[{"neighbors":[11,"11",-9223372036854775808],"neighborIds":["4:x:2",null,"4:x:4"]}]},` +
		`{"id":null,"key":"11","name":"eleven","ambiguity":0.5,"score":1,"groups":[{"neighbors":["\u003cb\u003e"],"neighborIds":[7]}]}]}`
	p, err := Unmarshal([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	n0, n1 := p.Nodes[0], p.Nodes[1]
	g0 := n0.Groups[0]
	if n0.ID != keys.String("4:x:1") || n0.Key != keys.Int(math.MaxInt64) ||
		!slices.Equal(g0.Neighbors, []keys.Key{keys.Int(11), keys.String("11"), keys.Int(math.MinInt64)}) ||
		!slices.Equal(g0.NeighborIDs, []keys.Key{keys.String("4:x:2"), {}, keys.String("4:x:4")}) ||
		!n1.ID.IsZero() || n1.Key != keys.String("11") || n1.Groups[0].Neighbors[0] != keys.String("<b>") || n1.Groups[0].NeighborIDs[0] != keys.Int(7) {
		t.Fatalf("read %+v", p)
	}
	out, err := p.Marshal()
	if err != nil || string(out) != in {
		t.Fatalf("written again:\n%s\nwant\n%s (%v)", out, in, err)
	}
}
