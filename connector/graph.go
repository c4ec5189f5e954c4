package connector

import (
	"context"
	"fmt"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The graph's primitives (syncjob.Graph): each a statement or two of
// Cypher in a managed transaction. The loops that use them are syncjob's.

// Read runs fn in a read transaction (retried: fn may run again).
func (c *Conn) Read(ctx context.Context, fn func(syncjob.Tx) error) error {
	s := c.session(ctx, neo4j.AccessModeRead)
	defer s.Close(context.WithoutCancel(ctx))
	_, err := c.readTx(ctx, s, func(t neo4j.ManagedTransaction) (any, error) {
		return nil, fn(&tx{c: c, ctx: ctx, tx: t})
	})
	if err != nil {
		return c.classify(err, "read the graph")
	}
	return nil
}

// Write runs fn in a write transaction that checks the lock first
// (fencing), retried on transient failures. Losing the connection for
// longer than the retry time wraps ErrUnreachable; fn's own errors come
// back as they are.
func (c *Conn) Write(ctx context.Context, doing string, fn func(syncjob.Tx) error) error {
	s := c.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.WithoutCancel(ctx))
	_, err := c.writeTx(ctx, s, func(t neo4j.ManagedTransaction) (any, error) {
		if err := c.checkFence(ctx, t, doing); err != nil {
			return nil, err
		}
		return nil, fn(&tx{c: c, ctx: ctx, tx: t})
	}, neo4j.WithTxMetadata(map[string]any{"app": "fondue-neo4j", "doing": doing}))
	if err != nil && (neo4j.IsConnectivityError(err) || neo4j.IsTransactionExecutionLimit(err)) {
		return c.classify(err, "finish "+doing)
	}
	return err
}

// Unique creates a uniqueness constraint on (label, prop) if there is
// none, and reads the constraints again for Create.
func (c *Conn) Unique(ctx context.Context, label, prop string) error {
	if err := c.EnsureConstraint(ctx, label, prop); err != nil {
		return err
	}
	u, err := c.uniqueProperties(ctx)
	if err != nil {
		return err
	}
	c.uniqueMu.Lock()
	c.unique = u
	c.uniqueMu.Unlock()
	return nil
}

// CheckName refuses the names Neo4j would not use literally
// (cypher.CheckName).
func (c *Conn) CheckName(name string) error { return cypher.CheckName(name) }

var _ syncjob.NameChecker = (*Conn)(nil)

// uniqueProperties maps each label to the node properties that a
// uniqueness or node key constraint covers for it.
func (c *Conn) uniqueProperties(ctx context.Context) (map[string][]string, error) {
	q, err := c.render("unique_properties", cypher.Vars{})
	if err != nil {
		return nil, err
	}
	res, err := c.query(ctx, q, nil, false)
	if err != nil {
		return nil, c.classify(err, "list the uniqueness constraints")
	}
	out := map[string][]string{}
	for _, r := range res.Records {
		labels, _, _ := neo4j.GetRecordValue[[]any](r, "labels")
		props, _, _ := neo4j.GetRecordValue[[]any](r, "properties")
		for _, l := range labels {
			for _, p := range props {
				ls, _ := l.(string)
				ps, _ := p.(string)
				if !slices.Contains(out[ls], ps) {
					out[ls] = append(out[ls], ps)
				}
			}
		}
	}
	return out, nil
}

// tx is one managed transaction as a syncjob.Tx.
type tx struct {
	c   *Conn
	ctx context.Context
	tx  neo4j.ManagedTransaction
}

func (t *tx) run(name string, v cypher.Vars, params map[string]any) ([]*neo4j.Record, error) {
	q, err := t.c.render(name, v)
	if err != nil {
		return nil, err
	}
	res, err := t.tx.Run(t.ctx, q, params)
	if err != nil {
		return nil, err
	}
	return res.Collect(t.ctx)
}

// nodeOf is a node of a record with columns id, labels, props.
func nodeOf(r *neo4j.Record) syncjob.Node {
	n := syncjob.Node{ID: idOf(r.Values[0])}
	labels, _ := r.Values[1].([]any)
	for _, l := range labels {
		s, _ := l.(string)
		n.Labels = append(n.Labels, s)
	}
	n.Props, _ = r.Values[2].(map[string]any)
	return n
}

func (t *tx) Nodes(ids []keys.Key) ([]syncjob.Node, error) {
	recs, err := t.run("nodes_read", cypher.Vars{}, map[string]any{"ids": values(ids)})
	if err != nil {
		return nil, err
	}
	found := map[keys.Key]syncjob.Node{}
	for _, r := range recs {
		n := nodeOf(r)
		found[n.ID] = n
	}
	out := make([]syncjob.Node, len(ids))
	for k, id := range ids {
		out[k] = found[id]
	}
	return out, nil
}

func (t *tx) Find(f syncjob.Filter) ([]syncjob.Node, error) {
	v := cypher.Vars{NodeLabels: f.Labels, ExcludeLabels: f.Exclude, Property: f.Prop}
	if f.Values != nil {
		v.IDProperty, v.Property = f.Prop, ""
	}
	recs, err := t.run("nodes_find", v, map[string]any{"values": f.Values})
	if err != nil {
		return nil, err
	}
	out := make([]syncjob.Node, len(recs))
	for k, r := range recs {
		out[k] = nodeOf(r)
	}
	return out, nil
}

func (t *tx) Rels(ids []keys.Key, props []string) ([]syncjob.Rel, error) {
	recs, err := t.run("rels_of", cypher.Vars{Properties: props}, map[string]any{"ids": values(ids)})
	if err != nil {
		return nil, err
	}
	type seenRel struct {
		node keys.Key
		rid  string
	}
	seen := map[seenRel]bool{}
	var out []syncjob.Rel
	for _, rec := range recs {
		v := rec.Values // node, rid, type, outgoing, other, otherLabels, otherProps
		r := syncjob.Rel{Node: idOf(v[0])}
		r.ID, _ = v[1].(string)
		if seen[seenRel{r.Node, r.ID}] {
			continue // a self-loop is listed twice
		}
		seen[seenRel{r.Node, r.ID}] = true
		r.Type, _ = v[2].(string)
		r.Outgoing, _ = v[3].(bool)
		r.Other = idOf(v[4])
		labels, _ := v[5].([]any)
		for _, l := range labels {
			ls, _ := l.(string)
			r.OtherLabels = append(r.OtherLabels, ls)
		}
		r.OtherProps = map[string]any{}
		m, _ := v[6].(map[string]any)
		for k, x := range m {
			if x != nil {
				r.OtherProps[k] = x
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func (t *tx) Lock(id keys.Key) error {
	_, err := t.run("node_lock", cypher.Vars{}, map[string]any{"id": id.Value()})
	return err
}

func (t *tx) Create(from keys.Key, skip, labels []string, rows []map[string]any) ([]keys.Key, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	skip = slices.Clone(skip)
	t.c.uniqueMu.Lock()
	for _, l := range labels {
		for _, p := range t.c.unique[l] {
			if !slices.Contains(skip, p) {
				skip = append(skip, p)
				t.c.log.Debug("not copied to the new node: a uniqueness constraint covers it", "label", l, "property", p)
			}
		}
	}
	t.c.uniqueMu.Unlock()
	rs := make([]any, len(rows))
	for k, r := range rows {
		rs[k] = r
	}
	recs, err := t.run("nodes_create", cypher.Vars{SkipProperties: skip, Labels: labels}, map[string]any{"from": from.Value(), "rows": rs})
	if err != nil {
		return nil, err
	}
	if len(recs) != len(rows) {
		return nil, fmt.Errorf("%w: made %d of %d nodes", syncjob.ErrChanged, len(recs), len(rows))
	}
	ids := make([]keys.Key, len(recs))
	for k, r := range recs {
		ids[k] = idOf(r.Values[1])
	}
	return ids, nil
}

// Move moves relationships, one statement per type and direction, and
// checks that each one was found. A moved relationship is a new one.
func (t *tx) Move(ms []syncjob.Move) ([]string, error) {
	type batch struct {
		typ string
		out bool
	}
	batches := map[batch][]any{}
	pos := map[batch][]int{} // the batch's rows' positions in ms
	var order []batch
	for k, m := range ms {
		b := batch{m.Rel.Type, m.Rel.Outgoing}
		if _, ok := batches[b]; !ok {
			order = append(order, b)
		}
		batches[b] = append(batches[b], map[string]any{"rid": m.Rel.ID, "other": m.Rel.Other.Value(), "from": m.From.Value(), "to": m.To.Value(), "oneEnd": m.OneEnd})
		pos[b] = append(pos[b], k)
	}
	ids := make([]string, len(ms))
	for _, b := range order {
		stmt := "move_incoming"
		if b.out {
			stmt = "move_outgoing"
		}
		recs, err := t.run(stmt, cypher.Vars{Type: b.typ}, map[string]any{"rels": batches[b]})
		if err != nil {
			return nil, err
		}
		got, _ := recs[0].Values[0].([]any)
		if len(got) != len(batches[b]) {
			return nil, fmt.Errorf("%w: moved %d of %d %s relationships", syncjob.ErrChanged, len(got), len(batches[b]), b.typ)
		}
		for k, id := range got {
			ids[pos[b][k]], _ = id.(string)
		}
	}
	return ids, nil
}

func (t *tx) Set(id keys.Key, props map[string]any) error {
	recs, err := t.run("node_set", cypher.Vars{}, map[string]any{"id": id.Value(), "props": props})
	if err != nil {
		return err
	}
	if n, _ := recs[0].Values[0].(int64); n != 1 {
		return fmt.Errorf("%w: node elementId(n) = %q is gone", syncjob.ErrChanged, id.Text())
	}
	return nil
}

func (t *tx) Delete(ids []keys.Key) error {
	recs, err := t.run("nodes_delete", cypher.Vars{}, map[string]any{"ids": values(ids)})
	if err != nil {
		return err
	}
	if n, _ := recs[0].Values[0].(int64); int(n) != len(ids) {
		return fmt.Errorf("%w: deleted %d of %d nodes", syncjob.ErrChanged, n, len(ids))
	}
	return nil
}

// idOf is an element id (a string) or a key (an int64 or a string) that
// a statement returned, as a key; null is none.
func idOf(v any) keys.Key {
	k, _ := keys.FromValue(v)
	return k
}

// values are keys as a Cypher list parameter.
func values(ks []keys.Key) []any {
	out := make([]any, len(ks))
	for k, key := range ks {
		out[k] = key.Value()
	}
	return out
}

func (t *tx) Link(typ string, ls []syncjob.Link) (int, error) {
	if len(ls) == 0 {
		return 0, nil
	}
	rows := make([]any, len(ls))
	for k, l := range ls {
		props := l.Props
		if props == nil {
			props = map[string]any{}
		}
		rows[k] = map[string]any{"from": l.From.Value(), "to": l.To.Value(), "props": props}
	}
	recs, err := t.run("links_set", cypher.Vars{Type: typ}, map[string]any{"links": rows})
	if err != nil {
		return 0, err
	}
	n, _ := recs[0].Values[0].(int64)
	return int(n), nil
}

func (t *tx) Unlink(typ, prop string, value any, limit int) (int, error) {
	recs, err := t.run("links_delete", cypher.Vars{Type: typ, Property: prop}, map[string]any{"value": value, "limit": int64(limit)})
	if err != nil {
		return 0, err
	}
	n, _ := recs[0].Values[0].(int64)
	return int(n), nil
}
