package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The tables of settings in docs/configuration.md are the table's: a
// change to one without the other fails here, with the lines that differ.
func TestDocTables(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := DocTables(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); got != want {
		t.Errorf("docs/configuration.md's tables of settings differ from settings.go; run go generate on this package\n%s", lineDiff(got, want))
	}
	// The generator refuses a page without its markers.
	if _, err := DocTables("# no tables\n"); err == nil {
		t.Error("DocTables of a page without markers: no error")
	}
}

// moduleRoot is the folder of this package's go.mod, the repository's root.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = filepath.Dir(dir)
	}
}

// lineDiff lists the lines only in a (-) and only in b (+), in order.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var sb strings.Builder
	for _, l := range al {
		if !slices.Contains(bl, l) {
			sb.WriteString("- configuration.md: " + l + "\n")
		}
	}
	for _, l := range bl {
		if !slices.Contains(al, l) {
			sb.WriteString("+ settings.go:      " + l + "\n")
		}
	}
	return sb.String()
}

// Every row of the table is whole: a field of its own in Config, its help,
// flags with names and commands, no two of them on the same command under
// the same name, aliases that are not keys.
func TestTableIsWhole(t *testing.T) {
	flagName := regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	var c Config
	fields := map[any]string{}
	taken := map[string]string{} // command bit and flag name -> key
	for _, s := range Settings() {
		if s.Help == "" {
			t.Errorf("%s has no help", s.Key)
		}
		if s.Field == nil {
			t.Errorf("%s has no field in Config", s.Key)
			continue
		}
		p := s.Field(&c)
		if k, dup := fields[p]; dup {
			t.Errorf("%s and %s share a field of Config", s.Key, k)
		}
		fields[p] = s.Key
		for _, f := range s.Flags {
			if !flagName.MatchString(f.Name) || f.On == 0 || (f.Old != "" && !flagName.MatchString(f.Old)) {
				t.Errorf("%s: flag %+v", s.Key, f)
			}
			for bit := Commands(1); bit <= CmdEvery; bit <<= 1 {
				if f.On&bit == 0 {
					continue
				}
				id := bit.String() + " --" + f.Name
				if k, dup := taken[id]; dup {
					t.Errorf("%s: --%s of %s is also %s's", bit, f.Name, s.Key, k)
				}
				taken[id] = s.Key
			}
		}
		for _, a := range s.Aliases {
			if l, _ := lookup(a); l.Key != s.Key || a == s.Key {
				t.Errorf("%s: alias %s", s.Key, a)
			}
		}
	}
	// Every field of Config is a setting's.
	if n := countFields(reflect.TypeOf(c)); n != len(fields) {
		t.Errorf("Config has %d fields, the table %d settings", n, len(fields))
	}
}

// countFields counts the fields of a struct, its structs' fields rather
// than the structs.
func countFields(t reflect.Type) int {
	n := 0
	for i := range t.NumField() {
		if f := t.Field(i).Type; f.Kind() == reflect.Struct {
			n += countFields(f)
		} else {
			n++
		}
	}
	return n
}

// value is a setting's value in c, as Parse gives it (durations as text).
func value(s *Setting, c *Config) any {
	switch p := s.Field(c).(type) {
	case *time.Duration:
		return p.String()
	case *[]string:
		if *p == nil {
			return []string{}
		}
		return *p
	default:
		return reflect.ValueOf(p).Elem().Interface()
	}
}

// With nothing given, every field of the Config is its setting's default.
func TestMergeDefaults(t *testing.T) {
	c, err := Merge(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Settings() {
		want := s.Default
		if s.Kind == Duration {
			d, _ := time.ParseDuration(want.(string))
			want = d.String()
		}
		if got := value(&s, c); !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, default %#v", s.Key, got, want)
		}
	}
}

// flag > environment > file > default, for every setting; a flag's value
// is checked (and named) like any other.
func TestMergePrecedence(t *testing.T) {
	flag := func(key string, v any) map[string]Value {
		return map[string]Value{key: {Value: v, Source: Source{Kind: FromFlag, Name: "f"}}}
	}
	file, err := ReadFile("f.yaml", []byte("threads: 2\nembedding:\n  dim: 3\n  mode: exact\nlock:\n  ttl: 5m\ngraph:\n  node_labels: [A]\n"))
	if err != nil {
		t.Fatal(err)
	}
	env, err := ReadEnv([]string{"FONDUE_CONCURRENCY=4", "FONDUE_EMBEDDING_DIM=5"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Merge(flag("threads", "6"), env, file)
	if err != nil {
		t.Fatal(err)
	}
	if c.Engine.Threads != 6 || c.Engine.Embedding.Dim != 5 || c.Engine.Embedding.Mode != "exact" || c.Lock.TTL != 5*time.Minute ||
		!slices.Equal(c.Graph.NodeLabels, []string{"A"}) || c.Engine.Seed != 1 {
		t.Errorf("merged: %+v", c)
	}
	if c, _ := Merge(nil, env, file); c.Engine.Threads != 4 {
		t.Errorf("environment over file: threads %d", c.Engine.Threads)
	}
	_, err = Merge(flag("threads", "-1"), nil, nil)
	var ce *Error
	if !errors.As(err, &ce) || err.Error() != "flag --f: threads = -1: want a non-negative integer (0: all cores)" {
		t.Errorf("bad flag: %v", err)
	}
}

// The password: the --password-file flag wins over FONDUE_NEO4J_PASSWORD,
// which wins over neo4j.password_file from the environment or a file;
// Merge keeps the one that wins.
func TestMergePassword(t *testing.T) {
	env, _ := ReadEnv([]string{"FONDUE_NEO4J_PASSWORD=pw", "FONDUE_NEO4J_PASSWORD_FILE=env.txt"})
	envPw, _ := ReadEnv([]string{"FONDUE_NEO4J_PASSWORD=pw"})
	file, _ := ReadFile("f.yaml", []byte("neo4j:\n  password_file: file.txt\n"))
	flag := map[string]Value{"neo4j.password_file": {Value: "flag.txt", Source: Source{Kind: FromFlag, Name: "password-file"}}}
	for _, c := range []struct {
		flags, env, file map[string]Value
		pw, pwFile       string
	}{
		{nil, env, file, "pw", ""},
		{nil, envPw, file, "pw", ""},
		{nil, nil, file, "", "file.txt"},
		{flag, env, file, "pw", "flag.txt"}, // the file is read: it wins
		{flag, nil, nil, "", "flag.txt"},
	} {
		got, err := Merge(c.flags, c.env, c.file)
		if err != nil || got.Neo4j.Password != c.pw || got.Neo4j.PasswordFile != c.pwFile {
			t.Errorf("%v %v %v: password %q, file %q (%v); want %q, %q", c.flags, c.env, c.file, got.Neo4j.Password, got.Neo4j.PasswordFile, err, c.pw, c.pwFile)
		}
	}
}

// Shell completion offers allowed values: an enum's values (but ""), or
// the ones the table names, each of which parses.
func TestCompletionValues(t *testing.T) {
	for _, s := range Settings() {
		for _, f := range s.Flags {
			fl, _ := s.FlagOn(f.On)
			for _, v := range fl.Complete {
				if _, err := s.Parse(v); err != nil {
					t.Errorf("%s --%s completes %q, which it refuses: %v", s.Key, f.Name, v, err)
				}
			}
			if s.Kind == Enum && s.Complete == nil && f.Complete == nil {
				want := slices.DeleteFunc(slices.Clone(s.Values), func(v string) bool { return v == "" })
				if !slices.Equal(fl.Complete, want) {
					t.Errorf("%s --%s completes %q, want its values %q", s.Key, f.Name, fl.Complete, want)
				}
			}
		}
	}
}

// Settings and Lookup return copies: changing them changes nothing.
func TestSettingsAreCopies(t *testing.T) {
	s := Settings()
	s[0].Key = "changed"
	s[0].Values[0] = "changed"
	l, _ := Lookup("log.level")
	l.Flags[0].Name = "changed"
	if again := Settings(); again[0].Key == "changed" || again[0].Values[0] == "changed" || again[0].Flags[0].Name == "changed" {
		t.Errorf("the table changed: %+v", again[0])
	}
}
