package main

// The configuration of sync and undo: no database needed (the Neo4j
// integration tests are in ./neo4jtests).

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// flag > environment > file > default, for the connector's keys too.
func TestSyncConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "fondue.yaml")
	os.WriteFile(cfg, []byte("neo4j:\n  uri: bolt://file:7687\n  database: filedb\ngraph:\n  node_labels: [A, 'B C']\n  id_property: uid\nwrite:\n  batch_size: 7\nsplit:\n  enabled: true\n  top: 3\nlock:\n  ttl: 5m\n"), 0o644)
	capture := func(args ...string) *syncSettings {
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
		if err := root.ExecuteContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		return got
	}
	s := capture()
	if s.conn.URI != "bolt://file:7687" || s.conn.Database != "filedb" || strings.Join(s.pull.NodeLabels, "|") != "A|B C" ||
		s.write.BatchSize != 7 || !s.split || s.engine.Split.Top != 3 || s.engine.Split.Splitter != defaultSplitter() ||
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
	s = capture("--uri", "bolt://flag:7687", "--node-labels", "F", "--batch-size", "9", "--split=false", "--splitter", "fondue")
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
