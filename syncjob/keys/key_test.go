package keys

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

// Keys are values: the integer 11 and the string "11" differ, as map keys
// too; the zero Key is no key, unlike the empty string.
func TestKeyIdentity(t *testing.T) {
	m := map[Key]int{Int(11): 1, String("11"): 2, {}: 3, String(""): 4}
	if len(m) != 4 || m[Int(11)] != 1 || m[String("11")] != 2 || m[Key{}] != 3 || m[String("")] != 4 {
		t.Errorf("map: %v", m)
	}
	if !(Key{}).IsZero() || String("").IsZero() || Int(0).IsZero() {
		t.Error("IsZero")
	}
	if i, ok := Int(-5).Int64(); !ok || i != -5 {
		t.Error("Int64 of an integer key")
	}
	if _, ok := String("5").Int64(); ok {
		t.Error("Int64 of a string key")
	}
	for _, c := range []struct {
		k    Key
		want any
	}{{Int(5), int64(5)}, {String("5"), "5"}, {Key{}, nil}} {
		if got := c.k.Value(); got != c.want {
			t.Errorf("%#v.Value() = %#v, want %#v", c.k, got, c.want)
		}
	}
	for _, c := range []struct {
		k    Key
		v    any
		want bool
	}{
		{Int(3), int64(3), true}, {Int(3), 3.0, true}, {Int(3), "3", false}, {String("3"), "3", true}, {String("3"), int64(3), false},
		{Key{}, nil, true}, {Int(3), nil, false}, {Key{}, "", false},
	} {
		if got := c.k.Matches(c.v); got != c.want {
			t.Errorf("%#v.Matches(%#v) = %v", c.k, c.v, got)
		}
	}
}

func TestFromValue(t *testing.T) {
	for _, c := range []struct {
		v    any
		want Key
	}{{int64(11), Int(11)}, {"11", String("11")}, {"", String("")}, {nil, Key{}}} {
		if got, err := FromValue(c.v); err != nil || got != c.want {
			t.Errorf("FromValue(%#v) = %#v, %v; want %#v", c.v, got, err, c.want)
		}
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{1.5, "the float 1.5: keys must be integers or strings"},
		{11.0, "the float 11: keys must be integers or strings"},
		{true, "the boolean true: keys must be integers or strings"},
		{[]any{int64(1), "a"}, `a LIST [1, "a"]: keys must be integers or strings`},
		{dbtype.Date(time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)), "a DATE (2024-01-31): keys must be integers or strings"},
		{11, "the integer 11: keys must be integers or strings"}, // a Go int: the driver's integers are int64
	} {
		k, err := FromValue(c.v)
		var ve *ValueError
		if !errors.As(err, &ve) || ve.Value == nil || err.Error() != c.want || !k.IsZero() {
			t.Errorf("FromValue(%#v) = %#v, %v; want the error %q", c.v, k, err, c.want)
		}
	}
}

// Keys read back from JSON exactly as they were written: integers as
// numbers (all of int64), strings as strings (numeric-looking ones too),
// no key as null; as a decoder with UseNumber (the plans' readers) does.
func TestKeyJSON(t *testing.T) {
	for _, c := range []struct {
		k    Key
		want string
	}{
		{Int(11), `11`}, {String("11"), `"11"`}, {Int(-3), `-3`}, {Int(math.MaxInt64), `9223372036854775807`}, {Int(math.MinInt64), `-9223372036854775808`},
		{String("4:ab12:7"), `"4:ab12:7"`}, {String(""), `""`}, {String("<a&b>"), `"\u003ca\u0026b\u003e"`}, {String("é\n"), `"é\n"`}, {Key{}, `null`},
	} {
		b, err := json.Marshal(c.k)
		if err != nil || string(b) != c.want {
			t.Errorf("json.Marshal(%#v) = %s, %v; want %s", c.k, b, err, c.want)
		}
		// As the value it stands for: the same JSON as before keys were typed.
		if old, _ := json.Marshal(c.k.Value()); string(old) != c.want {
			t.Errorf("json.Marshal(%#v) = %s, want %s", c.k.Value(), old, c.want)
		}
		for _, useNumber := range []bool{false, true} {
			var back struct{ K Key }
			d := json.NewDecoder(strings.NewReader(`{"K": ` + c.want + `}`))
			if useNumber {
				d.UseNumber()
			}
			if err := d.Decode(&back); err != nil || back.K != c.k {
				t.Errorf("decoding %s: %#v, %v; want %#v", c.want, back.K, err, c.k)
			}
		}
	}
	var ks []Key
	if err := json.Unmarshal([]byte(`[11, "11", null, 0, ""]`), &ks); err != nil || !slices.Equal(ks, []Key{Int(11), String("11"), {}, Int(0), String("")}) {
		t.Errorf("a list: %#v, %v", ks, err)
	}
	for _, bad := range []string{`1.5`, `1e3`, `11.0`, `9223372036854775808`, `true`, `[1]`, `{"a": 1}`} {
		var k Key
		if err := json.Unmarshal([]byte(bad), &k); err == nil || !strings.Contains(err.Error(), "a node key or id is an integer (int64) or a string, not "+bad) {
			t.Errorf("json.Unmarshal(%s) = %#v, %v; want an error", bad, k, err)
		}
	}
}

func TestOfGraph(t *testing.T) {
	var bi graph.Builder
	bi.AddEdge("20", "7")
	gi := bi.Build()
	var bs graph.Builder
	bs.AddEdge("b", "a")
	gs := bs.Build()
	for _, c := range []struct {
		g    *graph.Graph
		want []Key
	}{{gi, []Key{Int(7), Int(20)}}, {gs, []Key{String("a"), String("b")}}} {
		var got []Key
		for i := range c.g.NumNodes() {
			got = append(got, OfGraph(c.g, i))
		}
		slices.SortFunc(got, Key.Compare)
		if !slices.Equal(got, c.want) {
			t.Errorf("OfGraph: %v, want %v", got, c.want)
		}
	}
}
