package syncjob

import (
	"errors"
	"fmt"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/internal/joberr"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Kinds of failure (test with errors.Is, or the Is... helpers). A Store
// wraps them in its errors; Sync, Apply and Undo pass them on.
var (
	// ErrAuth: the store rejected the credentials.
	ErrAuth = joberr.ErrAuth
	// ErrUnreachable: the store could not be reached, or the connection was
	// lost for longer than the retries allow.
	ErrUnreachable = joberr.ErrUnreachable
	// ErrEmpty: the selected subgraph has nothing to score (no nodes, no
	// relationships, or a label or type that does not exist).
	ErrEmpty = joberr.ErrEmpty
	// ErrLocked: another run holds the lock, or this run lost it.
	ErrLocked = joberr.ErrLocked
	// ErrLockLost is the cause of the context of a Lock that was lost (not
	// refreshed in time, and taken over by another run).
	ErrLockLost = joberr.ErrLockLost
	// ErrInvalid: a configuration value, a custom query, a plan or the data
	// does not fit (bad name, missing column, key property of the wrong
	// type...).
	ErrInvalid = joberr.ErrInvalid
	// ErrStalePlan: an approved plan no longer matches the graph; nothing
	// was split (a *StalePlanError says what changed).
	ErrStalePlan = joberr.ErrStalePlan
	// ErrIncomplete: the run finished but some planned splits were not
	// made (an *IncompleteError says which); the others were. From Undo:
	// some splits of the run were not reversed.
	ErrIncomplete = joberr.ErrIncomplete
	// ErrUnknownRun: Undo found nothing of the run: no record of it and no
	// node split by it (a mistyped run id, or a run undone already).
	ErrUnknownRun = joberr.ErrUnknownRun
)

// IsAuth reports whether err is an authentication failure.
func IsAuth(err error) bool { return errors.Is(err, ErrAuth) }

// IsUnreachable reports whether err is a failure to reach the store.
func IsUnreachable(err error) bool { return errors.Is(err, ErrUnreachable) }

// IsEmpty reports whether err says that there is nothing to score.
func IsEmpty(err error) bool { return errors.Is(err, ErrEmpty) }

// IsLocked reports whether err says that another run holds the lock or
// that this run lost it.
func IsLocked(err error) bool { return errors.Is(err, ErrLocked) || errors.Is(err, ErrLockLost) }

// IsInvalid reports whether err is a configuration, query or data error.
func IsInvalid(err error) bool { return errors.Is(err, ErrInvalid) }

// IsUnknownRun reports whether err says that the store holds nothing of
// the run to undo.
func IsUnknownRun(err error) bool { return errors.Is(err, ErrUnknownRun) }

// IsStalePlan reports whether err refuses an approved plan that no longer
// matches the graph.
func IsStalePlan(err error) bool { return errors.Is(err, ErrStalePlan) }

// Error is a failure with a one-line message for the user, of one of the
// kinds above (Kind), with its cause. Its Unwrap lets errors.Is find both
// the kind and the cause.
type Error = joberr.Error

// Errorf returns an *Error of the given kind and cause (either may be
// nil), with a formatted message.
func Errorf(kind, cause error, format string, args ...any) error {
	return joberr.Errorf(kind, cause, format, args...)
}

// StalePlanError refuses an approved plan: some of its nodes changed since
// the review. Nothing was split by this run.
type StalePlanError struct {
	File    string                  // the approved plan's file
	RunID   string                  // the run id the plan was applied under
	Planned int                     // nodes in the plan
	Changed []splitplan.NodeOutcome // the nodes that changed, with the reason
	// Resumed: an earlier run of the same run id split some nodes, which
	// stay split.
	Resumed bool
}

func (e *StalePlanError) Error() string {
	if e.Resumed {
		return fmt.Sprintf("approved plan %s no longer matches the graph (%d of its %d nodes changed); nothing more was split (nodes split by the earlier run of run id %s stay split: fondue-neo4j undo --run-id %s): %s",
			e.File, len(e.Changed), e.Planned, e.RunID, e.RunID, changes(e.Changed))
	}
	return fmt.Sprintf("approved plan %s no longer matches the graph (%d of its %d nodes changed since the review); nothing was split: %s",
		e.File, len(e.Changed), e.Planned, changes(e.Changed))
}

// Is makes errors.Is(err, ErrStalePlan) true.
func (e *StalePlanError) Is(target error) bool { return target == ErrStalePlan }

// IncompleteError says that planned splits were not made: for an approved
// plan, nodes that changed after the whole-plan check (Skipped); else
// nodes whose transaction failed and was rolled back (Failed).
type IncompleteError struct {
	RunID    string
	Approved bool
	Stats    *splitplan.SplitStats
}

func (e *IncompleteError) Error() string {
	sp := e.Stats
	if e.Approved {
		var skipped []splitplan.NodeOutcome
		for _, n := range sp.Nodes {
			if n.Outcome == splitplan.OutcomeChanged || n.Outcome == splitplan.OutcomeMissing {
				skipped = append(skipped, n)
			}
		}
		return fmt.Sprintf("%d of %d approved splits were not made: the graph changed after the check (the others were made; re-run to retry, or undo them: fondue-neo4j undo --run-id %s): %s",
			sp.Skipped, sp.Planned, e.RunID, changes(skipped))
	}
	for _, n := range sp.Nodes {
		if n.Outcome == splitplan.OutcomeFailed {
			return fmt.Sprintf("%d of %d splits failed and were rolled back; first: node %v: %s", sp.Failed, sp.Planned, n.Key, n.Reason)
		}
	}
	return fmt.Sprintf("%d of %d splits failed and were rolled back", sp.Failed, sp.Planned)
}

// Is makes errors.Is(err, ErrIncomplete) true.
func (e *IncompleteError) Is(target error) bool { return target == ErrIncomplete }
