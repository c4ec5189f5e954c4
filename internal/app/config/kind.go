package config

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
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
	v, ok := s.parseKind(raw)
	if !ok {
		return nil, s.errWant()
	}
	return v, s.checkParsed(v)
}

// checkParsed checks a Duration's text or each name of a List with
// s.Check; its error is returned as it is.
func (s *Setting) checkParsed(v any) error {
	if s.Check == nil {
		return nil
	}
	switch s.Kind {
	case Duration:
		return s.Check(v.(string))
	case List:
		for _, name := range v.([]string) {
			if err := s.Check(name); err != nil {
				return err
			}
		}
	}
	return nil
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
