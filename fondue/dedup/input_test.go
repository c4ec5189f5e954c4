package dedup

import (
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// NewInput compares the targets by their names; a context node without a
// name takes its display name; Compared counts the named targets.
func TestNewInput(t *testing.T) {
	var b graph.Builder
	b.AddEdge("a1", "p1")
	b.AddEdge("a2", "p1")
	b.AddEdge("a3", "v1")
	g := b.Build()
	names := make([]string, g.NumNodes())
	display := make([]string, g.NumNodes())
	targets := make([]bool, g.NumNodes())
	for i := range names {
		switch k := g.Key(i); k {
		case "a1", "a2", "a3":
			targets[i] = true
			if k != "a3" {
				names[i] = "name " + k
			}
			display[i] = "shown " + k
		default:
			display[i] = "shown " + k
		}
	}
	in := NewInput(g, names, display, targets, nil)
	var got []string
	for i, n := range in.Names {
		got = append(got, g.Key(i)+"="+n)
	}
	slices.Sort(got)
	want := []string{"a1=name a1", "a2=name a2", "a3=", "p1=shown p1", "v1=shown v1"}
	if !slices.Equal(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	if c, n := in.Compared(); c != 3 || n != 2 || len(in.Targets) != 3 {
		t.Errorf("compared %d named %d targets %v, want 3 2", c, n, in.Targets)
	}
	// Without targets every node is compared, by its name only.
	all := NewInput(g, make([]string, g.NumNodes()), display, nil, nil)
	if c, n := all.Compared(); c != 5 || n != 0 || all.Targets != nil {
		t.Errorf("every node: compared %d named %d targets %v, want 5 0 nil", c, n, all.Targets)
	}
}
