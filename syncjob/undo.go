package syncjob

import (
	"context"
	"log/slog"
)

// Undo reverses every split of run o.RunID on st, under the lock (held as
// "undo RUNID"). Nodes that could not be restored are listed in
// UndoStats.Failed and give an error for which errors.Is(err,
// ErrIncomplete) is true, with the stats; the others are restored.
func Undo(ctx context.Context, st Store, o UndoOptions, lock LockOptions, log *slog.Logger) (UndoStats, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lock.RunID = "undo " + o.RunID
	ctx, release, err := hold(ctx, st, lock, log)
	if err != nil {
		return UndoStats{}, err
	}
	defer release()
	us, err := st.Undo(ctx, o)
	if err != nil {
		return us, lockError(ctx, err)
	}
	if len(us.Failed) > 0 {
		return us, Errorf(ErrIncomplete, nil, "%d of %d split nodes could not be restored; first: node %v: %s",
			len(us.Failed), us.Originals, us.Failed[0].Key, us.Failed[0].Reason)
	}
	return us, nil
}
