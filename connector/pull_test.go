package connector

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
)

func TestOpenReadsVersion(t *testing.T) {
	c, _ := open(t)
	if c.Version() != srv.ServerVersion() || c.Edition() != "community" {
		t.Fatalf("version %q edition %q, want %q community", c.Version(), c.Edition(), srv.ServerVersion())
	}
}

// The same graph from a file and from Neo4j (key property = the file's
// ids) has the same nodes in the same order, hence the same scores.
func TestPullMatchesEdgeList(t *testing.T) {
	reset(t)
	want := loadEdgeList(t, "testdata/polbooks.edges", "Book", "CO_PURCHASED", "id")
	// Noise that the selection must leave out: another label, another type,
	// a self-loop, a parallel and an opposite relationship.
	run(t, "MATCH (a:Book {id: 0}), (b:Book {id: 1}) CREATE (a)-[:CO_PURCHASED]->(b), (b)-[:CO_PURCHASED]->(a), (a)-[:CO_PURCHASED]->(a), (a)-[:OTHER]->(:Shelf {id: -1})", nil)
	c, _ := open(t)
	for _, o := range []syncjob.PullOptions{
		{NodeLabels: []string{"Book"}, RelationshipTypes: []string{"CO_PURCHASED"}, IDProperty: "id"},
		{NodeLabels: []string{"Book"}, IDProperty: "id"},
		{NodeQuery: "MATCH (n:Book) RETURN elementId(n) AS id, n.id AS key", RelationshipQuery: "MATCH (a:Book)-[:CO_PURCHASED]-(b:Book) RETURN elementId(a) AS source, elementId(b) AS target", IDProperty: "id"},
		{NodeQuery: "MATCH (n:Book) RETURN elementId(n) AS id, n.id AS key, labels(n) AS labels", RelationshipQuery: "MATCH (a:Book)-[:CO_PURCHASED]-(b:Book) RETURN elementId(a) AS source, elementId(b) AS target", IDProperty: "id"},
	} {
		sg, err := c.Pull(ctxT(t, time.Minute), o)
		if err != nil {
			t.Fatal(err)
		}
		g := sg.Graph
		if g.NumNodes() != want.NumNodes() || g.NumEdges() != want.NumEdges() {
			t.Fatalf("%+v: %d nodes %d edges, want %d %d", o, g.NumNodes(), g.NumEdges(), want.NumNodes(), want.NumEdges())
		}
		for i := 0; i < g.NumNodes(); i++ {
			if g.Key(i) != want.Key(i) || !slicesEqual(g.Neighbors(i), want.Neighbors(i)) {
				t.Fatalf("node %d: key %s vs %s", i, g.Key(i), want.Key(i))
			}
			if k, _ := want.IntKey(i); sg.Keys[i] != keys.Int(k) {
				t.Fatalf("Keys[%d] = %v, want %d", i, sg.Keys[i], k)
			}
		}
		if sg.Stats.SelfLoops != 1 || sg.Stats.Parallel < 2 {
			t.Errorf("%+v: stats %+v", o, sg.Stats)
		}
		// Every node's labels, unless a node query does not return them.
		if o.Custom() && !strings.Contains(o.NodeQuery, "labels(n)") {
			if sg.LabelSet != nil {
				t.Errorf("%+v: labels %q without a column labels", o, sg.LabelSets)
			}
		} else if len(sg.LabelSets) != 1 || len(sg.LabelSet) != g.NumNodes() || !slices.Equal(sg.NodeLabels(g.NumNodes()-1), []string{"Book"}) {
			t.Errorf("%+v: labels %q", o, sg.LabelSets)
		}
	}
	// Without a key, internal ids identify the nodes (Shelf included when
	// no label is given, bookkeeping nodes never).
	run(t, "CREATE (:FondueLock {name: 'x'}), (:FondueRun {run_id: 'y'})", nil)
	sg, err := c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sg.Graph.NumNodes() != want.NumNodes()+1 || sg.Keys != nil || sg.Graph.NumEdges() != want.NumEdges()+1 {
		t.Fatalf("all nodes: %d nodes %d edges", sg.Graph.NumNodes(), sg.Graph.NumEdges())
	}
	for i, id := range sg.IDs {
		if id != keys.String(sg.Graph.Key(i)) {
			t.Fatalf("IDs[%d] = %v, key %s", i, id, sg.Graph.Key(i))
		}
	}
}

func slicesEqual(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPullStreamsThroughADroppedConnection(t *testing.T) {
	reset(t)
	want := loadEdgeList(t, "testdata/netscience.edges", "Author", "COAUTHOR", "id")
	c, _ := open(t)
	dropped := srv.Proxy().Stats().Dropped
	srv.Proxy().DropAfterBytes(4000) // mid-result: the read is retried
	sg, err := c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{NodeLabels: []string{"Author"}, IDProperty: "id"})
	if err != nil {
		t.Fatal(err)
	}
	if sg.Graph.NumNodes() != want.NumNodes() || sg.Graph.NumEdges() != want.NumEdges() || srv.Proxy().Stats().Dropped <= dropped {
		t.Fatalf("%d nodes %d edges after a drop (dropped %d)", sg.Graph.NumNodes(), sg.Graph.NumEdges(), srv.Proxy().Stats().Dropped)
	}
}

func TestWriteScoresIdempotent(t *testing.T) {
	reset(t)
	g := loadEdgeList(t, "testdata/polbooks.edges", "Book", "CO_PURCHASED", "uid")
	run(t, "CREATE (:Book {uid: 1000})", nil) // isolated: no score
	run(t, "MATCH (n:Book {uid: 1000}) SET n.ambiguity = 0.5, n.ambiguity_score = 3.0", nil)
	c, _ := open(t)
	sg, err := c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{NodeLabels: []string{"Book"}, IDProperty: "uid"})
	if err != nil {
		t.Fatal(err)
	}
	res := scoreGraph(t, sg.Graph, 3)
	if ref := scoreGraph(t, g, 3); !floatsEqual(ref.Scores, res.Scores[:len(ref.Scores)]) {
		t.Fatal("scores differ from the edge list's")
	}
	o := syncjob.WriteOptions{Property: "ambiguity", ScoreProperty: "ambiguity_score", RunProperty: "fondue_run", RunID: "run-1", BatchSize: 40, Concurrency: 2}
	for round := 0; round < 2; round++ {
		st, err := syncjob.WriteScores(ctxT(t, time.Minute), c, sg, res, o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Nodes != g.NumNodes()+1 || st.PropertiesWritten != 2*g.NumNodes() || st.Batches != 3 || st.Missing != 0 {
			t.Fatalf("round %d: %+v", round, st)
		}
		checkWritten(t, sg, res, "run-1")
	}
	// A node deleted since the pull is missing, not confused with another.
	run(t, "MATCH (n:Book {uid: 5}) DETACH DELETE n", nil)
	st, err := syncjob.WriteScores(ctxT(t, time.Minute), c, sg, res, o, nil)
	if err != nil || st.Missing != 1 {
		t.Fatalf("after a delete: %+v %v", st, err)
	}
}

func floatsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// checkWritten reads the scores back: exactly the result's values; no
// property on unscored nodes.
func checkWritten(t testing.TB, sg *syncjob.Subgraph, res *fondue.Result, runID string) {
	t.Helper()
	recs := run(t, "MATCH (n) WHERE NOT n:FondueLock AND NOT n:FondueRun RETURN elementId(n), n.ambiguity, n.ambiguity_score, n.fondue_run", nil)
	byID := map[any][]any{}
	for _, r := range recs {
		byID[r.Values[0]] = r.Values[1:]
	}
	for i, id := range sg.IDs {
		v, ok := byID[id.Value()]
		if !ok {
			t.Fatalf("node %v not found", id)
		}
		if math.IsNaN(res.Scores[i]) {
			if v[0] != nil || v[1] != nil {
				t.Fatalf("unscored node %v has %v", sg.Key(i), v)
			}
		} else if v[0] != res.Ambiguity[i] || v[1] != res.Scores[i] {
			t.Fatalf("node %v: read %v, want %v %v", sg.Key(i), v, res.Ambiguity[i], res.Scores[i])
		}
		if v[2] != runID {
			t.Fatalf("node %v: run %v", sg.Key(i), v[2])
		}
	}
}

func TestPullErrors(t *testing.T) {
	reset(t)
	run(t, "CREATE (a:`We``ird})` {uid: 1})-[:`RE``L})`]->(b:`We``ird})` {uid: 2}), (b)-[:`RE``L})`]->(c:`We``ird})` {uid: 3})", nil)
	run(t, "CREATE (:Float {uid: 1.5}), (:Mixed {uid: 1}), (:Mixed {uid: 'x'}), (:Dup {uid: 7}), (:Dup {uid: 7}), (:Missing {uid: 1}), (:Missing {name: 'no uid'}), (:Lonely {uid: 1})", nil)
	c, _ := open(t)
	// A label and a type with a backtick and "})" are escaped and work.
	sg, err := c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{NodeLabels: []string{"We`ird})"}, RelationshipTypes: []string{"RE`L})"}, IDProperty: "uid"})
	if err != nil || sg.Graph.NumNodes() != 3 || sg.Graph.NumEdges() != 2 {
		t.Fatalf("weird names: %v", err)
	}
	// Write labels: escaped too; with a Cypher projection, from its column
	// labels.
	weirdQ := syncjob.PullOptions{NodeQuery: "MATCH (n:`We``ird})`) RETURN elementId(n) AS id, n.uid AS key, labels(n) AS labels",
		RelationshipQuery: "MATCH (a:`We``ird})`)-->(b) RETURN elementId(a) AS source, elementId(b) AS target", IDProperty: "uid"}
	for _, o := range []syncjob.PullOptions{
		{NodeLabels: []string{"We`ird})"}, RelationshipTypes: []string{"RE`L})"}, IDProperty: "uid", WriteNodeLabels: []string{"We`ird})"}},
		{NodeQuery: weirdQ.NodeQuery, RelationshipQuery: weirdQ.RelationshipQuery, IDProperty: "uid", WriteNodeLabels: []string{"We`ird})"}},
	} {
		sg, err := c.Pull(ctxT(t, time.Minute), o)
		if err != nil {
			t.Fatalf("write labels %+v: %v", o, err)
		}
		targets := 0
		for i := range sg.Graph.NumNodes() {
			if sg.IsTarget(i) {
				targets++
			}
		}
		if sg.Targets == nil || targets != 3 || sg.Graph.NumNodes() != 3 {
			t.Fatalf("write labels %+v: %d of %d nodes are targets (%v)", o, targets, sg.Graph.NumNodes(), sg.Targets)
		}
	}
	noLabels := weirdQ
	noLabels.NodeQuery = strings.Replace(noLabels.NodeQuery, ", labels(n) AS labels", "", 1)
	noLabels.WriteNodeLabels = []string{"We`ird})"}
	notPulled := weirdQ
	notPulled.WriteNodeLabels = []string{"Lonely"}
	unknown := weirdQ
	unknown.WriteNodeLabels = []string{"Persn"}
	cases := []struct {
		o    syncjob.PullOptions
		kind error
		msg  string
	}{
		{syncjob.PullOptions{NodeLabels: []string{"Persn"}}, syncjob.ErrEmpty, `node label "Persn" does not exist`},
		{syncjob.PullOptions{NodeLabels: []string{"We`ird})"}, RelationshipTypes: []string{"KNOWS"}}, syncjob.ErrEmpty, `relationship type "KNOWS" does not exist`},
		{syncjob.PullOptions{NodeLabels: []string{"bad\x00label"}}, syncjob.ErrInvalid, "control character"},
		{syncjob.PullOptions{NodeLabels: []string{""}}, syncjob.ErrInvalid, "is empty"},
		{syncjob.PullOptions{NodeLabels: []string{"Float"}, IDProperty: "uid"}, syncjob.ErrInvalid, `key property "uid" of node elementId(n) = `},
		{syncjob.PullOptions{NodeLabels: []string{"Mixed"}, IDProperty: "uid"}, syncjob.ErrInvalid, "holds both ints"},
		{syncjob.PullOptions{NodeLabels: []string{"Dup"}, IDProperty: "uid"}, syncjob.ErrInvalid, "have the same uid = 7"},
		{syncjob.PullOptions{NodeLabels: []string{"Missing"}, IDProperty: "uid"}, syncjob.ErrInvalid, `has no key property "uid"`},
		{syncjob.PullOptions{NodeLabels: []string{"Lonely"}}, syncjob.ErrEmpty, "no relationships between two of them"},
		{syncjob.PullOptions{NodeQuery: "MATCH (n) RETURN elementId(n) AS id"}, syncjob.ErrInvalid, "set both or neither"},
		{syncjob.PullOptions{NodeQuery: "MATCH (n) RETURN elementId(n) AS id", RelationshipQuery: "RETURN 1", NodeLabels: []string{"A"}}, syncjob.ErrInvalid, "replace NodeLabels"},
		{syncjob.PullOptions{NodeQuery: "MATCH (n) RETURN elementId(n) AS node", RelationshipQuery: "RETURN 1 AS source, 2 AS target"}, syncjob.ErrInvalid, "the node query must return the column(s) id; it returns node"},
		{syncjob.PullOptions{NodeQuery: "MATCH (n) RETURN elementId(n) AS id", RelationshipQuery: "MATCH (a)-->(b) RETURN elementId(a) AS from, elementId(b) AS to"}, syncjob.ErrInvalid, "the relationship query must return the column(s) source, target; it returns from, to"},
		{syncjob.PullOptions{NodeQuery: "MATCH (n) RETURN n.name AS id", RelationshipQuery: "RETURN 1 AS source, 2 AS target"}, syncjob.ErrInvalid, "column id must hold a node's element id, as returned by elementId(n); row 1 has"},
		{syncjob.PullOptions{NodeQuery: "MATCH (n) RETURN elementId(n) AS id", RelationshipQuery: "MATCH (a)-->(b) RETURN 1 AS source, elementId(b) AS target"}, syncjob.ErrInvalid, `column source must hold a node's element id, as returned by elementId(n); row 1 has`},
		{syncjob.PullOptions{NodeQuery: "MATCH (n) RETURN elementId(n) AS id", RelationshipQuery: "MATCH (a)-->(b RETURN elementId(a) AS source"}, syncjob.ErrInvalid, "the relationship query failed: Invalid input"},
		{syncjob.PullOptions{NodeQuery: "MATCH (n) RETURN elementId(n) AS id, 1 AS labels", RelationshipQuery: "MATCH (a)-->(b) RETURN elementId(a) AS source, elementId(b) AS target"}, syncjob.ErrInvalid, "the node query: column labels must hold a node's labels, as returned by labels(n); node elementId(n) = "},
		{syncjob.PullOptions{NodeQuery: "MATCH (n) RETURN elementId(n) AS id", RelationshipQuery: "MATCH (a)-->(b) RETURN elementId(a) AS source, elementId(b) AS target", DisplayProperties: []string{"name", "bad\nname"}}, syncjob.ErrInvalid, "PullOptions.DisplayProperties: name \"bad\\nname\" contains the control character"},
		{syncjob.PullOptions{NodeQuery: "MATCH (n:Nope) RETURN elementId(n) AS id", RelationshipQuery: "MATCH (a:Nope)-->(b) RETURN elementId(a) AS source, elementId(b) AS target"}, syncjob.ErrEmpty, "the node query returned no nodes"},
		{syncjob.PullOptions{NodeLabels: []string{"We`ird})"}, WriteNodeLabels: []string{"Lonely"}}, syncjob.ErrInvalid, `PullOptions.WriteNodeLabels: label "Lonely" is not one of PullOptions.NodeLabels (We` + "`" + `ird}))`},
		{syncjob.PullOptions{WriteNodeLabels: []string{"Persn"}}, syncjob.ErrEmpty, `write node label "Persn" does not exist`},
		{syncjob.PullOptions{WriteNodeLabels: []string{"bad\nlabel"}}, syncjob.ErrInvalid, `PullOptions.WriteNodeLabels: name "bad\nlabel" contains the control character`},
		{unknown, syncjob.ErrEmpty, `write node label "Persn" does not exist`},
		{noLabels, syncjob.ErrInvalid, "the write node labels need the nodes' labels: the node query must also return labels(n) AS labels"},
		{notPulled, syncjob.ErrEmpty, `nothing to score: none of the 3 pulled nodes has the label "Lonely" (the write node labels)`},
		{syncjob.PullOptions{NodeLabels: []string{"We`ird})", "Lonely"}, WriteNodeLabels: []string{"Lonely"}}, syncjob.ErrEmpty, `none of the 1 pulled nodes with the label "Lonely" (the write node labels) has a relationship`},
	}
	for _, tc := range cases {
		_, err := c.Pull(ctxT(t, time.Minute), tc.o)
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v:\n got %v\nwant %v: ...%s...", tc.o, err, tc.kind, tc.msg)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	cases := []struct {
		cfg  Config
		kind error
		msg  string
	}{
		{Config{URI: "http://localhost:7474"}, syncjob.ErrInvalid, `scheme "http"`},
		{Config{URI: "localhost"}, syncjob.ErrInvalid, "not a URI like bolt://"},
		{Config{URI: srv.BoltURL(), User: neo4jtest.User, Password: srv.Password(), Database: "nope"}, syncjob.ErrInvalid, `database "nope" does not exist`},
		{Config{URI: srv.BoltURL(), User: neo4jtest.User, Password: "wrong-password"}, syncjob.ErrAuth, "authentication failed for user"},
		{Config{URI: srv.BoltURL()}, syncjob.ErrAuth, "requires authentication"},
	}
	for _, tc := range cases {
		_, err := Open(ctxT(t, time.Minute), tc.cfg)
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: %v", tc.cfg, err)
		}
	}
	// A closed port fails at once, not after the retry time.
	t0 := time.Now()
	_, err := Open(ctxT(t, time.Minute), Config{URI: "bolt://" + closedPort(t), MaxRetryTime: time.Minute})
	if !errors.Is(err, syncjob.ErrUnreachable) || !strings.Contains(err.Error(), "connection refused") || time.Since(t0) > 10*time.Second {
		t.Errorf("closed port: %v after %s", err, time.Since(t0))
	}
	// A server that went away during the work: ErrUnreachable after the
	// (short) retry time.
	reset(t)
	c, _ := open(t, func(c *Config) { c.MaxRetryTime = 2 * time.Second })
	srv.Proxy().Refuse()
	defer srv.Proxy().Restore()
	t0 = time.Now()
	_, err = c.Pull(ctxT(t, time.Minute), syncjob.PullOptions{})
	if !errors.Is(err, syncjob.ErrUnreachable) || time.Since(t0) > 30*time.Second {
		t.Errorf("refused: %v after %s", err, time.Since(t0))
	}
}

// A native pull reads the relationships of ReadConcurrency parts of the
// start nodes at once (by the last character of their keys, else of their
// element ids): whatever the number of parts, every node is in exactly one,
// and the subgraph is the same, with integer keys, string keys and element
// ids, split clones without a key, relationships to unselected nodes and
// to clones (dangling), and the same counts.
func TestPullPartsMatch(t *testing.T) {
	reset(t)
	loadEdgeList(t, "testdata/polbooks.edges", "Book", "CO_PURCHASED", "id")
	run(t, "MATCH (b:Book) SET b.sid = 'book-' + toString(b.id) + CASE b.id % 3 WHEN 0 THEN 'é' WHEN 1 THEN '😀' ELSE '' END", nil)
	run(t, "MATCH (a:Book {id: 3}), (b:Book {id: 5}) CREATE (a)-[:CO_PURCHASED]->(:Book:FondueSplit {fondue_split_key: 'x'})-[:CO_PURCHASED]->(b), (a)-[:CO_PURCHASED]->(:Shelf {id: 1})", nil)
	for _, o := range []syncjob.PullOptions{
		{NodeLabels: []string{"Book"}, RelationshipTypes: []string{"CO_PURCHASED"}, IDProperty: "id"},
		{NodeLabels: []string{"Book"}, RelationshipTypes: []string{"CO_PURCHASED"}, IDProperty: "sid"},
		{NodeLabels: []string{"Book", "Shelf"}},
		{},
	} {
		var ref *syncjob.Subgraph
		for _, parts := range []int{1, 2, 3, 7, 200} {
			c, _ := open(t, func(c *Config) { c.ReadConcurrency = parts })
			sg, err := c.Pull(ctxT(t, time.Minute), o)
			if err != nil {
				t.Fatalf("%+v, %d parts: %v", o, parts, err)
			}
			if ref == nil {
				ref = sg
				if o.IDProperty != "" && (sg.Stats.KeylessClones != 1 || sg.Stats.Dangling < 2) {
					t.Errorf("%+v: stats %+v, want the clone left out and the relationships to it and to the shelf dangling", o, sg.Stats)
				}
				continue
			}
			g, h := sg.Graph, ref.Graph
			st, rst := sg.Stats, ref.Stats
			st.Duration, rst.Duration = 0, 0
			if g.NumNodes() != h.NumNodes() || g.NumEdges() != h.NumEdges() || st != rst {
				t.Fatalf("%+v, %d parts: %d nodes %d edges %+v; 1 part: %d %d %+v", o, parts, g.NumNodes(), g.NumEdges(), st, h.NumNodes(), h.NumEdges(), rst)
			}
			for i := range g.NumNodes() {
				if g.Key(i) != h.Key(i) || sg.IDs[i] != ref.IDs[i] || !slices.Equal(g.Neighbors(i), h.Neighbors(i)) {
					t.Fatalf("%+v, %d parts: node %d differs", o, parts, i)
				}
			}
		}
	}
}
