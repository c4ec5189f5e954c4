package score

import (
	"slices"
	"testing"
)

// The method lists are fresh slices: a caller that changes one changes
// nothing for the next.
func TestMethodListsAreFresh(t *testing.T) {
	for _, list := range []func() []string{Methods, BaselineMethods} {
		a := list()
		want := slices.Clone(a)
		a[0] = "changed"
		if b := list(); !slices.Equal(b, want) {
			t.Fatalf("after changing a returned list, the next is %v, want %v", b, want)
		}
	}
	if m := Methods(); m[0] != DefaultMethod || !slices.Contains(m, MethodFONDUE) {
		t.Fatalf("Methods() = %v: the default %q first, FONDUE in it", m, DefaultMethod)
	}
	for _, m := range BaselineMethods() {
		if !slices.Contains(Methods(), m) || UsesEmbedding(m) {
			t.Fatalf("baseline %q: not a method, or one that needs the embedding", m)
		}
	}
}

// "" is the default method, which fits an embedding; the baselines fit
// none.
func TestUsesEmbedding(t *testing.T) {
	want := map[string]bool{"": true, MethodCombined: true, MethodFONDUE: true}
	for _, m := range append(Methods(), "") {
		if got := UsesEmbedding(m); got != want[m] {
			t.Errorf("UsesEmbedding(%q) = %v, want %v", m, got, want[m])
		}
	}
}
