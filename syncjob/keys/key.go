package keys

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// Key is a node key: the value of a node's key property
// (graph.id_property), an integer or a string, or a node's element id (a
// string). The zero Key is no key. Keys are comparable values: == and map
// keys tell the integer 11 from the string "11".
type Key struct {
	s    string
	i    int64
	kind kind
}

type kind uint8

const (
	none kind = iota
	integer
	text
)

// Int is the integer key i.
func Int(i int64) Key { return Key{i: i, kind: integer} }

// String is the string key s (an element id is one).
func String(s string) Key { return Key{s: s, kind: text} }

// FromValue is the key of a property value as the Neo4j Go driver returns
// it: an int64 or a string; nil is the zero Key. Any other value is no key:
// the zero Key and a *ValueError.
func FromValue(v any) (Key, error) {
	switch x := v.(type) {
	case int64:
		return Int(x), nil
	case string:
		return String(x), nil
	case nil:
		return Key{}, nil
	}
	return Key{}, &ValueError{Value: v}
}

// ValueError is a property value that cannot be a key. Its message is the
// value's description and the rule: "the float 1.5: keys must be integers
// or strings".
type ValueError struct{ Value any }

func (e *ValueError) Error() string {
	return DescribeValue(e.Value) + ": keys must be integers or strings"
}

// OfGraph is the key of node i of an edge-list graph: an integer when the
// graph's ids are integers, else its id as a string.
func OfGraph(g *graph.Graph, i int) Key {
	if k, ok := g.IntKey(i); ok {
		return Int(k)
	}
	return String(g.Key(i))
}

// IsZero reports whether k is no key.
func (k Key) IsZero() bool { return k.kind == none }

// Int64 returns the integer of an integer key.
func (k Key) Int64() (int64, bool) { return k.i, k.kind == integer }

// Value is the key as a Cypher parameter or property value: an int64, a
// string, or nil for no key.
func (k Key) Value() any {
	switch k.kind {
	case integer:
		return k.i
	case text:
		return k.s
	}
	return nil
}

// Text is the key as text: integers in decimal, strings as they are, ""
// for no key. Approved plans' fingerprints and all messages use it.
func (k Key) Text() string {
	if k.kind == integer {
		return strconv.FormatInt(k.i, 10)
	}
	return k.s
}

// String is Text, for fmt.
func (k Key) String() string { return k.Text() }

// Describe is the key for messages: strings quoted, so that 11 and "11"
// differ.
func (k Key) Describe() string {
	if k.kind == text {
		return strconv.Quote(k.s)
	}
	return k.Text()
}

// DescribeNode is the key with the node's name: "26 (Cosette)"; the key
// alone when the name is empty or the key's text.
func (k Key) DescribeNode(name string) string {
	t := k.Text()
	if name != "" && name != t {
		return t + " (" + name + ")"
	}
	return t
}

// Compare orders keys: integers numerically before strings, strings (and
// no key, as "") by their text. It suits slices.SortFunc as
// keys.Key.Compare.
func (k Key) Compare(o Key) int {
	switch {
	case k.kind == integer && o.kind == integer:
		return cmp.Compare(k.i, o.i)
	case k.kind == integer:
		return -1
	case o.kind == integer:
		return 1
	}
	return strings.Compare(k.s, o.s)
}

// Variants are the values the key may have in a graph: itself, and the
// integer as text or the text (a canonical decimal) as an integer.
func (k Key) Variants() []Key {
	switch k.kind {
	case integer:
		return []Key{k, String(strconv.FormatInt(k.i, 10))}
	case text:
		if i, err := strconv.ParseInt(k.s, 10, 64); err == nil && strconv.FormatInt(i, 10) == k.s {
			return []Key{k, Int(i)}
		}
	}
	return []Key{k}
}

// Matches reports whether property value v is the key: the same integer
// (or a float of the same value) or the same string; nil matches no key.
func (k Key) Matches(v any) bool { return SameValue(k.Value(), v) }

// MarshalJSON writes an integer key as a JSON number, a string key as a
// JSON string, no key as null.
func (k Key) MarshalJSON() ([]byte, error) {
	switch k.kind {
	case integer:
		return strconv.AppendInt(nil, k.i, 10), nil
	case text:
		return json.Marshal(k.s)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads a JSON number that is an int64 (an integer key), a
// string (a string key) or null (no key); anything else is an error.
func (k *Key) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case string(data) == "null":
		*k = Key{}
		return nil
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*k = String(s)
		return nil
	}
	i, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return fmt.Errorf("a node key or id is an integer (int64) or a string, not %s", data)
	}
	*k = Int(i)
	return nil
}
