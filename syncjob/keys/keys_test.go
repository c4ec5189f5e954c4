package keys

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

func TestText(t *testing.T) {
	for _, c := range []struct {
		k    Key
		want string
	}{
		{Int(-12), "-12"}, {Int(12), "12"}, {String("Valjean"), "Valjean"}, {String("1.5"), "1.5"}, {Key{}, ""}, {String(""), ""},
	} {
		if got := c.k.Text(); got != c.want {
			t.Errorf("%#v.Text() = %q, want %q", c.k, got, c.want)
		}
		if got := fmt.Sprint(c.k); got != c.want {
			t.Errorf("fmt.Sprint(%#v) = %q, want %q", c.k, got, c.want)
		}
	}
	if String("11").Describe() != `"11"` || Int(11).Describe() != "11" {
		t.Errorf("Describe: %s %s", String("11").Describe(), Int(11).Describe())
	}
	if Int(26).DescribeNode("Cosette") != "26 (Cosette)" || String("x").DescribeNode("x") != "x" || Int(3).DescribeNode("") != "3" {
		t.Error("DescribeNode")
	}
}

func TestCompareAndVariants(t *testing.T) {
	ks := []Key{String("b"), Int(10), String("a"), Int(-2), String("10"), {}}
	slices.SortFunc(ks, Key.Compare)
	if want := []Key{Int(-2), Int(10), {}, String("10"), String("a"), String("b")}; !slices.Equal(ks, want) {
		t.Errorf("sorted %v, want %v", ks, want)
	}
	for _, c := range []struct {
		k    Key
		want []Key
	}{
		{Int(7), []Key{Int(7), String("7")}}, {String("7"), []Key{String("7"), Int(7)}}, {String("-7"), []Key{String("-7"), Int(-7)}},
		{String("07"), []Key{String("07")}}, {String("+7"), []Key{String("+7")}}, {String("x"), []Key{String("x")}},
		{String("99999999999999999999"), []Key{String("99999999999999999999")}}, {Key{}, []Key{{}}},
	} {
		if got := c.k.Variants(); !slices.Equal(got, c.want) {
			t.Errorf("%#v.Variants() = %#v, want %#v", c.k, got, c.want)
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
