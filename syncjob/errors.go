package syncjob

import (
	"errors"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/internal/joberr"
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
	// was split (a *splitplan.StaleError says what changed).
	ErrStalePlan = joberr.ErrStalePlan
	// ErrIncomplete: the run finished but some planned splits were not
	// made (an *splitplan.IncompleteError says which); the others were. From Undo:
	// some splits of the run were not reversed.
	ErrIncomplete = joberr.ErrIncomplete
	// ErrUnknownRun: Undo found nothing of the run: no record of it and no
	// node split by it (a mistyped run id, or a run undone already).
	ErrUnknownRun = joberr.ErrUnknownRun
	// ErrMemory: the run's estimated peak memory exceeds its limit
	// (Options.Memory); nothing was scored or written.
	ErrMemory = joberr.ErrMemory
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
