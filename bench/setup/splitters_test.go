package setup

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/bench/research"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// The splitters are fondue's, the default first, then the research
// candidates; Choose defaults to all methods and splitters and refuses
// unknown ones.
func TestChoose(t *testing.T) {
	names := SplitterNames()
	if len(names) != len(split.Splitters())+len(research.Splitters()) || names[0] != split.Default || !slices.Contains(names, research.EgoComponents) {
		t.Fatalf("splitter names %v", names)
	}
	m, s, err := Choose(nil, nil)
	if err != nil || !slices.Equal(m, score.Methods()) || !slices.Equal(s, names) {
		t.Fatalf("defaults: %v %v %v", m, s, err)
	}
	m, s, err = Choose([]string{score.MethodDegree}, []string{split.MCL, research.TwoHopComponents})
	if err != nil || !slices.Equal(m, []string{score.MethodDegree}) || !slices.Equal(s, []string{split.MCL, research.TwoHopComponents}) {
		t.Fatalf("chosen: %v %v %v", m, s, err)
	}
	if _, _, err := Choose([]string{"nope"}, nil); err == nil || !strings.Contains(err.Error(), `unknown method "nope"`) {
		t.Errorf("unknown method: %v", err)
	}
	if _, _, err := Choose(nil, []string{"nope"}); err == nil || !strings.Contains(err.Error(), `unknown splitter "nope"`) {
		t.Errorf("unknown splitter: %v", err)
	}
}

func TestReference(t *testing.T) {
	for _, s := range split.Splitters() {
		if Reference(s.Name()) {
			t.Errorf("fondue's splitter %s counted as a reference", s.Name())
		}
	}
	for _, s := range research.Splitters() {
		if !Reference(s.Name()) {
			t.Errorf("research's splitter %s not counted as a reference", s.Name())
		}
	}
}

// Measured leaves a research candidate's groups uncapped and fondue's
// splitters' capped: a hub of six unlinked leaves is six ego components,
// three (GroupCap of one entity) after the cap.
func TestMeasured(t *testing.T) {
	g, err := graph.NewGraph(7, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}})
	if err != nil {
		t.Fatal(err)
	}
	res := &fondue.Result{Entities: []int{1, 1, 1, 1, 1, 1, 1}}
	for _, c := range []struct {
		name string
		res  *fondue.Result
		want int
	}{
		{"capped", res, 3},
		{"measured", Measured(res, research.EgoComponents), 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			props, err := fondue.ProposeSplits(context.Background(), g, c.res, []int{0},
				fondue.Options{Split: fondue.SplitOptions{Splitter: split.Find(Splitters(), research.EgoComponents)}})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(props[0].Groups); got != c.want {
				t.Errorf("got %d groups, want %d", got, c.want)
			}
		})
	}
	if got := res.Entities; len(got) != 7 {
		t.Errorf("Measured changed its argument: got entities %v, want 7 of them", got)
	}
	for _, s := range split.Splitters() {
		if got := Measured(res, s.Name()); got != res {
			t.Errorf("%s: got a copy of the result, want the result itself", s.Name())
		}
	}
	if got := Measured(nil, research.EgoComponents); got != nil {
		t.Errorf("nil result: got %v, want nil", got)
	}
}
