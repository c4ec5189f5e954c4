package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// A JSON or a TOML file reads as the same YAML file does: same keys, same
// values of the same types, the same strictness.
func TestReadFileJSONAndTOML(t *testing.T) {
	yamlVals, err := ReadFile("f.yaml", []byte("seed: 18446744073709551615\nthreads: 3\npolish: true\n"+
		"embedding:\n  dim: 16\n  sigma2: 2.5\n  mode: EXACT\ngraph:\n  node_labels: [A, B]\nneo4j:\n  connect_timeout: 5s\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"f.json": `{"seed": 18446744073709551615, "Threads": 3, "polish": true,
			"embedding": {"dim": 16, "sigma2": 2.5, "mode": "EXACT"},
			"graph": {"node_labels": ["A", "B"]}, "neo4j": {"connect_timeout": "5s"}}`,
		"f.toml": "seed = 18446744073709551615\nthreads = 3\npolish = true\n[embedding]\ndim = 16\nsigma2 = 2.5\nmode = \"EXACT\"\n" +
			"[graph]\nnode_labels = [\"A\", \"B\"]\n[neo4j]\nconnect_timeout = \"5s\"\n",
	} {
		if name == "f.toml" { // TOML's integers are int64: the seed is the largest
			data = strings.Replace(data, "18446744073709551615", "9223372036854775807", 1)
		}
		got, err := ReadFile(name, []byte(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(yamlVals) {
			t.Errorf("%s: %d keys, want %d: %v", name, len(got), len(yamlVals), got)
		}
		for k, w := range yamlVals {
			if k == "seed" && name == "f.toml" {
				w.Value = uint64(9223372036854775807)
			}
			if v := got[k]; !reflect.DeepEqual(v.Value, w.Value) || v.Source != (Source{FromFile, name}) {
				t.Errorf("%s: %s = %#v from %v, want %#v", name, k, v.Value, v.Source, w.Value)
			}
		}
	}
	for _, c := range []struct{ name, data, want string }{
		{"f.json", `{"embedding": {"dimm": 5}}`, `config file f.json: embedding.dimm: unknown key (did you mean embedding.dim?)`},
		{"f.json", `{"threads": "two"}`, `config file f.json: threads = "two": want a non-negative integer`},
		{"f.json", `{"seed": 1.5}`, `config file f.json: seed = 1.5: want a non-negative integer`},
		{"f.json", `[1, 2]`, `config file f.json: want a JSON mapping of keys`},
		{"f.json", "{\"seed\": 1,\n}", `config file f.json: not valid JSON: line 2: invalid character '}'`},
		{"f.json", `{"seed": 1} {"seed": 2}`, `text after the first value`},
		{"f.toml", "threads = -1\n", `config file f.toml: threads = -1: want a non-negative integer`},
		{"f.toml", "[neo4j]\npassword = \"hunter2\"\n", `neo4j.password must not be in the config file`},
		{"f.toml", "top = 1\nseed = \n", `config file f.toml: not valid TOML: line 2:`},
		{"F.JSON", `{"seed": "x"}`, `config file F.JSON: seed = "x"`},
		{"f.yaml", "Seed: 1\nseed: 2\n", `they are the same setting`},
		{"f.yaml", "embedding:\n  Dim: 1\n  dim: 2\n", `they are the same setting`},
		{"f.json", `{"Seed": 1, "seed": 2}`, `they are the same setting`},
	} {
		_, err := ReadFile(c.name, []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %q: err = %v, want %q", c.name, c.data, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the password shows in %q", err)
		}
	}
	// Any other name is YAML.
	if got, err := ReadFile("fondue-config", []byte("seed: 4\n")); err != nil || got["seed"].Value != uint64(4) {
		t.Errorf("a file without extension: %v, %v", got, err)
	}
}

// Load finds the first fondue.yaml, .yml, .json or .toml of its folders,
// ignores any other fondue.* and reads a named file whatever its name.
func TestLoadFindsTheFile(t *testing.T) {
	t.Setenv("FONDUE_SEED", "")
	first, second := t.TempDir(), t.TempDir()
	write := func(dir, name, data string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	seed := func(src Sources) uint64 {
		t.Helper()
		c, err := Load(src)
		if err != nil {
			t.Fatal(err)
		}
		return c.Engine.Seed
	}
	dirs := []string{first, second}
	if got := seed(Sources{Dirs: dirs}); got != 1 {
		t.Errorf("no file: seed %d, want the default 1", got)
	}
	write(first, "fondue.ini", "seed=9\n")
	write(first, "fondue.env", "FONDUE_SEED=9\n")
	write(second, "fondue.toml", "seed = 2\n")
	if got := seed(Sources{Dirs: dirs}); got != 2 {
		t.Errorf("fondue.toml of the second folder: seed %d, want 2", got)
	}
	write(first, "fondue.json", `{"seed": 3}`)
	if got := seed(Sources{Dirs: dirs}); got != 3 {
		t.Errorf("fondue.json of the first folder: seed %d, want 3", got)
	}
	write(first, "fondue.yaml", "seed: 4\n")
	if got := seed(Sources{Dirs: dirs}); got != 4 {
		t.Errorf("fondue.yaml before fondue.json: seed %d, want 4", got)
	}
	named := write(second, "settings", "seed: 5\n")
	if got := seed(Sources{File: named, Dirs: dirs}); got != 5 {
		t.Errorf("the file named: seed %d, want 5", got)
	}
	bad := write(second, "bad.json", `{"seed": -1}`)
	if _, err := Load(Sources{File: bad}); err == nil || err.Error() != "config file "+bad+": seed = -1: want a non-negative integer" {
		t.Errorf("bad file: %v", err)
	}
}

// Load: flag > environment > file > default, each source checked and
// named; a switch that may be auto keeps "auto" from a flag.
func TestLoadPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(file, []byte(`{"seed": 3, "threads": 2, "embedding": {"dim": 4}, "lock": {"ttl": "5m"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FONDUE_EMBEDDING_DIM", "5")
	t.Setenv("FONDUE_CONCURRENCY", "7")
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Uint64("seed", 1, "")
	fs.Var(&boolOrAuto{"auto"}, "print-header", "") // as internal/app/cli's
	fs.String("node-labels", "", "")
	if err := fs.Parse([]string{"--seed", "6", "--print-header", "auto", "--node-labels", "A,B"}); err != nil {
		t.Fatal(err)
	}
	flags := map[string]*pflag.Flag{"seed": fs.Lookup("seed"), "print_header": fs.Lookup("print-header"),
		"graph.node_labels": fs.Lookup("node-labels")}
	c, err := Load(Sources{File: file, Flags: flags})
	if err != nil {
		t.Fatal(err)
	}
	if c.Engine.Seed != 6 || c.Engine.Threads != 7 || c.Engine.Embedding.Dim != 5 || c.Lock.TTL != 5*time.Minute ||
		c.Output.PrintHeader != "auto" || !reflect.DeepEqual(c.Graph.NodeLabels, []string{"A", "B"}) || c.Engine.Method != settingDefault(t, "method") {
		t.Errorf("loaded: %+v", c)
	}
	t.Setenv("FONDUE_EMBEDDING_DIM", "0")
	if _, err := Load(Sources{File: file, Flags: flags}); err == nil ||
		err.Error() != `environment variable FONDUE_EMBEDDING_DIM: embedding.dim = "0": want a positive integer` {
		t.Errorf("bad variable: %v", err)
	}
}

func settingDefault(t *testing.T, key string) any {
	s, ok := Lookup(key)
	if !ok {
		t.Fatalf("no setting %s", key)
	}
	return s.Default
}

// boolOrAuto is a flag of pflag's type "bool" that may be "auto".
type boolOrAuto struct{ v string }

func (b *boolOrAuto) String() string     { return b.v }
func (b *boolOrAuto) Set(s string) error { b.v = s; return nil }
func (b *boolOrAuto) Type() string       { return "bool" }

// ReadFile never panics on a JSON or TOML file, and what it accepts is
// well-formed, as FuzzReadConfig checks for YAML.
func FuzzReadConfigFormats(f *testing.F) {
	f.Add([]byte(`{"seed": 1, "embedding": {"dim": 8}, "graph": {"node_labels": ["A", "B"]}}`))
	f.Add([]byte("seed = 1\n[embedding]\ndim = 8\n[graph]\nnode_labels = [\"A\", 2]\n"))
	f.Add([]byte(`{"seed": 1e300, "threads": -0, "split": {"min_ambiguity": 0.5}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"fuzz.json", "fuzz.toml"} {
			vals, err := ReadFile(name, data)
			if err != nil {
				if _, ok := err.(*Error); !ok || strings.Contains(err.Error(), "\n") {
					t.Fatalf("%s: error %T of more than one line or not an *Error: %q", name, err, err)
				}
				continue
			}
			for k, v := range vals {
				s, ok := Lookup(k)
				if !ok || s.Key != k {
					t.Fatalf("%s: unknown key %q accepted", name, k)
				}
				if again, err := s.Parse(v.Value); err != nil || !reflect.DeepEqual(again, v.Value) {
					t.Fatalf("%s: %s = %#v parses again to %#v, %v", name, k, v.Value, again, err)
				}
			}
		}
	})
}
