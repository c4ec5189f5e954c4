package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/reviewtest"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

func writePage(t *testing.T, d *Doc) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "review.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func keysOf(n Node, idx []int) []keys.Key {
	out := make([]keys.Key, len(idx))
	for k, i := range idx {
		out[k] = n.Neighbors[i].Key
	}
	return out
}

func namesOf(n Node, idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = n.Neighbors[i].Name
	}
	return out
}

func approvedGroups(n Node, groups [][]int) []ApprovedGroup {
	var out []ApprovedGroup
	for _, g := range groups {
		g = slices.Sorted(slices.Values(g))
		out = append(out, ApprovedGroup{Neighbors: keysOf(n, g), Names: namesOf(n, g)})
	}
	return out
}

// The review page in headless Chromium: every node is drawn, a person
// accepts one split, drags a neighbour to another group and accepts that
// edited split, rejects a third, moves a neighbour of a fourth by a click
// without deciding; the exported plan holds exactly these decisions.
func TestReviewPageInBrowser(t *testing.T) {
	doc := lesmisDoc(t, 6)
	if len(doc.Nodes) != 6 || doc.Nodes[0].Name != "Valjean" {
		t.Fatalf("lesmis review: %d nodes, first %q", len(doc.Nodes), doc.Nodes[0].Name)
	}
	for k := 1; k < 4; k++ {
		if len(doc.Nodes[k].Groups) < 2 {
			t.Fatalf("node %s: %d groups; the test needs two or more", doc.Nodes[k].Name, len(doc.Nodes[k].Groups))
		}
	}
	s := reviewtest.Open(t)
	t0 := time.Now().Add(-time.Second)
	s.Load(writePage(t, doc))

	// A drawing per node: the node, each neighbour, each link between neighbours.
	drawn := s.Drawing()
	if len(drawn) != len(doc.Nodes) {
		t.Fatalf("%d nodes drawn, want %d", len(drawn), len(doc.Nodes))
	}
	for k, d := range drawn {
		n := doc.Nodes[k]
		if d.Key != n.Key.Text() || d.Name != n.Name || d.Circles != len(n.Neighbors) || d.Chips != len(n.Neighbors) ||
			d.Links != len(n.Links) || d.Groups != len(n.Groups) || d.Decision != "undecided" {
			t.Errorf("node %d drawn as %+v; want key %v, name %s, %d neighbours, %d links, %d groups",
				k, d, n.Key, n.Name, len(n.Neighbors), len(n.Links), len(n.Groups))
		}
	}
	// Each node's numbers, with its estimated number of entities.
	for k, n := range doc.Nodes {
		var stats string
		s.Eval(fmt.Sprintf(`document.querySelector('section[data-rank="%d"] .stats').textContent`, k+1), &stats)
		if want := fmt.Sprintf(" · score %.3f · estimated entities: %d · neighbours %d", n.Score, n.Entities, len(n.Neighbors)); n.Entities < 1 || !strings.Contains(stats, want) {
			t.Errorf("node %d: stats %q, want %q", k+1, stats, want)
		}
	}
	var hover string
	s.Eval(`document.querySelector('section[data-rank="1"] svg .nb title').textContent`, &hover)
	if want := doc.Nodes[0].Neighbors[0].Name + " (id " + doc.Nodes[0].Neighbors[0].Key.Text() + ")"; hover != want {
		t.Errorf("hover text %q, want %q", hover, want)
	}

	// 1: accept as proposed.
	s.Decide(1, "accept")
	// 2: drag the first neighbour of its second group onto the first group, then accept.
	n2 := doc.Nodes[1]
	moved := n2.Groups[1][0]
	s.DragToGroup(2, moved, 0)
	if got := s.Attr(`section[data-rank="2"]`, "data-edited"); got != "true" {
		t.Fatalf("after the drag, node 2 edited = %s", got)
	}
	var fill string
	s.Eval(fmt.Sprintf(`document.querySelector('section[data-rank="2"] svg .nb[data-nb="%d"] circle').getAttribute("fill")`, moved), &fill)
	var fill0 string
	s.Eval(fmt.Sprintf(`document.querySelector('section[data-rank="2"] svg .nb[data-nb="%d"] circle').getAttribute("fill")`, n2.Groups[0][0]), &fill0)
	if fill != fill0 {
		t.Errorf("the dragged neighbour is coloured %s, its new group %s", fill, fill0)
	}
	s.Decide(2, "accept")
	// 3: reject.
	s.Decide(3, "reject")
	// 4: a click moves a neighbour to the next group; no decision.
	n4 := doc.Nodes[3]
	s.MoveToNextGroup(4, n4.Groups[0][0])
	if got := s.Attr(`section[data-rank="4"]`, "data-edited"); got != "true" {
		t.Errorf("after the click, node 4 edited = %s", got)
	}
	for rank, want := range map[int]string{1: "accept", 2: "accept", 3: "reject", 4: "undecided", 5: "undecided"} {
		if got := s.Decision(rank); got != want {
			t.Errorf("node %d: decision %s, want %s", rank, got, want)
		}
	}
	var counts string
	s.Eval(`document.getElementById("counts").textContent`, &counts)
	if counts != "2 accepted · 1 rejected · 3 undecided" {
		t.Errorf("counts %q", counts)
	}

	data := s.Export()
	got, err := ParsePlan(data)
	if err != nil {
		t.Fatalf("exported plan: %v\n%s", err, data)
	}
	at, err := time.Parse(time.RFC3339, got.ReviewedAt)
	if err != nil || at.Before(t0) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("reviewedAt %q: %v", got.ReviewedAt, err)
	}
	// What was clicked, as a plan.
	n1 := doc.Nodes[0]
	edited := [][]int{append(slices.Clone(n2.Groups[0]), moved)}
	for _, g := range n2.Groups[1:] {
		g = slices.DeleteFunc(slices.Clone(g), func(i int) bool { return i == moved })
		if len(g) > 0 {
			edited = append(edited, g)
		}
	}
	var proposed2 [][]keys.Key
	for _, g := range n2.Groups {
		proposed2 = append(proposed2, keysOf(n2, g))
	}
	n3 := doc.Nodes[2]
	want := &ApprovedPlan{Format: PlanFormat, Version: PlanVersion, ReviewedAt: got.ReviewedAt, Source: SourceEdgeList,
		Input: "testdata/lesmis.edges", PlanSettings: PlanSettings{Splitter: split.Default},
		Nodes: []ApprovedNode{
			{Key: n1.Key, Name: "Valjean", Decision: DecisionAccept, Ambiguity: n1.Ambiguity, Score: n1.Score, Entities: n1.Entities,
				Degree: len(n1.Neighbors), Fingerprint: Fingerprint(n1.Key.Text(), neighbourKeys(n1)), Groups: approvedGroups(n1, n1.Groups)},
			{Key: n2.Key, Name: n2.Name, Decision: DecisionEdit, Ambiguity: n2.Ambiguity, Score: n2.Score, Entities: n2.Entities,
				Degree: len(n2.Neighbors), Fingerprint: Fingerprint(n2.Key.Text(), neighbourKeys(n2)), Groups: approvedGroups(n2, edited),
				Proposed: proposed2},
		},
		Rejected:  []DecidedNode{{Key: n3.Key, Name: n3.Name, Fingerprint: Fingerprint(n3.Key.Text(), neighbourKeys(n3))}},
		Undecided: []keys.Key{doc.Nodes[3].Key, doc.Nodes[4].Key, doc.Nodes[5].Key},
	}
	wj, _ := json.MarshalIndent(want, "", "  ")
	gj, _ := json.MarshalIndent(got, "", "  ")
	if !bytes.Equal(wj, gj) {
		t.Errorf("exported plan differs from the clicks:\ngot  %s\nwant %s", gj, wj)
	}

	// The page as the clicks left it, whole. (The README's screenshot is
	// made by internal/testenv/screenshot.)
	shot, err := s.Page.Screenshot(s.Ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1400 || b.Dy() < 1000 {
		t.Errorf("screenshot %v", b)
	}
	// Reset brings node 2 back to the proposal; accept still holds.
	s.Decide(2, "reset")
	got2, err := ParsePlan(s.Export())
	if err != nil || len(got2.Nodes) != 2 || got2.Nodes[1].Decision != DecisionAccept || got2.Nodes[1].Proposed != nil {
		t.Errorf("after reset: %v %+v", err, got2)
	}

}

// Names are text, never markup; integer keys past 2^53 survive the page
// exactly; a dry-run plan's internal ids travel with the keys; a split
// edited into one group cannot be accepted, and one made from a single
// group can.
func TestReviewPageEdgeCases(t *testing.T) {
	const evil = `</script><img src=x onerror="window.pwned=1">&amp;`
	big, big2 := keys.Int(9007199254740993), keys.Int(9007199254740993+2) // 2^53 + 1: not a float64
	doc := &Doc{Source: SourceNeo4j, Input: "dry-run.json", GeneratedAt: "2025-01-01T00:00:00Z",
		Plan: PlanSettings{RunID: "run-1", Splitter: "ncut", IDProperty: "uid", NodeLabels: []string{"Person", "Org"}, RelationshipTypes: []string{"KNOWS"},
			DisplayProperties: splitplan.PropertyList{"name", "title"}, MarkerLabel: "FondueSplit"},
		Nodes: []Node{
			{Key: big, ID: keys.String("4:db:1"), Name: evil, Ambiguity: 1, Score: 2,
				Neighbors: []Neighbor{{Key: keys.String("a"), ID: keys.String("4:db:2"), Name: "A"}, {Key: keys.String("b"), ID: keys.String("4:db:3"), Name: "B"}, {Key: big2, ID: keys.String("4:db:4")}},
				Groups:    [][]int{{0, 1}, {2}}},
			{Key: keys.String("solo"), ID: keys.String("4:db:9"), Name: "Solo", Ambiguity: 0.5, Score: 1,
				Neighbors: []Neighbor{{Key: keys.String("x"), ID: keys.String("4:db:10")}, {Key: keys.String("y"), ID: keys.String("4:db:11")}},
				Groups:    [][]int{{0, 1}}},
		}}
	s := reviewtest.Open(t)
	s.Load(writePage(t, doc))
	var check struct {
		Name   string
		Imgs   int
		Pwned  bool
		Title  string
		Accept []bool
	}
	s.Eval(`({Name: document.querySelector('section[data-rank="1"] h2 .name').textContent,
		Imgs: document.querySelectorAll("img").length, Pwned: !!window.pwned, Title: document.title,
		Accept: Array.from(document.querySelectorAll('button[data-action="accept"]')).map(b => b.disabled)})`, &check)
	if check.Name != evil || check.Imgs != 0 || check.Pwned {
		t.Errorf("a name became markup: %+v", check)
	}
	var stats string
	s.Eval(`document.querySelector('section[data-rank="1"] .stats').textContent`, &stats)
	if strings.Contains(stats, "entities") {
		t.Errorf("stats %q: a node without an estimate shows one", stats)
	}
	if !slices.Equal(check.Accept, []bool{false, true}) {
		t.Errorf("accept disabled: %v, want [false true] (node 2 has one group)", check.Accept)
	}
	// Node 2: one group; a drag onto "new group" makes a split of it.
	s.Drag(`section[data-rank="2"] .chip[data-nb="1"]`, `section[data-rank="2"] .group[data-drop="new"]`)
	s.Decide(2, "accept")
	// Node 1: a click moves "b" to the second group, the last one of group 1
	// leaves for group 2 too: one group left, the node cannot stay accepted.
	s.Decide(1, "accept")
	s.MoveToNextGroup(1, 0)
	if got := s.Decision(1); got != "accept" {
		t.Fatalf("node 1: %s", got)
	}
	s.MoveToNextGroup(1, 1)
	if got := s.Decision(1); got != "undecided" {
		t.Errorf("node 1 with one group left is %s, want undecided", got)
	}
	s.Decide(1, "reset")
	s.Decide(1, "accept")

	raw := s.Export()
	if !strings.Contains(string(raw), `"key": 9007199254740993`) || !strings.Contains(string(raw), `"neighbors": ["a", "b"]`) || strings.Contains(string(raw), "entities") {
		t.Errorf("keys not exact in the exported text:\n%s", raw)
	}
	p, err := ParsePlan(raw)
	if err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	if p.Source != SourceNeo4j || p.RunID != "run-1" || p.IDProperty != "uid" || !slices.Equal(p.RelationshipTypes, []string{"KNOWS"}) ||
		!slices.Equal(p.NodeLabels, []string{"Person", "Org"}) || !slices.Equal(p.DisplayProperties, []string{"name", "title"}) || p.MarkerLabel != "FondueSplit" || len(p.Nodes) != 2 {
		t.Fatalf("plan header or nodes: %+v", p)
	}
	n := p.Nodes[0]
	if n.Key != big || n.ID != keys.String("4:db:1") || n.Name != evil || n.Decision != DecisionAccept ||
		!slices.Equal(n.Groups[1].Neighbors, []keys.Key{big2}) || !slices.Equal(n.Groups[0].NeighborIDs, []keys.Key{keys.String("4:db:2"), keys.String("4:db:3")}) {
		t.Errorf("node 1: %+v", n)
	}
	if n := p.Nodes[1]; n.Key != keys.String("solo") || n.Decision != DecisionEdit || len(n.Groups) != 2 ||
		!slices.Equal(n.Groups[1].Neighbors, []keys.Key{keys.String("y")}) || !slices.Equal(n.Groups[1].NeighborIDs, []keys.Key{keys.String("4:db:11")}) {
		t.Errorf("node 2: %+v", n)
	}
}
