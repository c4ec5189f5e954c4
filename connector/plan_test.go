package connector

import (
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// A plan read from a file or the database is checked, never trusted:
// malformed input is an error, never a panic.
func TestUnmarshalPlanErrors(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{`{"nodes": [{"id": "4:x:1", "key": 1, "groups": [{"neighbors": [2, 3], "neighborIds": ["4:x:2"]}]}]}`, "node 1: group 0 has 2 neighbors and 1 neighborIds"},
		{`{"nodes": [{"id": "4:x:1", "key": "a", "groups": [{"neighbors": [2], "neighborIds": ["4:x:2"]}, {"neighbors": [3]}]}]}`, "node a: group 1 has 1 neighbors and 0 neighborIds"},
		{`{"nodes": [{"id": "4:x:1", "key": 1, "groups": [{"neighbors": [], "neighborIds": ["4:x:2"]}]}]}`, "group 0 has 0 neighbors and 1 neighborIds"},
		{`{"nodes": [1]}`, "cannot unmarshal number"},
		{`{"nodes": [{"groups": 5}]}`, "cannot unmarshal number"},
		{`[`, "unexpected EOF"},
		{`{"nodes": [{"id": "4:x:1", "key": 1.5, "groups": []}]}`, "a node key or id is an integer (int64) or a string, not 1.5"},
		{`{"nodes": [{"id": "4:x:1", "key": 1, "groups": [{"neighbors": [true], "neighborIds": ["4:x:2"]}]}]}`, "a node key or id is an integer (int64) or a string, not true"},
	} {
		p, err := splitplan.Unmarshal([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.msg) || p != nil {
			t.Errorf("%s: %v, want an error with %q", c.in, err, c.msg)
		}
	}
	p, err := splitplan.Unmarshal([]byte(`{"runId": "r", "nodes": [{"id": "4:x:1", "key": 9007199254740993, "groups": [{"neighbors": [2, "b"], "neighborIds": ["4:x:2", "4:x:3"]}]}]}`))
	if err != nil || p.Nodes[0].Key != keys.Int(9007199254740993) || p.Nodes[0].Groups[0].Neighbors[0] != keys.Int(2) || p.Nodes[0].Groups[0].NeighborIDs[1] != keys.String("4:x:3") {
		t.Fatalf("%+v %v", p, err)
	}
}

// FuzzUnmarshalPlan: any input gives a plan whose groups pair keys with
// ids one to one, or an error; never a panic.
func FuzzUnmarshalPlan(f *testing.F) {
	for _, s := range []string{
		`{"runId": "r", "nodes": [{"id": "4:x:1", "key": 1, "groups": [{"neighbors": [2], "neighborIds": ["4:x:2"]}, {"neighbors": [3], "neighborIds": ["4:x:3"]}]}]}`,
		`{"nodes": [{"id": 1, "key": 1, "groups": [{"neighbors": [2, 3], "neighborIds": [2]}]}]}`,
		`{"nodes": [{"groups": [{"neighbors": null, "neighborIds": [1]}]}]}`,
		`{"nodes": [{"groups": [{}]}]}`,
		`{"nodes": null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := splitplan.Unmarshal(data)
		if err != nil {
			return
		}
		for _, n := range p.Nodes {
			for _, g := range n.Groups {
				if len(g.Neighbors) != len(g.NeighborIDs) {
					t.Fatalf("group with %d neighbors and %d ids accepted", len(g.Neighbors), len(g.NeighborIDs))
				}
			}
		}
		b, err := p.Marshal()
		if err != nil {
			t.Fatalf("a plan read cannot be written: %v", err)
		}
		q, err := splitplan.Unmarshal(b)
		if err != nil {
			t.Fatalf("a plan read back fails: %v\n%s", err, b)
		}
		if c, _ := q.Marshal(); string(c) != string(b) {
			t.Fatalf("a plan read back differs:\n%s\n%s", b, c)
		}
	})
}
