package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// writeFile writes a file of the test and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantOneLine fails unless stderr is exactly one line.
func wantOneLine(t *testing.T, what, stderr string) {
	t.Helper()
	if !strings.HasSuffix(stderr, "\n") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("%s: want exactly one line on stderr, got %q", what, stderr)
	}
}

// Bad config and environment values stop the run with exit code 2 and one
// line naming the key, where it came from and what was expected; they do
// not fall back to defaults.
func TestConfigValuesStrict(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		env  map[string]string
		file string // config file content, "" for none
		args []string
		want string
	}{
		{map[string]string{"FONDUE_THREADS": "two"}, "", nil, `environment variable FONDUE_THREADS: threads = "two": want a non-negative integer`},
		{nil, "threads: two\n", nil, `threads = "two": want a non-negative integer`},
		{nil, "polish: maybe\n", nil, `polish = "maybe": want true or false`},
		{nil, "random_splits: lots\n", nil, `random_splits = "lots": want an integer (-1: none; default 100)`},
		{map[string]string{"FONDUE_RANDOM_SPLITS": "0"}, "", nil, `random_splits 0: give -1 for no random splits, or leave it out for the default (100)`},
		{nil, "", []string{"--random-splits", "0"}, `random_splits 0: give -1`},
		{map[string]string{"FONDUE_EMBEDDING_SIGMA2": "abc"}, "", nil, `environment variable FONDUE_EMBEDDING_SIGMA2: embedding.sigma2 = "abc": want a positive number`},
		{nil, "embedding: 5\n", nil, `embedding = 5: embedding is a section of keys (dim, sigma1,`},
		{nil, "embedding:\n  dimm: 16\n", nil, `embedding.dimm: unknown key (did you mean embedding.dim?)`},
		{map[string]string{"FONDUE_EMBEDDING_DIMM": "16"}, "", nil, `environment variable FONDUE_EMBEDDING_DIMM: not a setting of fondue-neo4j (did you mean FONDUE_EMBEDDING_DIM?)`},
		{map[string]string{"FONDUE_POLISH": "maybe"}, "", nil, `FONDUE_POLISH: polish = "maybe": want true or false`},
		{nil, "", []string{"--config", dir}, "is a directory: give the path of a YAML file"},
		{nil, "neo4j:\n  connect_timeout: 10\n", nil, `neo4j.connect_timeout = 10: want a positive duration`},
		{map[string]string{"FONDUE_TOP": "-3"}, "", nil, `FONDUE_TOP: top = "-3": want a non-negative integer`},
		{map[string]string{"FONDUE_OUTPUT": "xml"}, "", nil, `FONDUE_OUTPUT: output = "xml": want one of text, tsv, json`},
		{map[string]string{"FONDUE_CONFIG": filepath.Join(dir, "nope.yaml")}, "", nil, "nope.yaml not found (FONDUE_CONFIG)"},
	}
	for _, c := range cases {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		args := append([]string{"score", lesmis}, c.args...)
		if c.file != "" {
			args = append(args, "--config", writeFile(t, dir, "c.yaml", c.file))
		}
		code, out, stderr := runCLI(t, "", args...)
		if code != exitUsage || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v %v %q: exit %d, stderr %q; want exit 2 and %q", c.env, c.args, c.file, code, stderr, c.want)
		}
		if c.file != "" && !strings.Contains(stderr, "config file "+filepath.Join(dir, "c.yaml")) {
			t.Errorf("%q: the message does not name the file: %q", c.file, stderr)
		}
		wantOneLine(t, c.want, stderr)
		for k := range c.env {
			os.Unsetenv(k)
		}
	}
}

// A config file is YAML whatever its name (viper wanted an extension).
func TestConfigFileWithoutExtension(t *testing.T) {
	cfg := writeFile(t, t.TempDir(), "fondue-config", "top: 2\noutput: json\n")
	code, out, stderr := runCLI(t, "", "score", lesmis, "--config", cfg)
	var rows []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 2 {
		t.Fatalf("exit %d, %q %s", code, out, stderr)
	}
}

// Every flag of score, review, sync and undo has a setting, hence a config
// key and an environment variable (the README says so), and its default is
// the setting's default.
func TestEveryFlagHasASetting(t *testing.T) {
	root := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}).rootCmd()
	for _, name := range []string{"score", "review", "sync", "undo"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
		fs.AddFlagSet(cmd.LocalFlags())
		fs.AddFlagSet(root.PersistentFlags())
		fs.VisitAll(func(f *pflag.Flag) {
			if f.Name == "config" || cli.DeprecatedFor(f) != "" { // FONDUE_CONFIG; a file cannot name itself; an older name
				return
			}
			key, ok := cli.KeyOf(f)
			if !ok {
				t.Errorf("%s --%s has no configuration key", name, f.Name)
				return
			}
			s, ok := config.Lookup(key)
			if !ok {
				t.Errorf("%s --%s: key %s is not a setting", name, f.Name, key)
				return
			}
			def, err := s.Parse(cli.FlagValue(f))
			if err != nil || !reflect.DeepEqual(def, s.Default) {
				t.Errorf("%s --%s: default %q (%v), setting %s defaults to %#v", name, f.Name, f.DefValue, err, key, s.Default)
			}
		})
	}
}

// The flags the README named as lacking one have a working environment
// variable.
func TestScoreFlagsFromEnvironment(t *testing.T) {
	t.Setenv("FONDUE_TOP", "2")
	t.Setenv("FONDUE_OUTPUT", "json")
	code, out, stderr := runCLI(t, "", "score", lesmis)
	var rows []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 2 {
		t.Fatalf("FONDUE_TOP=2 FONDUE_OUTPUT=json: exit %d, %q %s", code, out, stderr)
	}
	os.Unsetenv("FONDUE_TOP")
	os.Unsetenv("FONDUE_OUTPUT")
	// With a header, the first line "1 2" is skipped: 3 edges, not 4.
	in := "1 2\n2 3\n3 4\n4 2\n"
	code, out, _ = runCLI(t, in, "score", "-", "--method", "degree")
	t.Setenv("FONDUE_HEADER", "yes")
	code2, out2, _ := runCLI(t, in, "score", "-", "--method", "degree")
	if code != 0 || code2 != 0 || strings.Count(out, "\n") != 4 || strings.Count(out2, "\n") != 3 {
		t.Fatalf("FONDUE_HEADER=yes: %q then %q", out, out2)
	}
}

// One vocabulary: --output everywhere (score's --format still works),
// --concurrency for --threads, and undo --run-id like sync --run-id
// (undo's --run still works).
func TestFlagAliases(t *testing.T) {
	code, a, _ := runCLI(t, "", "score", lesmis, "--top", "3", "--output", "json", "--threads", "1")
	code2, b, _ := runCLI(t, "", "score", lesmis, "--top", "3", "--format", "json", "--concurrency", "1")
	if code != 0 || code2 != 0 || a != b || !strings.HasPrefix(a, "[") {
		t.Fatalf("--format/--concurrency differ from --output/--threads: %q vs %q", a, b)
	}
	var seen string
	capture := func(args ...string) string {
		t.Helper()
		app := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
		root := app.rootCmd()
		undo, _, _ := root.Find([]string{"undo"})
		undo.RunE = func(cmd *cobra.Command, _ []string) error {
			seen = app.cfg.RunID
			return nil
		}
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		return seen
	}
	if capture("undo", "--run-id", "r1") != "r1" || capture("undo", "--run", "r2") != "r2" {
		t.Fatalf("undo --run-id / --run not read: %q", seen)
	}
	t.Setenv("FONDUE_RUN_ID", "r3")
	if capture("undo") != "r3" {
		t.Fatalf("FONDUE_RUN_ID not read by undo: %q", seen)
	}
	root := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}).rootCmd()
	undo, _, _ := root.Find([]string{"undo"})
	if undo.Flags().Lookup("run-id") == nil || !strings.Contains(undo.UsageString(), "--run-id") || strings.Contains(undo.UsageString(), "--run ") {
		t.Fatalf("undo's help should show --run-id only:\n%s", undo.UsageString())
	}
}

// Shell completion offers the values of --method, --output (--format),
// --splitter and the other flags that take one of a few names.
func TestCompletionValues(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "score", "--method", ""}, []string{"fondue", "degree", "cc", "nc"}},
		{[]string{"__complete", "score", "--output", ""}, []string{"text", "tsv", "json"}},
		{[]string{"__complete", "score", "--format", ""}, []string{"text", "tsv", "json"}},
		{[]string{"__complete", "score", "--splitter", ""}, []string{"ncut", "mcl", "fondue"}},
		{[]string{"__complete", "review", "--splitter", ""}, []string{"ncut", "mcl", "fondue"}},
		{[]string{"__complete", "review", "--header", ""}, []string{"auto", "yes", "no"}},
		{[]string{"__complete", "score", "--print-header="}, []string{"auto", "true", "false"}},
		{[]string{"__complete", "sync", "--splitter", ""}, []string{"ncut", "mcl"}},
		{[]string{"__complete", "sync", "--output", ""}, []string{"text", "json"}},
		{[]string{"__complete", "score", "--mode", ""}, []string{"auto", "exact", "sampled"}},
		{[]string{"__complete", "estimate", "--output", ""}, []string{"text", "json"}},
	}
	// Help and completion work whatever the configuration.
	t.Setenv("FONDUE_NOT_A_SETTING", "1")
	for _, args := range [][]string{{"help", "score"}, {"help", "review"}, {"completion", "bash"}, {"__complete", "score", "--method", ""}, {"--version"}} {
		if code, out, stderr := runCLI(t, "", args...); code != 0 || out == "" {
			t.Errorf("%v with a bad environment: exit %d, %s", args, code, stderr)
		}
	}
	os.Unsetenv("FONDUE_NOT_A_SETTING")
	for _, c := range cases {
		code, out, stderr := runCLI(t, "", c.args...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for _, w := range c.want {
			if code != 0 || !slices.ContainsFunc(lines, func(l string) bool { return l == w || strings.HasSuffix(l, "="+w) }) {
				t.Errorf("%v: exit %d, completions %q lack %q (%s)", c.args, code, lines, w, stderr)
			}
		}
	}
}

// Every FONDUE_* variable the module's code reads (os.Getenv or
// os.LookupEnv of a literal, or a constant naming one, in any Go file, the
// test harnesses' and the bench's included) is a setting or FONDUE_CONFIG:
// the harness's variables (TESTENV_*) and the bench's (BENCH_DATASETS) are
// outside the product's names, so a developer's TESTENV_NEO4J_VERSIONS
// cannot stop the CLI, and the Neo4j tests run the CLI with them around.
func TestHarnessVariablesAreNotUnknown(t *testing.T) {
	read := regexp.MustCompile(`(?:Getenv|LookupEnv)\("([A-Z][A-Z0-9_]+)"\)|(?m)^\s*(?:const\s+)?\w+\s*=\s*"((?:FONDUE|TESTENV|BENCH)_[A-Z0-9_]+)"`)
	found := map[string]string{} // variable -> a file reading it
	javaHome := false
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != "../.." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range read.FindAllStringSubmatch(string(b), -1) {
			found[m[1]+m[2]] = path
		}
		javaHome = javaHome || strings.Contains(string(b), `"TESTENV_JAVA" + `)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"TESTENV_NEO4J_VERSIONS", "TESTENV_MAVEN", "TESTENV_CACHE", "TESTENV_CHROMIUM", "BENCH_DATASETS", "FONDUE_CONFIG"} {
		if found[v] == "" {
			t.Errorf("%s: got no file reading it, want one: is the pattern right?", v)
		}
	}
	if !javaHome {
		t.Error(`got no "TESTENV_JAVA" + N + "_HOME", want one: is the pattern right?`)
	}
	for v, file := range found {
		if !strings.HasPrefix(v, config.EnvPrefix) {
			continue
		}
		t.Run(v, func(t *testing.T) {
			if _, err := config.ReadEnv([]string{v + "=x"}); err != nil && strings.Contains(err.Error(), "not a setting") {
				t.Errorf("read in %s: got %v, want a setting or FONDUE_CONFIG", file, err)
			}
		})
	}
	// And the CLI runs with the harness's and the bench's variables set.
	for v := range found {
		if strings.HasPrefix(v, "TESTENV_") || strings.HasPrefix(v, "BENCH_") {
			t.Setenv(v, "x")
		}
	}
	t.Setenv("TESTENV_JAVA17_HOME", "/nonexistent")
	if code, _, stderr := runCLI(t, "", "score", lesmis, "--top", "1", "--method", "degree"); code != 0 {
		t.Errorf("with the harness's variables set: got exit %d (%s), want 0", code, stderr)
	}
}

// docPages returns the text of README.md and of every page of docs/, by
// their paths from the repository's root.
func docPages(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for _, p := range append([]string{"../../README.md"}, paths...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pages[strings.TrimPrefix(p, "../../")] = string(data)
	}
	if len(pages) < 5 {
		t.Fatalf("only %d pages of documentation: %q", len(pages), slices.Collect(maps.Keys(pages)))
	}
	return pages
}

// runsBench matches a command line that runs fondue-bench.
var runsBench = regexp.MustCompile(`\ngo run \./(bench/)?bench/cmd/fondue-bench`)

// Every --flag that the README and the pages of docs/ name is a flag of
// some command (an older name such as --format included): documented flags
// are real. The sections that run fondue-bench are its own test's
// (fondue-bench's TestDocumentedFlagsExist).
func TestDocumentedFlagsExist(t *testing.T) {
	root := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}).rootCmd()
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	var cmds []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		cmds = append(cmds, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for file, text := range docPages(t) {
		var data []byte
		for _, sec := range strings.Split(text, "\n## ") {
			if !runsBench.MatchString(sec) {
				data = append(data, "\n## "+sec...)
			}
		}
		checkFlagsExist(t, file, string(data), cmds)
	}
}

// checkFlagsExist reports each --flag of data that none of cmds has.
func checkFlagsExist(t *testing.T, file, data string, cmds []*cobra.Command) {
	t.Helper()
	// Other tools' flags: docker compose up --wait, kubectl create secret
	// --from-file, the node exporter's --collector.textfile.directory, and
	// fondue-bench's --ties (docs/method.md, on the paper's AUC convention).
	notOurs := map[string]bool{"wait": true, "from-file": true, "collector": true, "ties": true}
	for _, m := range regexp.MustCompile("(?:^|[\\s`(\\[])--([a-z][a-z0-9-]*)").FindAllStringSubmatch(data, -1) {
		name := m[1]
		if notOurs[name] {
			continue
		}
		if !slices.ContainsFunc(cmds, func(c *cobra.Command) bool { return c.Flags().Lookup(name) != nil }) {
			t.Errorf("%s names --%s, which no command has", file, name)
		}
	}
}
