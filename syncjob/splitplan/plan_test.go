package splitplan

import (
	"slices"
	"testing"
)

// Provenance is the list SkipOnClone skips, and a caller's change to the
// list it got changes nothing else.
func TestProvenanceIsACopy(t *testing.T) {
	got := Provenance()
	want := []string{PropSplitKey, PropSplitRun, PropSplitFrom, PropSplitFromID, PropSplitGroup, PropSplitAt, PropSplitRuns}
	if !slices.Equal(got, want) {
		t.Fatalf("Provenance() = %v, want %v", got, want)
	}
	got[0] = "name"
	if p := Provenance(); p[0] != PropSplitKey {
		t.Fatalf("a change to the returned list reached the next call: %v", p)
	}
	skip := (&Plan{IDProperty: "uid", SkipProperties: []string{"name"}}).SkipOnClone()
	if !slices.Equal(skip, append([]string{"name", "uid"}, want...)) {
		t.Fatalf("SkipOnClone = %v", skip)
	}
}
