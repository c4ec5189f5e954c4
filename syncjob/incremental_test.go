package syncjob_test

import (
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/memstore"
)

// nights runs syncs on a store the way the nightly job does: each from
// the state the last one saved once its write succeeded (Options.Since).
type nights struct {
	t     *testing.T
	s     *memstore.Store
	state *fondue.State
	last  *syncjob.Subgraph
}

func (n *nights) run(runID string, split bool) *syncjob.Summary {
	n.t.Helper()
	o := options(runID)
	o.Split, o.OnlyChanged = split, true
	o.Score.Split.Top = 1
	o.Prepare = func(sg *syncjob.Subgraph, opts *fondue.Options) error {
		opts.KeepState, opts.Since = true, n.state
		return nil
	}
	o.Written = func(sg *syncjob.Subgraph, res *fondue.Result, opts fondue.Options, sum *syncjob.Summary) error {
		n.state, n.last = res.State(sg.Graph, opts), sg
		return nil
	}
	sum, err := syncjob.Sync(ctx(n.t), n.s, o)
	if err != nil {
		n.t.Fatal(err)
	}
	return sum
}

// neighbourhoods are the keys of each node's neighbours, by key, sorted.
func neighbourhoods(sg *syncjob.Subgraph) map[string][]string {
	out := map[string][]string{}
	for i := range sg.Graph.NumNodes() {
		var ks []string
		for _, j := range sg.Graph.Neighbors(i) {
			ks = append(ks, sg.Key(int(j)).Text())
		}
		slices.Sort(ks)
		out[sg.Key(i).Text()] = ks
	}
	return out
}

// changedSince counts, by brute force, the nodes of after that are new or
// whose neighbours' keys differ from before.
func changedSince(before, after *syncjob.Subgraph) int {
	b, n := neighbourhoods(before), 0
	for k, ks := range neighbourhoods(after) {
		if old, ok := b[k]; !ok || !slices.Equal(old, ks) {
			n++
		}
	}
	return n
}

// Incremental nights on memstore: an unchanged night rescores and writes
// nothing; a split and its undo change the graph, and the next night
// counts as changed exactly the nodes whose neighbourhood changed (the
// split node, its clones, the neighbours moved to them), then writes what
// moved: every node then holds its computed values within the tolerance.
func TestIncrementalNights(t *testing.T) {
	s, _ := lesmis(t)
	n := &nights{t: t, s: s}
	first := n.run("n1", false)
	if first.Incremental != nil || first.NodesWritten != 77 {
		t.Fatalf("night 1 (no state): %+v, wrote %d", first.Incremental, first.NodesWritten)
	}

	same := n.run("n2", false)
	if in := same.Incremental; in == nil || in.Mode != syncjob.ModeIncremental || in.NodesChanged != 0 || in.NodesRescored != 0 ||
		same.NodesWritten != 0 || same.NodesUnchanged != 77 || same.NodePropertiesWritten != 0 {
		t.Fatalf("unchanged night: %+v, wrote %d, unchanged %d", same.Incremental, same.NodesWritten, same.NodesUnchanged)
	}

	before := n.last
	sp := n.run("n3-split", true)
	if sp.Split == nil || sp.Split.Split != 1 || sp.Split.NodesCreated == 0 {
		t.Fatalf("split night: %+v", sp.Split)
	}
	after := n.run("n4", false)
	want := changedSince(before, n.last)
	if in := after.Incremental; in == nil || in.Mode != syncjob.ModeIncremental || in.NodesChanged != want || want < 1+sp.Split.NodesCreated {
		t.Fatalf("night after the split: %+v, want %d nodes changed (the split node, %d clones, the neighbours moved)", after.Incremental, want, sp.Split.NodesCreated)
	}
	if after.NodesWritten == 0 || after.NodesWritten+after.NodesUnchanged != after.Scored.Nodes+after.UnscoredNodes {
		t.Fatalf("night after the split wrote %d, left %d, of %d", after.NodesWritten, after.NodesUnchanged, after.Scored.Nodes)
	}
	t.Logf("after the split: %+v; wrote %d, left %d", *after.Incremental, after.NodesWritten, after.NodesUnchanged)
	checkWritten(t, s, n)

	split := n.last
	if _, err := syncjob.Undo(ctx(t), s, syncjob.UndoOptions{RunID: "n3-split"}); err != nil {
		t.Fatal(err)
	}
	undone := n.run("n5", false)
	if want := changedSince(split, n.last); undone.Incremental == nil || undone.Incremental.NodesChanged != want || want == 0 {
		t.Fatalf("night after the undo: %+v, want %d nodes changed", undone.Incremental, want)
	}
	t.Logf("after the undo: %+v; wrote %d, left %d", *undone.Incremental, undone.NodesWritten, undone.NodesUnchanged)
	checkWritten(t, s, n)
}

// checkWritten checks that every node holds the ambiguity of the last
// night within AmbiguityTolerance, and a raw score when it has one.
func checkWritten(t *testing.T, s *memstore.Store, n *nights) {
	t.Helper()
	o := options("check")
	o.Pull.ReadBack = []string{syncjob.DefaultWriteProperty, syncjob.DefaultScoreProperty}
	sg, err := s.Pull(ctx(t), o.Pull)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fondue.Score(ctx(t), sg.Graph, fondue.Options{Seed: 1, KeepState: true, Since: n.state})
	if err != nil {
		t.Fatal(err)
	}
	for i := range sg.Graph.NumNodes() {
		a, sc := sg.ReadBack[0][i], sg.ReadBack[1][i]
		if !syncjob.AmbiguityUnchanged(a, res.Ambiguity[i]) || math.IsNaN(sc) != math.IsNaN(res.Scores[i]) {
			t.Fatalf("node %v holds %v (%v), computed %v (%v)", sg.Key(i), a, sc, res.Ambiguity[i], res.Scores[i])
		}
	}
}
