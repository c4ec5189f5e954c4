package syncjob

import (
	"context"
	"fmt"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"log/slog"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/text/plural"
	"github.com/fondue-neo4j/fondue-neo4j/text/textdist"
)

// Undo reverses every split of run o.RunID on st, under the lock (held as
// "undo RUNID"). The split settings come from the run's record (its stored
// plan): the clones are found by the record's marker label, whatever
// o.MarkerLabel says (o.MarkerLabel is the fallback for a record without
// one). Nodes that could not be restored are listed in UndoStats.Failed
// and give an error for which errors.Is(err, ErrIncomplete) is true, with
// the stats; the others are restored.
//
// The record is forgotten only once none of its planned nodes carries the
// run's split mark any more: a record whose splits are not all reversed is
// kept (ErrIncomplete), so that undo can be run again. A run id of which
// the store holds nothing (no record, no clone) is an error for which
// IsUnknownRun is true, naming the closest run ids the store knows.
func Undo(ctx context.Context, st Store, o UndoOptions) (UndoStats, error) {
	log, lock := o.Log, o.Lock
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lock.RunID = "undo " + o.RunID
	ctx, release, err := hold(ctx, st, lock, log)
	if err != nil {
		return UndoStats{}, err
	}
	defer release()
	return undoHeld(ctx, st, o, log)
}

// undoHeld is Undo under a lock held already (ctx is the lock's).
func undoHeld(ctx context.Context, st Store, o UndoOptions, log *slog.Logger) (UndoStats, error) {
	if merge, err := isMergeRun(ctx, st, o.RunID); err != nil || merge {
		if err != nil {
			return UndoStats{}, lockError(ctx, err)
		}
		o.Log = log
		us, err := undoMergeRun(ctx, st, o)
		return us, lockError(ctx, err)
	}
	rec, err := LoadPlan(ctx, st, o.RunID)
	if err != nil {
		return UndoStats{}, lockError(ctx, err)
	}
	if rec != nil && rec.MarkerLabel != "" {
		if o.MarkerLabel != "" && o.MarkerLabel != rec.MarkerLabel {
			log.Info("the run's split nodes carry the marker label of its record, not the one given",
				"run_id", o.RunID, "marker_label", rec.MarkerLabel, "given", o.MarkerLabel)
		}
		o.MarkerLabel = rec.MarkerLabel
	}
	if o.MarkerLabel == "" {
		o.MarkerLabel = DefaultMarkerLabel
	}
	later, err := laterSplits(ctx, st, o.RunID, o.MarkerLabel)
	if err != nil {
		return UndoStats{MarkerLabel: o.MarkerLabel}, lockError(ctx, err)
	}
	merges, err := laterMerges(ctx, st, rec, o.RunID, o.MarkerLabel)
	if err != nil {
		return UndoStats{MarkerLabel: o.MarkerLabel}, lockError(ctx, err)
	}
	if len(merges) > 0 {
		return UndoStats{MarkerLabel: o.MarkerLabel}, Errorf(ErrInvalid, nil, "cannot undo run %s yet: run %s merged nodes that run %s split; undo run %s first (fondue-neo4j undo --run-id %s), then this one",
			o.RunID, strings.Join(merges, ", "), o.RunID, merges[len(merges)-1], merges[len(merges)-1])
	}
	if len(later) > 0 {
		return UndoStats{MarkerLabel: o.MarkerLabel}, Errorf(ErrInvalid, nil, "cannot undo run %s yet: run %s split nodes that run %s created; undo run %s first (fondue-neo4j undo --run-id %s), then this one",
			o.RunID, strings.Join(later, ", "), o.RunID, later[len(later)-1], later[len(later)-1])
	}
	o.Log = log
	us, err := UndoSplits(ctx, st, o)
	us.MarkerLabel = o.MarkerLabel
	if err != nil {
		return us, lockError(ctx, err)
	}
	if rec == nil && us.Originals == 0 {
		runs, err := splitRuns(ctx, st, o.MarkerLabel)
		if err != nil {
			return us, lockError(ctx, err)
		}
		return us, Errorf(ErrUnknownRun, nil, "nothing to undo: no run %q in the database (no record of it, no node split by it with the marker label %q); %s",
			o.RunID, o.MarkerLabel, closestRuns(o.RunID, runs))
	}
	if len(us.Failed) > 0 {
		return us, Errorf(ErrIncomplete, nil, "%d of %d split nodes could not be restored; first: node %v: %s",
			len(us.Failed), us.Originals, us.Failed[0].Key, us.Failed[0].Reason)
	}
	if rec == nil {
		return us, nil
	}
	left, err := CountSplit(ctx, st, rec)
	if err != nil {
		return us, lockError(ctx, err)
	}
	if left > 0 {
		us.NotRestored = left
		return us, Errorf(ErrIncomplete, nil, "%s split by run %s not restored: no split node of theirs has the marker label %q; the run's record is kept: undo again with the run's marker label (--marker-label)",
			plural.Of(left, "node", "nodes"), o.RunID, o.MarkerLabel)
	}
	if err := st.DeleteRecord(ctx, o.RunID); err != nil {
		return us, lockError(ctx, err)
	}
	return us, nil
}

// closestRuns names the run ids closest to id (by edit distance), for a
// message about a run id that is not there.
func closestRuns(id string, runs []string) string {
	if len(runs) == 0 {
		return "no run has a record or split nodes in this database"
	}
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b string) int { return textdist.Levenshtein(id, a) - textdist.Levenshtein(id, b) })
	const most = 3
	s := "closest run ids: " + strings.Join(runs[:min(len(runs), most)], ", ")
	if len(runs) > most {
		s += fmt.Sprintf(" (of %d)", len(runs))
	}
	return s
}

// isMergeRun reports whether run is a merge run: its record holds a merge
// plan, or (no record) nodes it merged are recorded.
func isMergeRun(ctx context.Context, st Store, run string) (bool, error) {
	r, err := st.Record(ctx, run)
	if err != nil || r != nil {
		return r != nil && mergeplan.IsMerge(r.Plan), err
	}
	n := 0
	err = st.Read(ctx, func(tx Tx) error {
		recs, err := mergeRecordsOf(tx, run)
		n = len(recs)
		return err
	})
	return n > 0, err
}

// undoMergeRun is Undo of a merge run, under the lock.
func undoMergeRun(ctx context.Context, st Store, o UndoOptions) (UndoStats, error) {
	later, err := laterThanMerge(ctx, st, o.RunID)
	if err != nil {
		return UndoStats{}, err
	}
	if len(later) > 0 {
		return UndoStats{}, Errorf(ErrInvalid, nil, "cannot undo run %s yet: run %s changed nodes that run %s merged into; undo run %s first (fondue-neo4j undo --run-id %s), then this one",
			o.RunID, strings.Join(later, ", "), o.RunID, later[len(later)-1], later[len(later)-1])
	}
	us, err := UndoMerges(ctx, st, o)
	if err != nil {
		return us, err
	}
	if len(us.Failed) > 0 {
		return us, Errorf(ErrIncomplete, nil, "%d of %d survivors could not be restored; first: node %v: %s",
			len(us.Failed), us.Originals, us.Failed[0].Key, us.Failed[0].Reason)
	}
	return us, st.DeleteRecord(ctx, o.RunID)
}
