package syncjob_test

// The loops (split, undo, resume, apply, sync) are syncjob's, written once
// for every store: they are tested here, on the in-memory store; the
// stores' primitives are tested by package storetest, on every store.

import (
	"context"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/storetest"
)

func TestLoops(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, f storetest.Factory)
	}{
		{"SplitUndo", testSplitUndo},
		{"SplitResume", testSplitResume},
		{"SplitChanged", testSplitChanged},
		{"StalePlan", testStalePlan},
		{"ResolveKeys", testResolveKeys},
		{"PlanStore", testPlanStore},
		{"Sync", testSync},
		{"Heterogeneous", testHeterogeneous},
		{"UndoMarkerLabelFromRecord", testUndoMarkerLabelFromRecord},
		{"UndoKeepsUnreversedRecord", testUndoKeepsUnreversedRecord},
		{"UndoUnknownRun", testUndoUnknownRun},
		{"InvalidNamesFirst", testInvalidNamesFirst},
		{"ReplaceUnstartedPlan", testReplaceUnstartedPlan},
		{"ResolveKeyTypes", testResolveKeyTypes},
		{"WriteLabels", testWriteLabels},
		{"SecondNight", testSecondNight},
		{"Decisions", testDecisions},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, storetest.Memory) })
	}
}

// seeded is the start of most loop tests: the suite's graph
// (storetest.Seed) in a store of f, a context, and the graph pulled.
func seeded(t *testing.T, f storetest.Factory) (storetest.Fixture, syncjob.Store, context.Context, *syncjob.Subgraph) {
	t.Helper()
	fx := f(t, storetest.Seed())
	st := fx.Store()
	return fx, st, storetest.Ctx(t), storetest.MustPull(t, st)
}

// sameGraph fails the test, saying what, when the store's graph is not
// want (a dump).
func sameGraph(t *testing.T, fx storetest.Fixture, want, what string) {
	t.Helper()
	if d := fx.Dump(t); d != want {
		t.Fatalf("%s:\n%s\n--- want\n%s", what, d, want)
	}
}

// bridgePlan splits 100: it keeps 1, 2, 3; a clone takes 11, 12, 13.
func bridgePlan(t *testing.T, sg *syncjob.Subgraph, runID string) *splitplan.Plan {
	t.Helper()
	group := func(uids ...int64) splitplan.Group {
		var g splitplan.Group
		for _, u := range uids {
			i := storetest.Index(t, sg, u)
			g.Neighbors = append(g.Neighbors, sg.Key(i))
			g.NeighborIDs = append(g.NeighborIDs, sg.IDs[i])
			g.Names = append(g.Names, sg.Names[i])
		}
		return g
	}
	b := storetest.Index(t, sg, 100)
	return &splitplan.Plan{RunID: runID, CreatedAt: "2025-01-01T00:00:00.000Z", Splitter: "test", IDProperty: "uid",
		NodeLabels: []string{"Person"}, RelationshipTypes: []string{"KNOWS"}, DisplayProperties: splitplan.PropertyList{"name"},
		MarkerLabel: syncjob.DefaultMarkerLabel, SkipProperties: []string{"name"},
		Nodes: []splitplan.Node{{ID: sg.IDs[b], Key: keys.Int(100), Name: "Bridge", Groups: []splitplan.Group{group(1, 2, 3), group(11, 12, 13)}}}}
}

func testSplitUndo(t *testing.T, f storetest.Factory) {
	fx, st, ctx, sg := seeded(t, f)
	before := fx.Dump(t)
	plan := bridgePlan(t, sg, "r1")
	if err := syncjob.Describe(ctx, st, plan); err != nil {
		t.Fatal(err)
	}
	n := plan.Nodes[0]
	want0 := []splitplan.RelCount{{Type: "KNOWS", Direction: "out", Count: 3}, {Type: "KNOWS", Direction: "in", Count: 1}}
	want1 := []splitplan.RelCount{{Type: "KNOWS", Direction: "out", Count: 3}}
	stay := []splitplan.RelCount{{Type: "KNOWS", Direction: "in", Count: 1}, {Type: "LIKES", Direction: "out", Count: 1}}
	if !slices.Equal(n.Groups[0].Relationships, want0) || !slices.Equal(n.Groups[1].Relationships, want1) || !slices.Equal(n.Staying, stay) || !slices.Equal(n.Labels, []string{"Person"}) {
		t.Fatalf("described: %+v", n)
	}
	sameGraph(t, fx, before, "Describe wrote")
	stored, err := syncjob.StorePlan(ctx, st, plan)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := syncjob.Split(ctx, st, stored, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ss.Split != 1 || ss.NodesCreated != 1 || ss.RelationshipsMoved != 3 || ss.Nodes[0].Outcome != splitplan.OutcomeSplit {
		t.Fatalf("split: %+v", ss)
	}
	// The clone has no uid (so a keyed pull leaves it out), the marker
	// label and the provenance.
	after := storetest.MustPull(t, st)
	if after.Stats.KeylessClones != 1 || after.Graph.Degree(storetest.Index(t, after, 100)) != 3 || after.Graph.NumEdges() != 23 {
		t.Fatalf("after the split: %d keyless clones, degree of 100 %d, %d edges", after.Stats.KeylessClones, after.Graph.Degree(storetest.Index(t, after, 100)), after.Graph.NumEdges())
	}
	if runs, _ := fx.Props(t, 100)[splitplan.PropSplitRuns].([]any); !slices.Equal(runs, []any{"r1"}) {
		t.Fatalf("fondue_split_runs: %v", fx.Props(t, 100))
	}
	split := fx.Dump(t)
	if !strings.Contains(split, "r1/100/1") || !strings.Contains(split, "2025-01-02T03:04:05.000Z") || !strings.Contains(split, syncjob.DefaultMarkerLabel) {
		t.Fatalf("no clone with provenance:\n%s", split)
	}
	// Re-running changes nothing.
	ss, err = syncjob.Split(ctx, st, stored, time.Now(), nil, nil)
	if err != nil || ss.AlreadyDone != 1 || ss.NodesCreated != 0 {
		t.Fatalf("re-run: %+v %v", ss, err)
	}
	sameGraph(t, fx, split, "a re-run changed the graph")
	us, err := syncjob.UndoSplits(ctx, st, syncjob.UndoOptions{RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if us.Originals != 1 || us.Restored != 1 || us.ClonesDeleted != 1 || us.RelationshipsMoved != 3 || len(us.Failed) != 0 {
		t.Fatalf("undo: %+v", us)
	}
	sameGraph(t, fx, before, "undo did not restore the graph")
	if n, err := syncjob.CountSplit(ctx, st, stored); err != nil || n != 0 {
		t.Fatalf("after the undo, %d planned nodes carry the split mark (%v)", n, err)
	}
	// The store's Undo leaves the record; syncjob.Undo forgets it once
	// no node carries the run's split mark.
	if p, err := syncjob.LoadPlan(ctx, st, "r1"); err != nil || p == nil {
		t.Fatalf("the store's Undo forgot the record: %v %v", p, err)
	}
	if us, err := syncjob.UndoSplits(ctx, st, syncjob.UndoOptions{RunID: "r1"}); err != nil || us.Originals != 0 {
		t.Fatalf("second undo: %+v %v", us, err)
	}
	if us, err := syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "r1"}); err != nil || us.Originals != 0 {
		t.Fatalf("syncjob.Undo of an undone run with a record: %+v %v", us, err)
	}
	if p, err := syncjob.LoadPlan(ctx, st, "r1"); err != nil || p != nil {
		t.Fatalf("the plan outlived its undo: %v %v", p, err)
	}
	sameGraph(t, fx, before, "forgetting the record changed the graph")
}

// A plan interrupted after its first node resumes: done nodes are left
// alone, the rest split.
func testSplitResume(t *testing.T, f storetest.Factory) {
	_, st, ctx, sg := seeded(t, f)
	plan := bridgePlan(t, sg, "r2")
	// A second node: 3 keeps 1, 2, 4, 5; a clone takes 100.
	three := storetest.Index(t, sg, 3)
	ids := func(uids ...int64) (ks, ids []keys.Key) {
		for _, u := range uids {
			i := storetest.Index(t, sg, u)
			ks, ids = append(ks, sg.Key(i)), append(ids, sg.IDs[i])
		}
		return ks, ids
	}
	k0, i0 := ids(1, 2, 4, 5)
	k1, i1 := ids(100)
	plan.Nodes = append(plan.Nodes, splitplan.Node{ID: sg.IDs[three], Key: keys.Int(3), Groups: []splitplan.Group{{Neighbors: k0, NeighborIDs: i0}, {Neighbors: k1, NeighborIDs: i1}}})
	stored, err := syncjob.StorePlan(ctx, st, plan)
	if err != nil {
		t.Fatal(err)
	}
	half := *stored
	half.Nodes = stored.Nodes[:1]
	if ss, err := syncjob.Split(ctx, st, &half, time.Now(), nil, nil); err != nil || ss.Split != 1 {
		t.Fatalf("first half: %+v %v", ss, err)
	}
	loaded, err := syncjob.LoadPlan(ctx, st, "r2")
	if err != nil || loaded == nil || len(loaded.Nodes) != 2 {
		t.Fatalf("stored plan: %v %v", loaded, err)
	}
	ss, err := syncjob.Split(ctx, st, loaded, time.Now(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 3's neighbour 100 is now 100 or its clone: the relationship 100 -> 3
	// stayed with 100 (group 0), so it moves to 3's clone.
	if ss.AlreadyDone != 1 || ss.Split != 1 || ss.NodesCreated != 1 || ss.RelationshipsMoved != 1 {
		t.Fatalf("resumed: %+v", ss)
	}
	if us, err := syncjob.UndoSplits(ctx, st, syncjob.UndoOptions{RunID: "r2"}); err != nil || us.Restored != 2 {
		t.Fatalf("undo: %+v %v", us, err)
	}
}

// A scheduled plan skips a node whose planned neighbours are gone.
func testSplitChanged(t *testing.T, f storetest.Factory) {
	fx, st, ctx, sg := seeded(t, f)
	plan := bridgePlan(t, sg, "r3")
	fx.Delete(t, 12)
	before := fx.Dump(t)
	ss, err := syncjob.Split(ctx, st, plan, time.Now(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ss.Skipped != 1 || ss.Nodes[0].Outcome != splitplan.OutcomeChanged || !strings.Contains(ss.Nodes[0].Reason, "1 planned neighbours are no longer connected") {
		t.Fatalf("split: %+v", ss)
	}
	sameGraph(t, fx, before, "a skipped node was changed")
}

// An approved plan whose node gained a neighbour is refused whole.
func testStalePlan(t *testing.T, f storetest.Factory) {
	fx, st, ctx, sg := seeded(t, f)
	plan := bridgePlan(t, sg, "a1")
	plan.ExactNeighbors = true
	plan.Approved = &splitplan.ApprovedRef{File: "approved.json", ReviewedAt: "2025-01-01T00:00:00.000Z", Fingerprint: "sha256:0123456789abcdef"}
	if bad, err := syncjob.Check(ctx, st, plan); err != nil || len(bad) != 0 {
		t.Fatalf("unchanged graph: %v %v", bad, err)
	}
	fx.Relate(t, 100, 14, "KNOWS")
	fx.Relate(t, 100, 300, "KNOWS") // not selected: no change
	before := fx.Dump(t)
	bad, err := syncjob.Check(ctx, st, plan)
	if err != nil || len(bad) != 1 || bad[0].Outcome != splitplan.OutcomeChanged || bad[0].Reason != "added neighbour 14 (p14)" {
		t.Fatalf("check: %+v %v", bad, err)
	}
	sum, err := syncjob.Apply(ctx, st, plan, syncjob.ApplyOptions{})
	var se *syncjob.StaleError
	if !syncjob.IsStalePlan(err) || !errors.As(err, &se) || len(se.Changed) != 1 || sum.Split != nil ||
		!strings.Contains(err.Error(), "approved plan approved.json no longer matches the graph (1 of its 1 nodes changed since the review); nothing was split: node 100 (Bridge): added neighbour 14 (p14)") {
		t.Fatalf("apply: %v", err)
	}
	sameGraph(t, fx, before, "a refused plan wrote")
}

// A plan that names nodes by key only gets their ids; a key no node has
// is a missing node.
func testResolveKeys(t *testing.T, f storetest.Factory) {
	_, st, ctx, sg := seeded(t, f)
	plan := bridgePlan(t, sg, "k1")
	plan.ExactNeighbors = true
	for k := range plan.Nodes {
		n := &plan.Nodes[k]
		n.ID, n.Key = keys.Key{}, keys.String("100") // text, as from an edge list
		for _, g := range n.Groups {
			clear(g.NeighborIDs)
		}
	}
	extra := plan.Nodes[0]
	extra.Key, extra.Groups = keys.Int(999), []splitplan.Group{{Neighbors: []keys.Key{keys.Int(1)}, NeighborIDs: []keys.Key{{}}}}
	plan.Nodes = append(plan.Nodes, extra)
	if err := syncjob.ResolveKeys(ctx, st, plan); err != nil {
		t.Fatal(err)
	}
	n := plan.Nodes[0]
	if n.ID != sg.IDs[storetest.Index(t, sg, 100)] || n.Key != keys.Int(100) || n.Groups[1].NeighborIDs[2] != sg.IDs[storetest.Index(t, sg, 13)] {
		t.Fatalf("resolved: %+v", n)
	}
	bad, err := syncjob.Check(ctx, st, plan)
	if err != nil || len(bad) != 1 || bad[0].Outcome != splitplan.OutcomeMissing || bad[0].Reason != "no node of the subgraph has uid = 999" {
		t.Fatalf("check: %+v %v", bad, err)
	}
}

// The first stored plan of a run wins; another approved plan is refused.
func testPlanStore(t *testing.T, f storetest.Factory) {
	_, st, ctx, sg := seeded(t, f)
	p1 := bridgePlan(t, sg, "s1")
	p1.Approved = &splitplan.ApprovedRef{ReviewedAt: "2025-01-01T00:00:00.000Z", Fingerprint: "sha256:aaaaaaaaaaaaaaaa"}
	if _, err := syncjob.StorePlan(ctx, st, p1); err != nil {
		t.Fatal(err)
	}
	p2 := bridgePlan(t, sg, "s1")
	p2.Nodes = nil
	got, err := syncjob.StorePlan(ctx, st, p2) // a scheduled plan resumes what is stored
	if err != nil || len(got.Nodes) != 1 || got.Nodes[0].Key != keys.Int(100) || got.Approved == nil {
		t.Fatalf("stored: %+v %v", got, err)
	}
	p2.Approved = &splitplan.ApprovedRef{ReviewedAt: "2025-01-02T00:00:00.000Z", Fingerprint: "sha256:bbbbbbbbbbbbbbbb"}
	if _, err := syncjob.StorePlan(ctx, st, p2); !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), "already holds another split plan") {
		t.Fatalf("another approved plan: %v", err)
	}
}

// The whole pipeline: score, write, split the most ambiguous node, undo.
func testSync(t *testing.T, f storetest.Factory) {
	fx, st, ctx, _ := seeded(t, f)
	before := fx.Dump(t)
	o := syncjob.Options{RunID: "sync-1", Pull: storetest.Pull, Split: true, Score: fondue.Options{Seed: 7, Split: fondue.SplitOptions{Top: 1}},
		Write: syncjob.WriteOptions{RunProperty: syncjob.DefaultRunProperty, EntitiesProperty: syncjob.DefaultEntitiesProperty}}
	sum, err := syncjob.Sync(ctx, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.NodeCount != 11 || sum.RelationshipCount != 26 || sum.NodePropertiesWritten != 22 || sum.Split == nil || sum.Split.Split != 1 ||
		sum.Split.Nodes[0].Key != keys.Int(100) || sum.Split.NodesCreated < 1 {
		t.Fatalf("summary: %+v split %+v", sum, sum.Split)
	}
	if p := fx.Props(t, 100); p["ambiguity"] != 1.0 || p[syncjob.DefaultRunProperty] != "sync-1" || p[syncjob.DefaultEntitiesProperty] == nil {
		t.Fatalf("node 100: %v", p)
	}
	// Re-running the run id resumes its plan: nothing more.
	split := fx.Dump(t)
	// The clones get none of the written properties (nor the run id).
	clones := 0
	for _, line := range strings.Split(split, "\n") {
		if strings.HasPrefix(line, "N ") && strings.Contains(line, syncjob.DefaultMarkerLabel) {
			clones++
			if strings.Contains(line, "ambiguity") || strings.Contains(line, syncjob.DefaultRunProperty) {
				t.Fatalf("a clone holds a written property: %s", line)
			}
		}
	}
	if clones != sum.Split.NodesCreated {
		t.Fatalf("%d clones in the dump, %d created:\n%s", clones, sum.Split.NodesCreated, split)
	}
	sum, err = syncjob.Sync(ctx, st, o)
	if err != nil || !sum.Resumed || sum.Split.AlreadyDone != 1 || fx.Dump(t) != split {
		t.Fatalf("resume: %+v %v", sum, err)
	}
	us, err := syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "sync-1"})
	if err != nil || us.Restored != 1 {
		t.Fatalf("undo: %+v %v", us, err)
	}
	// The scores stay; the rest is the graph from before.
	for _, uid := range []int64{1, 2, 3, 4, 5, 11, 12, 13, 14, 15, 100} {
		p := fx.Props(t, uid)
		if p["ambiguity"] == nil {
			t.Fatalf("node %d lost its score: %v", uid, p)
		}
	}
	if n := strings.Count(fx.Dump(t), "\n"); n != strings.Count(before, "\n") {
		t.Fatalf("undo left %d lines, want %d", n, strings.Count(before, "\n"))
	}
}

// A heterogeneous graph: every node is named by the first display
// property it has, in the pull, in the messages about changed neighbours
// and in the summary, which counts the scored nodes per label (isolated
// ones apart) and lists the most ambiguous nodes.
func testHeterogeneous(t *testing.T, f storetest.Factory) {
	fx := f(t, storetest.Movies())
	st := fx.Store()
	ctx := storetest.Ctx(t)
	sg, err := st.Pull(ctx, storetest.MoviesPull)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{1: "P1", 4: "P4", 11: "M11", 13: "M13", 14: "N14", 15: "", 16: "Lonely"}
	for uid, name := range want {
		if got := sg.Names[storetest.Index(t, sg, uid)]; got != name {
			t.Errorf("node %d named %q, want %q", uid, got, name)
		}
	}
	wantLabels := map[int64][]string{1: {"Person"}, 4: {"Director", "Person"}, 11: {"Movie"}, 16: {"Movie"}}
	for uid, labels := range wantLabels {
		if got := slices.Sorted(slices.Values(sg.NodeLabels(storetest.Index(t, sg, uid)))); !slices.Equal(got, labels) {
			t.Errorf("node %d has labels %q, want %q", uid, got, labels)
		}
	}

	// The summary of a dry run: 9 nodes scored (16 is isolated), per label.
	for _, top := range []int{0, 3, -1} {
		sum, err := syncjob.Sync(ctx, st, syncjob.Options{RunID: "movies", Pull: storetest.MoviesPull, DryRun: true, TopNodes: top, Score: fondue.Options{Seed: 7}})
		if err != nil {
			t.Fatal(err)
		}
		sc := sum.Scored
		wantCounts := map[string]syncjob.LabelCount{"Person": {Scored: 4}, "Director": {Scored: 1}, "Movie": {Scored: 5, Unscored: 1}}
		if sc == nil || sc.Nodes != 9 || sum.UnscoredNodes != 1 || !maps.Equal(sc.Labels, wantCounts) {
			t.Fatalf("top %d: scored %+v, unscored %d; want 9 nodes, counts %v", top, sc, sum.UnscoredNodes, wantCounts)
		}
		if len(sc.Sure) != 1 || sc.Sure[0].Top != 1 || !sc.Sure[0].OnePercent { // the top 1% of 9 nodes: 1
			t.Fatalf("top %d: sure %+v, want the top 1%%, 1 node", top, sc.Sure)
		}
		wantTop := map[int]int{0: 9, 3: 3, -1: 0}[top]
		if len(sc.Top) != wantTop {
			t.Fatalf("top %d: %d nodes listed, want %d", top, len(sc.Top), wantTop)
		}
		for k, n := range sc.Top {
			uid, _ := n.Key.Int64()
			i := storetest.Index(t, sg, uid)
			if n.ID != sg.IDs[i] || n.Name != sg.Names[i] || !slices.Equal(n.Labels, sg.NodeLabels(i)) ||
				(k == 0 && n.Ambiguity != 1) || (k > 0 && n.Ambiguity > sc.Top[k-1].Ambiguity) || math.IsNaN(n.Score) {
				t.Fatalf("top %d: node %d: %+v", top, k, n)
			}
		}
	}

	// A changed neighbourhood names the added neighbours by title or name.
	one := storetest.Index(t, sg, 1)
	plan := &splitplan.Plan{RunID: "m1", CreatedAt: "2025-01-01T00:00:00.000Z", Splitter: "test", IDProperty: "uid",
		NodeLabels: storetest.MoviesPull.NodeLabels, DisplayProperties: splitplan.PropertyList(storetest.MoviesPull.DisplayProperties),
		MarkerLabel: syncjob.DefaultMarkerLabel, ExactNeighbors: true,
		Nodes: []splitplan.Node{{ID: sg.IDs[one], Key: keys.Int(1), Name: "P1"}}}
	for _, grp := range [][]int64{{11, 12}, {2}} {
		var g splitplan.Group
		for _, u := range grp {
			i := storetest.Index(t, sg, u)
			g.Neighbors, g.NeighborIDs, g.Names = append(g.Neighbors, sg.Key(i)), append(g.NeighborIDs, sg.IDs[i]), append(g.Names, sg.Names[i])
		}
		plan.Nodes[0].Groups = append(plan.Nodes[0].Groups, g)
	}
	if bad, err := syncjob.Check(ctx, st, plan); err != nil || len(bad) != 0 {
		t.Fatalf("unchanged: %+v %v", bad, err)
	}
	fx.Relate(t, 1, 13, "ACTED_IN")
	fx.Relate(t, 14, 1, "ACTED_IN")
	fx.Relate(t, 1, 15, "ACTED_IN")
	bad, err := syncjob.Check(ctx, st, plan)
	if w := "added neighbours 13 (M13), 14 (N14), 15"; err != nil || len(bad) != 1 || bad[0].Reason != w {
		t.Fatalf("check: %+v %v; want %q", bad, err, w)
	}
}

// splitWith stores bridgePlan under runID with the marker label recorded
// (stored in the run's record) and splits it with the marker label used,
// and returns the plan split.
func splitWith(t *testing.T, st syncjob.Store, runID, recorded, used string) *splitplan.Plan {
	t.Helper()
	ctx := storetest.Ctx(t)
	plan := bridgePlan(t, storetest.MustPull(t, st), runID)
	plan.MarkerLabel = recorded
	if _, err := syncjob.StorePlan(ctx, st, plan); err != nil {
		t.Fatal(err)
	}
	plan.MarkerLabel = used
	ss, err := syncjob.Split(ctx, st, plan, time.Now(), nil, nil)
	if err != nil || ss.Split != 1 {
		t.Fatalf("split: %+v %v", ss, err)
	}
	return plan
}

// Undo finds the clones by the marker label of the run's record, not by
// the one it is given (split.marker_label, default FondueSplit).
func testUndoMarkerLabelFromRecord(t *testing.T, f storetest.Factory) {
	fx, st, _, _ := seeded(t, f)
	before := fx.Dump(t)
	splitWith(t, st, "m1", "Doppel", "Doppel")
	if strings.Contains(fx.Dump(t), syncjob.DefaultMarkerLabel) || !strings.Contains(fx.Dump(t), "Doppel") {
		t.Fatalf("the clone does not carry the run's marker label:\n%s", fx.Dump(t))
	}
	us, err := syncjob.Undo(storetest.Ctx(t), st, syncjob.UndoOptions{RunID: "m1", MarkerLabel: syncjob.DefaultMarkerLabel})
	if err != nil || us.Originals != 1 || us.Restored != 1 || us.ClonesDeleted != 1 || us.MarkerLabel != "Doppel" {
		t.Fatalf("undo with another marker label than the split's: %+v %v", us, err)
	}
	sameGraph(t, fx, before, "undo did not restore the graph")
	if p, err := syncjob.LoadPlan(storetest.Ctx(t), st, "m1"); err != nil || p != nil {
		t.Fatalf("the record outlived a complete undo: %v %v", p, err)
	}
}

// A record without a marker label (as a previous version could leave)
// undoes with the label given; a wrong one restores nothing and keeps the
// record, so that undo can be run again with the right one.
func testUndoKeepsUnreversedRecord(t *testing.T, f storetest.Factory) {
	fx, st, ctx, _ := seeded(t, f)
	before := fx.Dump(t)
	splitWith(t, st, "m2", "", "Doppel")
	split := fx.Dump(t)
	us, err := syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "m2"})
	if !errors.Is(err, syncjob.ErrIncomplete) || us.Originals != 0 || us.NotRestored != 1 ||
		!strings.Contains(err.Error(), `1 node split by run m2 not restored: no split node of theirs has the marker label "FondueSplit"; the run's record is kept`) {
		t.Fatalf("undo with the wrong marker label: %+v %v", us, err)
	}
	if p, err := syncjob.LoadPlan(ctx, st, "m2"); err != nil || p == nil {
		t.Fatalf("the record of a run whose splits are not reversed was deleted: %v", err)
	}
	sameGraph(t, fx, split, "an undo that found nothing changed the graph")
	us, err = syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "m2", MarkerLabel: "Doppel"})
	if err != nil || us.Restored != 1 {
		t.Fatalf("undo with the split's marker label: %+v %v", us, err)
	}
	sameGraph(t, fx, before, "undo did not restore the graph")
	if p, err := syncjob.LoadPlan(ctx, st, "m2"); err != nil || p != nil {
		t.Fatalf("the record outlived a complete undo: %v %v", p, err)
	}
}

// A run id the store knows nothing of is an error naming the closest run
// ids it knows: those with a record, and those of split nodes whose record
// is gone.
func testUndoUnknownRun(t *testing.T, f storetest.Factory) {
	fx, st, ctx, _ := seeded(t, f)
	plan := splitWith(t, st, "nightly-20250101", syncjob.DefaultMarkerLabel, syncjob.DefaultMarkerLabel)
	if err := st.DeleteRecord(ctx, plan.RunID); err != nil { // the split nodes stay
		t.Fatal(err)
	}
	other := bridgePlan(t, storetest.MustPull(t, st), "weekly-1")
	other.Nodes = nil
	if _, err := syncjob.StorePlan(ctx, st, other); err != nil {
		t.Fatal(err)
	}
	before := fx.Dump(t)
	us, err := syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "nightly-20250102"})
	if !syncjob.IsUnknownRun(err) || us.Originals != 0 ||
		!strings.Contains(err.Error(), `nothing to undo: no run "nightly-20250102" in the database`) ||
		!strings.Contains(err.Error(), "closest run ids: nightly-20250101, weekly-1") {
		t.Fatalf("undo of a run id that is not there: %+v %v", us, err)
	}
	sameGraph(t, fx, before, "an undo of an unknown run changed the graph")
	// The run whose record is gone still undoes (by the marker label given).
	if us, err := syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "nightly-20250101"}); err != nil || us.Restored != 1 {
		t.Fatalf("undo of a run without a record: %+v %v", us, err)
	}
	if _, err := syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "nightly-20250101"}); !syncjob.IsUnknownRun(err) {
		t.Fatalf("undo of an undone run without a record: %v", err)
	}
}

// A name that the store refuses fails the run before anything is read or
// written, in the dry run too; an approved plan's, too.
func testInvalidNamesFirst(t *testing.T, f storetest.Factory) {
	fx, st, ctx, _ := seeded(t, f)
	before := fx.Dump(t)
	o := syncjob.Options{RunID: "bad-1", Pull: storetest.Pull, Split: true, SkipProperties: []string{"ok", "bad\nname"},
		Score: fondue.Options{Seed: 7, Split: fondue.SplitOptions{Top: 1}}}
	_, err := syncjob.Sync(ctx, st, o)
	if !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), `Options.SkipProperties: name "bad\nname" contains the control character U+000A`) {
		t.Fatalf("a skip property with a newline: %v", err)
	}
	sameGraph(t, fx, before, "a run with a bad name wrote")
	if p, err := syncjob.LoadPlan(ctx, st, "bad-1"); err != nil || p != nil {
		t.Fatalf("a run with a bad name stored its plan: %v %v", p, err)
	}
	o = syncjob.Options{RunID: "bad-2", Pull: storetest.Pull, DryRun: true, Write: syncjob.WriteOptions{Property: "x\ny"}}
	if _, err := syncjob.Sync(ctx, st, o); !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), "WriteOptions.Property: name") {
		t.Fatalf("a dry run with a bad write property: %v", err)
	}
	o = syncjob.Options{RunID: "bad-5", Pull: storetest.Pull, DryRun: true, Write: syncjob.WriteOptions{EntitiesProperty: "n\x00entities"}}
	if _, err := syncjob.Sync(ctx, st, o); !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), "WriteOptions.EntitiesProperty: name") {
		t.Fatalf("a dry run with a bad entities property: %v", err)
	}
	wl := storetest.Pull
	wl.WriteNodeLabels = []string{"Person", "bad\tlabel"}
	o = syncjob.Options{RunID: "bad-4", Pull: wl, DryRun: true}
	if _, err := syncjob.Sync(ctx, st, o); !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), "PullOptions.WriteNodeLabels: name") {
		t.Fatalf("a dry run with a bad write label: %v", err)
	}
	plan := bridgePlan(t, storetest.MustPull(t, st), "bad-3")
	plan.SkipProperties = []string{"bad\x01"}
	plan.Approved = &splitplan.ApprovedRef{ReviewedAt: "2025-01-01T00:00:00.000Z", Fingerprint: "sha256:0123456789abcdef"}
	if _, err := syncjob.Apply(ctx, st, plan, syncjob.ApplyOptions{}); !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), "approved plan's skip property: name") {
		t.Fatalf("an approved plan with a bad skip property: %v", err)
	}
	sameGraph(t, fx, before, "a plan with a bad name wrote")
}

// A stored plan none of whose nodes was split (the run stopped before its
// first split) is replaced by a re-run of its run id, which scores again.
func testReplaceUnstartedPlan(t *testing.T, f storetest.Factory) {
	_, st, ctx, sg := seeded(t, f)
	stale := bridgePlan(t, sg, "again-1")
	stale.SkipProperties = []string{"stale"}
	if _, err := syncjob.StorePlan(ctx, st, stale); err != nil {
		t.Fatal(err)
	}
	o := syncjob.Options{RunID: "again-1", Pull: storetest.Pull, Split: true, Score: fondue.Options{Seed: 7, Split: fondue.SplitOptions{Top: 1}}}
	sum, err := syncjob.Sync(ctx, st, o)
	if err != nil || sum.Resumed || sum.NodeCount != 11 || sum.Split == nil || sum.Split.Split != 1 {
		t.Fatalf("re-run over a plan that split nothing: %+v %v", sum, err)
	}
	p, err := syncjob.LoadPlan(ctx, st, "again-1")
	if err != nil || p == nil || p.Splitter == "test" || slices.Contains(p.SkipProperties, "stale") {
		t.Fatalf("stored plan: %+v %v", p, err)
	}
	// Now that it split a node, the run id resumes it.
	sum, err = syncjob.Sync(ctx, st, o)
	if err != nil || !sum.Resumed || sum.Split.AlreadyDone != 1 {
		t.Fatalf("re-run over a started plan: %+v %v", sum, err)
	}
}

// A node found by key whose key property is a float equal to the key (the
// database's 12.0 for the plan's 12) is refused as a pull refuses it;
// other values that are no key are found by no key (a missing node).
func testResolveKeyTypes(t *testing.T, f storetest.Factory) {
	g := storetest.Graph{Nodes: []storetest.Node{
		{Labels: []string{"K"}, Props: map[string]any{"uid": int64(1), "k": int64(11)}},
		{Labels: []string{"K"}, Props: map[string]any{"uid": int64(2), "k": 12.0}},
		{Labels: []string{"K"}, Props: map[string]any{"uid": int64(3), "k": true}},
	}, Rels: []storetest.Rel{{From: 1, To: 2, Type: "T"}, {From: 1, To: 3, Type: "T"}}}
	st := f(t, g).Store()
	plan := func(nb ...keys.Key) *splitplan.Plan {
		return &splitplan.Plan{RunID: "rk", IDProperty: "k", NodeLabels: []string{"K"}, MarkerLabel: syncjob.DefaultMarkerLabel, ExactNeighbors: true,
			Nodes: []splitplan.Node{{Key: keys.Int(11), Groups: []splitplan.Group{{Neighbors: nb, NeighborIDs: make([]keys.Key, len(nb))}}}}}
	}
	err := syncjob.ResolveKeys(storetest.Ctx(t), st, plan(keys.Int(12)))
	if !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), `key property "k" of node elementId(n) = `) ||
		!strings.Contains(err.Error(), "is the float 12: keys must be integers or strings") {
		t.Errorf("a float key found by key: %v", err)
	}
	p := plan(keys.String("true"))
	if err := syncjob.ResolveKeys(storetest.Ctx(t), st, p); err != nil || p.Nodes[0].ID.IsZero() || !p.Nodes[0].Groups[0].NeighborIDs[0].IsZero() {
		t.Errorf("a boolean key: %v %+v", err, p.Nodes[0])
	}
}

// With write labels (PullOptions.WriteNodeLabels) only the nodes of those
// labels are scored, ranked among themselves, written and split; the other
// pulled nodes are context, left alone (their old score properties too,
// isolated or not), and counted apart per label. A write label that is not
// pulled, or does not exist, is refused before anything is written.
func testWriteLabels(t *testing.T, f storetest.Factory) {
	g := storetest.Movies()
	for k := range g.Nodes {
		switch g.Nodes[k].Props["uid"] {
		case int64(11), int64(16): // a movie, and the isolated one: an old score
			g.Nodes[k].Props["ambiguity"] = 0.25
			g.Nodes[k].Props["ambiguity_score"] = 0.5
			g.Nodes[k].Props["ambiguity_entities"] = int64(2)
		}
	}
	g.Nodes = append(g.Nodes, storetest.Node{Labels: []string{"Critic"}, Props: map[string]any{"uid": int64(20)}}, // isolated
		storetest.Node{Labels: []string{"Person"}, Props: map[string]any{"uid": int64(5), "ambiguity": 0.9, "ambiguity_score": 2.0, "ambiguity_entities": int64(3)}}) // isolated, an old score
	fx := f(t, g)
	st := fx.Store()
	ctx := storetest.Ctx(t)
	pullOpts := storetest.MoviesPull
	pullOpts.WriteNodeLabels = []string{"Person"}
	sg, err := st.Pull(ctx, pullOpts)
	if err != nil {
		t.Fatal(err)
	}
	for uid, want := range map[int64]bool{1: true, 4: true, 11: false, 16: false} {
		if got := sg.IsTarget(storetest.Index(t, sg, uid)); got != want || sg.Targets == nil {
			t.Fatalf("node %d: target %v, want %v (targets %v)", uid, got, want, sg.Targets)
		}
	}

	before := fx.Dump(t)
	for _, c := range []struct {
		labels, write []string
		invalid       bool // else empty
		msg           string
	}{
		{[]string{"Person", "Movie"}, []string{"Critic"}, true, `label "Critic" is not one of PullOptions.NodeLabels`},
		{nil, []string{"Ghost"}, false, `write node label "Ghost" does not exist`},
		{[]string{"Person", "Movie", "Critic"}, []string{"Critic"}, false, "has a relationship"},
	} {
		o := pullOpts
		o.NodeLabels, o.WriteNodeLabels = c.labels, c.write
		_, err := syncjob.Sync(ctx, st, syncjob.Options{RunID: "wl-bad", Pull: o, Score: fondue.Options{Seed: 7}})
		if c.invalid && !syncjob.IsInvalid(err) || !c.invalid && !syncjob.IsEmpty(err) || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("labels %v, write labels %v: %v; want %q", c.labels, c.write, err, c.msg)
		}
	}
	sameGraph(t, fx, before, "a refused run wrote")

	o := syncjob.Options{RunID: "wl", Pull: pullOpts, Score: fondue.Options{Seed: 7, Split: fondue.SplitOptions{Top: 1}}, Split: true,
		Write: syncjob.WriteOptions{ScoreProperty: "ambiguity_score", EntitiesProperty: "ambiguity_entities", RunProperty: syncjob.DefaultRunProperty}}
	dry := o
	dry.DryRun = true
	sum, err := syncjob.Sync(ctx, st, dry)
	if err != nil {
		t.Fatal(err)
	}
	sc := sum.Scored
	wantCounts := map[string]syncjob.LabelCount{"Person": {Scored: 4, Unscored: 1}, "Director": {Scored: 1}, "Movie": {Context: 6}}
	if sc == nil || sc.Nodes != 4 || sc.Context != 6 || sum.UnscoredNodes != 1 || !maps.Equal(sc.Labels, wantCounts) {
		t.Fatalf("dry run: scored %+v, unscored %d; want 4 persons scored, 6 movies context (%v)", sc, sum.UnscoredNodes, wantCounts)
	}
	for _, n := range sc.Top {
		if !slices.Contains(n.Labels, "Person") {
			t.Fatalf("top node %+v is not a Person", n)
		}
	}
	if sum.Plan == nil || len(sum.Plan.Nodes) > 1 {
		t.Fatalf("dry run plan: %+v", sum.Plan)
	}
	for _, pn := range sum.Plan.Nodes {
		if !slices.Contains(pn.Labels, "Person") {
			t.Fatalf("planned node %+v is not a Person", pn)
		}
	}
	sameGraph(t, fx, before, "the dry run wrote")

	sum, err = syncjob.Sync(ctx, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.NodePropertiesWritten != 4*3 {
		t.Fatalf("%d properties written, want 12 (4 persons, 3 properties)", sum.NodePropertiesWritten)
	}
	var amb []float64
	for uid := int64(1); uid <= 4; uid++ {
		p := fx.Props(t, uid)
		a, ok := p["ambiguity"].(float64)
		if e, _ := p["ambiguity_entities"].(int64); !ok || p["ambiguity_score"] == nil || e < 1 || p[syncjob.DefaultRunProperty] != "wl" {
			t.Fatalf("person %d: %v", uid, p)
		}
		amb = append(amb, a)
	}
	slices.Sort(amb)
	if !slices.Equal(amb, []float64{0.25, 0.5, 0.75, 1}) {
		t.Fatalf("the persons' ambiguities %v: want their percentiles among the 4 persons", amb)
	}
	// The isolated person loses its old scores; context nodes keep theirs.
	if p := fx.Props(t, 5); p["ambiguity"] != nil || p["ambiguity_score"] != nil || p["ambiguity_entities"] != nil || p[syncjob.DefaultRunProperty] != "wl" {
		t.Fatalf("isolated person 5: %v", p)
	}
	for _, uid := range []int64{11, 12, 16, 20} {
		p := fx.Props(t, uid)
		old := uid == 11 || uid == 16
		if p[syncjob.DefaultRunProperty] != nil || (old && (p["ambiguity"] != 0.25 || p["ambiguity_score"] != 0.5 || p["ambiguity_entities"] != int64(2))) ||
			(!old && (p["ambiguity"] != nil || p["ambiguity_score"] != nil || p["ambiguity_entities"] != nil)) {
			t.Fatalf("context node %d was written: %v", uid, p)
		}
	}
	if sum.Split == nil || sum.Split.Planned > 1 {
		t.Fatalf("split: %+v", sum.Split)
	}
	if sum.Split.Planned == 1 {
		if _, err := syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "wl"}); err != nil {
			t.Fatal(err)
		}
	}
}

// planOn is a plan of run runID splitting the node with uid into groups
// of neighbours (uids), its clones keyed by the default scheme.
func planOn(t *testing.T, sg *syncjob.Subgraph, runID string, uid int64, groups ...[]int64) *splitplan.Plan {
	t.Helper()
	i := storetest.Index(t, sg, uid)
	p := &splitplan.Plan{RunID: runID, CreatedAt: "2025-01-01T00:00:00.000Z", Splitter: "test", IDProperty: "uid",
		NodeLabels: []string{"Person"}, RelationshipTypes: []string{"KNOWS"}, MarkerLabel: syncjob.DefaultMarkerLabel,
		Nodes: []splitplan.Node{{ID: sg.IDs[i], Key: sg.Key(i)}}}
	for _, uids := range groups {
		var g splitplan.Group
		for _, u := range uids {
			j := storetest.Index(t, sg, u)
			g.Neighbors = append(g.Neighbors, sg.Key(j))
			g.NeighborIDs = append(g.NeighborIDs, sg.IDs[j])
		}
		p.Nodes[0].Groups = append(p.Nodes[0].Groups, g)
	}
	var maxKey int64
	taken := map[keys.Key]bool{}
	for _, k := range sg.Keys {
		v, _ := k.Int64()
		maxKey = max(maxKey, v)
		taken[k] = true
	}
	if err := p.AssignCloneKeys("", true, maxKey, func(k keys.Key) bool { return taken[k] }); err != nil {
		t.Fatal(err)
	}
	return p
}

// Night after night: a split's clone gets a key, so the next pull scores
// it like any node and a later run can split it again; undo refuses the
// first run while the later one stands, naming it, and undoing the later
// run, then the first, restores the graph exactly.
func testSecondNight(t *testing.T, f storetest.Factory) {
	fx, st, ctx, _ := seeded(t, f)
	before := fx.Dump(t)
	split := func(p *splitplan.Plan) {
		t.Helper()
		stored, err := syncjob.StorePlan(ctx, st, p)
		if err != nil {
			t.Fatal(err)
		}
		if ss, err := syncjob.Split(ctx, st, stored, time.Now(), nil, nil); err != nil || ss.Split != 1 {
			t.Fatalf("split %s: %+v %v", p.RunID, ss, err)
		}
	}
	split(planOn(t, storetest.MustPull(t, st), "night-1", 100, []int64{1, 2, 3}, []int64{11, 12, 13}))
	// The clone is uid 101 (integer keys: the next after the largest).
	clone := fx.Props(t, 101)
	if clone[splitplan.PropSplitRun] != "night-1" || clone[splitplan.PropSplitFrom] != int64(100) {
		t.Fatalf("clone 101: %v", clone)
	}
	// The next night pulls and scores it like any node.
	sum, err := syncjob.Sync(ctx, st, syncjob.Options{RunID: "night-2-dry", Pull: storetest.Pull, DryRun: true, Score: fondue.Options{Seed: 7}})
	if err != nil {
		t.Fatal(err)
	}
	sg := storetest.MustPull(t, st)
	if sg.Stats.KeylessClones != 0 || sum.NodeCount != 12 || sum.Scored.Nodes != 12 || sg.Graph.Degree(storetest.Index(t, sg, 101)) != 3 {
		t.Fatalf("second night: %d keyless clones, %d nodes, %d scored, clone degree %d",
			sg.Stats.KeylessClones, sum.NodeCount, sum.Scored.Nodes, sg.Graph.Degree(storetest.Index(t, sg, 101)))
	}
	// ... and splits the clone again: its clone is 102.
	split(planOn(t, sg, "night-2", 101, []int64{11}, []int64{12, 13}))
	if p := fx.Props(t, 102); p[splitplan.PropSplitFrom] != int64(101) {
		t.Fatalf("clone of the clone: %v", p)
	}
	two := fx.Dump(t)
	_, err = syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "night-1"})
	if !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), "undo run night-2 first") {
		t.Fatalf("undo of the first night before the second: %v", err)
	}
	sameGraph(t, fx, two, "a refused undo changed the graph")
	for _, run := range []string{"night-2", "night-1"} {
		if us, err := syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: run}); err != nil || us.Restored != 1 {
			t.Fatalf("undo %s: %+v %v", run, us, err)
		}
	}
	sameGraph(t, fx, before, "the undos did not restore the graph")
}

// fingerprintOf is the neighbourhood fingerprint of the node with uid in sg.
func fingerprintOf(t *testing.T, sg *syncjob.Subgraph, uid int64) string {
	i := storetest.Index(t, sg, uid)
	var texts []string
	for _, j := range sg.Graph.Neighbors(i) {
		texts = append(texts, sg.Key(int(j)).Text())
	}
	return splitplan.Fingerprint(strconv.FormatInt(uid, 10), texts)
}

// Review decisions are remembered in the graph: a node rejected in review
// is not proposed again while its neighbours are those reviewed (its
// neighbours change: it is proposed again), until the decision is
// forgotten; a split with edited groups is remembered part by part.
func testDecisions(t *testing.T, f storetest.Factory) {
	fx, st, ctx, _ := seeded(t, f)
	dry := syncjob.Options{RunID: "dry", Pull: storetest.Pull, Split: true, DryRun: true, Score: fondue.Options{Seed: 7, Split: fondue.SplitOptions{Top: 1}}}
	proposed := func() []keys.Key {
		t.Helper()
		sum, err := syncjob.Sync(ctx, st, dry)
		if err != nil {
			t.Fatal(err)
		}
		var out []keys.Key
		for _, n := range sum.Plan.Nodes {
			out = append(out, n.Key)
		}
		return out
	}
	if got := proposed(); !slices.Equal(got, []keys.Key{keys.Int(100)}) {
		t.Fatalf("proposed %v, want 100", got)
	}
	reject := func(run string) {
		t.Helper()
		p := &splitplan.Plan{RunID: run, CreatedAt: "2025-01-01T00:00:00.000Z", IDProperty: "uid", NodeLabels: storetest.Pull.NodeLabels,
			RelationshipTypes: storetest.Pull.RelationshipTypes, MarkerLabel: syncjob.DefaultMarkerLabel, ExactNeighbors: true,
			Approved:  &splitplan.ApprovedRef{ReviewedAt: "2025-01-01T00:00:00.000Z", Fingerprint: "sha256:" + run},
			Nodes:     []splitplan.Node{},
			Decisions: []splitplan.Decision{{Key: keys.Int(100), Kind: splitplan.DecisionReject, Fingerprint: fingerprintOf(t, storetest.MustPull(t, st), 100)}}}
		if _, err := syncjob.Apply(ctx, st, p, syncjob.ApplyOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	reject("review-1")
	if ds, err := syncjob.Decisions(ctx, st); err != nil || len(ds) != 1 || ds[0].RunID != "review-1" || ds[0].Kind != splitplan.DecisionReject {
		t.Fatalf("decisions: %+v %v", ds, err)
	}
	if got := proposed(); len(got) != 0 {
		t.Fatalf("a rejected node was proposed again: %v", got)
	}
	if n, err := syncjob.ForgetDecisions(ctx, st, "", syncjob.LockOptions{}, nil); err != nil || n != 1 {
		t.Fatalf("forget: %d %v", n, err)
	}
	if got := proposed(); !slices.Equal(got, []keys.Key{keys.Int(100)}) {
		t.Fatalf("after forgetting, proposed %v, want 100", got)
	}
	reject("review-2")
	fx.Relate(t, 100, 14, "KNOWS")
	if got := proposed(); !slices.Equal(got, []keys.Key{keys.Int(100)}) {
		t.Fatalf("a rejected node whose neighbours changed: proposed %v, want 100", got)
	}

	// An edited split: the original with group 0, its clone (uid 101)
	// with group 1.
	sg := storetest.MustPull(t, st)
	p := planOn(t, sg, "review-3", 100, []int64{1, 2, 3, 14}, []int64{11, 12, 13})
	for k := range p.Nodes[0].Groups {
		p.Nodes[0].Groups[k].CloneKey = keys.Key{} // Apply assigns them
	}
	p.Nodes[0].Edited, p.ExactNeighbors = true, true
	p.Approved = &splitplan.ApprovedRef{ReviewedAt: "2025-01-01T00:00:00.000Z", Fingerprint: "sha256:review-3"}
	if sum, err := syncjob.Apply(ctx, st, p, syncjob.ApplyOptions{}); err != nil || sum.Split.Split != 1 {
		t.Fatalf("apply the edited split: %+v %v", sum, err)
	}
	after := storetest.MustPull(t, st)
	ds, err := syncjob.Decisions(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	var edits []string
	for _, d := range ds {
		if d.RunID == "review-3" && d.Kind == splitplan.DecisionEdit {
			edits = append(edits, d.Key.Text()+" "+d.Fingerprint)
		}
	}
	want := []string{"100 " + fingerprintOf(t, after, 100), "101 " + fingerprintOf(t, after, 101)}
	if !slices.Equal(edits, want) {
		t.Fatalf("edit decisions %v, want %v", edits, want)
	}
}
