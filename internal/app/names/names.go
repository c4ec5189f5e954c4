// Package names reads display names for node ids: the names file that
// "score --names" and "review --names" accept.
//
// Two formats are read, told apart by the first non-blank character:
//
//   - text: one "id<TAB>name" per line; '#' comment lines and blank lines
//     are ignored, and a first line "id<TAB>name" (or node, key / label) is
//     a header;
//   - JSON: an object {"11": "Valjean", ...}, or an array of objects
//     [{"id": 11, "name": "Valjean"}, ...] ("key" or "node" for the id,
//     "label" for the name), as cypher-shell or an export would give.
//
// Ids are compared as strings, exactly as the edge list (or the Neo4j key
// property) spells them: "11", "4:ab12:7".
package names

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Names maps node ids to display names.
type Names map[string]string

// Of returns the name of id, or id itself when it has none.
func (n Names) Of(id string) string {
	if s, ok := n[id]; ok {
		return s
	}
	return id
}

// Has reports whether id has a name.
func (n Names) Has(id string) bool {
	_, ok := n[id]
	return ok
}

// Error is a malformed names file, with the place it was found.
type Error struct {
	File string
	Line int // 0: the file as a whole
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("names file %s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("names file %s:%d: %s", e.File, e.Line, e.Msg)
}

// ReadFile reads a names file (text or JSON).
func ReadFile(path string) (Names, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads names from data; file names the source in errors.
func Parse(file string, data []byte) (Names, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, &Error{File: file, Msg: "empty"}
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		return parseJSON(file, trimmed)
	}
	return parseText(file, data)
}

func parseText(file string, data []byte) (Names, error) {
	n := Names{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line, first := 0, true
	for sc.Scan() {
		line++
		s := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(s) == "" || strings.HasPrefix(strings.TrimSpace(s), "#") {
			continue
		}
		id, name, ok := strings.Cut(s, "\t")
		id, name = strings.TrimSpace(id), strings.TrimSpace(name)
		if !ok {
			return nil, &Error{File: file, Line: line, Msg: fmt.Sprintf("%q: want id<TAB>name", short(s))}
		}
		if first && isHeader(id, name) {
			first = false
			continue
		}
		first = false
		if err := n.add(id, name); err != nil {
			return nil, &Error{File: file, Line: line, Msg: err.Error()}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{File: file, Line: line + 1, Msg: err.Error()}
	}
	if len(n) == 0 {
		return nil, &Error{File: file, Msg: "no names"}
	}
	return n, nil
}

func isHeader(id, name string) bool {
	switch strings.ToLower(id) {
	case "id", "node", "key":
		switch strings.ToLower(name) {
		case "name", "label":
			return true
		}
	}
	return false
}

func (n Names) add(id, name string) error {
	switch {
	case id == "":
		return fmt.Errorf("empty id")
	case name == "":
		return fmt.Errorf("id %s: empty name", id)
	}
	if old, ok := n[id]; ok && old != name {
		return fmt.Errorf("id %s named twice (%q and %q)", id, old, name)
	}
	n[id] = name
	return nil
}

func parseJSON(file string, data []byte) (Names, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, &Error{File: file, Msg: "bad JSON: " + err.Error()}
	}
	if d.More() {
		return nil, &Error{File: file, Msg: "bad JSON: more than one value"}
	}
	n := Names{}
	switch x := v.(type) {
	case map[string]any:
		for id, name := range x {
			s, ok := scalar(name)
			if !ok {
				return nil, &Error{File: file, Msg: fmt.Sprintf("id %s: the name must be a string or a number", id)}
			}
			if err := n.add(strings.TrimSpace(id), strings.TrimSpace(s)); err != nil {
				return nil, &Error{File: file, Msg: err.Error()}
			}
		}
	case []any:
		for k, e := range x {
			obj, ok := e.(map[string]any)
			if !ok {
				return nil, &Error{File: file, Msg: fmt.Sprintf("element %d: want an object with id and name", k)}
			}
			id, okID := field(obj, "id", "key", "node")
			name, okName := field(obj, "name", "label")
			if !okID || !okName {
				return nil, &Error{File: file, Msg: fmt.Sprintf("element %d: want an object with id and name (strings or numbers)", k)}
			}
			if err := n.add(strings.TrimSpace(id), strings.TrimSpace(name)); err != nil {
				return nil, &Error{File: file, Msg: fmt.Sprintf("element %d: %v", k, err)}
			}
		}
	default:
		return nil, &Error{File: file, Msg: "want a JSON object {id: name} or an array of {id, name} objects"}
	}
	if len(n) == 0 {
		return nil, &Error{File: file, Msg: "no names"}
	}
	return n, nil
}

func field(obj map[string]any, keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			return scalar(v)
		}
	}
	return "", false
}

// scalar turns a JSON string or number into the string an id or name is
// compared as; integers keep their digits (no exponent, no ".0").
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return strconv.FormatInt(i, 10), true
		}
		return string(x), true
	}
	return "", false
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
