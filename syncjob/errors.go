package syncjob

import (
	"errors"
	"fmt"
)

// Kinds of failure (test with errors.Is, or the Is... helpers). A Store
// wraps them in its errors; Sync, Apply and Undo pass them on.
var (
	// ErrAuth: the store rejected the credentials.
	ErrAuth = errors.New("authentication failed")
	// ErrUnreachable: the store could not be reached, or the connection was
	// lost for longer than the retries allow.
	ErrUnreachable = errors.New("store unreachable")
	// ErrEmpty: the selected subgraph has nothing to score (no nodes, no
	// relationships, or a label or type that does not exist).
	ErrEmpty = errors.New("empty subgraph")
	// ErrLocked: another run holds the lock, or this run lost it.
	ErrLocked = errors.New("locked")
	// ErrLockLost is the cause of the context of a Lock that was lost (not
	// refreshed in time, and taken over by another run).
	ErrLockLost = errors.New("the lock was lost (not refreshed within its TTL, or taken over by another run)")
	// ErrInvalid: a configuration value, a custom query, a plan or the data
	// does not fit (bad name, missing column, key property of the wrong
	// type...).
	ErrInvalid = errors.New("invalid")
	// ErrStalePlan: an approved plan no longer matches the graph; nothing
	// was split (a *StaleError says what changed).
	ErrStalePlan = errors.New("the approved plan no longer matches the graph")
	// ErrIncomplete: the run finished but some planned splits were not
	// made (an *IncompleteError says which); the others were. From Undo:
	// some splits of the run were not reversed.
	ErrIncomplete = errors.New("some splits were not made")
	// ErrUnknownRun: Undo found nothing of the run: no record of it and no
	// node split by it (a mistyped run id, or a run undone already).
	ErrUnknownRun = errors.New("no such run")
	// ErrUnfinished: a run of the same selection stopped mid-split and
	// Options.Unfinished is UnfinishedFail (an *UnfinishedError names the
	// run); nothing was written.
	ErrUnfinished = errors.New("an earlier run is unfinished")
	// ErrMemory: the run's estimated memory cannot fit in its limit
	// (Options.Memory, memory.Estimate.CheckMemory); nothing was scored or
	// written.
	ErrMemory = errors.New("not enough memory")
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
// kinds above (Kind), with its cause. A message names a setting by what
// it is ("the key property"), never by a caller's name for it: a program
// names its own settings where it reads them.
type Error struct {
	Kind  error
	Cause error
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

// Unwrap lets errors.Is find both the kind and the cause.
func (e *Error) Unwrap() []error {
	var out []error
	for _, err := range []error{e.Kind, e.Cause} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// Errorf returns an *Error of the given kind and cause (either may be
// nil), with a message formatted as by fmt.Sprintf.
func Errorf(kind, cause error, format string, args ...any) error {
	return &Error{Kind: kind, Cause: cause, Msg: fmt.Sprintf(format, args...)}
}
