package format

import (
	"math"
	"strings"
	"testing"
)

func TestNumbers(t *testing.T) {
	for x, want := range map[float64]string{0.8684: ".868", -0.0123: "-.012", -0.0001: ".000", 1: "1.000", math.NaN(): "?"} {
		if got := F3(x); got != want {
			t.Errorf("F3(%v) = %q, want %q", x, got, want)
		}
	}
	for x, want := range map[float64]string{123.4: "123", 12.34: "12.3", 1.234: "1.23", 0.1234: "0.123", math.NaN(): "?"} {
		if got := Seconds(x); got != want {
			t.Errorf("Seconds(%v) = %q, want %q", x, got, want)
		}
	}
	if got := Round6(0.12345678); got != 0.123457 {
		t.Errorf("Round6 = %v", got)
	}
}

// The JSON files hold one element of an array a line.
func TestJSONLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	JSONLines(&b, "  ", []map[string]int{{"a": 1}, {"b": 2}})
	b.WriteString("\n]")
	if want := "[\n  {\"a\":1},\n  {\"b\":2}\n]"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	JSONLines(&b, "  ", []int{})
	if b.String() != "" {
		t.Errorf("no items: %q", b.String())
	}
	defer func() {
		if recover() == nil {
			t.Error("JSON of NaN did not panic")
		}
	}()
	JSON(math.NaN())
}
