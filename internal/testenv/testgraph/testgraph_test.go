package testgraph

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

var srv *neo4jtest.Server

func TestMain(m *testing.M) {
	neo4jtest.Main(m, neo4jtest.Options{}, func(s *neo4jtest.Server) { srv = s })
}

func setup(t *testing.T) (context.Context, neo4j.DriverWithContext) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	if err := srv.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := srv.Driver()
	if err != nil {
		t.Fatal(err)
	}
	return ctx, d
}

func TestDiff(t *testing.T) {
	if d := Diff("a\nb\nc", "a\nc\nd"); d != "- b\n+ d" {
		t.Fatalf("Diff: %q", d)
	}
	if d := Diff("a\nb", "a\nb"); d != "" {
		t.Fatalf("Diff of equal dumps: %q", d)
	}
}

// Load, then Dump: one line per node and relationship, named by uid, with
// the graph's edges; a clone names its original; a second load of the
// same graph (other element ids) dumps the same.
func TestLoadDump(t *testing.T) {
	g, _, err := edgelist.ReadFile("../../../connector/testdata/polbooks.edges", edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	ctx, d := setup(t)
	if err := Load(ctx, d, g, "Book", "CO_PURCHASED", "uid"); err != nil {
		t.Fatal(err)
	}
	// The index Load creates, and the data.
	recs, err := Run(ctx, d, "SHOW INDEXES YIELD labelsOrTypes, properties WHERE labelsOrTypes = ['Book'] RETURN properties", nil)
	if err != nil || len(recs) != 1 {
		t.Fatalf("index on :Book: %v, %v", recs, err)
	}
	recs, err = Run(ctx, d, "MATCH (a:Book {uid: $a})-[:CO_PURCHASED]->(b:Book) RETURN collect(b.uid) AS n", map[string]any{"a": int64(0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("uid 0 -> %v", recs[0].Values[0])
	// A clone of uid 0, as a split makes it, and the lock and run nodes
	// (left out of dumps).
	if _, err := Run(ctx, d, `MATCH (o:Book {uid: 0}) CREATE (o)-[:CO_PURCHASED]->(:Book:FondueSplit {fondue_split_key: 'r:0:1', fondue_split_from_id: elementId(o)}),
		(:FondueLock {name: 'x'}), (:FondueRun {run_id: 'r'})`, nil); err != nil {
		t.Fatal(err)
	}
	first, err := Dump(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(first, "\n")
	if len(lines) != g.NumNodes()+g.NumEdges()+2 {
		t.Fatalf("%d lines for %d nodes and %d edges plus a clone and its relationship", len(lines), g.NumNodes(), g.NumEdges())
	}
	has := map[string]bool{}
	for _, l := range lines {
		has[l] = true
	}
	for _, want := range []string{
		`N uid:0 ["Book"] {"uid":0}`,
		`N clone:r:0:1 ["Book" "FondueSplit"] {"fondue_split_from_id":"uid:0","fondue_split_key":"r:0:1"}`,
		`R uid:0 -["CO_PURCHASED" {}]-> clone:r:0:1`,
	} {
		if !has[want] {
			t.Errorf("no line %s in\n%s", want, first)
		}
	}
	if strings.Contains(first, "Fondue"+"Lock") || strings.Contains(first, "eid:") {
		t.Errorf("lock or unnamed nodes in the dump")
	}
	i0, _ := g.Index("0")
	for _, e := range g.Neighbors(i0) {
		k, _ := g.IntKey(int(e))
		a, b := int64(0), k
		if k < 0 {
			a, b = k, 0
		}
		if line := fmt.Sprintf(`R uid:%d -["CO_PURCHASED" {}]-> uid:%d`, a, b); !has[line] {
			t.Errorf("no line %s", line)
		}
	}

	// Again, from scratch, with the clone made the other way round: same
	// dump whatever the element ids.
	ctx, d = setup(t)
	if _, err := Run(ctx, d, "CREATE (:Padding), (:Padding)", nil); err != nil {
		t.Fatal(err)
	}
	if err := Load(ctx, d, g, "Book", "CO_PURCHASED", "uid"); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, d, "MATCH (p:Padding) DELETE p", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, d, `MATCH (o:Book {uid: 0})
		CREATE (o)-[:CO_PURCHASED]->(:Book:FondueSplit {fondue_split_key: 'r:0:1', fondue_split_from_id: elementId(o)})`, nil); err != nil {
		t.Fatal(err)
	}
	second, err := Dump(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if second != first {
		t.Fatalf("two loads of the same graph dump differently:\n%s", Diff(first, second))
	}
}

// The generated graph: the size and shape the bench's generator gave it
// (bench's TestGeneratedFixture checks it edge by edge).
func TestGenerated(t *testing.T) {
	g, err := Generated()
	if err != nil {
		t.Fatal(err)
	}
	if g.NumNodes() != 20000 || g.NumEdges() != 100000 || g.MaxDegree() != 766 {
		t.Fatalf("got %d nodes, %d edges, max degree %d; want 20000, 100000, 766", g.NumNodes(), g.NumEdges(), g.MaxDegree())
	}
	if k, ok := g.IntKey(19999); !ok || k != 19999 {
		t.Fatalf("node 19999: got key %d (integer %v), want 19999", k, ok)
	}
}
