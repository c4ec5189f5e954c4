package syncjob_test

import (
	"errors"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// An error names its options by their Go names; Render by the caller's,
// in the messages and errors among its arguments too.
func TestErrorRender(t *testing.T) {
	keys := map[syncjob.Option]string{
		syncjob.OptWriteNodeLabels:    "write.node_labels",
		syncjob.OptNodeLabels:         "graph.node_labels",
		syncjob.OptEvidenceProperties: "graph.evidence_properties",
	}
	name := func(o syncjob.Option) string { return keys[o] }

	err := syncjob.Errorf(syncjob.ErrInvalid, nil, "%s: label %q is not one of %s (%s)",
		syncjob.OptWriteNodeLabels, "Critic", syncjob.OptNodeLabels, "Person")
	var je *syncjob.Error
	if !errors.As(err, &je) || !syncjob.IsInvalid(err) {
		t.Fatalf("%#v: not an *Error of ErrInvalid", err)
	}
	if got, want := err.Error(), `PullOptions.WriteNodeLabels: label "Critic" is not one of PullOptions.NodeLabels (Person)`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := je.Render(name), `write.node_labels: label "Critic" is not one of graph.node_labels (Person)`; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}

	// Nested: an error and a message as arguments; an option without a
	// name keeps its Go name.
	outer := syncjob.Errorf(syncjob.ErrInvalid, err, "%v (%s; %s)%s", err, syncjob.OptEvidenceProperties, syncjob.OptLockTTL,
		syncjob.Messagef(": add it to %s", syncjob.OptNodeLabels))
	if !errors.As(outer, &je) || !errors.Is(outer, syncjob.ErrInvalid) {
		t.Fatalf("%#v: not an *Error of ErrInvalid", outer)
	}
	want := `write.node_labels: label "Critic" is not one of graph.node_labels (Person) (graph.evidence_properties; LockOptions.TTL): add it to graph.node_labels`
	if got := je.Render(name); got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}

	// No kind: only the cause unwraps.
	lost := syncjob.Errorf(nil, syncjob.ErrLockLost, "lost")
	if !syncjob.IsLocked(lost) || errors.Is(lost, syncjob.ErrInvalid) {
		t.Errorf("%v: IsLocked %v, IsInvalid %v", lost, syncjob.IsLocked(lost), syncjob.IsInvalid(lost))
	}
}
