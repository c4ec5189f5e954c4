package config

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestReadFileValues(t *testing.T) {
	data := `
# a comment
seed: 18446744073709551615
Threads: "3"
polish: yes
unnormalized: off
embedding:
  dim: 16
  sigma2: 3
  mode: EXACT
  checkpoint:
graph:
  node_labels: [Author, Paper, "Padded ", 'We"ird']
  relationship_types: "A, B,"
neo4j:
  connect_timeout: 5s
split:
  min_ambiguity: 1
max_memory: 4GiB
log:
`
	got, err := ReadFile("f.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"seed": uint64(18446744073709551615), "threads": 3, "polish": true, "unnormalized": false,
		"embedding.dim": 16, "embedding.sigma2": 3.0, "embedding.mode": "exact", "embedding.checkpoint": "",
		"graph.node_labels": []string{"Author", "Paper", "Padded ", `We"ird`}, "graph.relationship_types": []string{"A", " B"},
		"neo4j.connect_timeout": "5s", "split.min_ambiguity": 1.0, "max_memory": "4GiB",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d keys, want %d: %v", len(got), len(want), got)
	}
	for k, w := range want {
		v, ok := got[k]
		if !ok || !reflect.DeepEqual(v.Value, w) || v.Source != (Source{FromFile, "f.yaml"}) {
			t.Errorf("%s = %#v from %v, want %#v", k, v.Value, v.Source, w)
		}
	}
	if got, err := ReadFile("empty.yaml", nil); err != nil || len(got) != 0 {
		t.Fatalf("empty file: %v %v", got, err)
	}
	if got, err := ReadFile("c.yaml", []byte("# only comments\n")); err != nil || len(got) != 0 {
		t.Fatalf("comments only: %v %v", got, err)
	}
	if got, err := ReadFile("a.yaml", []byte("concurrency: 4\n")); err != nil || got["threads"].Value != 4 {
		t.Fatalf("alias: %v %v", got, err)
	}
}

// Every wrong file is one error naming the file, the key and the value,
// and saying what was expected.
func TestReadFileErrors(t *testing.T) {
	cases := []struct{ data, want string }{
		{"threads: two\n", `config file f.yaml: threads = "two": want a non-negative integer (0: all cores)`},
		{"threads: -1\n", `config file f.yaml: threads = -1: want a non-negative integer`},
		{"threads: 1.5\n", `threads = 1.5: want a non-negative integer`},
		{"polish: maybe\n", `config file f.yaml: polish = "maybe": want true or false`},
		{"random_splits: lots\n", `config file f.yaml: random_splits = "lots": want an integer (-1: none; default 100)`},
		{"embedding: 5\n", `config file f.yaml: embedding = 5: embedding is a section of keys (dim, sigma1, sigma2,`},
		{"embedding:\n  dimm: 5\n", `config file f.yaml: embedding.dimm: unknown key (did you mean embedding.dim?)`},
		{"random-splits: 5\n", `random-splits: unknown key (did you mean random_splits?)`},
		{"nonsense: 1\n", `config file f.yaml: nonsense: unknown key; the keys are listed in config.example.yaml`},
		{"embedding:\n  sigma2: abc\n", `embedding.sigma2 = "abc": want a positive number`},
		{"embedding:\n  dim: [8]\n", `embedding.dim = a list: want a positive integer`},
		{"embedding:\n  dim:\n", `embedding.dim: no value: want a positive integer`},
		{"neo4j:\n  connect_timeout: 10\n", `neo4j.connect_timeout = 10: want a positive duration such as 30s`},
		{"neo4j:\n  password: hunter2\n", `config file f.yaml: neo4j.password must not be in the config file`},
		{"graph:\n  node_labels: [{a: 1}]\n", `graph.node_labels = a list: want a list of names`},
		{"method: pagerank\n", `method = "pagerank": want one of combined, fondue, degree, cc, nc, lcc`},
		{"max_memory: lots\n", `max_memory = "lots": want a size such as 4GiB`},
		{"split:\n  min_ambiguity: 2\n", `split.min_ambiguity = 2: want a number between 0 and 1`},
		{"threads: 2\nconcurrency: 3\n", `they are the same setting`},
		{"- seed\n", `config file f.yaml: want a YAML mapping of keys (such as 'seed: 1'), found a list`},
		{"seed\n", `want a YAML mapping of keys`},
		{"seed: [1,\n", `config file f.yaml: not valid YAML`},
		{"seed: 1\nseed: 2\n", `not valid YAML: line 2: mapping key "seed" already defined at line 1`},
		{"seed: 1\n---\nseed: 2\n", `more than one YAML document`},
		{"1: 2\n", `want a YAML mapping of keys`},
	}
	for _, c := range cases {
		t.Run(c.data, func(t *testing.T) {
			_, err := ReadFile("f.yaml", []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got error %v, want one with %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("got an error of more than one line, %q; want one line", err)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("got %q, want an error without the password", err)
			}
		})
	}
}

func TestReadEnv(t *testing.T) {
	got, err := ReadEnv([]string{"HOME=/x", "FONDUE_THREADS=2", "FONDUE_EMBEDDING_SIGMA2=2.5", "FONDUE_CONFIG=x.yaml",
		"BENCH_DATASETS=/d", "TESTENV_JAVA25_HOME=/jdk", "TESTENV_NEO4J_VERSIONS=5.26", "FONDUE_GRAPH_NODE_LABELS=A,B", "FONDUE_GRAPH_RELATIONSHIP_TYPES= X,Y\"s ", "FONDUE_POLISH=true", "FONDUE_SEED=", "FONDUE_TOP=10",
		"FONDUE_OUTPUT=JSON", "FONDUE_HEADER=no"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"threads": 2, "embedding.sigma2": 2.5, "graph.node_labels": []string{"A", "B"},
		"graph.relationship_types": []string{" X", `Y"s `}, "polish": true,
		"top": 10, "output": "json", "header": "no"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, w := range want {
		if v := got[k]; !reflect.DeepEqual(v.Value, w) || v.Source.Kind != FromEnv || v.Source.Name != EnvName(k) {
			t.Errorf("%s = %#v from %v, want %#v", k, v.Value, v.Source, w)
		}
	}
	if got, err := ReadEnv([]string{"FONDUE_CONCURRENCY=3"}); err != nil || got["threads"].Value != 3 {
		t.Fatalf("alias: %v %v", got, err)
	}
	cases := []struct {
		env  []string
		want string
	}{
		{[]string{"FONDUE_THREADS=two"}, `environment variable FONDUE_THREADS: threads = "two": want a non-negative integer (0: all cores)`},
		{[]string{"FONDUE_EMBEDDING_SIGMA2=abc"}, `environment variable FONDUE_EMBEDDING_SIGMA2: embedding.sigma2 = "abc": want a positive number`},
		{[]string{"FONDUE_POLISH=maybe"}, `FONDUE_POLISH: polish = "maybe": want true or false`},
		{[]string{"FONDUE_EMBEDDING_DIMM=5"}, `environment variable FONDUE_EMBEDDING_DIMM: not a setting of fondue-neo4j (did you mean FONDUE_EMBEDDING_DIM?)`},
		{[]string{"FONDUE_WHATEVER=1"}, `FONDUE_WHATEVER: not a setting of fondue-neo4j; unset it`},
		{[]string{"FONDUE_THREADS=1", "FONDUE_CONCURRENCY=2"}, `FONDUE_CONCURRENCY and FONDUE_THREADS are the same setting (threads)`},
		{[]string{"FONDUE_NEO4J_CONNECT_TIMEOUT=soon"}, `want a positive duration`},
		// The test harness's variables left the FONDUE_ names: an old one
		// is unknown like any other.
		{[]string{"FONDUE_MAVEN=mvn"}, `FONDUE_MAVEN: not a setting of fondue-neo4j`},
		{[]string{"FONDUE_JAVA17_HOME=/jdk"}, `FONDUE_JAVA17_HOME: not a setting of fondue-neo4j`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.env, " "), func(t *testing.T) {
			_, err := ReadEnv(c.env)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got error %v, want one with %q", err, c.want)
			}
		})
	}
}

// Every default is a valid value of its setting, as it is.
func TestDefaultsParse(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Settings() {
		if seen[s.Key] || s.Key != strings.ToLower(s.Key) {
			t.Errorf("key %q twice or not lower case", s.Key)
		}
		seen[s.Key] = true
		v, err := s.Parse(s.Default)
		if err != nil || !reflect.DeepEqual(v, s.Default) {
			t.Errorf("%s: default %#v parses to %#v, %v", s.Key, s.Default, v, err)
		}
	}
	for _, s := range Settings() {
		for _, a := range s.Aliases {
			if l, ok := Lookup(a); !ok || l.Key != s.Key || seen[a] {
				t.Errorf("alias %s -> %s", a, s.Key)
			}
		}
	}
}

// The config readers never panic, and what they accept is well-formed:
// known keys, values of their setting's kind that parse again unchanged.
func FuzzReadConfig(f *testing.F) {
	f.Add([]byte("seed: 1\nembedding:\n  dim: 8\n"), "FONDUE_THREADS=2")
	f.Add([]byte("graph:\n  node_labels: [A, B]\nneo4j:\n  connect_timeout: 5s\n"), "FONDUE_POLISH=yes\nFONDUE_GRAPH_NODE_LABELS=A,B")
	f.Add([]byte("embedding: 5\n"), "FONDUE_EMBEDDING_DIMM=1")
	f.Add([]byte("a: &x [1, *x]\n"), "FONDUE_MAX_MEMORY=4GiB")
	f.Fuzz(func(t *testing.T, data []byte, env string) {
		check := func(vals map[string]Value, err error) {
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error of more than one line: %q", err)
				}
				if _, ok := err.(*Error); !ok {
					t.Fatalf("error of type %T: %v", err, err)
				}
				return
			}
			for k, v := range vals {
				s, ok := Lookup(k)
				if !ok || s.Key != k {
					t.Fatalf("unknown key %q accepted", k)
				}
				again, err := s.Parse(v.Value)
				if err != nil || !reflect.DeepEqual(again, v.Value) {
					t.Fatalf("%s = %#v parses again to %#v, %v", k, v.Value, again, err)
				}
			}
		}
		check(ReadFile("fuzz.yaml", data))
		check(ReadEnv(strings.Split(env, "\n")))
	})
}

// A relative path in a config file is relative to the file's folder, not to
// the working directory; an absolute path, "-" (standard input or output)
// and paths from flags or the environment are left alone.
func TestReadFileRelativePaths(t *testing.T) {
	yaml := []byte("neo4j:\n  password_file: secrets/pw.txt\nembedding:\n  checkpoint: /abs/emb.ckpt\n" +
		"names: names.tsv\nscore_nodes: ../ids.txt\nreview:\n  out: '-'\n  plan: plan.json\nsplit:\n  plan: plan.json\n")
	vals, err := ReadFile(filepath.Join("etc", "fondue", "fondue.yaml"), yaml)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"neo4j.password_file":  filepath.Join("etc", "fondue", "secrets", "pw.txt"),
		"embedding.checkpoint": "/abs/emb.ckpt",
		"names":                filepath.Join("etc", "fondue", "names.tsv"),
		"score_nodes":          filepath.Join("etc", "ids.txt"),
		"review.out":           "-",
		"review.plan":          filepath.Join("etc", "fondue", "plan.json"),
		"split.plan":           filepath.Join("etc", "fondue", "plan.json"),
	} {
		if got := vals[key].Value; got != want {
			t.Errorf("%s = %v, want %s", key, got, want)
		}
	}
	env, err := ReadEnv([]string{"FONDUE_NEO4J_PASSWORD_FILE=pw.txt"})
	if err != nil || env["neo4j.password_file"].Value != "pw.txt" {
		t.Errorf("environment: %v, %v", env["neo4j.password_file"], err)
	}
}

// Every setting that names a file is a path (Setting.Path), so that a
// config file resolves it against its folder; no other is.
func TestPathSettings(t *testing.T) {
	var paths []string
	for _, s := range Settings() {
		if s.Path {
			paths = append(paths, s.Key)
			if s.Kind != String {
				t.Errorf("%s is a path of kind %v", s.Key, s.Kind)
			}
		}
	}
	want := []string{"embedding.checkpoint", "names", "score_nodes", "review.out", "review.plan", "review.approved", "neo4j.password_file", "split.plan"}
	if !slices.Equal(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
}
