package runid

import (
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	for id, want := range map[string]bool{
		"nightly-20250101": true, "a": true, "20261126T171500Z-0a1b2c": true, "r.1_b:c+d": true,
		strings.Repeat("x", 128): true, strings.Repeat("x", 129): false,
		"": false, "-a": false, ".a": false, "a b": false, "a/b": false, "a\nb": false, "é": false,
	} {
		if got := Valid(id); got != want {
			t.Errorf("Valid(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestNewIsValidAndDistinct(t *testing.T) {
	a, b := New(), New()
	if !Valid(a) || !Valid(b) || a == b || len(a) != len("20060102T150405Z-")+6 {
		t.Errorf("New() = %q, %q: want two distinct valid ids of the time and six hex digits", a, b)
	}
}
