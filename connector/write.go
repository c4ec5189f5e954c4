package connector

import (
	"context"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// WriteBatch writes a batch of node properties in one UNWIND statement
// (lists of ids, keys and values), in a transaction retried on transient
// failures. Nodes are matched by element id and re-checked by key and
// labels, so that a node deleted since the pull is counted missing, never
// confused with another; the rows not found are named (at most 20).
func (c *Conn) WriteBatch(ctx context.Context, b *syncjob.Batch) (syncjob.BatchResult, error) {
	v := cypher.Vars{IDProperty: b.KeyProperty, NodeLabels: b.Labels, Properties: b.Props}
	q, err := c.render("write_batch", v)
	if err != nil {
		return syncjob.BatchResult{}, err
	}
	missingQ, err := c.render("write_missing", v)
	if err != nil {
		return syncjob.BatchResult{}, err
	}
	vals := make([]any, len(b.Values))
	for k, col := range b.Values {
		vals[k] = col
	}
	var ks []any
	if b.KeyProperty != "" {
		ks = values(b.Keys)
	}
	params := map[string]any{"ids": values(b.IDs), "keys": ks, "values": vals}
	s := c.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.WithoutCancel(ctx))
	out, err := c.writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
		r, err := tx.Run(ctx, q, params)
		if err != nil {
			return nil, err
		}
		rec, err := r.Single(ctx)
		if err != nil {
			return nil, err
		}
		written, _, err := neo4j.GetRecordValue[int64](rec, "written")
		if err != nil {
			return nil, err
		}
		set, _, err := neo4j.GetRecordValue[int64](rec, "set")
		if err != nil {
			return nil, err
		}
		br := syncjob.BatchResult{Written: int(written), Set: int(set)}
		if br.Written != len(b.IDs) {
			// Some nodes were not found: name them (rare).
			if br.Missing, err = missing(ctx, tx, missingQ, params); err != nil {
				return nil, err
			}
		}
		// The fence comes last: the lock node's write lock is then held
		// for the commit only, and batches written at once (concurrency)
		// do not wait for each other; a batch that finds the lock lost is
		// rolled back.
		if err := c.checkFence(ctx, tx, b.Doing); err != nil {
			return nil, err
		}
		return br, nil
	}, neo4j.WithTxMetadata(map[string]any{"app": "fondue-neo4j", "doing": b.Doing}))
	if err != nil {
		return syncjob.BatchResult{}, c.classify(err, "finish "+b.Doing)
	}
	return out.(syncjob.BatchResult), nil
}

// missing names the rows of a batch whose node was not found.
func missing(ctx context.Context, tx neo4j.ManagedTransaction, q string, params map[string]any) ([]keys.Key, error) {
	r, err := tx.Run(ctx, q, params)
	if err != nil {
		return nil, err
	}
	recs, err := r.Collect(ctx)
	if err != nil {
		return nil, err
	}
	var out []keys.Key
	for _, m := range recs {
		out = append(out, idOf(m.Values[0])) // a key or element id of params
	}
	return out, nil
}
