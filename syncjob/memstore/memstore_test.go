package memstore_test

import (
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/memstore"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/storetest"
)

// fixture is a memstore seeded with a storetest graph.
type fixture struct {
	s   *memstore.Store
	ids map[int64]string // uid -> node id
}

// Seeded returns a memstore holding g, and the storetest fixture around it.
func seeded(t *testing.T, g storetest.Graph) storetest.Fixture {
	fx := &fixture{s: memstore.New(), ids: map[int64]string{}}
	for _, n := range g.Nodes {
		fx.ids[n.Props["uid"].(int64)] = fx.s.AddNode(n.Labels, n.Props)
	}
	for _, r := range g.Rels {
		fx.s.AddRel(fx.ids[r.From], fx.ids[r.To], r.Type, r.Props)
	}
	return fx
}

func (f *fixture) Store() syncjob.Store         { return f.s }
func (f *fixture) Dump(t *testing.T) string     { return f.s.Dump("uid") }
func (f *fixture) Delete(t *testing.T, u int64) { f.s.DeleteNode(f.ids[u]) }
func (f *fixture) StealLock(t *testing.T, name string) {
	f.s.Steal(name)
}
func (f *fixture) Relate(t *testing.T, a, b int64, typ string) {
	f.s.AddRel(f.ids[a], f.ids[b], typ, nil)
}
func (f *fixture) Props(t *testing.T, uid int64) map[string]any {
	for _, n := range f.s.Nodes() {
		if n.ID == f.ids[uid] {
			return n.Props
		}
	}
	for _, n := range f.s.Nodes() { // a split clone with a key
		if n.Props["uid"] == uid {
			return n.Props
		}
	}
	return nil
}

func TestConformance(t *testing.T) { storetest.Run(t, seeded) }
