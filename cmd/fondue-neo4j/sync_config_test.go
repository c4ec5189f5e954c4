package main

// The configuration of sync and undo: no database needed (the Neo4j
// integration tests are in ./neo4jtests).

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// syncSettingsOf returns the settings "sync args..." runs with.
func syncSettingsOf(args ...string) (*syncSettings, error) {
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errb)
	root := a.rootCmd()
	sc, _, _ := root.Find([]string{"sync"})
	var got *syncSettings
	sc.RunE = func(cmd *cobra.Command, _ []string) error {
		s, err := a.syncSettings()
		got = s
		return err
	}
	root.SetArgs(append([]string{"sync"}, args...))
	err := root.ExecuteContext(context.Background())
	return got, err
}

// graph.display_property is one property or a list of them (the first a
// node has names it), in a file (a YAML list or a string), a variable or a
// flag (comma-separated).
func TestSyncDisplayProperties(t *testing.T) {
	dir := t.TempDir()
	file := func(yaml string) string {
		p := filepath.Join(dir, "fondue.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		yaml, env string
		flags     []string
		want      []string
	}{
		{yaml: "graph:\n  display_property: name\n", want: []string{"name"}},
		{yaml: "graph:\n  display_property: [name, title]\n", want: []string{"name", "title"}},
		{yaml: "graph:\n  display_property:\n    - title\n    - name\n", want: []string{"title", "name"}},
		{yaml: "graph:\n  display_property: \"name,title\"\n", want: []string{"name", "title"}},
		{yaml: "graph:\n  display_property: []\n", want: nil},
		{yaml: "graph:\n  display_property: name\n", env: "title,name", want: []string{"title", "name"}},
		{yaml: "graph:\n  display_property: name\n", env: "title", flags: []string{"--display-property", "name,title"}, want: []string{"name", "title"}},
		{flags: []string{"--display-property", "name", "--display-property", "title"}, want: []string{"name", "title"}},
	} {
		t.Setenv("FONDUE_GRAPH_DISPLAY_PROPERTY", tc.env)
		s, err := syncSettingsOf(append([]string{"--config", file(tc.yaml)}, tc.flags...)...)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if !slices.Equal(s.pull.DisplayProperties, tc.want) {
			t.Errorf("%+v: display properties %q, want %q", tc, s.pull.DisplayProperties, tc.want)
		}
	}
}

// flag > environment > file > default, for the connector's keys too.
func TestSyncConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "fondue.yaml")
	os.WriteFile(cfg, []byte("neo4j:\n  uri: bolt://file:7687\n  database: filedb\ngraph:\n  node_labels: [A, 'B C']\n  id_property: uid\nwrite:\n  batch_size: 7\nsplit:\n  enabled: true\n  top: 3\nlock:\n  ttl: 5m\n"), 0o644)
	capture := func(args ...string) *syncSettings {
		t.Helper()
		s, err := syncSettingsOf(append([]string{"--config", cfg}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := capture()
	if s.conn.URI != "bolt://file:7687" || s.conn.Database != "filedb" || strings.Join(s.pull.NodeLabels, "|") != "A|B C" ||
		s.write.BatchSize != 7 || !s.split || s.engine.Split.Top != 3 || s.engine.Split.Splitter != split.Named("") ||
		s.lock.TTL != 5*time.Minute || s.write.Property != "ambiguity" || s.conn.Password != "" {
		t.Fatalf("file: %+v", s)
	}
	t.Setenv("FONDUE_NEO4J_URI", "bolt://env:7687")
	t.Setenv("FONDUE_GRAPH_NODE_LABELS", "X, Y")
	t.Setenv("FONDUE_WRITE_BATCH_SIZE", "8")
	t.Setenv("FONDUE_NEO4J_PASSWORD", "pw")
	s = capture()
	// Names are literal: the space after the comma is part of " Y".
	if s.conn.URI != "bolt://env:7687" || strings.Join(s.pull.NodeLabels, "|") != "X| Y" || s.write.BatchSize != 8 || s.conn.Password != "pw" {
		t.Fatalf("env: %+v", s)
	}
	// The password: --password-file > FONDUE_NEO4J_PASSWORD > neo4j.password_file.
	pwFile := filepath.Join(dir, "pw")
	os.WriteFile(pwFile, []byte("from-file\n"), 0o600)
	t.Setenv("FONDUE_NEO4J_PASSWORD_FILE", pwFile)
	if s = capture(); s.conn.Password != "pw" {
		t.Fatalf("env password over password_file: %q", s.conn.Password)
	}
	if s = capture("--password-file", pwFile); s.conn.Password != "from-file" {
		t.Fatalf("--password-file over env: %q", s.conn.Password)
	}
	os.Unsetenv("FONDUE_NEO4J_PASSWORD")
	if s = capture(); s.conn.Password != "from-file" {
		t.Fatalf("password_file: %q", s.conn.Password)
	}
	s = capture("--uri", "bolt://flag:7687", "--node-labels", "F", "--batch-size", "9", "--split=false")
	if s.conn.URI != "bolt://flag:7687" || strings.Join(s.pull.NodeLabels, "|") != "F" || s.write.BatchSize != 9 || s.split || s.engine.Split.Splitter != nil {
		t.Fatalf("flags: %+v", s)
	}
	if c := s.configuration(); c["writeProperty"] != "ambiguity" || c["nodeLabels"].([]string)[0] != "F" {
		t.Fatalf("configuration %v", c)
	}
	for k, v := range s.configuration() {
		if strings.Contains(strings.ToLower(k), "password") || v == "pw" {
			t.Fatalf("configuration shows the password: %s", k)
		}
	}
}

// A splitter that needs an embedding after a baseline is refused by sync
// as by score, with the engine's one message (sync had a message of its
// own that could not be reached).
func TestSyncSplitterNeedsEmbedding(t *testing.T) {
	_, err := syncSettingsOf("--split", "--split-top", "3", "--splitter", "fondue", "--method", "degree")
	want := `splitter "fondue" needs an embedding: score with method "combined" or "fondue", not "degree"`
	if err == nil || !strings.Contains(err.Error(), want) || cli.ExitCode(context.Background(), err) != exitUsage {
		t.Fatalf("err = %v (exit %d), want %q (exit %d)", err, cli.ExitCode(context.Background(), err), want, exitUsage)
	}
}

// The summary says what was scored: on a terminal, the scored nodes per
// label and the five most ambiguous, named; off a terminal, the "sync
// done" record has the same.
func TestSyncReportScored(t *testing.T) {
	var sum syncSummary
	err := json.Unmarshal([]byte(`{"runId": "r1", "nodeCount": 80, "relationshipCount": 254, "nodePropertiesWritten": 154, "unscoredNodes": 3,
		"scored": {"nodes": 77, "labels": {"Character": {"scored": 65, "unscored": 3}, "Movie": {"scored": 12}, "Old": {"unscored": 1}},
		"top": [{"key": 11, "id": "4:x:11", "labels": ["Character"], "name": "Valjean", "ambiguity": 1, "score": 0.974026},
			{"key": 23, "id": "4:x:23", "labels": ["Movie"], "name": "Fantine", "ambiguity": 0.987013, "score": 0.961},
			{"key": 55, "id": "4:x:55", "labels": ["Character", "Paris"], "ambiguity": 0.974026, "score": 0.9545},
			{"key": 48, "id": "4:x:48", "labels": ["Character"], "name": "Gavroche", "ambiguity": 0.961, "score": 0.95},
			{"key": 27, "id": "4:x:27", "labels": ["Character"], "name": "Javert", "ambiguity": 0.948, "score": 0.94},
			{"key": 25, "id": "4:x:25", "labels": ["Character"], "name": "Thenardier", "ambiguity": 0.935, "score": 0.93}]}}`), &sum)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errb)
	a.tty = true
	if err := a.report(&sum, &syncSettings{}); err != nil {
		t.Fatal(err)
	}
	want := `run r1: 80 nodes, 254 relationships; 154 properties written (pull 0s, compute 0s, write 0s)
scored 77 nodes: 65 Character, 12 Movie; 3 isolated nodes not scored
most ambiguous (ambiguity, score, node, labels):
  1.0000  0.974026  11 (Valjean)  :Character
  0.9870  0.961  23 (Fantine)  :Movie
  0.9740  0.9545  55  :Character:Paris
  0.9610  0.95  48 (Gavroche)  :Character
  0.9480  0.94  27 (Javert)  :Character
`
	if errb.String() != want {
		t.Errorf("terminal summary:\n%s\nwant:\n%s", errb.String(), want)
	}

	var logs bytes.Buffer
	a = newApp(strings.NewReader(""), &out, &errb)
	a.log = slog.New(slog.NewJSONHandler(&logs, nil))
	if err := a.report(&sum, &syncSettings{}); err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Msg           string         `json:"msg"`
		ScoredNodes   int            `json:"scoredNodes"`
		UnscoredNodes int            `json:"unscoredNodes"`
		ScoredByLabel map[string]int `json:"scoredByLabel"`
		MostAmbiguous []string       `json:"mostAmbiguous"`
	}
	if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
		t.Fatalf("%v: %s", err, logs.String())
	}
	if rec.Msg != "sync done" || rec.ScoredNodes != 77 || rec.UnscoredNodes != 3 ||
		!maps.Equal(rec.ScoredByLabel, map[string]int{"Character": 65, "Movie": 12, "Old": 0}) ||
		!slices.Equal(rec.MostAmbiguous, []string{"11 (Valjean)", "23 (Fantine)", "55", "48 (Gavroche)", "27 (Javert)"}) {
		t.Errorf("log record: %s", logs.String())
	}
}

// Lists of names are literal wherever they come from: a space or a quote
// is part of the name, as in single names, never trimmed or parsed as CSV.
func TestSyncNamesLiteral(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "fondue.yaml")
	os.WriteFile(cfg, []byte("graph:\n  node_labels: [\"Padded \", ' Lead', 'We\"ird', 'A,B']\n  relationship_types: 'T , U'\nsplit:\n  skip_properties: [\"name \"]\n"), 0o644)
	capture := func(args ...string) (*syncSettings, error) {
		t.Helper()
		var out, errb bytes.Buffer
		a := newApp(strings.NewReader(""), &out, &errb)
		root := a.rootCmd()
		sc, _, _ := root.Find([]string{"sync"})
		var got *syncSettings
		sc.RunE = func(cmd *cobra.Command, _ []string) error {
			s, err := a.syncSettings()
			got = s
			return err
		}
		root.SetArgs(append([]string{"sync", "--config", cfg}, args...))
		return got, root.ExecuteContext(context.Background())
	}
	list := func(xs []string) string { return strings.Join(xs, "|") }
	s, err := capture()
	if err != nil || list(s.pull.NodeLabels) != `Padded | Lead|We"ird|A,B` || list(s.pull.RelationshipTypes) != "T | U" || s.skip[0] != "name " {
		t.Fatalf("file: %q %q %q %v", s.pull.NodeLabels, s.pull.RelationshipTypes, s.skip, err)
	}
	t.Setenv("FONDUE_GRAPH_NODE_LABELS", `Padded ,We"ird`)
	if s, err = capture(); err != nil || list(s.pull.NodeLabels) != `Padded |We"ird` {
		t.Fatalf("environment: %q %v", s.pull.NodeLabels, err)
	}
	// A quote in a flag is part of the name (it used to be a CSV parser's
	// error); the flag can be repeated; a trailing comma adds nothing.
	s, err = capture("--node-labels", `We"ird,Padded `, "--node-labels", ` Lead,`, "--skip-properties", `"quoted"`)
	if err != nil || list(s.pull.NodeLabels) != `We"ird|Padded | Lead` || s.skip[0] != `"quoted"` {
		t.Fatalf("flags: %q %q %v", s.pull.NodeLabels, s.skip, err)
	}
	if c := s.configuration(); list(c["nodeLabels"].([]string)) != `We"ird|Padded | Lead` {
		t.Fatalf("configuration: %v", c["nodeLabels"])
	}
}

// With write.node_labels the summary shows the context nodes per label
// beside the scored ones, on a terminal and in the log record.
func TestSyncReportContext(t *testing.T) {
	var sum syncSummary
	err := json.Unmarshal([]byte(`{"runId": "r2", "nodeCount": 60, "relationshipCount": 90, "nodePropertiesWritten": 40, "unscoredNodes": 1,
		"scored": {"nodes": 20, "context": 39, "labels": {"Author": {"scored": 20, "unscored": 1}, "Paper": {"context": 36}, "Preprint": {"context": 3}},
		"top": [{"key": 7, "id": "4:x:7", "labels": ["Author"], "name": "J. Smith", "ambiguity": 1, "score": 0.99}]}}`), &sum)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errb)
	a.tty = true
	if err := a.report(&sum, &syncSettings{}); err != nil {
		t.Fatal(err)
	}
	if want := "scored 20 nodes: 20 Author; 1 isolated node not scored; 39 context nodes: 36 Paper, 3 Preprint\n"; !strings.Contains(errb.String(), want) {
		t.Errorf("terminal summary:\n%s\nwant the line:\n%s", errb.String(), want)
	}
	var logs bytes.Buffer
	a = newApp(strings.NewReader(""), &out, &errb)
	a.log = slog.New(slog.NewJSONHandler(&logs, nil))
	if err := a.report(&sum, &syncSettings{}); err != nil {
		t.Fatal(err)
	}
	var rec struct {
		ScoredByLabel  map[string]int `json:"scoredByLabel"`
		ContextNodes   int            `json:"contextNodes"`
		ContextByLabel map[string]int `json:"contextByLabel"`
	}
	if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
		t.Fatalf("%v: %s", err, logs.String())
	}
	if rec.ContextNodes != 39 || !maps.Equal(rec.ContextByLabel, map[string]int{"Paper": 36, "Preprint": 3}) || rec.ScoredByLabel["Author"] != 20 {
		t.Errorf("log record: %s", logs.String())
	}
}

// write.node_labels is a list, from a file, FONDUE_WRITE_NODE_LABELS or
// --write-node-labels, and goes to the pull (and the summary's
// configuration).
func TestSyncWriteNodeLabels(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fondue.yaml")
	if err := os.WriteFile(p, []byte("graph:\n  node_labels: [Author, Paper]\nwrite:\n  node_labels: [Paper]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env   string
		flags []string
		want  []string
	}{
		{want: []string{"Paper"}},
		{env: "Author", want: []string{"Author"}},
		{env: "Paper", flags: []string{"--write-node-labels", "Author"}, want: []string{"Author"}},
		{flags: []string{"--node-labels", `We"ird,Author ,Paper`, "--write-node-labels", `We"ird,Author `, "--write-node-labels", "Paper"}, want: []string{`We"ird`, "Author ", "Paper"}}, // literal, repeatable
	} {
		t.Setenv("FONDUE_WRITE_NODE_LABELS", tc.env)
		s, err := syncSettingsOf(append([]string{"--config", p}, tc.flags...)...)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if !slices.Equal(s.pull.WriteNodeLabels, tc.want) || !slices.Equal(s.configuration()["writeNodeLabels"].([]string), tc.want) {
			t.Errorf("%+v: write labels %q, want %q", tc, s.pull.WriteNodeLabels, tc.want)
		}
	}
}

// write.entities_property: ambiguity_entities by default, "" turns it
// off, it must differ from the other written properties, and it is never
// copied to split nodes.
func TestSyncEntitiesProperty(t *testing.T) {
	s, err := syncSettingsOf()
	if err != nil {
		t.Fatal(err)
	}
	if s.write.EntitiesProperty != "ambiguity_entities" || !slices.Contains(s.skip, "ambiguity_entities") || s.configuration()["entitiesProperty"] != "ambiguity_entities" {
		t.Fatalf("default: %q, skip %q", s.write.EntitiesProperty, s.skip)
	}
	t.Setenv("FONDUE_WRITE_ENTITIES_PROPERTY", "n_entities")
	if s, err = syncSettingsOf(); err != nil || s.write.EntitiesProperty != "n_entities" || !slices.Contains(s.skip, "n_entities") {
		t.Fatalf("from the environment: %v %+v", err, s)
	}
	if s, err = syncSettingsOf("--entities-property", ""); err != nil || s.write.EntitiesProperty != "" || slices.Contains(s.skip, "ambiguity_entities") {
		t.Fatalf("off: %v %+v", err, s)
	}
	if _, err = syncSettingsOf("--entities-property", "ambiguity_score"); err == nil || !strings.Contains(err.Error(), `must differ ("ambiguity_score" twice)`) {
		t.Fatalf("the score's property: %v", err)
	}
}

// keyOf is the setting a flag sets, "" for none.
func keyOf(f *pflag.Flag) string {
	key, _ := cli.KeyOf(f)
	return key
}

// Every flag of sync that takes a list of names (a List setting: labels,
// types, properties) takes them literally, like the setting's variable: a
// quote or a space is part of a name, never CSV syntax (--display-property
// 'We"ird' was a CSV parser's error).
func TestSyncListFlagsLiteral(t *testing.T) {
	var lists []string
	root := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}).rootCmd()
	sc, _, _ := root.Find([]string{"sync"})
	sc.Flags().VisitAll(func(f *pflag.Flag) {
		if s, ok := config.Lookup(keyOf(f)); ok && s.Kind == config.List && !f.Hidden {
			lists = append(lists, f.Name)
		}
	})
	if len(lists) < 5 {
		t.Fatalf("sync has %d flags of lists of names (%q); want node-labels, relationship-types, display-property, write-node-labels, skip-properties at least", len(lists), lists)
	}
	empty := filepath.Join(t.TempDir(), "fondue.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range lists {
		key := keyOf(sc.Flags().Lookup(name))
		s, _ := config.Lookup(key)
		var out, errb bytes.Buffer
		a := newApp(strings.NewReader(""), &out, &errb)
		root := a.rootCmd()
		sc, _, _ := root.Find([]string{"sync"})
		var got []string
		sc.RunE = func(*cobra.Command, []string) error {
			got = *s.Field(a.cfg).(*[]string)
			return nil
		}
		root.SetArgs([]string{"sync", "--config", empty, "--" + name, `We"ird, spaced ,`, "--" + name, `'q'`})
		err := root.ExecuteContext(context.Background())
		if want := []string{`We"ird`, " spaced ", `'q'`}; err != nil || !slices.Equal(got, want) {
			t.Errorf("--%s: %q, %v (%s); want %q", name, got, err, errb.String(), want)
		}
	}
}

// Every name and value sync hands to the job library is checked when it is
// read, naming the user's key, before connecting (the URI answers nothing:
// a check left to the connector would exit 4).
func TestSyncRefusesBadSettingsBeforeConnecting(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--node-labels", "Author,Bad\tLabel"}, `flag --node-labels: graph.node_labels = "Author,Bad\tLabel": name "Bad\tLabel" contains the control character U+0009`},
		{[]string{"--relationship-types", "A\x00B"}, `graph.relationship_types = "A\x00B": name "A\x00B" contains the control character U+0000`},
		{[]string{"--write-property", "p\nq"}, `write.property = "p\nq": name "p\nq" contains the control character U+000A`},
		{[]string{"--lock-ttl", "1s"}, "flag --lock-ttl: lock.ttl = 1s: too short (at least 3s)"},
		{[]string{"--uri", "http://db:7474"}, `neo4j.uri = http://db:7474: scheme "http" is not one of bolt, neo4j (optionally +s or +ssc)`},
		{[]string{"--node-labels", "Author,Paper", "--write-node-labels", "Venue"}, `write.node_labels: label "Venue" is not one of graph.node_labels (Author, Paper)`},
		{[]string{"--node-query", "MATCH (n) RETURN elementId(n) AS id"}, "graph.node_query and graph.relationship_query go together"},
		{[]string{"--node-labels", "A", "--node-query", "q", "--relationship-query", "r"}, "graph.node_query and graph.relationship_query replace graph.node_labels"},
		{[]string{"--evidence-properties", "title,year,title"}, `graph.evidence_properties: "title" is named twice`},
		{[]string{"--duplicates", "--relationship-types", "SAME,KNOWS", "--duplicates-type", "SAME"}, `duplicates.relationship_type: "SAME" is one of graph.relationship_types`},
	} {
		args := append([]string{"sync", "--uri", "bolt://127.0.0.1:1", "--connect-timeout", "1s"}, c.args...)
		code, out, stderr := runCLI(t, "", args...)
		if code != exitUsage || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, stderr, exitUsage, c.want)
		}
	}
}
