package textdist

import "testing"

// Distances worked out by hand.
func TestLevenshtein(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},              // three insertions
		{"abc", "", 3},              // three deletions
		{"same", "same", 0},         // nothing to do
		{"kitten", "sitting", 3},    // k->s, e->i, +g
		{"flaw", "lawn", 2},         // -f, +n
		{"lock.ttl", "lock.tll", 1}, // one substitution
		{"ab", "ba", 2},             // a swap is two edits
		{"run-2025", "run-2052", 2},
		{"Write", "write", 1}, // bytes: case counts
		{"é", "e", 2},         // bytes: é is two, both differ from e
	} {
		if got := Levenshtein(c.a, c.b); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Levenshtein(c.b, c.a); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

// Distances worked out by hand: Levenshtein's, but a swap of neighbours is
// one edit.
func TestOSA(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"ab", "ba", 1},   // one swap
		{"tpo", "top", 1}, // one swap
		{"tpo", "tol", 2}, // two substitutions
		{"ca", "abc", 3},  // OSA edits no substring twice (Damerau would say 2)
		{"thread", "threads", 1},
	} {
		if got := OSA(c.a, c.b); got != c.want {
			t.Errorf("OSA(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := OSA(c.b, c.a); got != c.want {
			t.Errorf("OSA(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}
