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
// Every statement is Cypher 5, for Neo4j 5.26 LTS and the calendar
// releases (2025.01 and later); CheckVersion refuses older servers.
//
// Template functions available to the .cypher files:
//
//	{{id "n"}}                  elementId(n)
//	{{name .X}}                 the escaped name `X`
//	{{label .X}}                :`X`
//	{{labels .List}}            :`A`:`B` (empty for an empty list)
//	{{anyLabel "n" .List}}      (n:`A` OR n:`B`)
//	{{noLabel "n" .List}}       NOT n:`A` AND NOT n:`B`
//	{{relType .X}}              :`X`
//	{{relTypes .List}}          :`A`|`B` (empty for an empty list)
//	{{relTypesBut .List .But}}  :`A`|`B`, or for an empty list :!`C`&!`D`
//	                            (any type but those of .But; empty for none)
//	{{firstOf "n" .List}}       n.`A`, or coalesce(n.`A`, n.`B`): the first
//	                            of these properties that the node has
//	{{props "n" .List}}         n.`A`, n.`B`: each of these properties
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

var versionRE = regexp.MustCompile(`^(\d+)\.(\d+)`)

// CheckVersion accepts the Neo4j versions fondue-neo4j supports, as
// reported by dbms.components(): 5.26 (LTS) and later 5.x, and the calendar
// releases (2025.01 and later).
func CheckVersion(version string) error {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(version))
	if m == nil {
		return fmt.Errorf("cannot read the Neo4j version %q", version)
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major > 5 || major == 5 && minor >= 26 {
		return nil
	}
	return fmt.Errorf("Neo4j %s is not supported: use Neo4j 5.26 or a calendar release (2025.01 or later)", version)
}

// Vars are the identifiers a statement may need. Each name is validated
// and escaped when used; unused fields are ignored.
type Vars struct {
	// NodeLabels selects nodes with any of these labels; empty: all nodes
	// but those with an ExcludeLabels label.
	NodeLabels    []string
	ExcludeLabels []string
	// RelationshipTypes selects relationships of any of these types; empty:
	// all but those of ExcludeTypes.
	RelationshipTypes []string
	ExcludeTypes      []string
	// IDProperty is the node key property; empty: internal ids only.
	IDProperty string
	// WriteProperty, ScoreProperty, EntitiesProperty and RunProperty
	// receive a node's ambiguity, raw score, estimated number of entities
	// and run id; all but the first may be empty (not written).
	WriteProperty, ScoreProperty, EntitiesProperty, RunProperty string
	// EmbeddingProperty holds a node's embedding vector (warm starts); empty:
	// not read or written.
	EmbeddingProperty string
	// DisplayProperties hold a node's name for people: the first of them
	// that the node has; empty: not read.
	DisplayProperties []string
	// EvidenceProperties are read with each node, each as it is (absent:
	// null); empty: not read.
	EvidenceProperties []string
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
	// Properties are the node properties read or written.
	Properties []string
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
// non-empty UTF-8 string without control characters and without a Unicode
// escape sequence (a backslash followed by u or U) is accepted; after
// escaping, backticks, backslashes, spaces, quotes, braces, parentheses and
// comment markers are literal.
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
	if strings.Contains(name, `\u`) || strings.Contains(name, `\U`) {
		// Inside backticks Neo4j 5 reads \u0060 as a backtick (and any
		// \uXXXX as that character): the name would not be used literally.
		return &NameError{name, `contains a Unicode escape (\u or \U), which Neo4j 5 would read as another character: rename it or write the character itself`}
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
	tmpl  *template.Template // every statement
	names []string
}

var all set

func funcs() template.FuncMap {
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
			return "elementId(" + v + ")", err
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
		"firstOf": func(v string, ns []string) (string, error) {
			if _, err := variable(v); err != nil {
				return "", err
			}
			if len(ns) == 0 {
				return "", fmt.Errorf("cypher: firstOf needs at least one property")
			}
			s, err := join(v+".", ", ", ns)
			if len(ns) > 1 {
				s = "coalesce(" + s + ")"
			}
			return s, err
		},
		"props": func(v string, ns []string) (string, error) {
			if _, err := variable(v); err != nil {
				return "", err
			}
			if len(ns) == 0 {
				return "", fmt.Errorf("cypher: props needs at least one property")
			}
			return join(v+".", ", ", ns)
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
		"relTypesBut": func(ns, but []string) (string, error) {
			if len(ns) > 0 {
				s, err := join("", "|", ns)
				return ":" + s, err
			}
			s, err := join("!", "&", but)
			if s != "" {
				s = ":" + s
			}
			return s, err
		},
	}
}

var identRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// load parses every statement once.
func (s *set) load() {
	s.once.Do(func() {
		root := template.New("").Option("missingkey=error").Funcs(funcs())
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
			n := strings.TrimSuffix(path.Base(p), ".cypher")
			if root.Lookup(n) != nil {
				return fmt.Errorf("cypher: statement %s defined twice", n)
			}
			if _, err := root.New(n).Parse(stripComments(string(data))); err != nil {
				return fmt.Errorf("cypher: %s: %w", n, err)
			}
			s.names = append(s.names, n)
			return nil
		})
		slices.Sort(s.names)
		s.tmpl = root
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

func lookup(name string) (*template.Template, error) {
	all.load()
	if all.err != nil {
		return nil, all.err
	}
	t := all.tmpl.Lookup(name)
	if t == nil {
		return nil, fmt.Errorf("cypher: unknown statement %q", name)
	}
	return t, nil
}

// Render returns statement name with the identifiers of v. An invalid
// identifier gives a *NameError.
func Render(name string, v Vars) (string, error) {
	t, err := lookup(name)
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
