package review

import (
	"fmt"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/reviewtest"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// A node split into many groups (authors of the bibliography had 36 to
// 47): every group its own colour, and every neighbour its group's number,
// so that groups are told apart past any palette.
func TestManyGroupsDistinctColours(t *testing.T) {
	const groups = 47
	n := Node{Key: keys.Int(0), Name: "many", Ambiguity: 1, Score: 1, Entities: groups}
	for i := range groups * 2 {
		n.Neighbors = append(n.Neighbors, Neighbor{Key: keys.Int(int64(i + 1)), Name: fmt.Sprintf("n%d", i+1)})
	}
	for g := range groups {
		n.Groups = append(n.Groups, []int{2 * g, 2*g + 1})
	}
	doc := &Doc{Title: "many groups", Source: SourceEdgeList, Input: "t.edges", GeneratedAt: "2025-01-01T00:00:00Z", Tool: "test",
		LinksKnown: true, Nodes: []Node{n}}
	s := reviewtest.Open(t)
	s.Load(writePage(t, doc))
	var got []struct {
		Fill string `json:"fill"`
		Num  string `json:"num"`
	}
	s.Eval(`Array.from(document.querySelectorAll('section[data-rank="1"] svg .nb')).map(function (g) {
		var t = g.querySelector('text.gnum');
		return {fill: g.querySelector('circle').getAttribute('fill'), num: t ? t.textContent : ''};
	})`, &got)
	if len(got) != len(n.Neighbors) {
		t.Fatalf("%d neighbours drawn, want %d", len(got), len(n.Neighbors))
	}
	groupOf := map[string]int{} // fill -> group
	for g, grp := range n.Groups {
		for _, i := range grp {
			if want := fmt.Sprint(g + 1); got[i].Num != want {
				t.Errorf("neighbour %d of group %d is numbered %q", i, g+1, got[i].Num)
			}
			if other, seen := groupOf[got[i].Fill]; seen && other != g {
				t.Errorf("groups %d and %d share the colour %s", other+1, g+1, got[i].Fill)
			}
			groupOf[got[i].Fill] = g
		}
	}
	if len(groupOf) != groups {
		t.Errorf("%d colours for %d groups", len(groupOf), groups)
	}
}
