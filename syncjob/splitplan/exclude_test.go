package splitplan

import (
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// A plan of every relationship type but the excluded ones (the
// relationships sync --duplicates writes): such a relationship is no
// neighbour's, stays with the node, and does not make an approved node
// "changed"; without ExcludeTypes it would.
func TestExcludeTypesStayAndChangeNothing(t *testing.T) {
	n := Node{ID: keys.String("n:1"), Key: keys.Int(1), Groups: []Group{
		{Neighbors: []keys.Key{keys.Int(2)}, NeighborIDs: []keys.Key{keys.String("n:2")}},
		{Neighbors: []keys.Key{keys.Int(3)}, NeighborIDs: []keys.Key{keys.String("n:3")}},
	}}
	rels := []Rel{
		{ID: "r:1", Type: "WROTE", Outgoing: true, Other: keys.String("n:2"), OtherLabels: []string{"Paper"}, OtherKeyValue: int64(2)},
		{ID: "r:2", Type: "WROTE", Outgoing: true, Other: keys.String("n:3"), OtherLabels: []string{"Paper"}, OtherKeyValue: int64(3)},
		{ID: "r:3", Type: "FONDUE_DUPLICATE", Outgoing: true, Other: keys.String("n:9"), OtherLabels: []string{"Author"}, OtherKeyValue: int64(9)},
	}
	state := NodeState{Exists: true, Labels: []string{"Author"}, KeyValue: int64(1)}
	p := &Plan{IDProperty: "uid", ExactNeighbors: true, ExcludeTypes: []string{"FONDUE_DUPLICATE"}, Nodes: []Node{n}}
	o, a, err := p.Examine(n, state, func() ([]Rel, error) { return rels, nil })
	if err != nil || o.Outcome != "" || len(a.Groups[0]) != 1 || len(a.Groups[1]) != 1 || len(a.Staying) != 1 || a.Staying[0].ID != "r:3" {
		t.Fatalf("with ExcludeTypes: %+v %+v %v", o, a, err)
	}
	p.ExcludeTypes = nil
	if o, _, err := p.Examine(n, state, func() ([]Rel, error) { return rels, nil }); err != nil || o.Outcome != OutcomeChanged {
		t.Fatalf("without ExcludeTypes: %+v %v, want changed", o, err)
	}
}
