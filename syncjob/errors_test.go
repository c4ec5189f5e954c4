package syncjob_test

import (
	"errors"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// An *Error is its message; errors.Is finds its kind and its cause.
func TestError(t *testing.T) {
	cause := errors.New("bad name")
	err := syncjob.Errorf(syncjob.ErrInvalid, cause, "node label %q: %v", "A\nB", cause)
	var je *syncjob.Error
	if !errors.As(err, &je) || !syncjob.IsInvalid(err) || !errors.Is(err, cause) {
		t.Fatalf("%#v: not an *Error of ErrInvalid caused by %v", err, cause)
	}
	if got, want := err.Error(), `node label "A\nB": bad name`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}

	// No kind: only the cause unwraps.
	lost := syncjob.Errorf(nil, syncjob.ErrLockLost, "lost")
	if !syncjob.IsLocked(lost) || errors.Is(lost, syncjob.ErrInvalid) {
		t.Errorf("%v: IsLocked %v, IsInvalid %v", lost, syncjob.IsLocked(lost), syncjob.IsInvalid(lost))
	}
}
