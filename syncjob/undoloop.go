package syncjob

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// UndoSplits reverses every split of run o.RunID, one transaction per
// original node: each clone (a node with o.MarkerLabel made by the run)
// has its relationships moved back to the original (same type, direction
// and properties), the clone is deleted, and the run is removed from the
// original's fondue_split_runs (the property goes when no run is left).
// After it the nodes and relationships are those before the split (the
// scores written since stay), with one exception by design: relationships
// that users attached to a clone after the split move to the original too. Everything it needs is in the
// graph. Undoing twice is harmless. A clone that a later run split again
// must wait for that run's undo. It takes no lock and keeps the run's
// record: see Undo, which does both.
func UndoSplits(ctx context.Context, st Store, o UndoOptions) (UndoStats, error) {
	t0 := time.Now()
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.MarkerLabel == "" {
		o.MarkerLabel = DefaultMarkerLabel
	}
	var us UndoStats
	var clones []Node
	err := st.Read(ctx, func(tx Tx) error {
		var err error
		clones, err = clonesOf(tx, o.RunID, o.MarkerLabel)
		return err
	})
	if err != nil {
		return us, err
	}
	slices.SortStableFunc(clones, func(a, b Node) int {
		ga, _ := a.Props[splitplan.PropSplitGroup].(int64)
		gb, _ := b.Props[splitplan.PropSplitGroup].(int64)
		return cmp.Compare(ga, gb)
	})
	byOrigin := map[keys.Key][]Node{}
	var origins []keys.Key
	for _, c := range clones {
		origin, _ := keys.FromValue(c.Props[splitplan.PropSplitFromID])
		if _, ok := byOrigin[origin]; !ok {
			origins = append(origins, origin)
		}
		byOrigin[origin] = append(byOrigin[origin], c)
	}
	us.Originals = len(origins)
	err = restoreEach(ctx, st, origins, &us, o.Progress, func(k int, origin keys.Key) string {
		return fmt.Sprintf("restoring node %v (%d of %d)", origin, k+1, len(origins))
	}, func(tx Tx, origin keys.Key) (UndoStats, error) {
		out, err := undoNode(tx, o, origin, byOrigin[origin])
		return UndoStats{ClonesDeleted: out.Clones, RelationshipsMoved: out.Moved}, err
	}, func(origin keys.Key, err error) {
		log.Warn("could not undo the split of a node", "node", fmt.Sprint(origin), "error", oneLine(err.Error()))
	})
	us.Duration = time.Since(t0)
	return us, err
}

// restoreEach restores nodes one transaction each (what names the k-th),
// restore doing it and saying what it did, and adds that to us. A node
// whose restore fails on its own is listed in us.Failed and given to
// failed, and the loop goes on; a store error (Error: the connection,
// the lock) or the end of ctx stops it.
func restoreEach(ctx context.Context, st Store, nodes []keys.Key, us *UndoStats, progress func(done, total int),
	what func(k int, node keys.Key) string, restore func(tx Tx, node keys.Key) (UndoStats, error), failed func(node keys.Key, err error)) error {
	for k, node := range nodes {
		var did UndoStats
		err := st.Write(ctx, what(k, node), func(tx Tx) error {
			var err error
			did, err = restore(tx, node)
			return err
		})
		var serr *Error
		switch {
		case err == nil:
			us.Restored++
			us.ClonesDeleted += did.ClonesDeleted
			us.Unmerged += did.Unmerged
			us.RelationshipsMoved += did.RelationshipsMoved
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &serr):
			if IsUnreachable(err) {
				err = fmt.Errorf("%w; run undo again to finish", err)
			}
			return err
		default:
			us.Failed = append(us.Failed, splitplan.NodeOutcome{Key: node, Outcome: splitplan.OutcomeFailed, Reason: oneLine(err.Error())})
			failed(node, err)
		}
		if progress != nil {
			progress(k+1, len(nodes))
		}
	}
	return nil
}

var errUndo = errors.New("cannot undo")

// undoNode restores original node origin from its clones in tx.
func undoNode(tx Tx, o UndoOptions, origin keys.Key, clones []Node) (splitplan.NodeOutcome, error) {
	out := splitplan.NodeOutcome{Key: origin}
	nodes, err := tx.Nodes([]keys.Key{origin})
	if err != nil {
		return out, err
	}
	orig := nodes[0]
	if orig.ID.IsZero() {
		return out, fmt.Errorf("%w: the original node elementId(n) = %q no longer exists; its clones are left as they are", errUndo, origin.Text())
	}
	if !splitBy(orig, o.RunID) {
		// Ids may be reused after a deletion: the id may now name another
		// node. Only the node that carries the run's mark is ours.
		return out, fmt.Errorf("%w: the node elementId(n) = %q has no record of run %s in fondue_split_runs, so it is not the node that was split (deleted, and its id reused?); its clones are left as they are", errUndo, origin.Text(), o.RunID)
	}
	ids := make([]keys.Key, len(clones))
	for k, c := range clones {
		if len(asList(c.Props[splitplan.PropSplitRuns])) > 0 {
			return out, fmt.Errorf("%w: clone elementId(n) = %q was split again by a later run: undo that run first", errUndo, c.ID.Text())
		}
		ids[k] = c.ID
	}
	v := relView{marker: o.MarkerLabel, run: o.RunID}
	rels, err := readRels(tx, ids, v)
	if err != nil {
		return out, err
	}
	var moves []Move
	listed := map[string]int{}
	for _, id := range ids {
		for _, r := range rels[id] {
			listed[r.ID]++
			moves = append(moves, Move{Rel: r, From: id, To: origin})
		}
	}
	if slices.ContainsFunc(slices.Collect(maps.Values(listed)), func(n int) bool { return n > 1 }) {
		// A relationship between two clones of the node (added after the
		// split): clone by clone, each move sees the previous ones.
		for _, id := range ids {
			rels, err := readRels(tx, []keys.Key{id}, v)
			if err != nil {
				return out, err
			}
			moves = moves[:0]
			for _, r := range rels[id] {
				moves = append(moves, Move{Rel: r, From: id, To: origin})
			}
			moved, err := moveTracked(tx, moves)
			if err != nil {
				return out, err
			}
			out.Moved += len(moved)
			if err := tx.Delete([]keys.Key{id}); err != nil {
				return out, err
			}
			out.Clones++
		}
	} else {
		moved, err := moveTracked(tx, moves)
		if err != nil {
			return out, err
		}
		out.Moved = len(moved)
		if err := tx.Delete(ids); err != nil {
			return out, err
		}
		out.Clones = len(ids)
	}
	var rest any
	if r := slices.DeleteFunc(slices.Clone(asList(orig.Props[splitplan.PropSplitRuns])), func(x any) bool { return x == any(o.RunID) }); len(r) > 0 {
		rest = r
	}
	if err := tx.Set(origin, map[string]any{splitplan.PropSplitRuns: rest}); err != nil {
		return out, err
	}
	out.Outcome = splitplan.OutcomeSplit
	return out, nil
}
