package review

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// The output of "sync --split --dry-run --output json", and the same plan
// bare.
const (
	dryRunSummary = `{"runId":"r1","nodeCount":77,"relationshipCount":254,"dryRun":true,"plan":{"runId":"r1","createdAt":"2025-01-01T00:00:00.000Z","splitter":"ncut","idProperty":"uid","relationshipTypes":["APPEARS_WITH"],"displayProperty":"name","markerLabel":"FondueSplit","skipProperties":["ambiguity"],"neighborLinks":true,"nodes":[` +
		`{"id":"4:db:11","key":11,"name":"Plan name","labels":["Character"],"ambiguity":1,"score":36.9,"entities":3,"groups":[{"neighbors":[26,55],"neighborIds":["4:db:26","4:db:55"],"names":["Cosette (plan)",""]},{"neighbors":[0,999],"neighborIds":["4:db:0","4:db:999"]}],"links":[[0,1]],"linksOmitted":2},` +
		`{"id":"4:db:48","key":48,"ambiguity":0.9,"score":20.5,"groups":[{"neighbors":[27],"neighborIds":["4:db:27"]},{"neighbors":[25],"neighborIds":["4:db:25"]}]}]}}`
	dryRunBare = `{"runId":"r1","createdAt":"2025-01-01T00:00:00.000Z","splitter":"ncut","nodes":[{"id":"4:db:11","key":11,"ambiguity":1,"score":36.9,"groups":[{"neighbors":[26],"neighborIds":["4:db:26"]},{"neighbors":[0],"neighborIds":["4:db:0"]}]}]}`
)

func TestReadDryRun(t *testing.T) {
	dr, err := ReadDryRun("dry.json", []byte(dryRunSummary))
	if err != nil || dr.NodeCount != 77 || dr.RelationshipCount != 254 || dr.Plan.RunID != "r1" || len(dr.Plan.Nodes) != 2 || dr.Plan.Nodes[0].Key != keys.Int(11) {
		t.Fatalf("summary: %+v, %v", dr, err)
	}
	dr, err = ReadDryRun("dry.json", []byte(dryRunBare))
	if err != nil || dr.NodeCount != 0 || len(dr.Plan.Nodes) != 1 {
		t.Fatalf("bare plan: %+v, %v", dr, err)
	}
	for _, c := range []struct{ in, msg string }{
		{`{"plan": [1, 2`, `plan dry.json: not the JSON of "sync --dry-run": unexpected end of JSON input`},
		{`{"runId":"r","nodeCount":3,"dryRun":true}`, `plan dry.json has no split plan: make it with "sync --split --split-top K --dry-run"`},
		{`{"plan": {"runId": "r", "nodes": [{"id": 1, "key": 1, "groups": [{"neighbors": [2, 3], "neighborIds": [2]}]}]}}`, "plan dry.json: node 1: group 0 has 2 neighbors and 1 neighborIds"},
	} {
		if _, err := ReadDryRun("dry.json", []byte(c.in)); err == nil || err.Error() != c.msg {
			t.Errorf("%s: %v, want %s", c.in, err, c.msg)
		}
	}
}

func TestFromDryRun(t *testing.T) {
	dr, err := ReadDryRun("dry.json", []byte(dryRunSummary))
	if err != nil {
		t.Fatal(err)
	}
	nm, err := names.Parse("names.tsv", []byte("0\tMyriel\n4:db:55\tMarius by id\n"))
	if err != nil {
		t.Fatal(err)
	}
	nbs := func(n Node) string {
		var s []string
		for _, nb := range n.Neighbors {
			s = append(s, nb.Key.Text()+"="+nb.Name)
		}
		return strings.Join(s, ",")
	}
	// Without the edge list: the plan's settings, names (the names file
	// first, by key then by id, then the plan's, then the key) and links.
	doc, missing := FromDryRun(dr, nil, nm, 1)
	p := doc.Plan
	if doc.Source != SourceNeo4j || doc.Title != "fondue-neo4j review: run r1" || doc.GraphNodes != 77 || doc.GraphEdges != 254 || !doc.LinksKnown || missing != 0 ||
		p.RunID != "r1" || p.CreatedAt != "2025-01-01T00:00:00.000Z" || p.Splitter != "ncut" || p.IDProperty != "uid" || p.MarkerLabel != "FondueSplit" ||
		!slices.Equal(p.RelationshipTypes, []string{"APPEARS_WITH"}) || !slices.Equal(p.DisplayProperties, []string{"name"}) || !slices.Equal(p.SkipProperties, []string{"ambiguity"}) {
		t.Fatalf("doc: %+v", doc)
	}
	if len(doc.Nodes) != 1 {
		t.Fatalf("top 1: %d nodes", len(doc.Nodes))
	}
	n := doc.Nodes[0]
	if n.Key != keys.Int(11) || n.ID != keys.String("4:db:11") || n.Name != "Plan name" || n.Entities != 3 || n.Score != 36.9 || !slices.Equal(n.Labels, []string{"Character"}) ||
		nbs(n) != "26=Cosette (plan),55=Marius by id,0=Myriel,999=999" || fmt.Sprint(n.Groups) != "[[0 1] [2 3]]" ||
		!slices.Equal(n.Links, [][2]int{{0, 1}}) || n.LinksOmitted != 2 {
		t.Errorf("node: %+v (%s)", n, nbs(n))
	}
	// With the edge list: its links, and the neighbours it lacks counted.
	g, _, err := edgelist.ReadFile("../../../testdata/lesmis.edges", edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	doc, missing = FromDryRun(dr, g, nm, 10)
	if len(doc.Nodes) != 2 || missing != 1 || !doc.LinksKnown || doc.Nodes[0].LinksOmitted != 0 {
		t.Fatalf("with the edge list: %d nodes, %d missing, %+v", len(doc.Nodes), missing, doc.Nodes[0])
	}
	// Cosette-Marius and Myriel-... : the links the edge list has among 26, 55, 0.
	for _, l := range doc.Nodes[0].Links {
		if l[0] == 3 || l[1] == 3 {
			t.Errorf("a link to the neighbour missing from the edge list: %v", doc.Nodes[0].Links)
		}
	}
	if len(doc.Nodes[0].Links) == 0 {
		t.Error("no links from the edge list")
	}
	// Without links in the plan and without an edge list, the page says
	// that the links are unknown.
	dr.Plan.NeighborLinks = false
	if doc, _ := FromDryRun(dr, nil, nil, 10); doc.LinksKnown || doc.Nodes[0].Links != nil || doc.Nodes[1].Name != "48" {
		t.Errorf("no links: %+v", doc)
	}
}
