package review

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/reviewtest"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// dryRunWithReasons is dryRunSummary with reasons on node 11's first group.
func dryRunWithReasons(t *testing.T) *DryRun {
	t.Helper()
	dr, err := ReadDryRun("dry.json", []byte(dryRunSummary))
	if err != nil {
		t.Fatal(err)
	}
	dr.Plan.Nodes[0].Groups[0].Reasons = []splitplan.Reason{{Kind: "Venue", Value: "KDD", Weight: 1.23456}}
	return dr
}

// Decisions without a browser: accept splits a node as proposed (names,
// element ids, reasons, fingerprint of the neighbourhood), reject
// remembers it, a later decision replaces an earlier one and leaves the
// others; the file reads back and applies.
func TestDecide(t *testing.T) {
	dr := dryRunWithReasons(t)
	ap := NewApproved(dr, "dry.json")
	if !slices.Equal(ap.Undecided, []keys.Key{keys.Int(11), keys.Int(48)}) || len(ap.Nodes) != 0 || ap.RunID != "r1" || ap.Input != "dry.json" {
		t.Fatalf("new: %+v", ap)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := ap.Decide(dr, map[string]string{"11": DecisionAccept}, now); err != nil {
		t.Fatal(err)
	}
	want := ApprovedNode{Key: keys.Int(11), ID: keys.String("4:db:11"), Name: "Plan name", Decision: DecisionAccept, Ambiguity: 1, Score: 36.9, Entities: 3,
		Degree: 4, Fingerprint: splitplan.Fingerprint("11", []string{"0", "26", "55", "999"}),
		Groups: []ApprovedGroup{
			{Neighbors: []keys.Key{keys.Int(26), keys.Int(55)}, NeighborIDs: []keys.Key{keys.String("4:db:26"), keys.String("4:db:55")},
				Names: []string{"Cosette (plan)", "55"}, Reasons: []splitplan.Reason{{Kind: "Venue", Value: "KDD", Weight: 1.235}}},
			{Neighbors: []keys.Key{keys.Int(0), keys.Int(999)}, NeighborIDs: []keys.Key{keys.String("4:db:0"), keys.String("4:db:999")},
				Names: []string{"0", "999"}}}}
	if len(ap.Nodes) != 1 || !reflect.DeepEqual(ap.Nodes[0], want) || !slices.Equal(ap.Undecided, []keys.Key{keys.Int(48)}) ||
		ap.ReviewedAt != "2026-01-02T03:04:05.000Z" || ap.DecisionOf("11") != DecisionAccept || ap.DecisionOf("48") != DecisionUndecided {
		t.Fatalf("accepted 11: %+v\nwant node %+v", ap, want)
	}
	if err := ap.Decide(dr, map[string]string{"48": DecisionReject}, now); err != nil {
		t.Fatal(err)
	}
	fp48 := splitplan.Fingerprint("48", []string{"27", "25"})
	if len(ap.Nodes) != 1 || !slices.Equal(ap.Rejected, []DecidedNode{{Key: keys.Int(48), ID: keys.String("4:db:48"), Name: "48", Fingerprint: fp48}}) || len(ap.Undecided) != 0 {
		t.Fatalf("rejected 48: %+v", ap)
	}
	// The file reads back as the same plan, and applies: node 11 split,
	// node 48 remembered as rejected.
	data, err := ap.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParsePlan(data)
	if err != nil || !reflect.DeepEqual(back, ap) {
		t.Fatalf("read back: %v\n%+v\nwant %+v", err, back, ap)
	}
	p, err := back.Plan("a.json", "sha256:0123456789abcdef0123", "", syncjob.PullOptions{RelationshipTypes: []string{"APPEARS_WITH"}, IDProperty: "uid"}, nil, now)
	if err != nil || len(p.Nodes) != 1 || p.Nodes[0].Key != keys.Int(11) || len(p.Decisions) != 1 || p.Decisions[0].Fingerprint != fp48 {
		t.Fatalf("plan: %v %+v", err, p)
	}
	// Rejecting the accepted node moves it; nodes stay in the plan's order.
	if err := ap.Decide(dr, map[string]string{"11": DecisionReject}, now); err != nil {
		t.Fatal(err)
	}
	if len(ap.Nodes) != 0 || len(ap.Rejected) != 2 || ap.Rejected[0].Key != keys.Int(11) || ap.Rejected[1].Key != keys.Int(48) {
		t.Fatalf("rejected 11 too: %+v", ap)
	}
	// Bad input: a key not in the plan, another dry run's approved plan.
	for _, c := range []struct {
		ap   *ApprovedPlan
		d    map[string]string
		want string
	}{
		{ap, map[string]string{"7": DecisionAccept, "11": DecisionAccept}, "node 7 is not in the plan (its nodes: 11, 48)"},
		{&ApprovedPlan{Source: SourceNeo4j, PlanSettings: PlanSettings{RunID: "r0"}}, map[string]string{"11": DecisionAccept},
			"approved plan: reviewed from the dry run of run r0, not from the dry run of run r1"},
		{&ApprovedPlan{Source: SourceEdgeList, Input: "x.edges"}, map[string]string{"11": DecisionAccept},
			"approved plan: reviewed from an edge list (x.edges), not from the dry run of run r1"},
	} {
		if err := c.ap.Decide(dr, c.d, now); err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.d, err, c.want)
		}
	}
	if len(ap.Rejected) != 2 {
		t.Errorf("a refused decision changed the plan: %+v", ap)
	}
}

// The plan that Decide writes is the one the review page exports for the
// same decisions, field for field (but the time of the review).
func TestDecideAsThePage(t *testing.T) {
	dr := dryRunWithReasons(t)
	doc, _ := FromDryRun(dr, nil, nil, len(dr.Plan.Nodes))
	s := reviewtest.Open(t)
	s.Load(writePage(t, doc))
	s.Decide(1, "accept")
	s.Decide(2, "reject")
	page, err := ParsePlan(s.Export())
	if err != nil {
		t.Fatal(err)
	}
	ap := NewApproved(dr, "")
	if err := ap.Decide(dr, map[string]string{"11": DecisionAccept, "48": DecisionReject}, time.Now()); err != nil {
		t.Fatal(err)
	}
	page.ReviewedAt, ap.ReviewedAt = "", ""
	if !reflect.DeepEqual(page, ap) {
		a, _ := page.Marshal()
		b, _ := ap.Marshal()
		t.Fatalf("the page exports\n%s\nDecide writes\n%s", a, b)
	}
	if !strings.Contains(string(mustMarshal(t, ap)), `"reasons"`) {
		t.Error("no reasons in the plan")
	}
}

func mustMarshal(t *testing.T, ap *ApprovedPlan) []byte {
	t.Helper()
	b, err := ap.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
