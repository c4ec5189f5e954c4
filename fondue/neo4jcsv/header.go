package neo4jcsv

import (
	"fmt"
	"strings"
)

// colKind is what a header column holds.
type colKind int

const (
	colProperty colKind = iota
	colID
	colLabel
	colStartID
	colEndID
	colType
	colIgnore
)

// valueType is how a property column's values read as evidence.
type valueType int

const (
	typeText valueType = iota
	typeInt
	typeFloat
	typeDate // a temporal value: evidence by its year
	typeOther
)

// column is one field of a header: "name:type(Space){options}".
type column struct {
	name  string // property name ("" for :LABEL, :TYPE, ... and an unnamed :ID)
	kind  colKind
	space string // ID space of :ID, :START_ID, :END_ID ("" is the default space)
	vt    valueType
	array bool
	spec  string // the field as written, for messages
}

// propertyTypes are the property types of the Neo4j 5 import header.
var propertyTypes = map[string]valueType{
	"": typeText, "string": typeText, "char": typeText,
	"int": typeInt, "long": typeInt, "short": typeInt, "byte": typeInt,
	"float": typeFloat, "double": typeFloat,
	"date": typeDate, "localdatetime": typeDate, "datetime": typeDate,
	"boolean": typeOther, "point": typeOther, "localtime": typeOther, "time": typeOther, "duration": typeOther,
}

// parseColumn reads one header field.
func parseColumn(field string) (column, error) {
	c := column{spec: field}
	s := field
	// Neo4j 5 options after the type, as in "uid:ID{id-type:string}".
	if i := strings.IndexByte(s, '{'); i >= 0 && strings.HasSuffix(s, "}") {
		s = s[:i]
	}
	name, typ, typed := s, "", false
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		name, typ, typed = s[:i], s[i+1:], true
	}
	c.name = name
	if typed {
		// An ID space: ID(Space), START_ID(Space), END_ID(Space).
		if i := strings.IndexByte(typ, '('); i >= 0 {
			if !strings.HasSuffix(typ, ")") || i == len(typ)-2 {
				return c, fmt.Errorf("column %q: an ID space is written ID(Name)", field)
			}
			c.space = typ[i+1 : len(typ)-1]
			typ = typ[:i]
			switch strings.ToUpper(typ) {
			case "ID", "START_ID", "END_ID":
			default:
				return c, fmt.Errorf("column %q: only :ID, :START_ID and :END_ID take an ID space", field)
			}
		}
		switch strings.ToUpper(typ) {
		case "ID":
			c.kind = colID
			return c, nil
		case "LABEL":
			c.kind = colLabel
		case "START_ID":
			c.kind = colStartID
		case "END_ID":
			c.kind = colEndID
		case "TYPE":
			c.kind = colType
		case "IGNORE":
			c.kind = colIgnore
			return c, nil
		}
		if c.kind != colProperty {
			if name != "" {
				return c, fmt.Errorf("column %q: :%s takes no property name", field, strings.ToUpper(typ))
			}
			return c, nil
		}
		t := strings.ToLower(typ)
		if strings.HasSuffix(t, "[]") {
			c.array, t = true, strings.TrimSuffix(t, "[]")
		}
		vt, ok := propertyTypes[t]
		if !ok || t == "" {
			return c, fmt.Errorf("column %q: unknown type %q (int, long, float, double, boolean, string, date, ... or an array such as string[])", field, typ)
		}
		c.vt = vt
	}
	if name == "" {
		return c, fmt.Errorf("column %q has no property name", field)
	}
	return c, nil
}

// header is a file's parsed header.
type header struct {
	cols                 []column
	id, label, typ       int // column indices, -1 when absent
	start, end           int
	props                map[string]int // property name -> column
	idSpace              string
	startSpace, endSpace string
}

// parseHeader reads a header record; rel says whether it heads a
// relationship file.
func parseHeader(rec []string, rel bool) (*header, error) {
	h := &header{id: -1, label: -1, typ: -1, start: -1, end: -1, props: map[string]int{}}
	seen := func(at *int, i int, what string) error {
		if *at >= 0 {
			return fmt.Errorf("two %s columns (%d and %d)", what, *at+1, i+1)
		}
		*at = i
		return nil
	}
	for i, f := range rec {
		c, err := parseColumn(f)
		if err != nil {
			return nil, err
		}
		h.cols = append(h.cols, c)
		var dup error
		switch c.kind {
		case colID:
			dup = seen(&h.id, i, ":ID")
			h.idSpace = c.space
		case colLabel:
			dup = seen(&h.label, i, ":LABEL")
		case colStartID:
			dup = seen(&h.start, i, ":START_ID")
			h.startSpace = c.space
		case colEndID:
			dup = seen(&h.end, i, ":END_ID")
			h.endSpace = c.space
		case colType:
			dup = seen(&h.typ, i, ":TYPE")
		}
		if dup != nil {
			return nil, dup
		}
		if c.name != "" && c.kind != colIgnore {
			if j, ok := h.props[c.name]; ok {
				return nil, fmt.Errorf("property %q in two columns (%d and %d)", c.name, j+1, i+1)
			}
			h.props[c.name] = i
		}
	}
	if rel {
		switch {
		case h.id >= 0 || h.label >= 0:
			return nil, fmt.Errorf("a relationship file has no :ID or :LABEL column (is it a node file? give it with --nodes)")
		case h.start < 0 || h.end < 0:
			return nil, fmt.Errorf("a relationship file needs a :START_ID and an :END_ID column")
		case h.typ < 0:
			return nil, fmt.Errorf("a relationship file needs a :TYPE column")
		}
		return h, nil
	}
	switch {
	case h.start >= 0 || h.end >= 0 || h.typ >= 0:
		return nil, fmt.Errorf("a node file has no :START_ID, :END_ID or :TYPE column (is it a relationship file? give it with --relationships)")
	case h.id < 0:
		return nil, fmt.Errorf("a node file needs an :ID column: a node without one cannot be named")
	}
	return h, nil
}
