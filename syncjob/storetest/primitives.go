package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

// byUID finds the nodes with these uids (any label), by uid.
func byUID(t *testing.T, st syncjob.Store, uids ...int64) map[int64]syncjob.Node {
	t.Helper()
	vals := make([]any, len(uids))
	for k, u := range uids {
		vals[k] = u
	}
	out := map[int64]syncjob.Node{}
	err := st.Read(Ctx(t), func(tx syncjob.Tx) error {
		nodes, err := tx.Find(syncjob.Filter{Prop: "uid", Values: vals})
		for _, n := range nodes {
			out[n.Props["uid"].(int64)] = n
		}
		return err
	})
	if err != nil || len(out) != len(uids) {
		t.Fatalf("find uids %v: %d found, %v", uids, len(out), err)
	}
	return out
}

// relsOf describes the relationships of node id: "TYPE>uid" (outgoing)
// or "TYPE<uid", sorted.
func relsOf(t *testing.T, st syncjob.Store, id keys.Key) []string {
	t.Helper()
	var out []string
	err := st.Read(Ctx(t), func(tx syncjob.Tx) error {
		out = nil
		rels, err := tx.Rels([]keys.Key{id}, []string{"uid"})
		for _, r := range rels {
			dir := "<"
			if r.Outgoing {
				dir = ">"
			}
			out = append(out, fmt.Sprintf("%s%s%v", r.Type, dir, r.OtherProps["uid"]))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// The graph's primitives: what Find, Nodes and Rels read; Create, Move,
// Set and Delete in one transaction; a failed transaction writes nothing;
// a moved self-loop keeps both ends unless OneEnd.
func testTx(t *testing.T, f Factory) {
	fx := f(t, Seed())
	st := fx.Store()
	ctx := Ctx(t)
	// Find compares numbers as Cypher does (1.0 = 1), by labels.
	var found []int64
	err := st.Read(ctx, func(tx syncjob.Tx) error {
		found = nil
		nodes, err := tx.Find(syncjob.Filter{Labels: []string{"Person"}, Prop: "uid", Values: []any{int64(100), 1.0, int64(300)}})
		for _, n := range nodes {
			found = append(found, n.Props["uid"].(int64))
		}
		return err
	})
	if slices.Sort(found); err != nil || !slices.Equal(found, []int64{1, 100}) {
		t.Fatalf("find: %v %v", found, err)
	}
	n := byUID(t, st, 1, 100, 300)
	if got := relsOf(t, st, n[300].ID); !slices.Equal(got, []string{"KNOWS>100"}) {
		t.Fatalf("relationships of 300: %v", got)
	}
	var clone keys.Key
	err = st.Write(ctx, "testing", func(tx syncjob.Tx) error {
		ids, err := tx.Create(n[1].ID, []string{"name"}, []string{"Person", "Copy"}, []map[string]any{{"uid": int64(1001), "note": "a"}})
		if err != nil || len(ids) != 1 {
			return fmt.Errorf("create: %v %v", ids, err)
		}
		clone = ids[0]
		rels, err := tx.Rels([]keys.Key{n[300].ID}, nil)
		if err != nil || len(rels) != 1 {
			return fmt.Errorf("rels: %v %v", rels, err)
		}
		if moved, err := tx.Move([]syncjob.Move{{Rel: rels[0].Rel, From: n[300].ID, To: clone}}); err != nil || len(moved) != 1 {
			return fmt.Errorf("move: %v %v", moved, err)
		}
		return tx.Set(n[100].ID, map[string]any{"name": nil, "seen": true})
	})
	if err != nil {
		t.Fatal(err)
	}
	c := byUID(t, st, 1001)[1001]
	if !slices.Equal(c.Labels, []string{"Person", "Copy"}) && !slices.Equal(c.Labels, []string{"Copy", "Person"}) || len(c.Props) != 2 || c.Props["note"] != "a" {
		t.Fatalf("created %v", c)
	}
	if p := fx.Props(t, 100); p["name"] != nil || p["seen"] != true {
		t.Fatalf("set: %v", p)
	}
	if got := relsOf(t, st, clone); !slices.Equal(got, []string{"KNOWS>100"}) {
		t.Fatalf("moved to the new node: %v", got)
	}
	// A transaction that fails writes nothing; a relationship not where
	// Move says is ErrChanged.
	before := fx.Dump(t)
	err = st.Write(ctx, "testing", func(tx syncjob.Tx) error {
		if err := tx.Set(n[300].ID, map[string]any{"x": int64(1)}); err != nil {
			return err
		}
		rels, err := tx.Rels([]keys.Key{clone}, nil)
		if err != nil {
			return err
		}
		_, err = tx.Move([]syncjob.Move{{Rel: rels[0].Rel, From: n[300].ID, To: n[1].ID}})
		return err
	})
	if !errors.Is(err, syncjob.ErrChanged) || fx.Dump(t) != before {
		t.Fatalf("a failed transaction: %v\n%s", err, fx.Dump(t))
	}
	// Self-loops: both ends move, or (OneEnd) the start only.
	fx.Relate(t, 300, 300, "LOOP")
	fx.Relate(t, 300, 300, "SELF")
	err = st.Write(ctx, "testing", func(tx syncjob.Tx) error {
		rels, err := tx.Rels([]keys.Key{n[300].ID}, nil)
		if err != nil || len(rels) != 2 {
			return fmt.Errorf("self-loops listed %d times: %v", len(rels), err)
		}
		var ms []syncjob.Move
		for _, r := range rels {
			if !r.Outgoing || r.Other != n[300].ID {
				return fmt.Errorf("a self-loop: %+v", r)
			}
			ms = append(ms, syncjob.Move{Rel: r.Rel, From: n[300].ID, To: clone, OneEnd: r.Type == "SELF"})
		}
		_, err = tx.Move(ms)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := relsOf(t, st, clone); !slices.Equal(got, []string{"KNOWS>100", "LOOP>1001", "SELF>300"}) {
		t.Fatalf("self-loops moved: %v", got)
	}
	// Delete refuses a node with relationships, and deletes one without.
	err = st.Write(ctx, "testing", func(tx syncjob.Tx) error { return tx.Delete([]keys.Key{clone}) })
	if err == nil || errors.Is(err, syncjob.ErrChanged) {
		t.Fatalf("deleted a node with relationships: %v", err)
	}
	fx.Delete(t, 300)
	err = st.Write(ctx, "testing", func(tx syncjob.Tx) error {
		rels, err := tx.Rels([]keys.Key{clone}, nil)
		if err != nil {
			return err
		}
		var ms []syncjob.Move
		for _, r := range rels {
			ms = append(ms, syncjob.Move{Rel: r.Rel, From: clone, To: n[1].ID})
		}
		if _, err := tx.Move(ms); err != nil {
			return err
		}
		return tx.Delete([]keys.Key{clone})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Read(ctx, func(tx syncjob.Tx) error {
		nodes, err := tx.Nodes([]keys.Key{clone, n[300].ID, n[1].ID})
		if err == nil && (!nodes[0].ID.IsZero() || !nodes[1].ID.IsZero() || nodes[2].ID != n[1].ID) {
			err = fmt.Errorf("nodes after the deletes: %v", nodes)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := relsOf(t, st, n[1].ID); !slices.Contains(got, "LOOP>1") || !slices.Contains(got, "KNOWS>100") {
		t.Fatalf("relationships of 1: %v", got)
	}
}

// Records: the first record of a run wins; Records lists them without
// their plans, with when they were made and whether they are unfinished
// (until FinishRecord); the decisions are cleared by run, the records
// kept.
func testRecords(t *testing.T, f Factory) {
	st := f(t, Seed()).Store()
	ctx := Ctx(t)
	if err := st.Unique(ctx, syncjob.RunLabel, "run_id"); err != nil {
		t.Fatal(err)
	}
	for _, r := range []syncjob.Record{
		{RunID: "b", Plan: []byte(`{"runId":"b"}`), CreatedAt: "2025-01-02T03:04:05.000Z", Decisions: []byte(`[1]`), Unfinished: true},
		{RunID: "a", Plan: []byte(`{"runId":"a"}`), CreatedAt: "2025-01-01T03:04:05.000Z", Approved: "sha256:00", ReviewedAt: "2025-01-01T04:00:00.000Z", Decisions: []byte(`[2]`)},
	} {
		if other, err := st.AddRecord(ctx, r); err != nil || other != nil {
			t.Fatalf("add %s: %v %v", r.RunID, other, err)
		}
	}
	if other, err := st.AddRecord(ctx, syncjob.Record{RunID: "b", Plan: []byte(`{"runId":"b"}`)}); err != nil || other != nil {
		t.Fatalf("the same plan again: %v %v", other, err)
	}
	other, err := st.AddRecord(ctx, syncjob.Record{RunID: "b", Plan: []byte(`{"runId":"b2"}`)})
	if err != nil || other == nil || string(other.Plan) != `{"runId":"b"}` {
		t.Fatalf("another plan: %v %v", other, err)
	}
	if r, err := st.Record(ctx, "a"); err != nil || r == nil || string(r.Plan) != `{"runId":"a"}` {
		t.Fatalf("record a: %v %v", r, err)
	}
	if r, err := st.Record(ctx, "c"); err != nil || r != nil {
		t.Fatalf("record c: %v %v", r, err)
	}
	list := func() string {
		rs, err := st.Records(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, r := range rs {
			fmt.Fprintf(&b, "%s:%s:%d:%s:%v ", r.RunID, r.Decisions, len(r.Plan), r.CreatedAt[:10], r.Unfinished)
		}
		return b.String()
	}
	if got := list(); got != "a:[2]:0:2025-01-01:false b:[1]:0:2025-01-02:true " {
		t.Fatalf("records: %q", got)
	}
	if err := st.ClearDecisions(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"b", "c"} { // c has no record: nothing to do
		if err := st.FinishRecord(ctx, run); err != nil {
			t.Fatal(err)
		}
	}
	if got := list(); got != "a:[2]:0:2025-01-01:false b::0:2025-01-02:false " {
		t.Fatalf("decisions of b cleared, b finished: %q", got)
	}
	if err := st.ClearDecisions(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteRecord(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got := list(); got != "b::0:2025-01-02:false " {
		t.Fatalf("a deleted, every decision cleared: %q", got)
	}
}

// The primitives suffice for a merge and its exact undo (the design in
// syncjob's package doc): node B's relationships move to A, B's
// properties go to a copy that the store makes itself (Create from B:
// dates, points and lists keep their types), B is deleted; the undo
// creates B again from the copy with B's labels and moves the
// relationships back, a relationship between A and B by one end
// (OneEnd, or an incoming move). The graph is then as before.
func testMergeByPrimitives(t *testing.T, f Factory) {
	g := Seed()
	for k := range g.Nodes {
		if g.Nodes[k].Props["uid"] == int64(3) {
			g.Nodes[k].Props["born"] = dbtype.Date(time.Date(1802, 2, 26, 0, 0, 0, 0, time.UTC))
			g.Nodes[k].Props["home"] = dbtype.Point2D{X: 2.35, Y: 48.85, SpatialRefId: 4326}
			g.Nodes[k].Props["tags"] = []any{int64(1), int64(2)}
			g.Nodes[k].Props["weight"] = 1.0
		}
	}
	g.Rels = append(g.Rels, Rel{From: 3, To: 3, Type: "SELF"}, Rel{From: 1, To: 3, Type: "LIKES", Props: map[string]any{"w": 0.5}})
	fx := f(t, g)
	st := fx.Store()
	ctx := Ctx(t)
	before := fx.Dump(t)
	n := byUID(t, st, 1, 3)
	a, b := n[1].ID, n[3].ID
	// What the run's record would keep (as JSON: ids, types and
	// directions; no property value).
	type moved struct {
		id       string
		typ      string
		outgoing bool // from B's side
		other    keys.Key
	}
	var rec []moved
	var copyID keys.Key
	err := st.Write(ctx, "merging 3 into 1", func(tx syncjob.Tx) error {
		nodes, err := tx.Nodes([]keys.Key{b})
		if err != nil {
			return err
		}
		labels := make([]any, len(nodes[0].Labels))
		for k, l := range nodes[0].Labels {
			labels[k] = l
		}
		ids, err := tx.Create(b, nil, []string{"FondueMerged"}, []map[string]any{{"fondue_merge_labels": labels}})
		if err != nil {
			return err
		}
		copyID = ids[0]
		rels, err := tx.Rels([]keys.Key{b}, nil)
		if err != nil {
			return err
		}
		ms := make([]syncjob.Move, len(rels))
		for k, r := range rels {
			ms[k] = syncjob.Move{Rel: r.Rel, From: b, To: a}
		}
		got, err := tx.Move(ms)
		if err != nil {
			return err
		}
		for k, r := range rels {
			rec = append(rec, moved{got[k], r.Type, r.Outgoing, r.Other})
		}
		return tx.Delete([]keys.Key{b})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := relsOf(t, st, a); !slices.Contains(got, "SELF>1") || !slices.Contains(got, "LIKES>1") {
		t.Fatalf("merged: %v", got)
	}
	err = st.Write(ctx, "restoring 3", func(tx syncjob.Tx) error {
		nodes, err := tx.Nodes([]keys.Key{copyID})
		if err != nil {
			return err
		}
		var labels []string
		for _, l := range nodes[0].Props["fondue_merge_labels"].([]any) {
			labels = append(labels, l.(string))
		}
		ids, err := tx.Create(copyID, []string{"fondue_merge_labels"}, labels, []map[string]any{{}})
		if err != nil {
			return err
		}
		b2 := ids[0]
		var ms []syncjob.Move
		for _, m := range rec {
			r := splitplan.Rel{ID: m.id, Type: m.typ, Outgoing: m.outgoing, Other: m.other}
			switch {
			case m.other == b: // B's self-loop: both ends go back
				r.Other = a
			case m.other == a: // between A and B: B's end goes back
				r.Other = a
				ms = append(ms, syncjob.Move{Rel: r, From: a, To: b2, OneEnd: true})
				continue
			}
			ms = append(ms, syncjob.Move{Rel: r, From: a, To: b2})
		}
		if _, err := tx.Move(ms); err != nil {
			return err
		}
		return tx.Delete([]keys.Key{copyID})
	})
	if err != nil {
		t.Fatal(err)
	}
	if after := fx.Dump(t); after != before {
		t.Fatalf("after the undo of the merge:\n%s\nwant:\n%s", after, before)
	}
}
