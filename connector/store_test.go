package connector

import (
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/storetest"
)

func esc(t *testing.T, name string) string {
	t.Helper()
	q, err := cypher.Escape(name)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// neo4jFixture is the test server, emptied and seeded, as a storetest
// fixture.
type neo4jFixture struct{ c *Conn }

func seedNeo4j(t *testing.T, g storetest.Graph) storetest.Fixture {
	reset(t)
	for _, n := range g.Nodes {
		labels := ""
		for _, l := range n.Labels {
			labels += ":" + esc(t, l)
		}
		run(t, "CREATE (n"+labels+") SET n = $props", map[string]any{"props": n.Props})
	}
	for _, r := range g.Rels {
		props := r.Props
		if props == nil {
			props = map[string]any{}
		}
		run(t, "MATCH (a {uid: $a}), (b {uid: $b}) CREATE (a)-[r:"+esc(t, r.Type)+"]->(b) SET r = $props",
			map[string]any{"a": r.From, "b": r.To, "props": props})
	}
	c, _ := open(t)
	return neo4jFixture{c}
}

func (f neo4jFixture) Store() syncjob.Store     { return f.c }
func (f neo4jFixture) Dump(t *testing.T) string { return dump(t) }
func (f neo4jFixture) Delete(t *testing.T, u int64) {
	run(t, "MATCH (n {uid: $u}) DETACH DELETE n", map[string]any{"u": u})
}
func (f neo4jFixture) Relate(t *testing.T, a, b int64, typ string) {
	run(t, "MATCH (a {uid: $a}), (b {uid: $b}) CREATE (a)-[:"+esc(t, typ)+"]->(b)", map[string]any{"a": a, "b": b})
}
func (f neo4jFixture) StealLock(t *testing.T, name string) {
	run(t, "MATCH (l:FondueLock {name: $name}) SET l.owner = 'thief', l.run = 'thief'", map[string]any{"name": name})
}
func (f neo4jFixture) Props(t *testing.T, uid int64) map[string]any {
	r := run(t, "MATCH (n {uid: $u}) RETURN properties(n)", map[string]any{"u": uid})
	if len(r) != 1 {
		t.Fatalf("%d nodes with uid %d", len(r), uid)
	}
	return r[0].Values[0].(map[string]any)
}

// The Neo4j store passes the suite that the in-memory store passes.
func TestStoreConformance(t *testing.T) {
	t0 := time.Now()
	storetest.Run(t, seedNeo4j)
	t.Logf("conformance suite on %s: %s", srv.Version(), time.Since(t0).Round(time.Millisecond))
}
