// Package cypher holds every Cypher statement fondue-neo4j sends to Neo4j,
// as .cypher files embedded in the binary (queries/), and renders them for
// the dialect of the server.
//
// Values are always parameters ($name). The only text substituted into a
// statement are identifiers (labels, relationship types, property and
// constraint names), and only through the template functions below, which
// validate each name (CheckName) and backtick-escape it (Escape). A name
// with a backtick, "})" or a space is therefore matched literally, never
// interpreted as Cypher.
//
// Dialects differ in a few places only (the Dialect constants say which);
// queries/common holds the statements every dialect shares, and
// queries/v3, v4, v5 the ones that differ.
//
// Template functions available to the .cypher files:
//
//	{{id "n"}}                  id(n) on 3.x and 4.x, elementId(n) on 5.x
//	{{name .X}}                 the escaped name `X`
//	{{label .X}}                :`X`
//	{{labels .List}}            :`A`:`B` (empty for an empty list)
//	{{anyLabel "n" .List}}      (n:`A` OR n:`B`)
//	{{noLabel "n" .List}}       NOT n:`A` AND NOT n:`B`
//	{{relType .X}}              :`X`
//	{{relTypes .List}}          :`A`|`B` (empty for an empty list)
package cypher

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"unicode"
	"unicode/utf8"
)

//go:embed queries
var files embed.FS

// Dialect is the flavour of Cypher a server speaks.
type Dialect int

const (
	// V3 is Neo4j 3.x (the test server is 3.1): id(), and
	// CREATE CONSTRAINT ON (n:L) ASSERT n.p IS UNIQUE (a no-op if it exists).
	V3 Dialect = 3
	// V4 is Neo4j 4.x (4.4 supported): id(), and
	// CREATE CONSTRAINT name IF NOT EXISTS FOR (n:L) REQUIRE n.p IS UNIQUE.
	V4 Dialect = 4
	// V5 is Neo4j 5.x and the calendar versions (2025.01 and later):
	// elementId(), and the 4.4 constraint syntax.
	V5 Dialect = 5
)

// Dialects lists every supported dialect.
var Dialects = []Dialect{V3, V4, V5}

func (d Dialect) String() string {
	switch d {
	case V3, V4, V5:
		return "Neo4j " + strconv.Itoa(int(d)) + ".x"
	}
	return "dialect " + strconv.Itoa(int(d))
}

// IDFunction is the function that returns a node's or relationship's
// internal id: "id" before Neo4j 5, "elementId" from 5 on.
func (d Dialect) IDFunction() string {
	if d >= V5 {
		return "elementId"
	}
	return "id"
}

// StringIDs reports whether internal ids are strings (elementId) rather
// than integers (id).
func (d Dialect) StringIDs() bool { return d >= V5 }

var versionRE = regexp.MustCompile(`^(\d+)\.(\d+)`)

// DialectFor returns the dialect of a Neo4j version string as reported by
// dbms.components(), e.g. "3.1.1", "4.4.30", "5.26.0" or "2025.01.0".
func DialectFor(version string) (Dialect, error) {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(version))
	if m == nil {
		return 0, fmt.Errorf("cannot read the Neo4j version %q", version)
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	switch {
	case major == 3:
		return V3, nil
	case major == 4:
		if minor < 4 {
			return V4, fmt.Errorf("Neo4j %s is not supported: use 4.4 or later", version)
		}
		return V4, nil
	case major >= 5:
		// 5.x, then calendar versions 2025.01 and later.
		return V5, nil
	}
	return 0, fmt.Errorf("Neo4j %s is not supported: use 3.x (tests), 4.4 or 5.x and later", version)
}

// Vars are the identifiers a statement may need. Each name is validated
// and escaped when used; unused fields are ignored.
type Vars struct {
	// NodeLabels selects nodes with any of these labels; empty: all nodes
	// but those with an ExcludeLabels label.
	NodeLabels    []string
	ExcludeLabels []string
	// RelationshipTypes selects relationships of any of these types; empty: all.
	RelationshipTypes []string
	// IDProperty is the node key property; empty: internal ids only.
	IDProperty string
	// WriteProperty, ScoreProperty and RunProperty receive a node's
	// ambiguity, raw score and run id; the last two may be empty (not written).
	WriteProperty, ScoreProperty, RunProperty string
	// EmbeddingProperty holds a node's embedding vector (warm starts); empty:
	// not read or written.
	EmbeddingProperty string
	// Label is the label of a constraint, lock, run or split marker.
	Label string
	// Property and ConstraintName describe a constraint.
	Property, ConstraintName string
	// Labels are the labels of a node to create.
	Labels []string
	// SkipProperties are properties not copied to a clone.
	SkipProperties []string
	// Type is the relationship type of a move.
	Type string
}

// NameError reports an identifier that cannot be used.
type NameError struct {
	Name   string
	Reason string
}

func (e *NameError) Error() string { return fmt.Sprintf("name %q %s", e.Name, e.Reason) }

// MaxNameBytes bounds identifiers (Neo4j's own token limit is larger; no
// real label or property needs this much).
const MaxNameBytes = 16 << 10

// CheckName validates a label, relationship type or property name. Every
// non-empty UTF-8 string without control characters is accepted (after
// escaping, backticks, spaces, quotes, braces and parentheses are literal).
func CheckName(name string) error {
	switch {
	case name == "":
		return &NameError{name, "is empty"}
	case !utf8.ValidString(name):
		return &NameError{name, "is not valid UTF-8"}
	case len(name) > MaxNameBytes:
		return &NameError{name[:32] + "...", fmt.Sprintf("is longer than %d bytes", MaxNameBytes)}
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return &NameError{name, fmt.Sprintf("contains the control character %U", r)}
		}
	}
	return nil
}

// Escape validates a name and returns it quoted with backticks, embedded
// backticks doubled:
//
//	We`ird})  ->  `We``ird})`
func Escape(name string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`", nil
}

type set struct {
	once  sync.Once
	err   error
	tmpls map[Dialect]*template.Template // every statement, by dialect
	names []string
}

var all set

func funcs(d Dialect) template.FuncMap {
	join := func(prefix, sep string, names []string) (string, error) {
		parts := make([]string, len(names))
		for k, n := range names {
			e, err := Escape(n)
			if err != nil {
				return "", err
			}
			parts[k] = prefix + e
		}
		return strings.Join(parts, sep), nil
	}
	variable := func(v string) (string, error) {
		if !identRE.MatchString(v) {
			return "", fmt.Errorf("cypher: %q is not a plain variable", v)
		}
		return v, nil
	}
	return template.FuncMap{
		"id": func(v string) (string, error) {
			v, err := variable(v)
			return d.IDFunction() + "(" + v + ")", err
		},
		"name": Escape,
		"label": func(n string) (string, error) {
			e, err := Escape(n)
			return ":" + e, err
		},
		"labels": func(ns []string) (string, error) { return join(":", "", ns) },
		"anyLabel": func(v string, ns []string) (string, error) {
			if _, err := variable(v); err != nil {
				return "", err
			}
			if len(ns) == 0 {
				return "", fmt.Errorf("cypher: anyLabel needs at least one label")
			}
			s, err := join(v+":", " OR ", ns)
			return "(" + s + ")", err
		},
		"noLabel": func(v string, ns []string) (string, error) {
			if _, err := variable(v); err != nil {
				return "", err
			}
			if len(ns) == 0 {
				return "true", nil
			}
			return join("NOT "+v+":", " AND ", ns)
		},
		"relType": func(n string) (string, error) {
			e, err := Escape(n)
			return ":" + e, err
		},
		"relTypes": func(ns []string) (string, error) {
			s, err := join("", "|", ns)
			if s != "" {
				s = ":" + s
			}
			return s, err
		},
	}
}

var identRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// load parses every statement once, for every dialect.
func (s *set) load() {
	s.once.Do(func() {
		byDir := map[string]map[string]string{} // dir -> name -> text
		s.err = fs.WalkDir(files, "queries", func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			if path.Ext(p) != ".cypher" {
				return fmt.Errorf("cypher: unexpected file %s", p)
			}
			data, err := files.ReadFile(p)
			if err != nil {
				return err
			}
			dir := path.Base(path.Dir(p))
			if byDir[dir] == nil {
				byDir[dir] = map[string]string{}
			}
			byDir[dir][strings.TrimSuffix(path.Base(p), ".cypher")] = stripComments(string(data))
			return nil
		})
		if s.err != nil {
			return
		}
		names := map[string]bool{}
		for _, m := range byDir {
			for n := range m {
				names[n] = true
			}
		}
		for n := range names {
			s.names = append(s.names, n)
		}
		slices.Sort(s.names)
		s.tmpls = map[Dialect]*template.Template{}
		for _, d := range Dialects {
			root := template.New("").Option("missingkey=error").Funcs(funcs(d))
			for _, n := range s.names {
				text, ok := byDir["v"+strconv.Itoa(int(d))][n]
				if !ok {
					text, ok = byDir["common"][n]
				}
				if !ok {
					s.err = fmt.Errorf("cypher: statement %s has no version for %v", n, d)
					return
				}
				if _, err := root.New(n).Parse(text); err != nil {
					s.err = fmt.Errorf("cypher: %s: %w", n, err)
					return
				}
			}
			s.tmpls[d] = root
		}
	})
}

// stripComments drops the leading // comment lines (the documentation of a
// statement) and trailing blank space.
func stripComments(text string) string {
	lines := strings.Split(text, "\n")
	for len(lines) > 0 && strings.HasPrefix(strings.TrimSpace(lines[0]), "//") {
		lines = lines[1:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// Names lists every statement.
func Names() []string {
	all.load()
	return slices.Clone(all.names)
}

func lookup(d Dialect, name string) (*template.Template, error) {
	all.load()
	if all.err != nil {
		return nil, all.err
	}
	root, ok := all.tmpls[d]
	if !ok {
		return nil, fmt.Errorf("cypher: unknown dialect %d", int(d))
	}
	t := root.Lookup(name)
	if t == nil {
		return nil, fmt.Errorf("cypher: unknown statement %q", name)
	}
	return t, nil
}

// Render returns statement name for dialect d with the identifiers of v.
// An invalid identifier gives a *NameError.
func Render(d Dialect, name string, v Vars) (string, error) {
	t, err := lookup(d, name)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, v); err != nil {
		var ne *NameError
		if errors.As(err, &ne) {
			return "", ne
		}
		return "", fmt.Errorf("cypher: render %s: %w", name, err)
	}
	return b.String(), nil
}
