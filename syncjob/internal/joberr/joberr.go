// Package joberr holds the kinds of failure of package syncjob and its
// Error, so that syncjob's subpackages return the same values (syncjob
// re-exports them: use them from there).
package joberr

import (
	"errors"
	"fmt"
)

// Kinds of failure: see package syncjob.
var (
	// ErrAuth: the store rejected the credentials.
	ErrAuth = errors.New("authentication failed")
	// ErrUnreachable: the store could not be reached, or the connection was
	// lost for longer than the retries allow.
	ErrUnreachable = errors.New("neo4j unreachable")
	// ErrEmpty: the selected subgraph has nothing to score (no nodes, no
	// relationships, or a label or type that does not exist).
	ErrEmpty = errors.New("empty subgraph")
	// ErrLocked: another run holds the lock, or this run lost it.
	ErrLocked = errors.New("locked")
	// ErrLockLost is the cause of the context of a Lock that was lost (not
	// refreshed in time, and taken over by another run).
	ErrLockLost = errors.New("the lock was lost (not refreshed within lock.ttl, or taken over by another run)")
	// ErrInvalid: a configuration value, a custom query, a plan or the data
	// does not fit (bad name, missing column, key property of the wrong
	// type...).
	ErrInvalid = errors.New("invalid")
	// ErrStalePlan: an approved plan no longer matches the graph; nothing
	// was split (a *splitplan.StaleError says what changed).
	ErrStalePlan = errors.New("the approved plan no longer matches the graph")
	// ErrIncomplete: the run finished but some planned splits were not
	// made (an *splitplan.IncompleteError says which); the others were. From Undo:
	// some splits of the run were not reversed.
	ErrIncomplete = errors.New("some splits were not made")
	// ErrUnknownRun: Undo found nothing of the run: no record of it and no
	// node split by it (a mistyped run id, or a run undone already).
	ErrUnknownRun = errors.New("no such run")
	// ErrMemory: the run's estimated peak memory exceeds its limit
	// (Options.Memory); nothing was scored or written.
	ErrMemory = errors.New("not enough memory")
)

// Error is a failure with a one-line message for the user, of one of the
// kinds above (Kind), with its cause.
type Error struct {
	Kind  error
	Msg   string
	Cause error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap lets errors.Is find both the kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Kind, e.Cause}
	}
	return []error{e.Kind}
}

// Errorf returns an *Error of the given kind and cause (either may be
// nil), with a formatted message.
func Errorf(kind, cause error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Cause: cause}
}
