// Package storetest is the conformance suite of syncjob.Store: Run checks
// a store against what the sync job relies on (pull what was seeded, write
// scores, lock exclusivity and fencing, split then undo restores, resume
// of a half-done split, stale approved plans refused, and the whole
// pipeline). syncjob's tests run it on memstore; connector's on live
// Neo4j servers, so that the fake and the real store answer alike.
package storetest

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

// Graph is a graph to seed a store with. Every node has an integer "uid"
// property; relationships name their ends by uid.
type Graph struct {
	Nodes []Node
	Rels  []Rel
}

// Node is a node to seed.
type Node struct {
	Labels []string
	Props  map[string]any // with "uid" (int64)
}

// Rel is a relationship to seed, from the node with uid From to To.
type Rel struct {
	From, To int64
	Type     string
	Props    map[string]any
}

// Fixture is a store seeded with a graph, with the means to look at it and
// change it behind the store's back (as users of the database do).
type Fixture interface {
	Store() syncjob.Store
	// Dump returns the graph canonically (nodes named by uid, clones by
	// split key; ids left out): equal dumps, equal graphs.
	Dump(t *testing.T) string
	// Props returns the properties of the node with this uid.
	Props(t *testing.T, uid int64) map[string]any
	// Relate adds a relationship of type typ from uid a to uid b.
	Relate(t *testing.T, a, b int64, typ string)
	// Delete deletes the node with this uid and its relationships.
	Delete(t *testing.T, uid int64)
	// StealLock takes the lock named name over for another run.
	StealLock(t *testing.T, name string)
}

// Factory makes a fresh store seeded with g.
type Factory func(t *testing.T, g Graph) Fixture

// Seed is the suite's graph: two groups of five people (uids 1-5, 11-15,
// each a clique of KNOWS) joined by person 100, who knows 1, 2, 3 (one
// relationship each way for 2) and 11, 12, 13, and likes 1 (LIKES, not
// selected); 300 is not a Person (label Other) and knows 100. People have
// names.
func Seed() Graph {
	var g Graph
	person := func(uid int64, name string) {
		g.Nodes = append(g.Nodes, Node{Labels: []string{"Person"}, Props: map[string]any{"uid": uid, "name": name}})
	}
	knows := func(a, b int64) { g.Rels = append(g.Rels, Rel{From: a, To: b, Type: "KNOWS"}) }
	for _, base := range []int64{0, 10} {
		for i := int64(1); i <= 5; i++ {
			person(base+i, "p"+itoa(base+i))
		}
		for i := int64(1); i <= 5; i++ {
			for j := i + 1; j <= 5; j++ {
				knows(base+i, base+j)
			}
		}
	}
	person(100, "Bridge")
	g.Nodes = append(g.Nodes, Node{Labels: []string{"Other"}, Props: map[string]any{"uid": int64(300)}})
	for _, x := range []int64{1, 2, 3, 11, 12, 13} {
		g.Rels = append(g.Rels, Rel{From: 100, To: x, Type: "KNOWS", Props: map[string]any{"since": x + 2000}})
	}
	knows(2, 100)
	knows(300, 100)
	g.Rels = append(g.Rels, Rel{From: 100, To: 1, Type: "LIKES"})
	return g
}

func itoa(x int64) string {
	if x == 0 {
		return "0"
	}
	var b []byte
	for ; x > 0; x /= 10 {
		b = append([]byte{byte('0' + x%10)}, b...)
	}
	return string(b)
}

// Pull is the suite's selection: people, KNOWS, keyed by uid.
var Pull = syncjob.PullOptions{NodeLabels: []string{"Person"}, RelationshipTypes: []string{"KNOWS"}, IDProperty: "uid", DisplayProperties: []string{"name"}}

// Run runs the conformance suite, each test on a fresh store from f.
func Run(t *testing.T, f Factory) {
	tests := []struct {
		name string
		run  func(t *testing.T, f Factory)
	}{
		{"Pull", testPull},
		{"Tx", testTx},
		{"Records", testRecords},
		{"MergeByPrimitives", testMergeByPrimitives},
		{"MergeUndo", testMergeUndo},
		{"SplitThenMerge", testSplitThenMerge},
		{"PullEmpty", testPullEmpty},
		{"WriteScores", testWriteScores},
		{"WriteMissing", testWriteMissing},
		{"WriteOnlyChanged", testWriteOnlyChanged},
		{"LockExclusive", testLockExclusive},
		{"LockFencing", testLockFencing},
		{"KeyTypes", testKeyTypes},
		{"EmptySaysWhatIsOutside", testEmptySaysWhatIsOutside},
		{"KeylessNodeLabels", testKeylessNodeLabels},
		{"UnnamedProperties", testUnnamedProperties},
		{"Links", testLinks},
		{"SyncDuplicates", testSyncDuplicates},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, f) })
	}
}

func Ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func MustPull(t *testing.T, st syncjob.Store) *syncjob.Subgraph {
	t.Helper()
	sg, err := st.Pull(Ctx(t), Pull)
	if err != nil {
		t.Fatal(err)
	}
	return sg
}

// index is the graph position of the node with uid.
func Index(t *testing.T, sg *syncjob.Subgraph, uid int64) int {
	t.Helper()
	i, ok := sg.Graph.Index(itoa(uid))
	if !ok {
		t.Fatalf("uid %d not pulled", uid)
	}
	return i
}

func testPull(t *testing.T, f Factory) {
	fx := f(t, Seed())
	sg := MustPull(t, fx.Store())
	g := sg.Graph
	// 11 people; 2 x 10 clique edges + 6 of the bridge (2-100 twice is
	// one edge; 300 and LIKES are not selected).
	if g.NumNodes() != 11 || g.NumEdges() != 26 || sg.Stats.Parallel != 1 || !g.IntKeys() {
		t.Fatalf("pulled %d nodes, %d edges, %d parallel", g.NumNodes(), g.NumEdges(), sg.Stats.Parallel)
	}
	b := Index(t, sg, 100)
	if g.Degree(b) != 6 || sg.Key(b) != keys.Int(100) || sg.Names[b] != "Bridge" || sg.IDs[b].IsZero() {
		t.Fatalf("node 100: degree %d key %v name %q id %v", g.Degree(b), sg.Key(b), sg.Names[b], sg.IDs[b])
	}
	for i := 1; i < g.NumNodes(); i++ { // numbered in key order
		if sg.Keys[i].Compare(sg.Keys[i-1]) <= 0 {
			t.Fatalf("keys out of order: %v", sg.Keys)
		}
	}
	all, err := fx.Store().Pull(Ctx(t), syncjob.PullOptions{IDProperty: "uid"})
	if err != nil {
		t.Fatal(err)
	}
	if all.Graph.NumNodes() != 12 || all.Graph.NumEdges() != 27 { // 300 and 100 -[:LIKES]-> 1 is parallel to KNOWS
		t.Fatalf("all: %d nodes, %d edges", all.Graph.NumNodes(), all.Graph.NumEdges())
	}
}

func testPullEmpty(t *testing.T, f Factory) {
	fx := f(t, Seed())
	_, err := fx.Store().Pull(Ctx(t), syncjob.PullOptions{NodeLabels: []string{"Other"}})
	if !syncjob.IsEmpty(err) {
		t.Fatalf("one node, no relationship: %v", err)
	}
	_, err = fx.Store().Pull(Ctx(t), syncjob.PullOptions{NodeLabels: []string{"Person"}, IDProperty: "name"})
	if err != nil {
		t.Fatalf("string keys: %v", err)
	}
}

func MustScore(t *testing.T, sg *syncjob.Subgraph, split int) *fondue.Result {
	t.Helper()
	o := fondue.Options{Seed: 7}
	if split > 0 {
		o.Split = fondue.SplitOptions{Top: split}
	}
	res, err := fondue.Score(context.Background(), sg.Graph, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var Write = syncjob.WriteOptions{Property: "ambiguity", ScoreProperty: "ambiguity_score", EntitiesProperty: "ambiguity_entities", RunProperty: "fondue_run", RunID: "r1", BatchSize: 4}

func testWriteScores(t *testing.T, f Factory) {
	fx := f(t, Seed())
	st := fx.Store()
	sg := MustPull(t, st)
	res := MustScore(t, sg, 0)
	var progress []int
	o := Write
	o.Progress = func(done, total int) { progress = append(progress, done) }
	ws, err := syncjob.WriteScores(Ctx(t), st, sg, res, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ws.Nodes != 11 || ws.PropertiesWritten != 33 || ws.Missing != 0 || ws.Batches != 3 || !slices.Equal(progress, []int{4, 8, 11}) {
		t.Fatalf("stats %+v, progress %v", ws, progress)
	}
	for _, uid := range []int64{1, 100, 15} {
		i := Index(t, sg, uid)
		p := fx.Props(t, uid)
		if a, _ := p["ambiguity"].(float64); math.Abs(a-res.Ambiguity[i]) > 1e-12 || p["fondue_run"] != "r1" {
			t.Fatalf("node %d: %v, want ambiguity %v", uid, p, res.Ambiguity[i])
		}
		if s, _ := p["ambiguity_score"].(float64); math.Abs(s-res.Scores[i]) > 1e-9*math.Max(1, math.Abs(s)) {
			t.Fatalf("node %d: score %v, want %v", uid, p["ambiguity_score"], res.Scores[i])
		}
		if e, ok := p["ambiguity_entities"].(int64); !ok || e != int64(res.Entities[i]) || e < 1 {
			t.Fatalf("node %d: entities %#v, want %d", uid, p["ambiguity_entities"], res.Entities[i])
		}
	}
	if p := fx.Props(t, 300); p["ambiguity"] != nil {
		t.Fatalf("node 300 was not pulled, but written: %v", p)
	}
	// Idempotent.
	d := fx.Dump(t)
	if _, err := syncjob.WriteScores(Ctx(t), st, sg, res, Write, nil); err != nil {
		t.Fatal(err)
	}
	if d2 := fx.Dump(t); d2 != d {
		t.Fatalf("a second write changed the graph:\n%s\n---\n%s", d, d2)
	}
}

// testWriteOnlyChanged: the pull reads back what the last write wrote,
// and a write then writes only the nodes whose values changed: a second
// write of the same scores writes nothing; a hand edit, a removed
// property and a move beyond AmbiguityTolerance are written; a move
// within it is not; WriteOptions.All writes everything.
func testWriteOnlyChanged(t *testing.T, f Factory) {
	fx := f(t, Seed())
	st := fx.Store()
	po := Pull
	po.ReadBack = []string{"ambiguity", "ambiguity_score", "ambiguity_entities"}
	pull := func() *syncjob.Subgraph {
		t.Helper()
		sg, err := st.Pull(Ctx(t), po)
		if err != nil {
			t.Fatal(err)
		}
		if len(sg.ReadBack) != 3 || len(sg.ReadBack[0]) != sg.Graph.NumNodes() {
			t.Fatalf("read back %d columns", len(sg.ReadBack))
		}
		return sg
	}
	write := func(sg *syncjob.Subgraph, res *fondue.Result, o syncjob.WriteOptions) syncjob.WriteStats {
		t.Helper()
		ws, err := syncjob.WriteScores(Ctx(t), st, sg, res, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ws
	}
	sg := pull()
	for k, col := range sg.ReadBack {
		for i, v := range col {
			if !math.IsNaN(v) {
				t.Fatalf("nothing written yet, but %s of node %v reads back %v", po.ReadBack[k], sg.Key(i), v)
			}
		}
	}
	res := MustScore(t, sg, 0)
	if ws := write(sg, res, Write); ws.Nodes != 11 || ws.Unchanged != 0 || !ws.Compared {
		t.Fatalf("first write: %+v", ws)
	}

	// Read back exactly as written.
	sg = pull()
	for i := range sg.Graph.NumNodes() {
		if sg.ReadBack[0][i] != res.Ambiguity[i] || sg.ReadBack[1][i] != res.Scores[i] || sg.ReadBack[2][i] != float64(res.Entities[i]) {
			t.Fatalf("node %v reads back %v %v %v, wrote %v %v %v", sg.Key(i), sg.ReadBack[0][i], sg.ReadBack[1][i], sg.ReadBack[2][i],
				res.Ambiguity[i], res.Scores[i], res.Entities[i])
		}
	}
	d := fx.Dump(t)
	o := Write
	o.RunID = "r2"
	if ws := write(sg, res, o); ws.Nodes != 0 || ws.Unchanged != 11 || ws.Batches != 0 || ws.PropertiesWritten != 0 {
		t.Fatalf("unchanged scores: %+v", ws)
	}
	if d2 := fx.Dump(t); d2 != d {
		t.Fatalf("writing unchanged scores changed the graph:\n%s\n---\n%s", d, d2)
	}

	// Hand edits: node 1's ambiguity set, node 2's raw score removed.
	one, two := Index(t, sg, 1), Index(t, sg, 2)
	if _, err := st.WriteBatch(Ctx(t), &syncjob.Batch{IDs: []keys.Key{sg.IDs[one], sg.IDs[two]}, Props: []string{"ambiguity", "ambiguity_score"},
		Values: [][]any{{0.123, res.Ambiguity[two]}, {res.Scores[one], nil}}, Doing: "editing by hand"}); err != nil {
		t.Fatal(err)
	}
	// Node 3's ambiguity moves within the tolerance, node 4's beyond.
	three, four := Index(t, sg, 3), Index(t, sg, 4)
	moved := *res
	moved.Ambiguity = slices.Clone(res.Ambiguity)
	a3, a4 := res.Ambiguity[three], res.Ambiguity[four]
	moved.Ambiguity[three] = a3 - 0.9*syncjob.AmbiguityTolerance*(1-a3)
	moved.Ambiguity[four] = a4 - 1.1*syncjob.AmbiguityTolerance*(1-a4)
	sg = pull()
	if ws := write(sg, &moved, o); ws.Nodes != 3 || ws.Unchanged != 8 || ws.PropertiesWritten != 9 {
		t.Fatalf("after the edits: %+v, want 3 nodes written (1, 2, 4), 8 unchanged", ws)
	}
	for uid, want := range map[int64]string{1: "r2", 2: "r2", 3: "r1", 4: "r2", 5: "r1"} {
		if p := fx.Props(t, uid); p["fondue_run"] != want || p["ambiguity_score"] == nil {
			t.Fatalf("node %d: %v, want written by %s", uid, p, want)
		}
	}
	if a, _ := fx.Props(t, 1)["ambiguity"].(float64); a != res.Ambiguity[one] {
		t.Fatalf("node 1's hand edit not repaired: %v, want %v", a, res.Ambiguity[one])
	}
	if a, _ := fx.Props(t, 3)["ambiguity"].(float64); a != a3 {
		t.Fatalf("node 3 rewritten: %v, want %v", a, a3)
	}
	all := o
	all.All = true
	if ws := write(pull(), &moved, all); ws.Nodes != 11 || ws.Unchanged != 0 || ws.Compared {
		t.Fatalf("All: %+v", ws)
	}
	// Without the values read back, every node is written.
	if ws := write(MustPull(t, st), &moved, o); ws.Nodes != 11 || ws.Compared {
		t.Fatalf("not read back: %+v", ws)
	}
}

func testWriteMissing(t *testing.T, f Factory) {
	fx := f(t, Seed())
	st := fx.Store()
	sg := MustPull(t, st)
	res := MustScore(t, sg, 0)
	fx.Delete(t, 14)
	ws, err := syncjob.WriteScores(Ctx(t), st, sg, res, Write, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ws.Nodes != 10 || ws.Missing != 1 || !slices.Equal(ws.MissingKeys, []keys.Key{keys.Int(14)}) {
		t.Fatalf("stats %+v", ws)
	}
}

func testLockExclusive(t *testing.T, f Factory) {
	fx := f(t, Seed())
	st := fx.Store()
	ctx := Ctx(t)
	l1, err := st.Lock(ctx, syncjob.LockOptions{RunID: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Lock(ctx, syncjob.LockOptions{RunID: "run-2"})
	if !syncjob.IsLocked(err) || !strings.Contains(err.Error(), `"run-1"`) {
		t.Fatalf("second lock: %v", err)
	}
	l3, err := st.Lock(ctx, syncjob.LockOptions{Name: "other", RunID: "run-3"})
	if err != nil {
		t.Fatalf("a lock of another name: %v", err)
	}
	if err := l3.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l1.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if l1.Context().Err() == nil {
		t.Fatal("a released lock's context is live")
	}
	l2, err := st.Lock(ctx, syncjob.LockOptions{RunID: "run-2"})
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l2.Release(ctx)
	if _, err := st.Lock(ctx, syncjob.LockOptions{TTL: time.Second}); !syncjob.IsInvalid(err) {
		t.Fatalf("TTL 1s: %v", err)
	}
}

func testLockFencing(t *testing.T, f Factory) {
	fx := f(t, Seed())
	st := fx.Store()
	ctx := Ctx(t)
	sg := MustPull(t, st)
	res := MustScore(t, sg, 0)
	l, err := st.Lock(ctx, syncjob.LockOptions{RunID: "run-1", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	before := fx.Dump(t)
	fx.StealLock(t, syncjob.DefaultLockName)
	// The fence, not the context, stops the write: a run may write before
	// its heartbeat notices the loss.
	_, err = syncjob.WriteScores(ctx, st, sg, res, Write, nil)
	if !syncjob.IsLocked(err) {
		t.Fatalf("write after the lock was taken over: %v", err)
	}
	if !errors.Is(context.Cause(l.Context()), syncjob.ErrLockLost) {
		t.Fatalf("the lock's context: %v", context.Cause(l.Context()))
	}
	if after := fx.Dump(t); after != before {
		t.Fatal("a run that lost its lock wrote")
	}
}

// Movies is a graph of persons (named by "name") and movies (by "title"):
// persons 1-4 (4 is also a Director) acted in movies 11-15 and know each
// other in pairs; movie 14 has both a name and a title, 15 neither, and
// movie 16 no relationship (isolated).
func Movies() Graph {
	var g Graph
	node := func(uid int64, props map[string]any, labels ...string) {
		props["uid"] = uid
		g.Nodes = append(g.Nodes, Node{Labels: labels, Props: props})
	}
	for i := int64(1); i <= 4; i++ {
		labels := []string{"Person"}
		if i == 4 {
			labels = append(labels, "Director")
		}
		node(i, map[string]any{"name": "P" + itoa(i)}, labels...)
	}
	for i := int64(11); i <= 13; i++ {
		node(i, map[string]any{"title": "M" + itoa(i)}, "Movie")
	}
	node(14, map[string]any{"name": "N14", "title": "T14"}, "Movie")
	node(15, map[string]any{"year": int64(1999)}, "Movie")
	node(16, map[string]any{"title": "Lonely"}, "Movie")
	rel := func(a, b int64, typ string) { g.Rels = append(g.Rels, Rel{From: a, To: b, Type: typ}) }
	for p, movies := range map[int64][]int64{1: {11, 12}, 2: {11, 13}, 3: {12, 13, 14}, 4: {14, 15, 11}} {
		for _, m := range movies {
			rel(p, m, "ACTED_IN")
		}
	}
	rel(1, 2, "KNOWS")
	rel(3, 4, "KNOWS")
	slices.SortFunc(g.Rels, func(a, b Rel) int { return int(a.From*100+a.To) - int(b.From*100+b.To) }) // map order
	return g
}

// MoviesPull selects Movies() with names from name, else title.
var MoviesPull = syncjob.PullOptions{NodeLabels: []string{"Person", "Movie"}, IDProperty: "uid", DisplayProperties: []string{"name", "title"}}

// A key property of a type that cannot be a key is named in Neo4j's
// words.
func testKeyTypes(t *testing.T, f Factory) {
	for _, c := range []struct {
		key  any
		want string
	}{
		{dbtype.Date(time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)), "is a DATE (2024-01-31)"},
		{time.Date(2024, 1, 31, 12, 30, 0, 0, time.UTC), "is a ZONED DATETIME (2024-01-31T12:30:00Z)"},
		{dbtype.LocalDateTime(time.Date(2024, 1, 31, 12, 30, 0, 0, time.UTC)), "is a LOCAL DATETIME (2024-01-31T12:30:00)"},
		{dbtype.Point2D{X: 1.5, Y: 2, SpatialRefId: 7203}, "is a POINT (x 1.5, y 2, SRID 7203)"},
		{dbtype.Duration{Days: 3}, "is a DURATION (P0M3DT0S)"},
		{[]any{int64(1), int64(2)}, "is a LIST [1, 2]"},
		{true, "is the boolean true"},
	} {
		var g Graph
		for _, u := range []int64{1, 2} {
			g.Nodes = append(g.Nodes, Node{Labels: []string{"K"}, Props: map[string]any{"uid": u, "k": c.key}})
		}
		g.Rels = []Rel{{From: 1, To: 2, Type: "T"}}
		fx := f(t, g)
		_, err := fx.Store().Pull(Ctx(t), syncjob.PullOptions{NodeLabels: []string{"K"}, IDProperty: "k"})
		if !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), `key property "k" of node elementId(n) = `) ||
			!strings.Contains(err.Error(), c.want+": keys must be integers or strings") {
			t.Errorf("key %#v: %v\nwant %q", c.key, err, c.want)
		}
	}
}

// bibliography is a small (:Author)-[:WROTE]->(:Paper) graph: authors
// 1-3 with names, papers 10-12 with titles (12 a :Paper:Preprint), four
// WROTE relationships, and author 3 without one.
func bibliography() Graph {
	return Graph{Nodes: []Node{
		{Labels: []string{"Author"}, Props: map[string]any{"uid": int64(1), "name": "Ann"}},
		{Labels: []string{"Author"}, Props: map[string]any{"uid": int64(2), "name": "Bob"}},
		{Labels: []string{"Author"}, Props: map[string]any{"uid": int64(3), "name": "Cy"}},
		{Labels: []string{"Paper"}, Props: map[string]any{"uid": int64(10), "title": "On A", "year": int64(2001)}},
		{Labels: []string{"Paper"}, Props: map[string]any{"uid": int64(11), "title": "On B", "year": int64(2002)}},
		{Labels: []string{"Paper", "Preprint"}, Props: map[string]any{"uid": int64(12), "title": "On C"}},
	}, Rels: []Rel{{From: 1, To: 10, Type: "WROTE"}, {From: 2, To: 10, Type: "WROTE"}, {From: 2, To: 11, Type: "WROTE"}, {From: 1, To: 12, Type: "WROTE"}}}
}

// A subgraph of authors only has no relationships: the error counts those
// that end outside it (all four WROTE) and says which labels to add.
func testEmptySaysWhatIsOutside(t *testing.T, f Factory) {
	fx := f(t, bibliography())
	_, err := fx.Store().Pull(Ctx(t), syncjob.PullOptions{NodeLabels: []string{"Author"}, IDProperty: "uid"})
	if !syncjob.IsEmpty(err) {
		t.Fatalf("authors only: %v", err)
	}
	for _, want := range []string{"4 relationships with an end outside the nodes", `"Paper" (4)`, `"Preprint" (1)`, "add a label of theirs to the node labels"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("authors only: %v\nwant %q", err, want)
		}
	}
}

// A node without the key property is named by its element id and its
// labels.
func testKeylessNodeLabels(t *testing.T, f Factory) {
	fx := f(t, bibliography())
	_, err := fx.Store().Pull(Ctx(t), syncjob.PullOptions{IDProperty: "name"})
	if !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), `has no key property "name"`) ||
		!strings.Contains(err.Error(), "elementId(n) = ") || !strings.Contains(err.Error(), "(:Paper") {
		t.Errorf("a paper without a name: %v", err)
	}
}

// Nodes that have none of the display properties: their number, their
// labels, and the text properties they have instead, most common first.
func testUnnamedProperties(t *testing.T, f Factory) {
	fx := f(t, bibliography())
	sg, err := fx.Store().Pull(Ctx(t), syncjob.PullOptions{IDProperty: "uid", DisplayProperties: []string{"name"}})
	if err != nil {
		t.Fatal(err)
	}
	if u := sg.Unnamed; u == nil || u.Nodes != 3 || !slices.Equal(u.Labels, []string{"Paper", "Preprint"}) || !slices.Equal(u.Properties, []string{"title"}) {
		t.Errorf("unnamed %+v; want 3 nodes, [Paper Preprint], [title]", u)
	}
	sg, err = fx.Store().Pull(Ctx(t), syncjob.PullOptions{IDProperty: "uid", DisplayProperties: []string{"name", "title"}})
	if err != nil || sg.Unnamed != nil {
		t.Errorf("name or title: %v, %+v", err, sg.Unnamed)
	}
}
