// Package keys holds node keys (Key: an integer or a string key
// property, or an element id), with their text, their order, the other
// forms a key may have in a graph, their JSON and their descriptions in
// messages; and describes property values as a store returns them
// (int64, string, float64, and a store's own types such as dates).
package keys

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// DescribeValue describes a property value for messages, in Neo4j's
// words, with the value: "the integer 7", "the string \"x\"", "the float
// 1.5", "a DATE (2024-01-31)", "a POINT (x 1, y 2, SRID 7203)", "null".
// Values are as a store returns them: time.Time is a ZONED DATETIME, and
// a store's own types are named by their Go type name, which is Cypher's
// (see storeType): the Neo4j Go driver's Date is a DATE.
func DescribeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case int64:
		return fmt.Sprintf("the integer %d", x)
	case int:
		return fmt.Sprintf("the integer %d", x)
	case float64:
		return fmt.Sprintf("the float %v", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case time.Time:
		return "a ZONED DATETIME (" + x.Format(time.RFC3339Nano) + ")"
	case []byte:
		return fmt.Sprintf("a byte array (%d bytes)", len(x))
	case []any:
		parts := make([]string, len(x))
		for k, e := range x {
			parts[k] = listElement(e)
		}
		s := strings.Join(parts, ", ")
		if len(s) > 60 {
			s = s[:60] + "..."
		}
		return "a LIST [" + s + "]"
	case map[string]any:
		return fmt.Sprintf("a MAP (%d keys)", len(x))
	}
	if d, ok := storeType(v); ok {
		return d
	}
	return "a value of a type Neo4j properties do not have"
}

// typeNames are Cypher's names of the temporal types, by the Go type name
// a store gives them (the Neo4j Go driver's, without importing it).
var typeNames = map[string]string{"Date": "DATE", "LocalDateTime": "LOCAL DATETIME", "LocalTime": "LOCAL TIME", "Time": "ZONED TIME", "Duration": "DURATION"}

// storeType describes a value of a store's own type: a temporal value
// (a fmt.Stringer named as in typeNames) or a point (a struct Point2D or
// Point3D with fields X, Y, [Z,] SpatialRefId).
func storeType(v any) (string, bool) {
	rv := reflect.ValueOf(v)
	t := rv.Type()
	if t.PkgPath() == "time" {
		return "", false
	}
	if n, ok := typeNames[t.Name()]; ok {
		if s, ok := v.(fmt.Stringer); ok {
			return "a " + n + " (" + s.String() + ")", true
		}
	}
	if (t.Name() == "Point2D" || t.Name() == "Point3D") && t.Kind() == reflect.Struct {
		f := func(name string) any { return rv.FieldByName(name).Interface() }
		if t.Name() == "Point3D" {
			return fmt.Sprintf("a POINT (x %v, y %v, z %v, SRID %v)", f("X"), f("Y"), f("Z"), f("SpatialRefId")), true
		}
		return fmt.Sprintf("a POINT (x %v, y %v, SRID %v)", f("X"), f("Y"), f("SpatialRefId")), true
	}
	return "", false
}

// listElement is an element of a list in DescribeValue.
func listElement(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case nil:
		return "null"
	case int64, int, float64, bool:
		return fmt.Sprint(x)
	}
	d := DescribeValue(v)
	if i := strings.IndexByte(d, '('); i >= 0 && strings.HasSuffix(d, ")") {
		return d[i+1 : len(d)-1]
	}
	return d
}

// DisplayText is a display property's value as text: strings as they are,
// other values as Go prints them, "" for null.
func DisplayText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// SameValue reports whether two property values are equal, an integer and
// a float of the same value included.
func SameValue(a, b any) bool {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		}
	case float64:
		if y, ok := b.(int64); ok {
			return x == float64(y)
		}
	}
	return a == b
}
