package connector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

type undoClone struct {
	id     keys.Key
	splits int
}

// Undo reverses every split of a run, one write transaction per original
// node: each clone (a node with o.MarkerLabel made by the run) has its
// relationships moved back to the original (same type, direction and
// properties), the clone is deleted, and the run is removed from the
// original's fondue_split_runs (the property goes when no run is left).
// The run's record stays (ForgetPlan). After an undo the graph equals the graph before the split, with
// one exception by design: relationships that users attached to a clone
// after the split move to the original too. Everything Undo needs is in the
// database. Undoing a run twice is harmless (nothing is left to undo). A
// clone that a later run split again must wait for that run's undo.
func (c *Conn) Undo(ctx context.Context, o syncjob.UndoOptions) (syncjob.UndoStats, error) {
	t0 := time.Now()
	if o.MarkerLabel == "" {
		o.MarkerLabel = syncjob.DefaultMarkerLabel
	}
	var st syncjob.UndoStats
	q, err := c.render("undo_clones", cypher.Vars{Label: o.MarkerLabel})
	if err != nil {
		return st, err
	}
	res, err := c.query(ctx, q, map[string]any{"run": o.RunID}, false)
	if err != nil {
		return st, c.classify(err, "find the clones of run "+o.RunID)
	}
	byOrigin := map[keys.Key][]undoClone{}
	var origins []keys.Key
	for _, r := range res.Records {
		id, origin := idOf(r.Values[0]), idOf(r.Values[1])
		splits, _ := r.Values[3].(int64)
		if _, ok := byOrigin[origin]; !ok {
			origins = append(origins, origin)
		}
		byOrigin[origin] = append(byOrigin[origin], undoClone{id: id, splits: int(splits)})
	}
	st.Originals = len(origins)
	s := c.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.WithoutCancel(ctx))
	for k, origin := range origins {
		clones := byOrigin[origin]
		out, err := c.writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
			if err := c.checkFence(ctx, tx, fmt.Sprintf("restoring node %v (%d of %d)", origin, k+1, len(origins))); err != nil {
				return nil, err
			}
			return c.undoNode(ctx, tx, o, origin, clones)
		}, neo4j.WithTxMetadata(map[string]any{"app": "fondue-neo4j", "undo": o.RunID}))
		switch {
		case err == nil:
			n := out.(splitplan.NodeOutcome)
			st.Restored++
			st.ClonesDeleted += n.Clones
			st.RelationshipsMoved += n.Moved
		case ctx.Err() != nil:
			return st, ctx.Err()
		case errors.Is(err, syncjob.ErrLockLost):
			st.Duration = time.Since(t0)
			return st, err
		case neo4j.IsConnectivityError(err) || neo4j.IsTransactionExecutionLimit(err):
			st.Duration = time.Since(t0)
			return st, c.classify(err, fmt.Sprintf("restore node %v (%d of %d; run undo again to finish)", origin, k+1, len(origins)))
		default:
			st.Failed = append(st.Failed, splitplan.NodeOutcome{Key: origin, Outcome: splitplan.OutcomeFailed, Reason: oneLine(err.Error())})
			c.log.Warn("could not undo the split of a node", "node", fmt.Sprint(origin), "error", oneLine(err.Error()))
		}
		if o.Progress != nil {
			o.Progress(k+1, len(origins))
		}
	}
	st.Duration = time.Since(t0)
	return st, nil
}

// SplitRuns lists the run ids with a record (:FondueRun) and those of the
// nodes with markerLabel that a split made, sorted.
func (c *Conn) SplitRuns(ctx context.Context, markerLabel string) ([]string, error) {
	if markerLabel == "" {
		markerLabel = syncjob.DefaultMarkerLabel
	}
	var runs []string
	for _, s := range []struct{ stmt, label string }{{"run_ids", syncjob.RunLabel}, {"split_run_ids", markerLabel}} {
		q, err := c.render(s.stmt, cypher.Vars{Label: s.label})
		if err != nil {
			return nil, err
		}
		res, err := c.query(ctx, q, nil, false)
		if err != nil {
			return nil, c.classify(err, "list the runs")
		}
		for _, r := range res.Records {
			if id, ok := r.Values[0].(string); ok {
				runs = append(runs, id)
			}
		}
	}
	slices.Sort(runs)
	return slices.Compact(runs), nil
}

// LaterSplits lists the runs that split again a clone made by run runID.
func (c *Conn) LaterSplits(ctx context.Context, runID, markerLabel string) ([]string, error) {
	if markerLabel == "" {
		markerLabel = syncjob.DefaultMarkerLabel
	}
	q, err := c.render("later_splits", cypher.Vars{Label: markerLabel})
	if err != nil {
		return nil, err
	}
	res, err := c.query(ctx, q, map[string]any{"run": runID}, false)
	if err != nil {
		return nil, c.classify(err, "list the runs that split the clones of run "+runID)
	}
	var runs []string
	for _, r := range res.Records {
		if id, ok := r.Values[0].(string); ok {
			runs = append(runs, id)
		}
	}
	return runs, nil
}

var errUndo = errors.New("cannot undo")

func (c *Conn) undoNode(ctx context.Context, tx neo4j.ManagedTransaction, o syncjob.UndoOptions, origin keys.Key, clones []undoClone) (splitplan.NodeOutcome, error) {
	out := splitplan.NodeOutcome{Key: origin}
	state, err := c.readState(ctx, tx, origin, "", o.RunID)
	if err != nil {
		return out, err
	}
	if !state.Exists {
		return out, fmt.Errorf("%w: the original node elementId(n) = %q no longer exists; its clones are left as they are", errUndo, origin)
	}
	if !state.Split {
		// Element ids are reused after a deletion: the id may now name
		// another node. Only the node that carries the run's mark is ours.
		return out, fmt.Errorf("%w: the node elementId(n) = %q has no record of run %s in fondue_split_runs, so it is not the node that was split (deleted, and its id reused?); its clones are left as they are", errUndo, origin, o.RunID)
	}
	for _, cl := range clones {
		if cl.splits > 0 {
			return out, fmt.Errorf("%w: clone elementId(n) = %q was split again by a later run: undo that run first", errUndo, cl.id)
		}
	}
	// Every clone's relationships in one statement, their moves in one
	// statement per type and direction, the clones deleted in one.
	ids := make([]keys.Key, len(clones))
	for k, cl := range clones {
		ids[k] = cl.id
	}
	rels, err := c.readRelsOf(ctx, tx, ids, relVars{marker: o.MarkerLabel, run: o.RunID})
	if err != nil {
		return out, err
	}
	var moves []move
	listed := map[string]int{}
	for _, id := range ids {
		for _, r := range rels[id] {
			listed[r.ID]++
			moves = append(moves, move{r, id, origin})
		}
	}
	for _, n := range listed {
		if n > 1 {
			// A relationship between two clones of the node (added
			// after the split): clone by clone, each move sees the
			// previous ones.
			return c.undoClones(ctx, tx, o, origin, clones, out)
		}
	}
	if out.Moved, err = c.moveRels(ctx, tx, moves); err != nil {
		return out, err
	}
	if err := c.deleteClones(ctx, tx, o, ids); err != nil {
		return out, err
	}
	out.Clones = len(ids)
	return c.unmark(ctx, tx, o, origin, out)
}

// undoClones moves the relationships of a node's clones back and deletes
// them, one clone at a time.
func (c *Conn) undoClones(ctx context.Context, tx neo4j.ManagedTransaction, o syncjob.UndoOptions, origin keys.Key, clones []undoClone, out splitplan.NodeOutcome) (splitplan.NodeOutcome, error) {
	for _, cl := range clones {
		rels, err := c.readRels(ctx, tx, cl.id, relVars{marker: o.MarkerLabel, run: o.RunID})
		if err != nil {
			return out, err
		}
		moves := make([]move, len(rels))
		for k, r := range rels {
			moves[k] = move{r, cl.id, origin}
		}
		moved, err := c.moveRels(ctx, tx, moves)
		if err != nil {
			return out, err
		}
		out.Moved += moved
		if err := c.deleteClones(ctx, tx, o, []keys.Key{cl.id}); err != nil {
			return out, err
		}
		out.Clones++
	}
	return c.unmark(ctx, tx, o, origin, out)
}

// deleteClones deletes clones whose relationships were all moved back.
func (c *Conn) deleteClones(ctx context.Context, tx neo4j.ManagedTransaction, o syncjob.UndoOptions, ids []keys.Key) error {
	q, err := c.render("undo_delete_clone", cypher.Vars{Label: o.MarkerLabel})
	if err != nil {
		return err
	}
	res, err := tx.Run(ctx, q, map[string]any{"ids": values(ids), "run": o.RunID})
	if err != nil {
		return err
	}
	_, err = res.Consume(ctx)
	return err
}

// unmark removes the run from the original's fondue_split_runs.
func (c *Conn) unmark(ctx context.Context, tx neo4j.ManagedTransaction, o syncjob.UndoOptions, origin keys.Key, out splitplan.NodeOutcome) (splitplan.NodeOutcome, error) {
	q, err := c.render("undo_unmark", cypher.Vars{})
	if err != nil {
		return out, err
	}
	if _, err := tx.Run(ctx, q, map[string]any{"id": origin.Value(), "run": o.RunID}); err != nil {
		return out, err
	}
	out.Outcome = splitplan.OutcomeSplit
	return out, nil
}
