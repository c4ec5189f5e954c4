package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

// MergeGraph is Seed with properties of every kind on person 3 (a date, a
// point, a list, a float, a name of its own) and a self-loop of 3, and a
// relationship with properties from 1 to 3: what a merge of 3 into 1 must
// move and an undo give back exactly.
func MergeGraph() Graph {
	g := Seed()
	for k := range g.Nodes {
		if g.Nodes[k].Props["uid"] == int64(3) {
			g.Nodes[k].Props["born"] = dbtype.Date(time.Date(1802, 2, 26, 0, 0, 0, 0, time.UTC))
			g.Nodes[k].Props["home"] = dbtype.Point2D{X: 2.35, Y: 48.85, SpatialRefId: 4326}
			g.Nodes[k].Props["tags"] = []any{int64(1), int64(2)}
			g.Nodes[k].Props["weight"] = 1.5
		}
	}
	g.Rels = append(g.Rels, Rel{From: 3, To: 3, Type: "SELF"}, Rel{From: 1, To: 3, Type: "LIKES", Props: map[string]any{"w": 0.5}})
	return g
}

// MergePlan is a merge plan on MergeGraph's pull (Pull): 3 into 1; the
// chain 11~12, 12~13 (one survivor, 11); 5 into 4 with a fingerprint of
// 5 that is not its neighbourhood (a node changed since the plan); a
// rejected and an undecided pair. Fingerprints are the pulled
// neighbourhoods.
func MergePlan(t *testing.T, sg *syncjob.Subgraph, runID string) *mergeplan.Plan {
	t.Helper()
	fp := func(uid int64) string {
		i := Index(t, sg, uid)
		var nbs []keys.Key
		for _, j := range sg.Graph.Neighbors(i) {
			nbs = append(nbs, sg.Key(int(j)))
		}
		return mergeplan.NodeFingerprint(sg.Key(i), nbs)
	}
	pair := func(keep, merge int64, score float64, d string) mergeplan.Pair {
		return mergeplan.Pair{Keep: keys.Int(keep), Merge: keys.Int(merge), Score: score, Decision: d,
			KeepFingerprint: fp(keep), MergeFingerprint: fp(merge)}
	}
	p := mergeplan.New(runID, "2025-01-02T00:00:00.000Z")
	p.IDProperty, p.NodeLabels, p.RelationshipTypes = Pull.IDProperty, Pull.NodeLabels, Pull.RelationshipTypes
	changed := pair(4, 5, .7, mergeplan.DecisionAccept)
	changed.MergeFingerprint = fp(4)
	p.Pairs = []mergeplan.Pair{
		pair(1, 3, .9, mergeplan.DecisionAccept),
		pair(12, 13, .6, mergeplan.DecisionAccept),
		pair(11, 12, .8, mergeplan.DecisionAccept),
		changed,
		pair(14, 15, .5, mergeplan.DecisionReject),
		pair(2, 4, .1, mergeplan.DecisionUndecided),
	}
	return p
}

// The merge loop on the store: accepted pairs merged (a chain under one
// survivor, a changed node left alone), relationships moved with type,
// direction and properties, the survivor's properties kept and the merged
// node's others added, the merged nodes out of every pull; a re-run
// changes nothing; undo gives back the graph exactly (a dump identical to
// the start).
func testMergeUndo(t *testing.T, f Factory) {
	fx := f(t, MergeGraph())
	st := fx.Store()
	ctx := Ctx(t)
	before := fx.Dump(t)
	p := MergePlan(t, MustPull(t, st), "m1")
	ms, err := syncjob.Merge(ctx, st, p, syncjob.MergeOptions{Now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	// 4's neighbour 3 became 1 in the first group: the group of 4 is
	// left alone (its plan was stale for 5 anyway).
	if ms.Pairs != 4 || ms.Groups != 3 || ms.Merged != 2 || ms.Skipped != 1 || ms.NodesMerged != 3 ||
		ms.Outcomes[2].Outcome != mergeplan.OutcomeChanged || !strings.Contains(ms.Outcomes[2].Reason, "neighbours of node 4 changed since the plan") {
		t.Fatalf("merge stats %+v", ms)
	}
	// 3's relationships are 1's: KNOWS from 2, to 4, 5, from 100 (since 2003);
	// 1->3 (KNOWS, LIKES) and 3's SELF are self-loops of 1.
	n := byUID(t, st, 1, 11)
	want := []string{"KNOWS<100", "KNOWS<100", "KNOWS<2", "KNOWS>1", "KNOWS>2", "KNOWS>4", "KNOWS>4", "KNOWS>5", "KNOWS>5", "LIKES<100", "LIKES>1", "SELF>1"}
	if got := relsOf(t, st, n[1].ID); !slices.Equal(got, want) {
		t.Fatalf("relationships of the survivor 1:\n%v\nwant\n%v", got, want)
	}
	p1 := fx.Props(t, 1)
	if p1["name"] != "p1" || p1["weight"] != 1.5 || !slices.Equal(asAnys(p1["tags"]), []any{int64(1), int64(2)}) || p1["born"] == nil ||
		!slices.Equal(asAnys(p1[mergeplan.PropMergeRuns]), []any{"m1"}) {
		t.Fatalf("survivor 1: %v", p1)
	}
	if got := fx.Props(t, 11); !slices.Equal(asAnys(got[mergeplan.PropMergeRuns]), []any{"m1"}) {
		t.Fatalf("survivor 11: %v", got)
	}
	// Out of every pull, also one of all nodes.
	sg := MustPull(t, st)
	if sg.Graph.NumNodes() != 8 {
		t.Fatalf("pulled %d people after the merge, want 8", sg.Graph.NumNodes())
	}
	all, err := st.Pull(ctx, syncjob.PullOptions{IDProperty: "uid"})
	if err != nil || all.Graph.NumNodes() != 9 {
		t.Fatalf("pull of all nodes: %v nodes, %v", all, err)
	}
	// A re-run is done already.
	merged := fx.Dump(t)
	ms, err = syncjob.Merge(ctx, st, p, syncjob.MergeOptions{})
	if err != nil || ms.AlreadyDone != 2 || ms.Merged != 0 || fx.Dump(t) != merged {
		t.Fatalf("re-run: %+v, %v", ms, err)
	}
	// The rejected pair is remembered.
	ds, err := syncjob.Decisions(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	mem := mergeplan.Remembered(ds)
	if d := mem[mergeplan.PairFingerprint(keys.Int(15), keys.Int(14))]; len(mem) != 1 || d.Kind != mergeplan.DecisionNotMerged || d.RunID != "m1" {
		t.Fatalf("remembered %v", mem)
	}
	us, err := syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "m1"})
	if err != nil || us.Restored != 2 || us.Unmerged != 3 {
		t.Fatalf("undo: %+v, %v", us, err)
	}
	if after := fx.Dump(t); after != before {
		t.Fatalf("after the undo of the merge:\n%s\nwant:\n%s", after, before)
	}
	if r, err := st.Record(ctx, "m1"); err != nil || r != nil {
		t.Fatalf("the record of an undone merge: %v, %v", r, err)
	}
}

func asAnys(v any) []any { l, _ := v.([]any); return l }

// Splits and merges compose: a split's clone merged in a later run (here
// into the node it was split from, and a second clone into 1), and undo
// goes in reverse order: the split's undo waits, with a message naming
// the merge run, which is undone first; then the split's; the dump is the
// start's.
func testSplitThenMerge(t *testing.T, f Factory) {
	fx := f(t, MergeGraph())
	st := fx.Store()
	ctx := Ctx(t)
	before := fx.Dump(t)
	sg := MustPull(t, st)
	group := func(uids ...int64) splitplan.Group {
		var g splitplan.Group
		for _, u := range uids {
			i := Index(t, sg, u)
			g.Neighbors = append(g.Neighbors, sg.Key(i))
			g.NeighborIDs = append(g.NeighborIDs, sg.IDs[i])
		}
		return g
	}
	b := Index(t, sg, 100)
	sp := &splitplan.Plan{RunID: "s1", CreatedAt: "2025-01-01T00:00:00.000Z", Splitter: "test", IDProperty: "uid",
		NodeLabels: Pull.NodeLabels, RelationshipTypes: Pull.RelationshipTypes, MarkerLabel: syncjob.DefaultMarkerLabel,
		Nodes: []splitplan.Node{{ID: sg.IDs[b], Key: keys.Int(100), Groups: []splitplan.Group{group(1, 2, 3), group(11, 12), group(13)}}}}
	sp.Nodes[0].Groups[1].CloneKey = keys.Int(1001)
	sp.Nodes[0].Groups[2].CloneKey = keys.Int(1002)
	stored, err := syncjob.StorePlan(ctx, st, sp)
	if err != nil {
		t.Fatal(err)
	}
	if ss, err := syncjob.Split(ctx, st, stored, time.Now(), nil, nil); err != nil || ss.Split != 1 || ss.NodesCreated != 2 {
		t.Fatalf("split: %+v, %v", ss, err)
	}
	mp := mergeplan.New("m2", "2025-01-02T00:00:00.000Z")
	mp.IDProperty, mp.NodeLabels, mp.RelationshipTypes = Pull.IDProperty, Pull.NodeLabels, Pull.RelationshipTypes
	mp.Pairs = []mergeplan.Pair{{Keep: keys.Int(100), Merge: keys.Int(1001), Decision: mergeplan.DecisionAccept},
		{Keep: keys.Int(1), Merge: keys.Int(1002), Decision: mergeplan.DecisionAccept}}
	if ms, err := syncjob.Merge(ctx, st, mp, syncjob.MergeOptions{}); err != nil || ms.Merged != 2 {
		t.Fatalf("merge of the clones: %+v, %v", ms, err)
	}
	_, err = syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "s1"})
	if !errors.Is(err, syncjob.ErrInvalid) || !strings.Contains(err.Error(), "undo run m2 first") {
		t.Fatalf("undo of the split before the merge: %v", err)
	}
	if us, err := syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "m2"}); err != nil || us.Unmerged != 2 {
		t.Fatalf("undo of the merge: %+v, %v", us, err)
	}
	if us, err := syncjob.Undo(ctx, st, syncjob.UndoOptions{RunID: "s1"}); err != nil || us.Restored != 1 || us.ClonesDeleted != 2 {
		t.Fatalf("undo of the split: %+v, %v", us, err)
	}
	if after := fx.Dump(t); after != before {
		t.Fatalf("after both undos:\n%s\nwant:\n%s", after, before)
	}
}
