package review

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// pageDataOf extracts the data a page carries.
func pageDataOf(t *testing.T, page string) jsonDoc {
	t.Helper()
	const open = `<script type="application/json" id="fondue-data">`
	i := strings.Index(page, open)
	j := strings.Index(page[i:], "</script>")
	if i < 0 || j < 0 {
		t.Fatal("no data in the page")
	}
	var d jsonDoc
	if err := json.Unmarshal([]byte(page[i+len(open):i+j]), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestWriteLesmis(t *testing.T) {
	doc := lesmisDoc(t, 20)
	var a, b bytes.Buffer
	if err := Write(&a, doc); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, doc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same review gives two pages")
	}
	page := a.String()
	if a.Len() > 200_000 {
		t.Errorf("page of 20 lesmis nodes: %d bytes", a.Len())
	}
	// Self-contained: nothing is fetched (the SVG namespace is a name, not a fetch).
	rest := strings.ReplaceAll(page, `"http://www.w3.org/2000/svg"`, "")
	for _, re := range []string{`(?i)\bsrc\s*=`, `(?i)<link\b`, `\burl\(`, `@import`, `\bfetch\(`, `XMLHttpRequest`, `https?://`, `(?i)<iframe`} {
		if m := regexp.MustCompile(re).FindString(rest); m != "" {
			t.Errorf("the page refers to something outside it: %q", m)
		}
	}
	d := pageDataOf(t, page)
	if len(d.Nodes) != 20 || d.Nodes[0].Name != "Valjean" || d.Nodes[0].KeyJSON != "11" || d.Source != SourceEdgeList || !d.LinksKnown {
		t.Fatalf("page data: %d nodes, first %+v", len(d.Nodes), d.Nodes[0].Name)
	}
	for k, n := range d.Nodes {
		in := doc.Nodes[k]
		keys := neighbourKeys(in)
		if n.Fingerprint != Fingerprint(in.Key.Text(), keys) || len(n.Neighbors) != len(in.Neighbors) || len(n.Links) != 2*len(in.Links) {
			t.Errorf("node %s: data differs from the review", n.Name)
		}
		if in.Entities < 1 || n.Entities != in.Entities {
			t.Errorf("node %s: entities %d on the page, %d estimated", n.Name, n.Entities, in.Entities)
		}
		// Each neighbour on the circle, apart from the others.
		seen := map[[2]float64]bool{}
		for _, nb := range n.Neighbors {
			if r := math.Hypot(nb.X, nb.Y); math.Abs(r-n.Radius) > 0.2 || seen[[2]float64{nb.X, nb.Y}] {
				t.Errorf("node %s: neighbour %s at (%v, %v)", n.Name, nb.Name, nb.X, nb.Y)
			}
			seen[[2]float64{nb.X, nb.Y}] = true
		}
		// Each group on its own arc: walking round the circle, the group changes
		// once per group (and once more to close the circle).
		if len(in.Groups) > 1 {
			type p struct {
				angle float64
				group int
			}
			var ps []p
			for g, grp := range in.Groups {
				for _, i := range grp {
					a := math.Atan2(n.Neighbors[i].Y, n.Neighbors[i].X) + math.Pi/2
					if a < 0 {
						a += 2 * math.Pi
					}
					ps = append(ps, p{a, g})
				}
			}
			slices.SortFunc(ps, func(a, b p) int { return cmp.Compare(a.angle, b.angle) })
			changes := 0
			for i := range ps {
				if ps[i].group != ps[(i+1)%len(ps)].group {
					changes++
				}
			}
			if changes != len(in.Groups) {
				t.Errorf("node %s: %d groups drawn in %d arcs", n.Name, len(in.Groups), changes)
			}
		}
	}
}

// Twenty hubs with 300 neighbours and dense neighbourhoods still make a
// page to attach to a ticket.
func TestWriteBigNodesStaysSmall(t *testing.T) {
	doc := &Doc{Source: SourceEdgeList, LinksKnown: true}
	for k := range 20 {
		n := Node{Key: keys.String(fmt.Sprintf("hub-%d", k)), Name: fmt.Sprintf("Hub number %d", k), Ambiguity: 1, Score: 1}
		var g0, g1 []int
		for j := range 300 {
			n.Neighbors = append(n.Neighbors, Neighbor{Key: keys.Int(int64(100000 + k*1000 + j)), Name: fmt.Sprintf("Neighbour %d of %d", j, k)})
			if j%2 == 0 {
				g0 = append(g0, j)
			} else {
				g1 = append(g1, j)
			}
			for i := 0; i < j; i += 7 {
				n.Links = append(n.Links, [2]int{i, j})
			}
		}
		n.Groups = [][]int{g0, g1}
		doc.Nodes = append(doc.Nodes, n)
	}
	var buf bytes.Buffer
	if err := Write(&buf, doc); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 2<<20 {
		t.Errorf("page of 20 nodes of degree 300: %d bytes", buf.Len())
	}
	d := pageDataOf(t, buf.String())
	if n := d.Nodes[0]; len(n.Links) != 2*MaxLinks || n.LinksOmitted != len(doc.Nodes[0].Links)-MaxLinks || n.Labelled {
		t.Errorf("links %d, omitted %d, labelled %v", len(n.Links)/2, n.LinksOmitted, n.Labelled)
	}
}

func TestWriteRefusesBadNodes(t *testing.T) {
	nb := []Neighbor{{Key: keys.String("a")}, {Key: keys.String("b")}, {Key: keys.String("c")}}
	cases := []struct {
		nodes []Node
		msg   string
	}{
		{[]Node{{Key: keys.String("x"), Neighbors: nb, Groups: [][]int{{0, 1}, {2}}}, {Key: keys.String("x"), Neighbors: nb, Groups: [][]int{{0, 1, 2}}}}, "node x twice"},
		{[]Node{{Key: keys.String("x"), Neighbors: nb, Groups: [][]int{{0, 1}}}}, "the groups hold 2 of 3 neighbours"},
		{[]Node{{Key: keys.String("x"), Neighbors: nb, Groups: [][]int{{0, 1, 2}, {}}}}, "an empty group"},
		{[]Node{{Key: keys.String("x"), Neighbors: nb, Groups: [][]int{{0, 1}, {1, 2}}}}, "in two groups"},
		{[]Node{{Key: keys.String("x"), Neighbors: nb, Groups: [][]int{{0, 1, 3}}}}, "out of range"},
		{[]Node{{Key: keys.String("x"), Neighbors: nb, Groups: [][]int{{0, 1, 2}}, Links: [][2]int{{0, 3}}}}, "not between two neighbours"},
		{[]Node{{Key: keys.String("x"), Neighbors: []Neighbor{{Key: keys.String("a")}, {Key: keys.String("a")}}, Groups: [][]int{{0}, {1}}}}, "neighbour a twice"},
		{[]Node{{Key: keys.String("x")}}, "no neighbours"},
	}
	for _, c := range cases {
		err := Write(&bytes.Buffer{}, &Doc{Nodes: c.nodes})
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v, want %q", c.nodes, err, c.msg)
		}
	}
}

func TestFingerprint(t *testing.T) {
	a := Fingerprint("11", []string{"1", "2", "3"})
	if b := Fingerprint("11", []string{"3", "1", "2"}); a != b {
		t.Error("the order of the neighbours changes the fingerprint")
	}
	for _, other := range []string{Fingerprint("12", []string{"1", "2", "3"}), Fingerprint("11", []string{"1", "2"}),
		Fingerprint("11", []string{"1", "2", "4"}), Fingerprint("11", []string{"1", "23"})} {
		if other == a {
			t.Error("two neighbourhoods, one fingerprint")
		}
	}
	if !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+64 {
		t.Errorf("fingerprint %q", a)
	}
}

func validPlan() string {
	fp := Fingerprint("11", []string{"1", "2", "x"})
	return `{"format": "fondue-neo4j-approved-plan", "version": 1, "reviewedAt": "2025-01-01T00:00:00Z", "source": "edgelist",
  "nodes": [{"key": 11, "name": "V", "decision": "accept", "ambiguity": 1, "score": 2, "degree": 3, "fingerprint": "` + fp + `",
    "groups": [{"neighbors": [1, 2], "names": ["a", "b"]}, {"neighbors": ["x"]}]}],
  "rejected": [{"key": 12, "fingerprint": "sha256:00"}], "undecided": [13, "fourteen"]}`
}

func TestParsePlan(t *testing.T) {
	p, err := ParsePlan([]byte(validPlan()))
	if err != nil {
		t.Fatal(err)
	}
	if p.Nodes[0].Key != keys.Int(11) || p.Nodes[0].Groups[0].Neighbors[1] != keys.Int(2) || p.Nodes[0].Groups[1].Neighbors[0] != keys.String("x") ||
		p.Rejected[0].Key != keys.Int(12) || p.Undecided[1] != keys.String("fourteen") {
		t.Errorf("parsed %+v", p)
	}
	cases := []struct{ from, to, msg string }{
		{`"fondue-neo4j-approved-plan"`, `"plan"`, `format "plan"`},
		{`"version": 1`, `"version": 2`, "version 2"},
		{`"source": "edgelist"`, `"source": "csv"`, `source "csv"`},
		{`"decision": "accept"`, `"decision": "maybe"`, `decision "maybe"`},
		{`{"neighbors": [1, 2], "names": ["a", "b"]}, {"neighbors": ["x"]}`, `{"neighbors": [1, 2, "x"]}`, "1 groups; a split needs two or more"},
		{`{"neighbors": ["x"]}`, `{"neighbors": ["x"]}, {"neighbors": []}`, "group 2 is empty"},
		{`{"neighbors": ["x"]}`, `{"neighbors": ["x", 1]}`, "neighbour 1 is in two groups"},
		{`"degree": 3`, `"degree": 4`, "the groups hold 3 neighbours, the node had 4"},
		{`{"neighbors": ["x"]}`, `{"neighbors": ["y"]}`, "do not hold the neighbours that were reviewed"},
		{`"undecided": [13,`, `"undecided": [11,`, "node 11 is decided twice"},
		{`"score": 2,`, `"score": 2, "extra": 1,`, `unknown field "extra"`},
		{`{"neighbors": ["x"]}`, `{"neighbors": ["x"], "neighborIds": []}`, "1 neighbors and 0 neighborIds"},
	}
	for _, c := range cases {
		in := strings.Replace(validPlan(), c.from, c.to, 1)
		if in == validPlan() {
			t.Fatalf("case %q does not change the plan", c.msg)
		}
		if _, err := ParsePlan([]byte(in)); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s -> %s: %v, want %q", c.from, c.to, err, c.msg)
		}
	}
}

// lesmisDoc scores Les Misérables and proposes splits for its top nodes,
// as "fondue-neo4j review testdata/lesmis.edges --names testdata/lesmis.names" does.
func lesmisDoc(t *testing.T, top int) *Doc {
	t.Helper()
	g, _, err := edgelist.ReadFile("../../../testdata/lesmis.edges", edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := names.ReadFile("../../../testdata/lesmis.names")
	if err != nil {
		t.Fatal(err)
	}
	res, err := fondue.Score(context.Background(), g, fondue.Options{Seed: 1,
		Split: fondue.SplitOptions{Splitter: split.Splitters()[0], Top: top}})
	if err != nil {
		t.Fatal(err)
	}
	doc := FromEdgeList("testdata/lesmis.edges", g, res, nm, split.Default)
	doc.Input, doc.GeneratedAt, doc.Tool = "testdata/lesmis.edges", "2025-01-01T00:00:00Z", "fondue-neo4j (test)"
	return doc
}

func neighbourKeys(n Node) []string {
	var ks []string
	for _, nb := range n.Neighbors {
		ks = append(ks, nb.Key.Text())
	}
	return ks
}
