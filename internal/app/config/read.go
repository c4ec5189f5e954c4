package config

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/fondue-neo4j/fondue-neo4j/text/textdist"
)

// SourceKind says where a value came from.
type SourceKind int

const (
	FromDefault SourceKind = iota
	FromFile
	FromEnv
	FromFlag
)

// Source is where a value came from: a file, a variable, a flag.
type Source struct {
	Kind SourceKind
	Name string // the file, the variable or the flag (without dashes)
}

func (s Source) String() string {
	switch s.Kind {
	case FromFile:
		return "config file " + s.Name
	case FromEnv:
		return "environment variable " + s.Name
	case FromFlag:
		return "flag --" + s.Name
	}
	return "default"
}

// Value is a parsed value and where it came from.
type Value struct {
	Value  any
	Source Source
}

// Error is a configuration error: it names the source, the key and the
// value, and says what was expected.
type Error struct {
	Source Source
	Key    string // "" when the error is about the source as a whole
	Raw    any    // the value found, when there is one
	Msg    string
}

func (e *Error) Error() string {
	if e.Source.Kind == FromFlag && e.Raw != nil {
		raw, _ := scalarText(e.Raw) // as typed, unquoted
		if l, ok := e.Raw.([]string); ok {
			raw = strings.Join(l, ",")
		}
		if strings.ContainsFunc(raw, unicode.IsControl) { // one line
			raw = strconv.Quote(raw)
		}
		return fmt.Sprintf("%s: %s = %s: %s", e.Source, e.Key, raw, e.Msg)
	}
	var sb strings.Builder
	sb.WriteString(e.Source.String())
	sb.WriteString(": ")
	if e.Key != "" {
		sb.WriteString(e.Key)
		if e.Raw != nil {
			sb.WriteString(" = ")
			sb.WriteString(describe(e.Raw))
		}
		sb.WriteString(": ")
	}
	sb.WriteString(e.Msg)
	return sb.String()
}

// describe shows a raw value in a message: strings quoted, structures by
// their shape.
func describe(raw any) string {
	switch x := raw.(type) {
	case string:
		if len(x) > 60 {
			x = x[:60] + "..."
		}
		return strconv.Quote(x)
	case []any, []string:
		return "a list"
	case map[string]any, map[any]any:
		return "a mapping"
	}
	if s, ok := scalarText(raw); ok {
		return s
	}
	return fmt.Sprintf("%v", raw)
}

// isSection reports whether key is a section: the prefix of other keys.
func isSection(key string) bool {
	for _, s := range settings {
		if strings.HasPrefix(s.Key, key+".") {
			return true
		}
	}
	return false
}

func sectionKeys(key string) []string {
	var out []string
	for _, s := range settings {
		if rest, ok := strings.CutPrefix(s.Key, key+"."); ok {
			out = append(out, rest)
		}
	}
	return out
}

// EnvName is the environment variable of a key: FONDUE_EMBEDDING_SIGMA2.
func EnvName(key string) string {
	return EnvPrefix + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
}

// readDoc reads a config file's document strictly (ReadFile): every key
// must be a setting or a section of settings, every value of its kind.
func readDoc(name string, doc map[string]any) (map[string]Value, error) {
	src := Source{Kind: FromFile, Name: name}
	fail := func(key string, raw any, format string, args ...any) error {
		return &Error{Source: src, Key: key, Raw: raw, Msg: fmt.Sprintf(format, args...)}
	}
	out := map[string]Value{}
	var walk func(prefix string, m map[string]any) error
	walk = func(prefix string, m map[string]any) error {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			raw := m[k]
			key := strings.ToLower(k)
			if prefix != "" {
				key = prefix + "." + key
			}
			s, known := lookup(key)
			switch {
			case known:
				if s.NotInFile != "" {
					return fail("", nil, "%s", s.NotInFile)
				}
				v, err := s.Parse(raw)
				if err != nil {
					return fail(key, raw, "%v", err)
				}
				if p, ok := v.(string); ok && s.Path {
					v = besideFile(name, p)
				}
				if prev, dup := out[s.Key]; dup {
					return fail(key, raw, "%s is also set (as %s = %s): they are the same setting; keep one", s.Key, s.Key, describe(prev.Value))
				}
				out[s.Key] = Value{Value: v, Source: src}
			case isSection(key):
				if raw == nil {
					continue // an empty section
				}
				sub, ok := asMap(raw)
				if !ok {
					return fail(key, raw, "%s is a section of keys (%s), not a value", key, strings.Join(sectionKeys(key), ", "))
				}
				if err := walk(key, sub); err != nil {
					return err
				}
			default:
				msg := "unknown key"
				if sug := suggest(key, fileKeys()); sug != "" {
					msg += " (did you mean " + sug + "?)"
				}
				return fail(key, nil, "%s; the keys are listed in config.example.yaml", msg)
			}
		}
		return nil
	}
	if err := walk("", doc); err != nil {
		return nil, err
	}
	return out, nil
}

// besideFile resolves path, read from the config file name, against the
// file's folder, so that a file and what it names can move together and
// the run's working directory does not matter. "" and "-" are not paths.
func besideFile(name, path string) string {
	if path == "" || path == "-" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.Dir(name), path)
}

// asMap returns a YAML mapping with string keys; ok is false for anything
// else (a mapping with a non-string key included).
func asMap(raw any) (map[string]any, bool) {
	switch x := raw.(type) {
	case map[string]any:
		return x, true
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, v := range x {
			ks, ok := k.(string)
			if !ok {
				return nil, false
			}
			m[ks] = v
		}
		return m, true
	}
	return nil, false
}

// yamlError makes a YAML error one line without the library's prefixes.
func yamlError(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimPrefix(s, "yaml: ")
	return strings.TrimPrefix(s, "unmarshal errors: ")
}

// fileKeys lists every key a file may hold, aliases included.
func fileKeys() []string {
	var out []string
	for _, s := range settings {
		if s.NotInFile == "" {
			out = append(out, s.Key)
		}
	}
	for _, s := range settings {
		if s.NotInFile == "" {
			out = append(out, s.Aliases...)
		}
	}
	sort.Strings(out)
	return out
}

// ReadEnv reads the FONDUE_* variables of environ ("NAME=value" entries)
// strictly: each must name a setting (or be read elsewhere: IsOtherEnv),
// and its value must parse. Empty values count as unset.
func ReadEnv(environ []string) (map[string]Value, error) {
	names := map[string]string{} // variable -> key
	for _, s := range settings {
		names[EnvName(s.Key)] = s.Key
		for _, a := range s.Aliases {
			names[EnvName(a)] = s.Key
		}
	}
	out := map[string]Value{}
	var sorted []string
	sorted = append(sorted, environ...)
	sort.Strings(sorted)
	for _, kv := range sorted {
		name, val, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix) || IsOtherEnv(name) {
			continue
		}
		src := Source{Kind: FromEnv, Name: name}
		key, ok := names[name]
		if !ok {
			msg := "not a setting of fondue-neo4j"
			var all []string
			for n := range names {
				all = append(all, n)
			}
			sort.Strings(all)
			if sug := suggest(name, all); sug != "" {
				msg += " (did you mean " + sug + "?)"
			}
			return nil, &Error{Source: src, Msg: msg + "; unset it, or see config.example.yaml for the settings"}
		}
		if val == "" {
			continue
		}
		s, _ := lookup(key)
		v, err := s.Parse(val)
		if err != nil {
			return nil, &Error{Source: src, Key: s.Key, Raw: val, Msg: err.Error()}
		}
		if prev, dup := out[s.Key]; dup {
			return nil, &Error{Source: src, Msg: fmt.Sprintf("%s and %s are the same setting (%s); set one", prev.Source.Name, name, s.Key)}
		}
		out[s.Key] = Value{Value: v, Source: src}
	}
	return out, nil
}

// suggest returns the candidate closest to s by edit distance, if it is
// close enough to be a likely typo.
func suggest(s string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := textdist.Levenshtein(strings.ToLower(s), strings.ToLower(c))
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" && bestD <= max(2, len(s)/5) {
		return best
	}
	return ""
}
