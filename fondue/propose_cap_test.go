package fondue

import (
	"context"
	"reflect"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

func TestCapGroups(t *testing.T) {
	groups := [][]int32{{1, 2, 3, 4, 5}, {6, 7, 8}, {9}, {10}}
	// No embedding: the surplus joins the largest group.
	got, _ := capGroups(groups, nil, 2, nil)
	want := [][]int32{{1, 2, 3, 4, 5, 9, 10}, {6, 7, 8}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("no embedding: %v, want %v", got, want)
	}
	// 1-D embedding: 1..5 near 0, 6..8 near 10; 9 at 9 joins 6..8, 10 at 1 joins 1..5.
	x := make([]float64, 11)
	for _, j := range []int{6, 7, 8} {
		x[j] = 10
	}
	x[9], x[10] = 9, 1
	got, _ = capGroups(groups, nil, 2, &cne.Embedding{Dim: 1, X: x})
	want = [][]int32{{1, 2, 3, 4, 5, 10}, {6, 7, 8, 9}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("embedding: %v, want %v", got, want)
	}
	// Ties in size: the group with the lower first member comes first.
	got, _ = capGroups([][]int32{{1, 2}, {3, 4}, {5}}, nil, 2, &cne.Embedding{Dim: 1, X: []float64{0, 0, 0, 5, 5, 5}})
	want = [][]int32{{3, 4, 5}, {1, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ties: %v, want %v", got, want)
	}
	if got, _ := capGroups(groups, nil, 4, nil); !reflect.DeepEqual(got, groups) {
		t.Errorf("within the cap: %v, want %v", got, groups)
	}
	// Reasons follow their groups through the sort; a group the cap joins
	// brings no reasons.
	r := func(v string) []evidence.Reason {
		return []evidence.Reason{{Kind: "title", Node: -1, Value: v, Weight: 1}}
	}
	gotG, gotR := capGroups([][]int32{{1, 2}, {3, 4}, {5}}, [][]evidence.Reason{r("a"), r("b"), r("c")}, 2,
		&cne.Embedding{Dim: 1, X: []float64{0, 0, 0, 5, 5, 5}})
	if want := [][]int32{{3, 4, 5}, {1, 2}}; !reflect.DeepEqual(gotG, want) {
		t.Errorf("with reasons: groups %v, want %v", gotG, want)
	}
	if want := [][]evidence.Reason{r("b"), r("a")}; !reflect.DeepEqual(gotR, want) {
		t.Errorf("with reasons: reasons %v, want %v", gotR, want)
	}
}

// TestProposeSplitsCap: a node gets at most GroupCap(its entity estimate)
// groups, whatever the splitter makes.
func TestProposeSplitsCap(t *testing.T) {
	// Node 0 is linked to four pairs that nothing else links: the
	// splitter makes four groups (GroupCap(1) = 3, and 4 for any estimate
	// from 2).
	g, err := graph.NewGraph(9, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}, {0, 8}, {1, 2}, {3, 4}, {5, 6}, {7, 8}})
	if err != nil {
		t.Fatal(err)
	}
	var sp split.Splitter
	for _, s := range split.Splitters() {
		if !s.NeedsEmbedding() {
			sp = s
			break
		}
	}
	opts := Options{Split: SplitOptions{Splitter: sp}}
	free, err := ProposeSplits(context.Background(), g, nil, []int{0}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(free[0].Groups) < 4 {
		t.Fatalf("%s made %d groups of four separate pairs, want 4", sp.Name(), len(free[0].Groups))
	}
	for est, want := range map[int]int{1: 3, 2: 4, 3: 4} {
		res := &Result{Entities: []int{est, 1, 1, 1, 1, 1, 1, 1, 1}}
		props, err := ProposeSplits(context.Background(), g, res, []int{0}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(props[0].Groups); n != want {
			t.Errorf("estimate %d: %d groups %v, want %d", est, n, props[0].Groups, want)
		}
		total := 0
		for _, gr := range props[0].Groups {
			total += len(gr)
		}
		if total != 8 {
			t.Errorf("estimate %d: groups %v hold %d neighbours, want 8", est, props[0].Groups, total)
		}
	}
}

func TestGroupCap(t *testing.T) {
	for est, want := range map[int]int{0: 3, 1: 3, 2: 6, 3: 9, 10: 30} {
		if got := GroupCap(est); got != want {
			t.Errorf("GroupCap(%d) = %d, want %d", est, got, want)
		}
	}
}
