package connector

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
)

// splitGraph is a graph of two communities of people, joined by two merged
// nodes M (uid 100) and N (uid 101) that are linked to each other:
//
//   - labels Person, Org (selected), Other (not selected), and a label with
//     a backtick and "})" on M;
//   - types KNOWS and WORKS_AT (selected), LIKES (not selected);
//   - both directions, a parallel pair, a self-loop on M, properties of
//     every kind on nodes and relationships.
const splitGraph = `
CREATE (m:Person:` + "`We``ird})`" + ` {uid: 100, name: 'M', tags: ['a', 'b'], weight: 1.5, flag: true})
CREATE (n:Person {uid: 101, name: 'N'})
CREATE (o:Org {uid: 200, name: 'Acme'})
CREATE (x:Other {uid: 300})
FOREACH (i IN [1, 2, 3, 4, 5, 11, 12, 13, 14, 15] | CREATE (:Person {uid: i, name: 'p' + toString(i)}))
WITH m, n, o, x
MATCH (a:Person), (b:Person) WHERE a.uid < b.uid AND (b.uid <= 5 OR a.uid >= 11) AND b.uid < 100
CREATE (a)-[:KNOWS {since: a.uid * 100 + b.uid}]->(b)
WITH DISTINCT m, n, o, x
MATCH (p1:Person {uid: 1}), (p2:Person {uid: 2}), (p3:Person {uid: 3}), (p4:Person {uid: 4}),
      (q1:Person {uid: 11}), (q2:Person {uid: 12}), (q3:Person {uid: 13}), (q4:Person {uid: 14}), (q5:Person {uid: 15})
CREATE (m)-[:KNOWS {since: 2001, w: 0.5, note: 'x'}]->(p1), (p2)-[:KNOWS {since: 2002}]->(m), (m)-[:KNOWS]->(p3),
       (m)-[:KNOWS {since: 2011, tags: [1, 2]}]->(q1), (q1)-[:KNOWS {since: 2011, back: true}]->(m),
       (q2)-[:KNOWS]->(m), (m)-[:KNOWS {since: 2013}]->(q3),
       (m)-[:WORKS_AT {role: 'chair'}]->(o), (m)-[:KNOWS {loop: true}]->(m), (m)-[:KNOWS]->(x), (m)-[:LIKES]->(q1),
       (m)-[:KNOWS {mn: 1}]->(n), (n)-[:KNOWS {since: 2014}]->(q4), (q5)-[:KNOWS]->(n), (n)-[:KNOWS]->(p4)
`

// splitPlan pulls splitGraph and plans: M keeps {1, 2, 3, 200}, gives
// {11, 12, 13, 101} to a clone; N keeps {14, 15}, gives {4, 100}.
func splitPlan(t *testing.T, c *Conn, runID string) (*syncjob.Subgraph, *splitplan.Plan) {
	t.Helper()
	sg, err := c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{NodeLabels: []string{"Person", "Org"}, RelationshipTypes: []string{"KNOWS", "WORKS_AT"}, IDProperty: "uid", DisplayProperties: []string{"name"}})
	if err != nil {
		t.Fatal(err)
	}
	idx := func(uids ...int64) []int32 {
		var out []int32
		for _, u := range uids {
			i, ok := sg.Graph.Index(itoa(u))
			if !ok {
				t.Fatalf("uid %d not pulled", u)
			}
			out = append(out, int32(i))
		}
		slices.Sort(out)
		return out
	}
	m, n := idx(100)[0], idx(101)[0]
	if got, want := sg.Graph.Neighbors(int(m)), idx(1, 2, 3, 11, 12, 13, 101, 200); !slices.Equal(got, want) {
		t.Fatalf("M's neighbours %v, want %v", got, want)
	}
	res := &fondue.Result{Proposals: []fondue.Proposal{
		{Node: int(m), Groups: [][]int32{idx(1, 2, 3, 200), idx(11, 12, 13, 101)}, Ambiguity: 1, Score: 2},
		{Node: int(n), Groups: [][]int32{idx(14, 15), idx(4, 100)}, Ambiguity: 0.9, Score: 1},
		{Node: int(idx(1)[0]), Groups: [][]int32{idx(2, 3, 4, 5, 100)}}, // one group: nothing to split
	}}
	// Keyless clones (split.clone_key none): these tests name clones by
	// their split key; the keys clones get are the storetest suite's.
	p, err := syncjob.NewPlan(sg, res, syncjob.PlanOptions{RunID: runID, Splitter: "test", SkipProperties: []string{"ambiguity"}, NeighborLinks: true,
		Now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), CloneKey: splitplan.NoCloneKey})
	if err != nil || len(p.Nodes) != 2 {
		t.Fatalf("plan of %d nodes", len(p.Nodes))
	}
	return sg, p
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

var splitTime = time.Date(2025, 1, 2, 3, 4, 6, 0, time.UTC)

func TestSplitUndoRoundTrip(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	run(t, "MATCH (n:Person) SET n.ambiguity = 0.5", nil)
	before := dump(t)
	c, _ := open(t)
	_, p := splitPlan(t, c, "run-a")

	// Dry run: the plan with relationship counts, and nothing written.
	if err := syncjob.Describe(ctxT(t, time.Minute), c, p); err != nil {
		t.Fatal(err)
	}
	if d := dump(t); d != before {
		t.Fatalf("the dry run wrote:\n%s", diff(before, d))
	}
	m := p.Nodes[0]
	wantG0 := []splitplan.RelCount{{Type: "KNOWS", Direction: "out", Count: 2}, {Type: "KNOWS", Direction: "in", Count: 1}, {Type: "WORKS_AT", Direction: "out", Count: 1}}
	wantG1 := []splitplan.RelCount{{Type: "KNOWS", Direction: "out", Count: 3}, {Type: "KNOWS", Direction: "in", Count: 2}}
	wantStay := []splitplan.RelCount{{Type: "KNOWS", Direction: "out", Count: 2}, {Type: "LIKES", Direction: "out", Count: 1}} // self-loop, Other; LIKES
	if !slices.Equal(m.Groups[0].Relationships, wantG0) || !slices.Equal(m.Groups[1].Relationships, wantG1) || !slices.Equal(m.Staying, wantStay) {
		t.Fatalf("M's plan: %+v %+v staying %+v", m.Groups[0].Relationships, m.Groups[1].Relationships, m.Staying)
	}
	if !slices.Contains(m.Labels, "We`ird})") {
		t.Fatalf("labels %v", m.Labels)
	}

	st, err := syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Split != 2 || st.NodesCreated != 2 || st.RelationshipsMoved != 5+2 || st.Failed+st.Skipped+st.AlreadyDone != 0 {
		t.Fatalf("split: %+v", st)
	}
	after := dump(t)
	// M's clone: M's labels + marker, M's properties but uid and ambiguity,
	// provenance; M's relationships to 11, 12, 13 as they were; M-N now
	// between the two clones.
	for _, want := range []string{
		`N clone:run-a/100/1 ["FondueSplit" "Person" "We` + "`" + `ird})"] {"flag":true,"fondue_split_at":"2025-01-02T03:04:06.000Z","fondue_split_from":100,"fondue_split_from_id":`,
		`R clone:run-a/100/1 -["KNOWS" {"since":2011,"tags":[1,2]}]-> uid:11`,
		`R uid:11 -["KNOWS" {"back":true,"since":2011}]-> clone:run-a/100/1`,
		`R uid:12 -["KNOWS" {}]-> clone:run-a/100/1`,
		`R clone:run-a/100/1 -["KNOWS" {"mn":1}]-> clone:run-a/101/1`,
		`R clone:run-a/101/1 -["KNOWS" {}]-> uid:4`,
		`R uid:100 -["KNOWS" {"loop":true}]-> uid:100`,
		`R uid:100 -["LIKES" {}]-> uid:11`,
		`R uid:100 -["KNOWS" {}]-> uid:300`,
		`R uid:100 -["WORKS_AT" {"role":"chair"}]-> uid:200`,
		`"fondue_split_runs":["run-a"]`,
	} {
		if !strings.Contains(after, want) {
			t.Errorf("after the split, no %s in\n%s", want, after)
		}
	}
	if strings.Contains(after, `"name":"M","tags":["a","b"],"uid":100,"weight":1.5,"fondue_split`) ||
		strings.Contains(after, `clone:run-a/100/1 ["FondueSplit" "Person" "We`+"`"+`ird})"] {"ambiguity"`) {
		t.Errorf("clone copied a skipped property")
	}

	// Re-running the plan changes nothing.
	st, err = syncjob.Split(ctxT(t, time.Minute), c, p, splitTime.Add(time.Hour), nil, nil)
	if err != nil || st.AlreadyDone != 2 || st.Split != 0 || st.NodesCreated != 0 {
		t.Fatalf("re-run: %+v %v", st, err)
	}
	if d := dump(t); d != after {
		t.Fatalf("re-running the split changed the graph:\n%s", diff(after, d))
	}

	// Undo restores the graph exactly; a second undo has nothing to do.
	u, err := syncjob.UndoSplits(ctxT(t, time.Minute), c, syncjob.UndoOptions{RunID: "run-a"})
	if err != nil || u.Originals != 2 || u.Restored != 2 || u.ClonesDeleted != 2 || len(u.Failed) != 0 {
		t.Fatalf("undo: %+v %v", u, err)
	}
	if d := dump(t); d != before {
		t.Fatalf("undo did not restore the graph:\n%s", diff(before, d))
	}
	u, err = syncjob.UndoSplits(ctxT(t, time.Minute), c, syncjob.UndoOptions{RunID: "run-a"})
	if err != nil || u.Originals != 0 {
		t.Fatalf("second undo: %+v %v", u, err)
	}
	if d := dump(t); d != before {
		t.Fatalf("second undo changed the graph:\n%s", diff(before, d))
	}
}

// A node whose relationships changed since the plan is skipped, untouched.
func TestSplitSkipsChangedNode(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	c, _ := open(t)
	_, p := splitPlan(t, c, "run-b")
	run(t, "MATCH (:Person {uid: 101})-[r]-(:Person {uid: 14}) DELETE r", nil)
	before := dump(t)
	st, err := syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, nil, nil)
	if err != nil || st.Split != 1 || st.Skipped != 1 || st.Nodes[1].Outcome != splitplan.OutcomeChanged || !strings.Contains(st.Nodes[1].Reason, "no longer connected") {
		t.Fatalf("%+v %v", st, err)
	}
	after := dump(t)
	for _, l := range strings.Split(diff(before, after), "\n") {
		if strings.Contains(l, "clone:run-b/101") || strings.Contains(l, "N uid:101") {
			t.Errorf("the changed node was touched: %s", l)
		}
	}
	// The deleted node of a plan is "missing".
	run(t, "MATCH (n:Person {uid: 101}) DETACH DELETE n", nil)
	st, err = syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, nil, nil)
	if err != nil || st.AlreadyDone != 1 || st.Nodes[1].Outcome != splitplan.OutcomeMissing {
		t.Fatalf("%+v %v", st, err)
	}
}

func TestPlanStoreLoad(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	c, _ := open(t)
	_, p := splitPlan(t, c, "run-c")
	if got, err := syncjob.LoadPlan(ctxT(t, time.Minute), c, "run-c"); err != nil || got != nil {
		t.Fatalf("no plan yet: %v %v", got, err)
	}
	stored, err := syncjob.StorePlan(ctxT(t, time.Minute), c, p)
	if err != nil {
		t.Fatal(err)
	}
	other := *p
	other.Nodes = other.Nodes[:1]
	again, err := syncjob.StorePlan(ctxT(t, time.Minute), c, &other)
	if err != nil || len(again.Nodes) != 2 {
		t.Fatalf("the first plan must win: %v %v", again, err)
	}
	loaded, err := syncjob.LoadPlan(ctxT(t, time.Minute), c, "run-c")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(p)
	b, _ := json.Marshal(stored)
	d, _ := json.Marshal(loaded)
	if string(a) != string(b) || string(a) != string(d) {
		t.Fatalf("plan changed through the database:\n%s\n%s\n%s", a, b, d)
	}
	if _, isInt := loaded.Nodes[0].ID.Int64(); isInt || loaded.Nodes[0].ID.IsZero() {
		t.Fatalf("element ids must stay strings: %T", loaded.Nodes[0].ID)
	}
	// Undo of the (unsplit) run deletes the plan (the store's Undo
	// restores; syncjob.Undo forgets the record once nothing is split).
	if _, err := syncjob.Undo(ctxT(t, time.Minute), c, syncjob.UndoOptions{RunID: "run-c"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := syncjob.LoadPlan(ctxT(t, time.Minute), c, "run-c"); got != nil {
		t.Fatal("plan survived the undo")
	}
}

// Faults during a split: a connection cut in the middle of a node's
// transaction is retried by the driver; a server that goes away aborts the
// split, and running the plan again completes it. Either way the result is
// the same graph as an uninterrupted split: nothing lost, nothing twice.
func TestSplitFaults(t *testing.T) {
	reference := func() string {
		reset(t)
		run(t, splitGraph, nil)
		c, _ := open(t)
		_, p := splitPlan(t, c, "run-f")
		if _, err := syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, nil, nil); err != nil {
			t.Fatal(err)
		}
		return dump(t)
	}()

	// 1. Cut the connection at N's clones' CREATE (inside N's
	// transaction, after M's commit): N's transaction is rolled back and
	// retried.
	reset(t)
	run(t, splitGraph, nil)
	c, _ := open(t)
	_, p := splitPlan(t, c, "run-f")
	var creates int
	dropped := srv.Proxy().Stats().Dropped
	srv.Proxy().DropWhenSent("SET m += $rows[i]", 2)
	st, err := syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, nil, nil)
	creates = srv.Proxy().SentCount()
	srv.Proxy().ClearFaults()
	if err != nil || st.Split != 2 || srv.Proxy().Stats().Dropped != dropped+1 || creates != 3 {
		t.Fatalf("split through a dropped connection: %+v %v (dropped %d, %d clone statements)", st, err, srv.Proxy().Stats().Dropped-dropped, creates)
	}
	if d := dump(t); d != reference {
		t.Fatalf("after a retried split:\n%s", diff(reference, d))
	}

	// 2. The server goes away after M's split: the split fails with
	// ErrUnreachable; once it is back, the same plan completes.
	reset(t)
	run(t, splitGraph, nil)
	c, _ = open(t, func(c *Config) { c.MaxRetryTime = 2 * time.Second })
	_, p = splitPlan(t, c, "run-f")
	st, err = syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, func(done, total int) {
		if done == 1 {
			srv.Proxy().Refuse()
		}
	}, nil)
	if !errors.Is(err, syncjob.ErrUnreachable) || st.Split != 1 || !strings.Contains(err.Error(), "re-run with the same run id") {
		t.Fatalf("split with the server gone: %+v %v", st, err)
	}
	if err := srv.Proxy().Restore(); err != nil {
		t.Fatal(err)
	}
	st, err = syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, nil, nil)
	if err != nil || st.AlreadyDone != 1 || st.Split != 1 {
		t.Fatalf("resumed split: %+v %v", st, err)
	}
	if d := dump(t); d != reference {
		t.Fatalf("after a resumed split:\n%s", diff(reference, d))
	}
}

// Undo refuses, for that node only, a clone that a later run split again.
func TestUndoNestedRuns(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	before := dump(t)
	c, _ := open(t)
	_, p := splitPlan(t, c, "run-1")
	if _, err := syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, nil, nil); err != nil {
		t.Fatal(err)
	}
	// Run 2 splits M's clone (node without uid: pull by internal id).
	sg, err := c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{NodeLabels: []string{"Person", "Org"}, RelationshipTypes: []string{"KNOWS", "WORKS_AT"}})
	if err != nil {
		t.Fatal(err)
	}
	clone := run(t, "MATCH (m:FondueSplit {fondue_split_key: 'run-1/100/1'}) RETURN elementId(m)", nil)[0].Values[0].(string)
	ci, _ := sg.Graph.Index(clone)
	nb := sg.Graph.Neighbors(ci)
	res := &fondue.Result{Proposals: []fondue.Proposal{{Node: ci, Groups: [][]int32{nb[:2], nb[2:]}}}}
	p2, err := syncjob.NewPlan(sg, res, syncjob.PlanOptions{RunID: "run-2"})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := syncjob.Split(ctxT(t, time.Minute), c, p2, splitTime, nil, nil); err != nil || st.Split != 1 {
		t.Fatalf("run 2: %+v %v", st, err)
	}
	u, err := syncjob.UndoSplits(ctxT(t, time.Minute), c, syncjob.UndoOptions{RunID: "run-1"})
	if err != nil || len(u.Failed) != 1 || !strings.Contains(u.Failed[0].Reason, "undo that run first") {
		t.Fatalf("undo run-1 first: %+v %v", u, err)
	}
	for _, r := range []string{"run-2", "run-1"} {
		if u, err := syncjob.UndoSplits(ctxT(t, time.Minute), c, syncjob.UndoOptions{RunID: r}); err != nil || len(u.Failed) != 0 {
			t.Fatalf("undo %s: %+v %v", r, u, err)
		}
	}
	if d := dump(t); d != before {
		t.Fatalf("after both undos:\n%s", diff(before, d))
	}
}

// A property under a uniqueness constraint is not copied to clones (the
// split would otherwise fail); a split that fails all the same (here a
// constraint on a provenance property) is rolled back for that node only.
func TestSplitCloneFailsOnConstraint(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	run(t, "CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS UNIQUE", nil)
	c, _ := open(t)
	_, p := splitPlan(t, c, "run-u")
	st, err := syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, nil, nil)
	if err != nil || st.Split != 2 || st.Failed != 0 {
		t.Fatalf("split with a unique name: %+v %v", st, err)
	}
	if r := run(t, "MATCH (m:FondueSplit) RETURN count(m), count(m.name)", nil); r[0].Values[0] != int64(2) || r[0].Values[1] != int64(0) {
		t.Fatalf("clones and names: %v (want 2 clones without a name)", r[0].Values)
	}
	if r := run(t, "MATCH (p:Person) WHERE p.uid IN [100, 101] RETURN collect(p.name)", nil); fmt.Sprint(r[0].Values[0]) != "[M N]" {
		t.Fatalf("the originals' names: %v", r[0].Values[0])
	}

	reset(t)
	run(t, splitGraph, nil)
	run(t, "CREATE CONSTRAINT person_group FOR (p:Person) REQUIRE p.fondue_split_group IS UNIQUE", nil)
	c, _ = open(t)
	_, p = splitPlan(t, c, "run-v")
	before := dump(t)
	st, err = syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, nil, nil)
	if err != nil || st.Split != 1 || st.Failed != 1 || !strings.Contains(st.Nodes[1].Reason, "fondue_split_group") {
		t.Fatalf("%+v %v", st, err)
	}
	// N's transaction left nothing: no clone of N, N not marked.
	after := dump(t)
	if strings.Contains(after, "clone:run-v/101/") || strings.Count(after, `"fondue_split_runs":["run-v"]`) != 1 {
		t.Fatalf("the failed split of N left changes:\n%s", diff(before, after))
	}
}

// A node split into several clones: the split makes them in one statement
// and the undo moves every clone's relationships back in one statement per
// type and direction; a relationship added between two clones of the same
// node after the split (the batched moves cannot see each other) is undone
// clone by clone, and becomes a self-loop of the original.
func TestSplitUndoManyClones(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	before := dump(t)
	c, _ := open(t)
	plan := func(runID string) *splitplan.Plan {
		sg, _ := splitPlan(t, c, runID)
		idx := func(uids ...int64) []int32 {
			var out []int32
			for _, u := range uids {
				i, _ := sg.Graph.Index(itoa(u))
				out = append(out, int32(i))
			}
			slices.Sort(out)
			return out
		}
		m, _ := sg.Graph.Index("100")
		res := &fondue.Result{Proposals: []fondue.Proposal{
			{Node: m, Groups: [][]int32{idx(1, 2, 3, 200), idx(11, 12), idx(13), idx(101)}, Ambiguity: 1, Score: 2},
		}}
		p, err := syncjob.NewPlan(sg, res, syncjob.PlanOptions{RunID: runID, Splitter: "test", Now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)})
		if err != nil || len(p.Nodes) != 1 {
			t.Fatalf("plan: %v", err)
		}
		return p
	}
	for _, linked := range []bool{false, true} {
		runID := fmt.Sprintf("run-many-%v", linked)
		st, err := syncjob.Split(ctxT(t, time.Minute), c, plan(runID), splitTime, nil, nil)
		if err != nil || st.Split != 1 || st.NodesCreated != 3 || st.RelationshipsMoved != 5 {
			t.Fatalf("split: %+v %v", st, err)
		}
		if n := run(t, "MATCH (c:FondueSplit {fondue_split_run: $run}) RETURN count(DISTINCT c.fondue_split_group)", map[string]any{"run": runID})[0].Values[0]; n != int64(3) {
			t.Fatalf("%v clone groups, want 3", n)
		}
		want := before
		if linked {
			run(t, "MATCH (a:FondueSplit {fondue_split_run: $run, fondue_split_group: 1}), (b:FondueSplit {fondue_split_run: $run, fondue_split_group: 3}) CREATE (a)-[:KNOWS {added: true}]->(b)", map[string]any{"run": runID})
			want = strings.Join(slices.Sorted(slices.Values(append(strings.Split(before, "\n"), `R uid:100 -["KNOWS" {"added":true}]-> uid:100`))), "\n")
		}
		us, err := syncjob.UndoSplits(ctxT(t, time.Minute), c, syncjob.UndoOptions{RunID: runID})
		if err != nil || us.Restored != 1 || us.ClonesDeleted != 3 || len(us.Failed) != 0 {
			t.Fatalf("undo (linked clones %v): %+v %v", linked, us, err)
		}
		if d := dump(t); d != want {
			t.Fatalf("undo (linked clones %v) did not restore the graph:\n%s", linked, diff(want, d))
		}
		if linked {
			run(t, "MATCH (n {uid: 100})-[r:KNOWS {added: true}]->(n) DELETE r", nil)
		}
	}
}
