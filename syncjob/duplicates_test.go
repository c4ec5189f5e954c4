package syncjob_test

import (
	"errors"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/dedup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/storetest"
)

// A run with Duplicates guards its memory with the duplicates command's
// estimate (dedup.Predict) of the graph pulled: 111 nodes (30 authors, 76
// papers, 5 venues), the 30 authors compared, no embedding, the pulled
// context held; memstore holds nothing of its own. The summary carries the figure the guard
// checked; a limit one byte below it refuses the run before anything is
// written, the figure itself lets it run.
func TestSyncDuplicatesMemory(t *testing.T) {
	fx := storetest.Memory(t, storetest.Authors())
	st := fx.Store()
	sg, err := st.Pull(ctxT(t), storetest.DuplicatesPull)
	if err != nil {
		t.Fatal(err)
	}
	g := sg.Graph
	find := dedup.Options{Seed: 1, Workers: 2}
	// The pulled context's kinds and values are held (memory.HeldByContext).
	held := memory.HeldByContext(g, fondue.Options{Targets: sg.Targets, Context: sg.Context})
	want := dedup.Predict(111, int64(g.NumEdges()), 30, find, memory.Options{StringKeys: !g.IntKeys(), MaxDegree: int64(g.MaxDegree()), Held: held})
	if g.NumNodes() != 111 || want.Peak <= 0 {
		t.Fatalf("%d nodes pulled, estimate %d", g.NumNodes(), want.Peak)
	}
	// with an embedding it would be another figure: the guard must not use it
	if scoring := memory.Predict(111, int64(g.NumEdges()), memory.Options{Workers: 2, MaxDegree: int64(g.MaxDegree())}); scoring.Peak == want.Peak {
		t.Fatalf("the scoring estimate equals the duplicates one (%d): the test cannot tell them apart", want.Peak)
	}

	var seen int64
	o := syncjob.Options{RunID: "dup-mem-1", Pull: storetest.DuplicatesPull,
		Memory:     syncjob.MemoryGuard{Limit: want.Least - 1, Estimated: func(e memory.Estimate, _ int64) { seen = e.Peak }},
		Duplicates: &syncjob.DuplicateOptions{Find: find}}
	d0 := fx.Dump(t)
	_, err = syncjob.Sync(ctxT(t), st, o)
	if !errors.Is(err, syncjob.ErrMemory) || seen != want.Peak {
		t.Fatalf("limit %d: %v, estimate %d; want ErrMemory and the estimate %d", want.Least-1, err, seen, want.Peak)
	}
	if fx.Dump(t) != d0 {
		t.Fatal("the run refused for its memory wrote")
	}

	o.RunID, o.Memory.Limit = "dup-mem-2", want.Least
	sum, err := syncjob.Sync(ctxT(t), st, o)
	if err != nil {
		t.Fatalf("limit %d, the estimate's least: %v", want.Least, err)
	}
	if d := sum.Duplicates; d == nil || d.MemoryEstimate != want.Peak || d.RelationshipsWritten == 0 {
		t.Fatalf("summary %+v; want the memory estimate %d and pairs written", d, want.Peak)
	}
}
