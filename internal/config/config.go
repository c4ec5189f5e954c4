// Package config is fondue-neo4j's configuration: every key with its kind
// and default (Settings), and strict readers for the two places values come
// from besides flags: a YAML file (ReadFile) and FONDUE_* environment
// variables (ReadEnv). Nothing wrong passes silently: an unknown key or
// variable, or a value of the wrong kind, is an error that names the key,
// the file or variable, and what was expected.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Kind is the type of a setting's value.
type Kind int

const (
	String    Kind = iota
	Bool           // true/false (also yes/no, on/off, 1/0)
	Uint           // a non-negative integer up to 2^64-1 (stored as uint64)
	NonNegInt      // an integer >= 0 (stored as int)
	PosInt         // an integer >= 1 (stored as int)
	PosFloat       // a number > 0 (stored as float64)
	Fraction       // a number in [0, 1] (stored as float64)
	Duration       // a positive Go duration such as 30s (stored as its text)
	List           // names: a YAML list, or comma-separated text, each name literal (stored as []string)
	Enum           // one of Setting.Values, case-insensitive (stored in lower case)
	Size           // a size in bytes such as 4GiB, or "", auto, none (stored as its text)
	AutoBool       // auto, or true/false as for Bool (stored as "auto", "true" or "false")
	Int            // any integer (stored as int)
)

// Setting is one configuration key.
type Setting struct {
	Key     string // dotted, lower case: "embedding.dim"
	Kind    Kind
	Default any
	Values  []string // Enum's values
	// Want, when set, replaces the kind's description in error messages.
	Want string
	// NotInFile, when set, makes the key an error in a config file; it is
	// the message saying where the value belongs instead.
	NotInFile string
	// Check, when set, checks a String or Size value further; its error
	// says what is expected.
	Check func(string) error
}

// want describes the values a setting accepts, for error messages.
func (s *Setting) want() string {
	if s.Want != "" {
		return s.Want
	}
	switch s.Kind {
	case Bool:
		return "true or false"
	case Uint, NonNegInt:
		return "a non-negative integer"
	case PosInt:
		return "a positive integer"
	case Int:
		return "an integer"
	case PosFloat:
		return "a positive number"
	case Fraction:
		return "a number between 0 and 1"
	case Duration:
		return "a positive duration such as 30s, 2m or 1h"
	case List:
		return "a list of names (YAML list, or comma-separated; each name literal)"
	case Enum:
		var vs []string
		for _, v := range s.Values {
			if v == "" {
				v = `""`
			}
			vs = append(vs, v)
		}
		return "one of " + strings.Join(vs, ", ")
	case Size:
		return `a size such as 4GiB or 512MB, "none" (no limit) or "" (the available memory)`
	case AutoBool:
		return "auto, true or false"
	}
	return "a string"
}

// Parse converts a raw value (from YAML, from the environment as a string,
// or from a flag) to the setting's kind. Its error says what is expected.
func (s *Setting) Parse(raw any) (any, error) {
	switch {
	case raw == nil:
		return s.parseNil()
	case s.Kind == String:
		return s.parseString(raw)
	}
	if v, ok := s.parseKind(raw); ok {
		return v, nil
	}
	return nil, s.errWant()
}

// errWant is Parse's error for a value of the wrong kind.
func (s *Setting) errWant() error { return errors.New("want " + s.want()) }

// parseNil is Parse of a missing value: the empty value of a String or a
// List, an error for any other kind.
func (s *Setting) parseNil() (any, error) {
	switch s.Kind {
	case List:
		return []string{}, nil
	case String:
		return "", nil
	}
	return nil, errors.New("no value: want " + s.want())
}

// parseString is Parse of a String: a scalar's text, checked by s.Check,
// whose error is returned as it is.
func (s *Setting) parseString(raw any) (any, error) {
	str, ok := scalarText(raw)
	if !ok {
		return nil, s.errWant()
	}
	if s.Check != nil {
		if err := s.Check(str); err != nil {
			return nil, err
		}
	}
	return str, nil
}

// parseKind is Parse of a non-nil value of any kind but String; false means
// the value does not fit the kind.
func (s *Setting) parseKind(raw any) (any, bool) {
	switch s.Kind {
	case Bool:
		b, ok := toBool(raw)
		return b, ok
	case AutoBool:
		return parseAutoBool(raw)
	case Uint:
		return parseUint(raw)
	case NonNegInt, PosInt, Int:
		n, ok := toInt(raw)
		return n, ok && !(s.Kind == NonNegInt && n < 0 || s.Kind == PosInt && n < 1)
	case PosFloat, Fraction:
		f, ok := toFloat(raw)
		return f, ok && !(s.Kind == PosFloat && !(f > 0) || s.Kind == Fraction && !(f >= 0 && f <= 1))
	case Duration:
		return parseDuration(raw)
	case List:
		return parseList(raw)
	case Enum:
		return s.parseEnum(raw)
	case Size:
		return s.parseSize(raw)
	}
	return nil, false
}

// parseAutoBool gives "auto", "true" or "false".
func parseAutoBool(raw any) (any, bool) {
	if str, ok := raw.(string); ok && strings.EqualFold(strings.TrimSpace(str), "auto") {
		return "auto", true
	}
	if b, ok := toBool(raw); ok {
		return strconv.FormatBool(b), true
	}
	return nil, false
}

// parseUint gives a uint64 from a non-negative integer, a whole float64
// below 2^64, or decimal text.
func parseUint(raw any) (any, bool) {
	switch x := raw.(type) {
	case int:
		if x >= 0 {
			return uint64(x), true
		}
	case uint64:
		return x, true
	case float64:
		if x >= 0 && x < math.MaxUint64 && x == math.Trunc(x) {
			return uint64(x), true
		}
	case string:
		if u, err := strconv.ParseUint(strings.TrimSpace(x), 10, 64); err == nil {
			return u, true
		}
	}
	return nil, false
}

// parseDuration gives the trimmed text of a positive Go duration.
func parseDuration(raw any) (any, bool) {
	str, ok := raw.(string)
	if !ok {
		return nil, false
	}
	d, err := time.ParseDuration(strings.TrimSpace(str))
	if err != nil || d <= 0 {
		return nil, false
	}
	return strings.TrimSpace(str), true
}

// parseList gives the names of comma-separated text, a []string or a YAML
// list of scalars (never nil). Names are literal, as single names are: a
// space or a quote is part of the name ("Padded " is not "Padded"); only
// empty entries are dropped (a trailing comma).
func parseList(raw any) (any, bool) {
	var out []string
	add := func(v string) {
		if v != "" {
			out = append(out, v)
		}
	}
	switch x := raw.(type) {
	case string:
		for _, v := range strings.Split(x, ",") {
			add(v)
		}
	case []string:
		for _, v := range x {
			add(v)
		}
	case []any:
		for _, e := range x {
			str, ok := scalarText(e)
			if !ok {
				return nil, false
			}
			add(str)
		}
	default:
		return nil, false
	}
	if out == nil {
		out = []string{}
	}
	return out, true
}

// parseEnum gives one of s.Values, in lower case.
func (s *Setting) parseEnum(raw any) (any, bool) {
	str, ok := scalarText(raw)
	if !ok {
		return nil, false
	}
	str = strings.ToLower(strings.TrimSpace(str))
	if !slices.Contains(s.Values, str) {
		return nil, false
	}
	return str, true
}

// parseSize gives the trimmed text, checked by s.Check (any error of which
// is reported as the wrong kind).
func (s *Setting) parseSize(raw any) (any, bool) {
	str, ok := scalarText(raw)
	if !ok {
		return nil, false
	}
	str = strings.TrimSpace(str)
	if s.Check != nil {
		if err := s.Check(str); err != nil {
			return nil, false
		}
	}
	return str, true
}

// scalarText returns a YAML scalar as text: strings as they are, numbers
// and booleans as written.
func scalarText(raw any) (string, bool) {
	switch x := raw.(type) {
	case string:
		return x, true
	case int:
		return strconv.Itoa(x), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// toBool reads true/false, yes/no, on/off, 1/0.
func toBool(raw any) (bool, bool) {
	switch x := raw.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "on", "1":
			return true, true
		case "false", "no", "off", "0":
			return false, true
		}
	case int:
		if x == 0 || x == 1 {
			return x == 1, true
		}
	}
	return false, false
}

func toInt(raw any) (int, bool) {
	switch x := raw.(type) {
	case int:
		return x, true
	case uint64:
		if x <= math.MaxInt64 {
			return int(x), true
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x), true
		}
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return int(n), true
		}
	}
	return 0, false
}

func toFloat(raw any) (float64, bool) {
	switch x := raw.(type) {
	case int:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

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

// Lookup returns the setting of a key (or of an alias of it).
func Lookup(key string) (*Setting, bool) {
	key = strings.ToLower(key)
	if k, ok := Aliases[key]; ok {
		key = k
	}
	i, ok := index()[key]
	if !ok {
		return nil, false
	}
	return &Settings[i], true
}

var byKey map[string]int

func index() map[string]int {
	if byKey == nil {
		m := make(map[string]int, len(Settings))
		for i, s := range Settings {
			m[s.Key] = i
		}
		byKey = m
	}
	return byKey
}

// isSection reports whether key is a section: the prefix of other keys.
func isSection(key string) bool {
	for _, s := range Settings {
		if strings.HasPrefix(s.Key, key+".") {
			return true
		}
	}
	return false
}

func sectionKeys(key string) []string {
	var out []string
	for _, s := range Settings {
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

// ReadFile reads a YAML configuration file strictly: every key must be a
// setting (or a section of settings), every value of its setting's kind.
// An empty file is an empty configuration.
func ReadFile(name string, data []byte) (map[string]Value, error) {
	src := Source{Kind: FromFile, Name: name}
	fail := func(key string, raw any, format string, args ...any) error {
		return &Error{Source: src, Key: key, Raw: raw, Msg: fmt.Sprintf(format, args...)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc any
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return map[string]Value{}, nil
		}
		return nil, fail("", nil, "not valid YAML: %s", yamlError(err.Error()))
	}
	var extra any
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, fail("", nil, "holds more than one YAML document (a line '---'); want one mapping of keys")
	}
	out := map[string]Value{}
	if doc == nil {
		return out, nil
	}
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
			s, known := Lookup(key)
			switch {
			case known:
				if s.NotInFile != "" {
					return fail("", nil, "%s", s.NotInFile)
				}
				v, err := s.Parse(raw)
				if err != nil {
					return fail(key, raw, "%v", err)
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
	m, ok := asMap(doc)
	if !ok {
		return nil, fail("", nil, "want a YAML mapping of keys (such as 'seed: 1'), found %s", describe(doc))
	}
	if err := walk("", m); err != nil {
		return nil, err
	}
	return out, nil
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
	for _, s := range Settings {
		if s.NotInFile == "" {
			out = append(out, s.Key)
		}
	}
	for a := range Aliases {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// ReadEnv reads the FONDUE_* variables of environ ("NAME=value" entries)
// strictly: each must name a setting (or be read elsewhere: IsOtherEnv),
// and its value must parse. Empty values count as unset.
func ReadEnv(environ []string) (map[string]Value, error) {
	names := map[string]string{} // variable -> key
	for _, s := range Settings {
		names[EnvName(s.Key)] = s.Key
	}
	for a, k := range Aliases {
		names[EnvName(a)] = k
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
		s, _ := Lookup(key)
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
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" && bestD <= max(2, len(s)/5) {
		return best
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
