package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/sagikazarmark/locafero"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// Sources are where Load reads the configuration: a config file, the
// FONDUE_* environment and the flags given on the command line.
type Sources struct {
	// File is the config file named (--config, FONDUE_CONFIG); when "",
	// Load reads the first fondue.yaml (or .yml, .json, .toml) of Dirs,
	// if there is one.
	File string
	Dirs []string
	// Flags are the flags given on the command line, by setting.
	Flags map[string]*pflag.Flag
}

// Load reads the configuration through viper: flag > environment > file >
// default. Viper finds and decodes the file, reads the FONDUE_* variables
// and the flags, and holds the defaults of the table; before a value
// enters it, Load checks it against its setting (ReadFile, ReadEnv,
// Setting.Parse), so that every error names the key and where it came
// from. Its error is an *Error.
func Load(src Sources) (*Config, error) {
	v := newViper()
	file, err := findAndReadFile(src)
	if err != nil {
		return nil, err
	}
	_ = v.MergeConfigMap(plain(file)) // never fails
	if _, err := ReadEnv(os.Environ()); err != nil {
		return nil, err
	}
	v.SetEnvPrefix(strings.TrimSuffix(EnvPrefix, "_"))
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_", "-", "_"))
	v.AutomaticEnv()
	for _, s := range settings {
		if len(s.Aliases) > 0 { // FONDUE_CONCURRENCY beside FONDUE_THREADS
			names := []string{s.Key, EnvName(s.Key)}
			for _, a := range s.Aliases {
				names = append(names, EnvName(a))
			}
			_ = v.BindEnv(names...) // never fails: a key is given
		}
	}
	flags := map[string]Value{} // a list as its comma-separated names
	for key, f := range src.Flags {
		flags[key] = Value{Value: f.Value.String(), Source: Source{FromFlag, f.Name}}
		_ = v.BindFlagValue(key, flagText{f}) // never fails: the flag is not nil
	}
	if err := check(flags); err != nil {
		return nil, err
	}
	return decode(v, src.Flags[passwordFileKey] != nil)
}

// Merge is Load of values already read: flags by setting (as typed,
// checked here), env and file as ReadEnv and ReadFile return them. The
// file's values are viper's config, the others overrides in their order.
func Merge(flags, env, file map[string]Value) (*Config, error) {
	v := newViper()
	for _, layer := range []map[string]Value{file, env, flags} {
		if err := check(layer); err != nil {
			return nil, err
		}
	}
	_ = v.MergeConfigMap(plain(file)) // never fails
	for _, layer := range []map[string]Value{env, flags} {
		for key, val := range layer {
			v.Set(key, val.Value)
		}
	}
	_, pwFlag := flags[passwordFileKey]
	return decode(v, pwFlag)
}

// newViper is a viper that holds the defaults of the table.
func newViper() *viper.Viper {
	v := viper.New()
	for _, s := range settings {
		v.SetDefault(s.Key, s.Default)
	}
	return v
}

// check parses every value of vals with its setting; its error names the
// value's source.
func check(vals map[string]Value) error {
	for key, val := range vals {
		s, ok := lookup(key)
		if !ok {
			return &Error{Source: val.Source, Key: key, Msg: "not a setting"}
		}
		if _, err := s.Parse(val.Value); err != nil {
			return &Error{Source: val.Source, Key: s.Key, Raw: val.Value, Msg: err.Error()}
		}
	}
	return nil
}

// plain is vals without their sources: viper finds a dotted key in its
// config as it does a nested one.
func plain(vals map[string]Value) map[string]any {
	m := make(map[string]any, len(vals))
	for k, v := range vals {
		m[k] = v.Value
	}
	return m
}

// decode reads every setting's value from v into a Config. The password:
// the --password-file flag wins over FONDUE_NEO4J_PASSWORD, which wins
// over neo4j.password_file from the environment or the file.
func decode(v *viper.Viper, pwFileFromFlag bool) (*Config, error) {
	c := &Config{}
	for i := range settings {
		s := &settings[i]
		val, err := s.Parse(v.Get(s.Key))
		if err != nil { // every source was checked before
			return nil, fmt.Errorf("internal error: setting %s: %v", s.Key, err)
		}
		if err := s.set(c, val); err != nil {
			return nil, err
		}
	}
	if c.Neo4j.Password != "" && !pwFileFromFlag {
		c.Neo4j.PasswordFile = ""
	}
	return c, nil
}

// flagText gives viper a flag's value as the text typed, which
// Setting.Parse reads (viper would read a switch that may be "auto" as a
// bool).
type flagText struct{ f *pflag.Flag }

func (t flagText) HasChanged() bool    { return t.f.Changed }
func (t flagText) Name() string        { return t.f.Name }
func (t flagText) ValueString() string { return t.f.Value.String() }
func (t flagText) ValueType() string   { return "string" }

// findAndReadFile reads src's config file, or the first one viper finds in
// src.Dirs; no file is no values.
func findAndReadFile(src Sources) (map[string]Value, error) {
	v, dec := fileViper(viper.WithFinder(locafero.Finder{
		Paths: src.Dirs,
		Names: locafero.NameWithExtensions("fondue", "yaml", "yml", "json", "toml"),
		Type:  locafero.FileTypeFile,
	}))
	if src.File != "" {
		v.SetConfigFile(src.File)
		v.SetConfigType(formatOf(src.File))
	}
	err := v.ReadInConfig()
	if errors.As(err, new(viper.ConfigFileNotFoundError)) {
		return map[string]Value{}, nil
	}
	name := v.ConfigFileUsed()
	if err != nil && name == "" {
		return nil, &Error{Source: Source{FromFile, "search"}, Msg: oneLine(err)}
	}
	if err != nil {
		return nil, fileError(name, err)
	}
	return readDoc(name, dec.doc)
}

// ReadFile reads a configuration file strictly: every key must be a
// setting (or a section of settings), every value of its setting's kind.
// The file is YAML, or JSON or TOML by its extension (.json, .toml); an
// empty file is an empty configuration.
func ReadFile(name string, data []byte) (map[string]Value, error) {
	v, dec := fileViper()
	v.SetConfigType(formatOf(name))
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, fileError(name, err)
	}
	return readDoc(name, dec.doc)
}

// formatOf is the format of a config file: JSON or TOML by its extension,
// else YAML, whatever its name.
func formatOf(name string) string {
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".json", ".toml":
		return ext[1:]
	}
	return "yaml"
}

// fileError is an error of viper reading a file, in one line naming it.
func fileError(name string, err error) error {
	var pe viper.ConfigParseError
	if errors.As(err, &pe) {
		err = pe.Unwrap()
	} else if u := errors.Unwrap(err); u != nil {
		err = u // an *os.PathError's reason
	}
	return &Error{Source: Source{FromFile, name}, Msg: oneLine(err)}
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// fileViper is a viper that reads a config file in the formats of
// decoders, which keep the document read in doc.
func fileViper(opts ...viper.Option) (*viper.Viper, *decoders) {
	d := &decoders{}
	return viper.NewWithOptions(append(opts, viper.WithDecoderRegistry(d))...), d
}

// decoders is viper's registry of config file decoders: YAML, JSON and
// TOML, each read into a mapping of keys, the last of which it keeps (doc)
// for readDoc's strict reading; viper's own copy stays empty.
type decoders struct{ doc map[string]any }

func (d *decoders) Decoder(format string) (viper.Decoder, error) {
	read := map[string]func([]byte) (map[string]any, error){
		"yaml": decodeYAML, "yml": decodeYAML, "json": decodeJSON, "toml": decodeTOML}[format]
	if read == nil {
		return nil, fmt.Errorf("a .%s file: write it in YAML, JSON or TOML", format)
	}
	return decodeFunc(func(b []byte, _ map[string]any) error {
		var err error
		d.doc, err = read(b) // as written: viper would merge Seed and seed
		return err
	}), nil
}

type decodeFunc func([]byte, map[string]any) error

func (f decodeFunc) Decode(b []byte, m map[string]any) error { return f(b, m) }

// decodeTOML reads a TOML document, its integers as YAML's.
func decodeTOML(data []byte) (map[string]any, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, _ := de.Position()
			return nil, fmt.Errorf("not valid TOML: line %d: %s", row, strings.TrimPrefix(oneLine(err), "toml: "))
		}
		return nil, errors.New("not valid TOML: " + oneLine(err))
	}
	return normalize(doc).(map[string]any), nil
}

// decodeYAML reads one YAML document, a mapping of keys.
func decodeYAML(data []byte) (map[string]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc any
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, nil
		}
		return nil, fmt.Errorf("not valid YAML: %s", yamlError(err.Error()))
	}
	var extra any
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, errors.New("holds more than one YAML document (a line '---'); want one mapping of keys")
	}
	return mapping(doc, "YAML")
}

// decodeJSON reads a JSON object, its numbers as YAML's (int, uint64 or
// float64).
func decodeJSON(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
			return nil, fmt.Errorf("not valid JSON: line %d: %v", 1+bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n")), err)
		}
		return nil, errors.New("not valid JSON: " + oneLine(err))
	}
	if err := dec.Decode(new(any)); err != io.EOF {
		return nil, errors.New("not valid JSON: text after the first value; want one object of keys")
	}
	return mapping(normalize(doc), "JSON")
}

// mapping is a document's mapping of keys, nil for an empty document.
func mapping(doc any, format string) (map[string]any, error) {
	if doc == nil {
		return nil, nil
	}
	if m, ok := asMap(doc); ok {
		return m, nil
	}
	return nil, fmt.Errorf("want a %s mapping of keys (such as 'seed: 1'), found %s", format, describe(doc))
}

// normalize gives JSON's and TOML's numbers the types YAML's have: int,
// else uint64, else float64.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	case int64:
		return int(x)
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return int(n)
		}
		if u, ok := parseUint(string(x)); ok {
			return u
		}
		f, _ := x.Float64()
		return f
	}
	return v
}
