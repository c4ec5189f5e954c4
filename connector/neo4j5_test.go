package connector

// Behaviour that only a real Neo4j 5 shows: hostile identifiers, element
// ids that are reused, Cypher projections, fencing, nodes that change
// between the pull and the write.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
)

// hostileNames are identifiers from config that must either work literally
// (created, matched and written under exactly this name) or be refused with
// a clear error before anything is sent. Neo4j 5 reads \u0060 inside
// backticks as a backtick, so a name holding a Unicode escape would name
// another token: such names are refused.
var hostileNames = []struct {
	name    string
	refused string // "" when the name must work literally
}{
	{"back`tick", ""},
	{"two``ticks`", ""},
	{"brace})", ""},
	{"slash//comment", ""},
	{"star/*x*/", ""},
	{"back\\slash", ""},
	{"trailing\\", ""},
	{"uni\u00e9\u4e2d\U0001F600", ""},
	{"sp ace;MATCH (n) DETACH DELETE n", ""},
	{"esc\\u0060ape", `Unicode escape`},
	{"ESC\\U0060", `Unicode escape`},
	{"new\nline", "control character"},
	{"", "is empty"},
}

// TestHostileNames writes scores to a property named by each hostile name,
// on nodes of a label and relationships of a type with that name, and
// checks the graph: the name is used literally (labels(n), type(r) and
// keys(n) return it exactly) and nothing else changed; refused names give
// ErrInvalid and change nothing.
func TestHostileNames(t *testing.T) {
	for _, hn := range hostileNames {
		t.Run(fmt.Sprintf("%q", hn.name), func(t *testing.T) {
			reset(t)
			c, _ := open(t)
			// The decoy must survive everything.
			run(t, "CREATE (:Decoy {keep: 1})-[:DECOY]->(:Decoy {keep: 2})", nil)
			if hn.refused != "" {
				_, err := c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{NodeLabels: []string{hn.name}})
				if !errors.Is(err, syncjob.ErrInvalid) || !strings.Contains(err.Error(), hn.refused) {
					t.Fatalf("label %q: %v, want ErrInvalid with %q", hn.name, err, hn.refused)
				}
				_, err = c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{DisplayProperties: []string{"name", hn.name}})
				if !errors.Is(err, syncjob.ErrInvalid) || !strings.Contains(err.Error(), "PullOptions.DisplayProperties") || !strings.Contains(err.Error(), hn.refused) {
					t.Fatalf("display property %q: %v, want ErrInvalid with %q", hn.name, err, hn.refused)
				}
				_, err = c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{WriteNodeLabels: []string{hn.name}})
				if !errors.Is(err, syncjob.ErrInvalid) || !strings.Contains(err.Error(), "PullOptions.WriteNodeLabels") || !strings.Contains(err.Error(), hn.refused) {
					t.Fatalf("write label %q: %v, want ErrInvalid with %q", hn.name, err, hn.refused)
				}
				if hn.name == "" {
					return // an empty write property means the default one
				}
				sg := &syncjob.Subgraph{Graph: mustGraph(t), IDs: []keys.Key{keys.String("x"), keys.String("y"), keys.String("z")}}
				_, err = syncjob.WriteScores(ctxT(t, time.Minute), c, sg, &fondue.Result{Scores: make([]float64, 3), Ambiguity: make([]float64, 3)}, syncjob.WriteOptions{Property: hn.name}, nil)
				if !errors.Is(err, syncjob.ErrInvalid) || !strings.Contains(err.Error(), hn.refused) {
					t.Fatalf("property %q: %v, want ErrInvalid with %q", hn.name, err, hn.refused)
				}
				_, err = syncjob.WriteScores(ctxT(t, time.Minute), c, sg, &fondue.Result{Scores: make([]float64, 3), Ambiguity: make([]float64, 3), Entities: make([]int, 3)},
					syncjob.WriteOptions{EntitiesProperty: hn.name}, nil)
				if !errors.Is(err, syncjob.ErrInvalid) || !strings.Contains(err.Error(), hn.refused) {
					t.Fatalf("entities property %q: %v, want ErrInvalid with %q", hn.name, err, hn.refused)
				}
				if got := len(run(t, "MATCH (n) RETURN n", nil)); got != 2 {
					t.Fatalf("%d nodes after a refused name, want the 2 decoys", got)
				}
				return
			}
			// Nodes and relationships under the hostile label and type,
			// created with the same escaping the connector uses.
			if err := EnsureNameRoundTrip(t, c, hn.name); err != nil {
				t.Fatal(err)
			}
			sg, err := c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{NodeLabels: []string{hn.name}, RelationshipTypes: []string{hn.name}, IDProperty: hn.name,
				DisplayProperties: []string{hn.name + " absent", hn.name}, WriteNodeLabels: []string{hn.name}})
			if err != nil {
				t.Fatal(err)
			}
			if sg.Graph.NumNodes() != 4 || sg.Graph.NumEdges() != 4 || !slices.Equal(sg.Targets, []bool{true, true, true, true}) {
				t.Fatalf("pulled %d nodes %d edges, want 4 and 4; targets %v", sg.Graph.NumNodes(), sg.Graph.NumEdges(), sg.Targets)
			}
			for i := range 4 { // named by the second display property: the key
				if sg.Names[i] != sg.Keys[i].Text() || !slices.Equal(sg.NodeLabels(i), []string{hn.name}) {
					t.Fatalf("node %v: name %q, labels %q", sg.Keys[i], sg.Names[i], sg.NodeLabels(i))
				}
			}
			res := scoreGraph(t, sg.Graph, 1)
			ws, err := syncjob.WriteScores(ctxT(t, time.Minute), c, sg, res, syncjob.WriteOptions{Property: hn.name, ScoreProperty: hn.name + "_raw", EntitiesProperty: hn.name + "_entities", RunProperty: "", RunID: "h"}, nil)
			if err != nil || ws.Nodes != 4 || ws.Missing != 0 {
				t.Fatalf("write: %+v %v", ws, err)
			}
			recs := run(t, "MATCH (n) WHERE $name IN labels(n) RETURN [k IN keys(n) | k] AS keys, n[$name] AS amb", map[string]any{"name": hn.name})
			if len(recs) != 4 {
				t.Fatalf("%d nodes carry the label literally, want 4", len(recs))
			}
			for _, r := range recs {
				keys, _ := r.Get("keys")
				var ks []string
				for _, k := range keys.([]any) {
					ks = append(ks, k.(string))
				}
				slices.Sort(ks)
				want := []string{hn.name, hn.name + "_raw", hn.name + "_entities"}
				slices.Sort(want)
				if !slices.Equal(ks, want) {
					t.Fatalf("properties %q, want %q", ks, want)
				}
				if a, _ := r.Get("amb"); a == nil {
					t.Fatal("no score under the literal property name")
				}
			}
			if got := run(t, "MATCH ()-[r]->() WHERE type(r) = $name RETURN count(r)", map[string]any{"name": hn.name}); got[0].Values[0] != int64(4) {
				t.Fatalf("%v relationships of the literal type, want 4", got[0].Values[0])
			}
			if got := run(t, "MATCH (d:Decoy) RETURN count(d), sum(size(keys(d)))", nil); got[0].Values[0] != int64(2) || got[0].Values[1] != int64(2) {
				t.Fatalf("decoys changed: %v", got[0].Values)
			}
		})
	}
}

// EnsureNameRoundTrip creates a 4-cycle of nodes labelled name, keyed by
// property name (values 1..4), joined by relationships of type name, and
// checks that the server stored the name literally.
func EnsureNameRoundTrip(t *testing.T, c *Conn, name string) error {
	t.Helper()
	lbl, err := cypher.Escape(name)
	if err != nil {
		return err
	}
	run(t, "UNWIND [1, 2, 3, 4] AS i CREATE (n:"+lbl+") SET n."+lbl+" = i", nil)
	run(t, "MATCH (a:"+lbl+"), (b:"+lbl+") WHERE b."+lbl+" = a."+lbl+" % 4 + 1 CREATE (a)-[:"+lbl+"]->(b)", nil)
	got := run(t, "MATCH (n) WHERE $name IN labels(n) RETURN count(n)", map[string]any{"name": name})
	if got[0].Values[0] != int64(4) {
		return fmt.Errorf("the server did not store the label %q literally", name)
	}
	return nil
}

func mustGraph(t *testing.T) *graph.Graph {
	var b graph.Builder
	b.AddEdge("x", "y")
	b.AddEdge("y", "z")
	return b.Build()
}

// TestServerReadsUnicodeEscapesInBackticks shows why CheckName refuses
// Unicode escapes: Neo4j 5 turns \u0060 inside a backtick-quoted name into
// a backtick, so the name the server stores is not the name in the config.
func TestServerReadsUnicodeEscapesInBackticks(t *testing.T) {
	reset(t)
	run(t, "CREATE (:`a\\u0041b`)", nil)
	got := run(t, "MATCH (n) RETURN labels(n)[0]", nil)[0].Values[0]
	t.Logf("label written as `a\\u0041b` is stored as %q", got)
	if got == `a\u0041b` {
		t.Fatalf("the server stored the escape literally: CheckName's refusal of Unicode escapes can be relaxed")
	}
}

// TestUndoRefusesReusedID: element ids are reused after a deletion; undo
// must not move a clone's relationships onto a node that merely has the
// id of the node that was split. Here the clone's provenance is pointed at
// another node, as if the original were deleted and its id reused.
func TestUndoRefusesReusedID(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	c, _ := open(t)
	_, p := splitPlan(t, c, "run-r")
	if st, err := syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, nil, nil); err != nil || st.Split != 2 {
		t.Fatalf("split: %+v %v", st, err)
	}
	run(t, "MATCH (m:FondueSplit {fondue_split_run: 'run-r', fondue_split_from: 100}), (imp:Person {uid: 5}) SET m.fondue_split_from_id = elementId(imp)", nil)
	before := dump(t)
	u, err := syncjob.UndoSplits(ctxT(t, time.Minute), c, syncjob.UndoOptions{RunID: "run-r"})
	if err != nil || u.Restored != 1 || len(u.Failed) != 1 || !strings.Contains(u.Failed[0].Reason, "not the node that was split") {
		t.Fatalf("undo: %+v %v", u, err)
	}
	after := dump(t)
	// Only N's undo happened: the impostor (uid 5) gained nothing.
	for _, line := range strings.Split(after, "\n") {
		if strings.Contains(line, "uid:5 ") && strings.Contains(line, "clone:") {
			t.Errorf("a clone relationship moved to the impostor: %s", line)
		}
	}
	if strings.Count(before, "uid:5") != strings.Count(after, "uid:5") {
		t.Errorf("the impostor's relationships changed:\n%s", diff(before, after))
	}
	if !strings.Contains(after, "clone:run-r/100/1") || strings.Contains(after, "clone:run-r/101/1") {
		t.Errorf("M's clone must stay, N's must be gone:\n%s", after)
	}
}

// TestSplitCypherProjectionMovesOnlyPulled: a split of a Cypher projection
// moves only the relationships the relationship query returned, and one
// without the relationship column is refused.
func TestSplitCypherProjectionMovesOnlyPulled(t *testing.T) {
	reset(t)
	run(t, splitGraph, nil)
	// A second relationship between M and 11 and between M and 1, of a type
	// the query does not pull.
	run(t, "MATCH (m:Person {uid: 100}), (a:Person {uid: 11}), (b:Person {uid: 1}) CREATE (m)-[:HIDDEN]->(a), (b)-[:HIDDEN]->(m)", nil)
	c, _ := open(t)
	o := syncjob.PullOptions{
		NodeQuery:         "MATCH (n) WHERE (n:Person OR n:Org) AND NOT n:FondueSplit RETURN elementId(n) AS id, n.uid AS key",
		RelationshipQuery: "MATCH (a)-[r:KNOWS|WORKS_AT]->(b) WHERE (a:Person OR a:Org) AND (b:Person OR b:Org) RETURN elementId(a) AS source, elementId(b) AS target, elementId(r) AS relationship",
		IDProperty:        "uid",
	}
	sg, err := c.Pull(ctxT(t, time.Minute), o)
	if err != nil {
		t.Fatal(err)
	}
	idx := func(uids ...int64) []int32 {
		var out []int32
		for _, u := range uids {
			i, _ := sg.Graph.Index(itoa(u))
			out = append(out, int32(i))
		}
		slices.Sort(out)
		return out
	}
	m := int(idx(100)[0])
	res := &fondue.Result{Proposals: []fondue.Proposal{{Node: m, Groups: [][]int32{idx(1, 2, 3, 200), idx(11, 12, 13, 101)}}}}
	p, err := syncjob.NewPlan(sg, res, syncjob.PlanOptions{RunID: "run-c"})
	if err != nil || !p.PulledOnly || len(p.Nodes[0].Groups[1].RelationshipIDs) != 5 {
		t.Fatalf("plan: %+v %v", p, err)
	}
	if st, err := syncjob.Split(ctxT(t, time.Minute), c, p, splitTime, nil, nil); err != nil || st.Split != 1 || st.RelationshipsMoved != 5 {
		t.Fatalf("split: %+v %v", st, err)
	}
	// The HIDDEN relationships were not pulled: they stay on M.
	got := run(t, "MATCH (m:Person {uid: 100})-[r:HIDDEN]-(o) RETURN o.uid ORDER BY o.uid", nil)
	if len(got) != 2 || got[0].Values[0] != int64(1) || got[1].Values[0] != int64(11) {
		t.Fatalf("HIDDEN relationships on M: %v", got)
	}
	if n := run(t, "MATCH (:FondueSplit)-[r:HIDDEN]-() RETURN count(r)", nil)[0].Values[0]; n != int64(0) {
		t.Fatalf("%v HIDDEN relationships moved to the clone", n)
	}
	// Without the relationship column, a split is refused before anything.
	o.RelationshipQuery = "MATCH (a)-[r:KNOWS|WORKS_AT]->(b) WHERE (a:Person OR a:Org) AND (b:Person OR b:Org) RETURN elementId(a) AS source, elementId(b) AS target"
	sg2, err := c.Pull(ctxT(t, time.Minute), o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := syncjob.NewPlan(sg2, res, syncjob.PlanOptions{RunID: "run-d"}); !errors.Is(err, syncjob.ErrInvalid) || !strings.Contains(err.Error(), "elementId(r) AS relationship") {
		t.Fatalf("plan without relationship ids: %v", err)
	}
}

// TestFencing: a run whose lock was taken over writes nothing more, even
// before its heartbeat notices (the TTL here is long, so the heartbeat
// would not look for minutes).
func TestFencing(t *testing.T) {
	reset(t)
	loadEdgeList(t, "testdata/polbooks.edges", "Book", "CO_PURCHASED", "uid")
	c, _ := open(t)
	ctx := ctxT(t, 2*time.Minute)
	sg, err := c.Pull(ctx, syncjob.PullOptions{NodeLabels: []string{"Book"}, IDProperty: "uid"})
	if err != nil {
		t.Fatal(err)
	}
	res := scoreGraph(t, sg.Graph, 1)
	l, err := c.AcquireLock(ctx, syncjob.LockOptions{RunID: "slow", TTL: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	// Another run takes the lock over while this one is busy: two batches
	// are written, then the lock changes hands.
	st, err := syncjob.WriteScores(ctx, c, sg, res, syncjob.WriteOptions{RunID: "slow", BatchSize: 20, Progress: func(done, total int) {
		if done == 40 {
			run(t, "MATCH (l:FondueLock {name: 'fondue-neo4j'}) SET l.owner = 'thief', l.run = 'fast', l.expires = timestamp() + 600000", nil)
		}
	}}, nil)
	if !errors.Is(err, syncjob.ErrLockLost) || !errors.Is(err, syncjob.ErrLocked) || !strings.Contains(err.Error(), "stopped before writing batch 3") {
		t.Fatalf("write after the lock was taken: %+v %v", st, err)
	}
	if n := run(t, "MATCH (b:Book) WHERE b.ambiguity IS NOT NULL RETURN count(b)", nil)[0].Values[0]; n != int64(40) {
		t.Fatalf("%v nodes written, want the 40 written before the lock was lost", n)
	}
	if !errors.Is(context.Cause(l.Context()), syncjob.ErrLockLost) {
		t.Errorf("the lock's context: %v", context.Cause(l.Context()))
	}
	// The same for a split and an undo: nothing is written.
	p := &splitplan.Plan{RunID: "slow", MarkerLabel: syncjob.DefaultMarkerLabel, Nodes: []splitplan.Node{{ID: sg.IDs[0], Key: sg.Key(0),
		Groups: []splitplan.Group{{Neighbors: []keys.Key{}, NeighborIDs: []keys.Key{}}, {Neighbors: []keys.Key{}, NeighborIDs: []keys.Key{}}}}}}
	if _, err := syncjob.Split(ctx, c, p, splitTime, nil, nil); !errors.Is(err, syncjob.ErrLockLost) {
		t.Fatalf("split after the lock was lost: %v", err)
	}
	if n := run(t, "MATCH (s:FondueSplit) RETURN count(s)", nil)[0].Values[0]; n != int64(0) {
		t.Fatalf("%v clones made without the lock", n)
	}
}

// TestWriteReportsChangedNodes: nodes deleted, re-keyed or relabelled
// between the pull and the write are written nowhere and reported by key.
func TestWriteReportsChangedNodes(t *testing.T) {
	reset(t)
	loadEdgeList(t, "testdata/polbooks.edges", "Book", "CO_PURCHASED", "uid")
	c, logs := open(t)
	ctx := ctxT(t, 2*time.Minute)
	sg, err := c.Pull(ctx, syncjob.PullOptions{NodeLabels: []string{"Book"}, IDProperty: "uid"})
	if err != nil {
		t.Fatal(err)
	}
	res := scoreGraph(t, sg.Graph, 1)
	// Deleted; key changed; label removed (still the same element id).
	run(t, "MATCH (b:Book {uid: 3}) DETACH DELETE b", nil)
	run(t, "MATCH (b:Book {uid: 7}) SET b.uid = 7007", nil)
	run(t, "MATCH (b:Book {uid: 9}) REMOVE b:Book SET b:Archived", nil)
	st, err := syncjob.WriteScores(ctx, c, sg, res, syncjob.WriteOptions{RunID: "w", BatchSize: 25}, c.log)
	if err != nil {
		t.Fatal(err)
	}
	keys := fmt.Sprint(st.MissingKeys)
	if st.Missing != 3 || st.Nodes != sg.Graph.NumNodes()-3 || keys != "[3 7 9]" {
		t.Fatalf("write: %+v, missing %s", st, keys)
	}
	if n := run(t, "MATCH (b) WHERE b.uid IN [7007, 9] AND b.ambiguity IS NOT NULL RETURN count(b)", nil)[0].Values[0]; n != int64(0) {
		t.Fatalf("%v changed nodes were written", n)
	}
	if !strings.Contains(logs.String(), "examples=\"[3 7 9]\"") {
		t.Errorf("the warning does not name the nodes:\n%s", logs.String())
	}
}
