package neo4jtest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestImportGeneratedGraph bulk-imports a generated graph
// (testgraph.Generated, with keys that have gaps as after a contraction)
// into the suite's server with neo4j-admin database import full: what was in
// the database is gone, every node is there once with its key as an
// INTEGER property, every edge is one relationship between the right keys,
// and the server answers through the same BoltURL with the same password.
// A failed import says why and leaves the server running.
func TestImportGeneratedGraph(t *testing.T) {
	resetDB(t)
	ctx := ctxT(t, 10*time.Minute)
	g0, err := testgraph.Generated()
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, g0.NumNodes())
	for i := range keys {
		keys[i] = strconv.Itoa(3*i + 1)
	}
	g, err := g0.WithKeys(keys)
	if err != nil {
		t.Fatal(err)
	}
	nodes, rels, err := testgraph.WriteCSV(g, t.TempDir(), "uid")
	if err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, srv)
	run := func(q string) []*neo4j.Record {
		t.Helper()
		res, err := neo4j.ExecuteQuery(ctx, d, q, nil, neo4j.EagerResultTransformer)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return res.Records
	}
	run("CREATE (:Before {uid: -1})")
	url := srv.BoltURL()
	st, err := srv.Import(ctx, ImportOptions{Nodes: []string{"Node=" + nodes}, Relationships: []string{"LINK=" + rels}, IDType: "integer", Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("imported %d nodes and %d edges in %s", g.NumNodes(), g.NumEdges(), st.Duration.Round(time.Millisecond))
	// The old driver's bookmarks name transactions of the database the
	// import replaced: a new driver.
	d = newDriver(t, srv)
	if srv.BoltURL() != url {
		t.Fatalf("BoltURL %s after the import, want %s", srv.BoltURL(), url)
	}
	if n := count(t, "(n)", nil); n != int64(g.NumNodes()) {
		t.Fatalf("%d nodes after the import, want %d (the node created before must be gone)", n, g.NumNodes())
	}
	if n := count(t, "(n:Node)", nil); n != int64(g.NumNodes()) {
		t.Fatalf("%d :Node nodes, want %d", n, g.NumNodes())
	}
	var want []int64
	for i := range g.NumNodes() {
		k, _ := g.IntKey(i)
		want = append(want, k)
	}
	var got []int64
	for _, r := range run("MATCH (n:Node) RETURN n.uid AS uid ORDER BY uid") {
		k, ok := r.Values[0].(int64)
		if !ok {
			t.Fatalf("uid %v (%T): want an INTEGER", r.Values[0], r.Values[0])
		}
		got = append(got, k)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("keys after the import differ from the graph's (%d against %d)", len(got), len(want))
	}
	var wantEdges, gotEdges []string
	for i := range g.NumNodes() {
		for _, j := range g.Neighbors(i) {
			if int(j) > i {
				a, _ := g.IntKey(i)
				b, _ := g.IntKey(int(j))
				wantEdges = append(wantEdges, fmt.Sprintf("%d-%d", a, b))
			}
		}
	}
	for _, r := range run("MATCH (a)-[r]->(b) RETURN a.uid, type(r), b.uid") {
		if r.Values[1] != "LINK" {
			t.Fatalf("relationship of type %v", r.Values[1])
		}
		gotEdges = append(gotEdges, fmt.Sprintf("%d-%d", r.Values[0], r.Values[2]))
	}
	slices.Sort(wantEdges)
	slices.Sort(gotEdges)
	if len(wantEdges) != g.NumEdges() || !slices.Equal(gotEdges, wantEdges) {
		t.Fatalf("%d relationships after the import, want the graph's %d edges, each once", len(gotEdges), len(wantEdges))
	}

	// A missing file: the tool's message, and the server is back (on an
	// empty default database).
	missing := filepath.Join(t.TempDir(), "missing.csv")
	_, err = srv.Import(ctx, ImportOptions{Nodes: []string{"Node=" + missing}, IDType: "integer"})
	if err == nil || !strings.Contains(err.Error(), "import full failed") || !strings.Contains(err.Error(), "missing.csv") {
		t.Fatalf("an import of a missing file: %v", err)
	}
	if n := count(t, "(n)", nil); n != 0 {
		t.Fatalf("%d nodes after a failed import, want an empty database", n)
	}
}
