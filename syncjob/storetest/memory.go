package storetest

import (
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/memstore"
)

// Memory is a Factory of in-memory stores (package memstore).
func Memory(t *testing.T, g Graph) Fixture {
	fx := &memFixture{s: memstore.New(), ids: map[int64]string{}}
	for _, n := range g.Nodes {
		fx.ids[n.Props["uid"].(int64)] = fx.s.AddNode(n.Labels, n.Props)
	}
	for _, r := range g.Rels {
		fx.s.AddRel(fx.ids[r.From], fx.ids[r.To], r.Type, r.Props)
	}
	return fx
}

// memFixture is a memstore seeded with a graph.
type memFixture struct {
	s   *memstore.Store
	ids map[int64]string // uid -> node id
}

func (f *memFixture) Store() syncjob.Store                { return f.s }
func (f *memFixture) Dump(t *testing.T) string            { return f.s.Dump("uid") }
func (f *memFixture) Delete(t *testing.T, u int64)        { f.s.DeleteNode(f.ids[u]) }
func (f *memFixture) StealLock(t *testing.T, name string) { f.s.Steal(name) }
func (f *memFixture) Relate(t *testing.T, a, b int64, typ string) {
	f.s.AddRel(f.ids[a], f.ids[b], typ, nil)
}
func (f *memFixture) Props(t *testing.T, uid int64) map[string]any {
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
