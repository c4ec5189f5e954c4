package keys

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

func TestText(t *testing.T) {
	for _, c := range []struct {
		k    any
		want string
	}{
		{int64(-12), "-12"}, {12, "12"}, {"Valjean", "Valjean"}, {1.5, "1.5"}, {json.Number("99"), "99"}, {nil, ""}, {true, "true"},
	} {
		if got := Text(c.k); got != c.want {
			t.Errorf("Text(%#v) = %q, want %q", c.k, got, c.want)
		}
	}
	if Describe("11") != `"11"` || Describe(int64(11)) != "11" {
		t.Errorf("Describe: %s %s", Describe("11"), Describe(int64(11)))
	}
	if DescribeNode(int64(26), "Cosette") != "26 (Cosette)" || DescribeNode("x", "x") != "x" || DescribeNode(int64(3), "") != "3" {
		t.Error("DescribeNode")
	}
}

func TestCompareAndVariants(t *testing.T) {
	ks := []any{"b", int64(10), "a", int64(-2), "10"}
	slices.SortFunc(ks, Compare)
	if want := []any{int64(-2), int64(10), "10", "a", "b"}; !slices.Equal(ks, want) {
		t.Errorf("sorted %v, want %v", ks, want)
	}
	for _, c := range []struct {
		k    any
		want []any
	}{
		{int64(7), []any{int64(7), "7"}}, {"7", []any{"7", int64(7)}}, {"07", []any{"07"}}, {"x", []any{"x"}}, {1.5, []any{1.5}},
	} {
		if got := Variants(c.k); !slices.Equal(got, c.want) {
			t.Errorf("Variants(%#v) = %#v, want %#v", c.k, got, c.want)
		}
	}
}

func TestValues(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{nil, "null"}, {"x", `the string "x"`}, {int64(7), "the integer 7"}, {1.5, "the float 1.5"}, {true, "the boolean true"},
		{time.Date(2024, 1, 31, 10, 0, 0, 0, time.UTC), "a ZONED DATETIME (2024-01-31T10:00:00Z)"},
		{dbtype.Date(time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)), "a DATE (2024-01-31)"},
		{dbtype.Point2D{X: 1, Y: 2, SpatialRefId: 7203}, "a POINT (x 1, y 2, SRID 7203)"},
		{[]any{"a", int64(1), nil, dbtype.Date(time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC))}, `a LIST ["a", 1, null, 2024-01-31]`},
		{map[string]any{"a": 1}, "a MAP (1 keys)"},
		{struct{}{}, "a value of a type Neo4j properties do not have"},
	} {
		if got := DescribeValue(c.v); got != c.want {
			t.Errorf("DescribeValue(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
	if DisplayText(nil) != "" || DisplayText("Marius") != "Marius" || DisplayText(int64(3)) != "3" {
		t.Error("DisplayText")
	}
	if !SameValue(int64(3), 3.0) || !SameValue(3.0, int64(3)) || !SameValue("a", "a") || SameValue(int64(3), "3") || SameValue(int64(3), int64(4)) {
		t.Error("SameValue")
	}
}
