package review

import (
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// An approved plan becomes the split plan of its accepted nodes, under a
// selection that must be the dry run's.
func TestApprovedPlanToPlan(t *testing.T) {
	ap := &ApprovedPlan{Source: SourceNeo4j, ReviewedAt: "2025-01-01T00:00:00.000Z",
		PlanSettings: PlanSettings{RunID: "dry-1", Splitter: "ncut", IDProperty: "uid", NodeLabels: []string{"A", "B"}},
		Nodes: []ApprovedNode{{Key: keys.Int(11), ID: keys.String("4:x:11"), Name: "Valjean", Entities: 3, Groups: []ApprovedGroup{
			{Neighbors: []keys.Key{keys.Int(1)}, NeighborIDs: []keys.Key{keys.String("4:x:1")}, Names: []string{"one"},
				Reasons: []splitplan.Reason{{Kind: "Venue", Value: "KDD", Weight: 2}}},
			{Neighbors: []keys.Key{keys.Int(2), keys.Int(3)}}}}}}
	sel := syncjob.PullOptions{NodeLabels: []string{"B", "A"}, IDProperty: "uid"}
	now := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	p, err := ap.Plan("a.json", "sha256:0123456789abcdef0123", "", sel, []string{"x", "ambiguity", "x"}, now)
	if err != nil {
		t.Fatal(err)
	}
	n := p.Nodes[0]
	if p.RunID != "dry-1" || !p.ExactNeighbors || p.MarkerLabel != syncjob.DefaultMarkerLabel || p.CreatedAt != "2025-02-03T04:05:06.000Z" ||
		strings.Join(p.SkipProperties, ",") != "x,ambiguity" || p.Approved.File != "a.json" || n.ID != keys.String("4:x:11") ||
		n.Groups[0].NeighborIDs[0] != keys.String("4:x:1") || !n.Groups[1].NeighborIDs[0].IsZero() || n.Groups[1].Names != nil || n.Entities != 3 ||
		len(n.Groups[0].Reasons) != 1 || n.Groups[0].Reasons[0] != (splitplan.Reason{Kind: "Venue", Value: "KDD", Weight: 2}) || n.Groups[1].Reasons != nil {
		t.Fatalf("plan %+v, node %+v", p, n)
	}
	ap.RunID = "not a run id"
	if p, _ := ap.Plan("a.json", "sha256:0123456789abcdef0123", "", sel, nil, now); p.RunID != "approved-0123456789ab" {
		t.Fatalf("derived run id %q", p.RunID)
	}
	sel.NodeLabels = []string{"A"}
	_, err = ap.Plan("a.json", "sha256:0123456789abcdef0123", "", sel, nil, now)
	if !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), "graph.node_labels = [A, B]; this run has [A]") {
		t.Fatalf("another selection: %v", err)
	}
}
