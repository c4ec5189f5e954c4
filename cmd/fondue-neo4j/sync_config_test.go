package main

// sync and undo, run in-process against the Neo4j 3.1 test server.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/internal/neo4jtest"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testgraph"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/spf13/cobra"
)

var srv *neo4jtest.Server

func TestMain(m *testing.M) {
	neo4jtest.Main(m, neo4jtest.Options{}, func(s *neo4jtest.Server) { srv = s })
}

const netscience = "../../connector/testdata/netscience.edges"
const polbooks = "../../connector/testdata/polbooks.edges"

func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func reset(t *testing.T) {
	t.Helper()
	srv.Proxy().ClearFaults()
	if err := srv.Proxy().Restore(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Reset(ctxT(t, 2*time.Minute)); err != nil {
		t.Fatal(err)
	}
}

func driver(t *testing.T) neo4j.DriverWithContext {
	d, err := srv.Driver()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func cypher(t *testing.T, q string, params map[string]any) []*neo4j.Record {
	t.Helper()
	recs, err := testgraph.Run(ctxT(t, time.Minute), driver(t), q, params)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func load(t *testing.T, path, label, relType, prop string) *fondue.Graph {
	t.Helper()
	g, _, err := fondue.ReadEdgeListFile(path, fondue.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	if err := testgraph.Load(ctxT(t, 5*time.Minute), driver(t), g, label, relType, prop); err != nil {
		t.Fatal(err)
	}
	return g
}

func dump(t *testing.T) string {
	t.Helper()
	s, err := testgraph.Dump(ctxT(t, time.Minute), driver(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// syncArgs are the connection flags for the test server.
func syncArgs(cmd string, more ...string) []string {
	return append([]string{cmd, "--uri", srv.BoltURL(), "--max-retry-time", "3s", "--connect-timeout", "5s"}, more...)
}

// scoreRow is a line of score --format json.
type scoreRow struct {
	Node      int64   `json:"node"`
	Ambiguity float64 `json:"ambiguity"`
	Score     float64 `json:"score"`
}

// End to end: an edge list loaded into Neo4j, synced, read back: the
// properties equal score's ambiguity and score columns on the same file
// with the same seed, exactly.
func TestSyncMatchesScore(t *testing.T) {
	reset(t)
	g := load(t, netscience, "Author", "COAUTHOR", "id")
	code, out, stderr := runCLI(t, "", syncArgs("sync", "--node-labels", "Author", "--relationship-types", "COAUTHOR",
		"--id-property", "id", "--seed", "7", "--output", "json", "--run-id", "e2e", "--batch-size", "100")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum syncSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("summary %v: %s", err, out)
	}
	if sum.RunID != "e2e" || sum.NodeCount != g.NumNodes() || sum.RelationshipCount != g.NumEdges() ||
		sum.NodePropertiesWritten != 2*g.NumNodes() || sum.Configuration["writeProperty"] != "ambiguity" ||
		sum.Configuration["randomSeed"] != 7.0 || sum.ComputeMillis <= 0 || sum.Neo4jVersion != "3.1.1" {
		t.Fatalf("summary %+v", sum)
	}
	code, out, stderr = runCLI(t, "", "score", netscience, "--format", "json", "--seed", "7")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, stderr)
	}
	var rows []scoreRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != g.NumNodes() {
		t.Fatalf("score output %v: %d rows", err, len(rows))
	}
	recs := cypher(t, "MATCH (n:Author) RETURN n.id, n.ambiguity, n.ambiguity_score, n.fondue_run", nil)
	got := map[int64][]any{}
	for _, r := range recs {
		got[r.Values[0].(int64)] = r.Values[1:]
	}
	for _, r := range rows {
		v := got[r.Node]
		if v == nil || v[0] != r.Ambiguity || v[1] != r.Score || v[2] != "e2e" {
			t.Fatalf("node %d: Neo4j has %v, score printed %v %v", r.Node, v, r.Ambiguity, r.Score)
		}
	}
	if strings.Contains(stderr, "password") {
		t.Errorf("stderr: %s", stderr)
	}
}

// Split, re-run, undo through the CLI: the graph after undo is the graph
// before the split; re-running the split's run id changes nothing.
func TestSyncSplitUndo(t *testing.T) {
	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	cypher(t, "MATCH (a:Book {uid: 3}), (b:Book {uid: 8}) CREATE (a)-[:CITES {p: 'x'}]->(b), (b)-[:CITES]->(a), (a)-[:REVIEWED_BY]->(:Critic {uid: 1000})", nil)
	base := syncArgs("sync", "--node-labels", "Book", "--id-property", "uid", "--relationship-types", "CO_PURCHASED,CITES", "--run-id", "split-1")
	if code, _, stderr := runCLI(t, "", base...); code != 0 {
		t.Fatalf("sync: exit %d: %s", code, stderr)
	}
	before := dump(t)

	// Dry run: the plan, nothing written.
	splitArgs := append(base, "--split", "--split-top", "3", "--output", "json")
	code, out, stderr := runCLI(t, "", append(splitArgs, "--dry-run")...)
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	var dry syncSummary
	if err := json.Unmarshal([]byte(out), &dry); err != nil || !dry.DryRun || dry.Plan == nil || len(dry.Plan.Nodes) == 0 {
		t.Fatalf("dry run output %v: %s", err, out)
	}
	n0 := dry.Plan.Nodes[0]
	if len(n0.Groups) < 2 || len(n0.Groups[1].Relationships) == 0 || len(n0.Labels) == 0 {
		t.Fatalf("plan node %+v", n0)
	}
	if d := dump(t); d != before {
		t.Fatalf("the dry run wrote:\n%s", testgraph.Diff(before, d))
	}

	code, out, stderr = runCLI(t, "", splitArgs...)
	if code != 0 {
		t.Fatalf("split: exit %d: %s", code, stderr)
	}
	var sum syncSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Split == nil || sum.Split.Split != len(dry.Plan.Nodes) || sum.Split.NodesCreated < sum.Split.Split {
		t.Fatalf("split summary %v: %s", err, out)
	}
	after := dump(t)
	if after == before || !strings.Contains(after, `"fondue_split_run":"split-1"`) {
		t.Fatal("nothing split")
	}

	// Re-running the run id resumes its (finished) plan: no change.
	code, out, stderr = runCLI(t, "", splitArgs...)
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || !sum.Resumed || sum.Split.AlreadyDone != len(dry.Plan.Nodes) {
		t.Fatalf("re-run: exit %d %v: %s %s", code, err, out, stderr)
	}
	if d := dump(t); d != after {
		t.Fatalf("re-run changed the graph:\n%s", testgraph.Diff(after, d))
	}

	code, out, stderr = runCLI(t, "", syncArgs("undo", "--run", "split-1", "--output", "json")...)
	var u undoSummary
	if err := json.Unmarshal([]byte(out), &u); code != 0 || err != nil || u.Restored != len(dry.Plan.Nodes) {
		t.Fatalf("undo: exit %d %v: %s %s", code, err, out, stderr)
	}
	if d := dump(t); d != before {
		t.Fatalf("undo did not restore the graph:\n%s", testgraph.Diff(before, d))
	}
	if code, _, stderr := runCLI(t, "", syncArgs("undo", "--run", "split-1")...); code != 0 || !strings.Contains(stderr, "nothing to undo") {
		t.Fatalf("second undo: exit %d: %s", code, stderr)
	}
}

// The server goes away in the middle of the write, then of the split
// (the proxy stops listening): sync fails with exit 4; the same command,
// re-run, completes, and the graph is the one an uninterrupted run makes.
func TestSyncFaultsRerun(t *testing.T) {
	args := syncArgs("sync", "--node-labels", "Book", "--id-property", "uid", "--run-id", "fault-1",
		"--split", "--split-top", "4", "--batch-size", "20", "--lock-ttl", "3s")
	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	if code, _, stderr := runCLI(t, "", args...); code != 0 {
		t.Fatalf("reference: exit %d: %s", code, stderr)
	}
	// Split times differ between runs; everything else must not.
	splitAt := regexp.MustCompile(`"fondue_split_at":"[^"]*"`)
	reference := splitAt.ReplaceAllString(dump(t), `"fondue_split_at":"T"`)

	for _, stage := range []struct {
		name string
		at   func(neo4jtest.Request) bool
	}{
		{"write", func(r neo4jtest.Request) bool { return strings.HasPrefix(r.Query, "UNWIND $rows") }},
		{"split", func(r neo4jtest.Request) bool { return strings.Contains(r.Query, "fondue_split_key = $key") }},
	} {
		reset(t)
		load(t, polbooks, "Book", "CO_PURCHASED", "uid")
		var seen, fired atomic.Int32
		srv.Proxy().DropWhen(func(r neo4jtest.Request) bool {
			if r.Message == "RUN" && stage.at(r) && seen.Add(1) == 2 && fired.Add(1) == 1 {
				go srv.Proxy().Refuse() // the server is gone: every retry is refused
				return true
			}
			return false
		})
		t0 := time.Now()
		code, _, stderr := runCLI(t, "", args...)
		if code != exitUnreachable || !strings.Contains(stderr, "lost the connection to Neo4j") {
			t.Fatalf("%s: exit %d, stderr %s", stage.name, code, stderr)
		}
		t.Logf("%s: failed in %s: %s", stage.name, time.Since(t0).Round(time.Millisecond), lastLine(stderr))
		srv.Proxy().ClearFaults()
		if err := srv.Proxy().Restore(); err != nil {
			t.Fatal(err)
		}
		// The failed run could not release its lock (the server was gone):
		// it expires after lock.ttl, then the re-run takes it over.
		time.Sleep(3500 * time.Millisecond)
		if code, _, stderr := runCLI(t, "", args...); code != 0 {
			t.Fatalf("%s: re-run: exit %d: %s", stage.name, code, stderr)
		}
		if d := splitAt.ReplaceAllString(dump(t), `"fondue_split_at":"T"`); d != reference {
			t.Fatalf("%s: after the re-run:\n%s", stage.name, testgraph.Diff(reference, d))
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// Every failure: one clear line on stderr, the right exit code, quickly.
func TestSyncErrors(t *testing.T) {
	reset(t)
	cypher(t, "CREATE (:`We``ird})` {uid: 1})-[:T]->(:`We``ird})` {uid: 2})-[:T]->(:`We``ird})` {uid: 3}), (:Float {uid: 1.5})-[:T]->(:Float {uid: 2.5})", nil)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l.Addr().String()
	l.Close()
	cases := []struct {
		args []string
		env  map[string]string
		code int
		msg  string
	}{
		{[]string{"sync", "--uri", "bolt://" + closed, "--max-retry-time", "1m"}, nil, exitUnreachable, "connection refused"},
		{syncArgs("sync", "--node-labels", "Persn"), nil, exitEmpty, `node label "Persn" (graph.node_labels) does not exist in the database; existing node labels: "Float", "We` + "`" + `ird})"`},
		{syncArgs("sync", "--node-labels", "Float", "--id-property", "uid"), nil, exitUsage, `property "uid" (graph.id_property) of node id(n) = `},
		{syncArgs("sync", "--node-labels", "Float", "--id-property", "uid"), nil, exitUsage, "is the float 1.5: keys must be integers or strings"},
		{syncArgs("sync", "--node-labels", "bad\tlabel"), nil, exitUsage, "control character"},
		{syncArgs("sync", "--node-query", "MATCH (n) RETURN id(n) AS id", "--relationship-query", "MATCH (a)-->(b) RETURN id(a) AS a, id(b) AS b"), nil, exitUsage, "graph.relationship_query must return the column(s) source, target; it returns a, b"},
		{syncArgs("sync", "--node-query", "MATCH (n) RETURN n.uid AS id", "--relationship-query", "MATCH (a)-->(b) RETURN id(a) AS source, id(b) AS target"), nil, exitUsage, "column id must hold an integer node id"},
		{syncArgs("sync", "--node-query", "MATCH (n) RETURN id(n) AS id"), nil, exitUsage, "set both or neither"},
		{syncArgs("sync", "--split"), nil, exitUsage, "split.enabled needs split.top or split.min_ambiguity"},
		{syncArgs("sync", "--lock-ttl", "5"), nil, exitUsage, "lock.ttl = 5: want a positive duration"},
		{syncArgs("sync", "--run-id", "a/b"), nil, exitUsage, `run_id "a/b"`},
		{syncArgs("sync", "--output", "xml"), nil, exitUsage, `output = xml: want one of text`},
		{syncArgs("sync", "--password-file", filepath.Join(dir, "nope")), nil, exitUsage, "neo4j.password_file: cannot read"},
		{syncArgs("sync", "--password-file", write("empty", "\n")), nil, exitUsage, "is empty"},
		{syncArgs("sync", "--config", write("pw.yaml", "neo4j:\n  password: hunter2\n")), nil, exitUsage, "neo4j.password must not be in the config file"},
		{syncArgs("sync", "--write-property", "x", "--score-property", "x"), nil, exitUsage, "must differ"},
		{syncArgs("sync", "--uri", "http://x"), nil, exitUsage, `scheme "http"`},
		{syncArgs("undo"), nil, exitUsage, "undo needs --run-id ID"},
		{syncArgs("sync", "extra"), nil, exitUsage, "needs no arguments"},
	}
	for _, c := range cases {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		t0 := time.Now()
		code, out, stderr := runCLI(t, "", c.args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != c.code || !strings.Contains(lines[len(lines)-1], c.msg) || out != "" {
			t.Errorf("%v: exit %d (want %d), stderr %q (want %q)", c.args[1:], code, c.code, stderr, c.msg)
		}
		if strings.Contains(stderr, "goroutine") || !strings.HasPrefix(lines[len(lines)-1], "fondue-neo4j: ") {
			t.Errorf("%v: not one clear line: %q", c.args, stderr)
		}
		if time.Since(t0) > 15*time.Second {
			t.Errorf("%v: took %s", c.args, time.Since(t0))
		}
		for k := range c.env {
			os.Unsetenv(k)
		}
	}
	// A label with a backtick and "})" is escaped and works.
	if code, _, stderr := runCLI(t, "", syncArgs("sync", "--node-labels", "We`ird})", "--id-property", "uid")...); code != 0 {
		t.Fatalf("weird label: exit %d: %s", code, stderr)
	}
	// An empty database: nothing to score.
	reset(t)
	if code, _, stderr := runCLI(t, "", syncArgs("sync")...); code != exitEmpty || !strings.Contains(stderr, "the database has no nodes") {
		t.Fatalf("empty: exit %d: %s", code, stderr)
	}
}

// A second run while one holds the lock exits 6 at once.
func TestSyncLocked(t *testing.T) {
	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	cypher(t, "CREATE (:FondueLock {name: 'fondue-neo4j', owner: 'x', run: 'nightly-1', host: 'cron-1', expires: timestamp() + 600000})", nil)
	code, _, stderr := runCLI(t, "", syncArgs("sync")...)
	if code != exitLocked || !strings.Contains(stderr, `another run holds the lock "fondue-neo4j": run "nightly-1" on host "cron-1"`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", syncArgs("undo", "--run", "x")...); code != exitLocked {
		t.Fatalf("undo: exit %d: %s", code, stderr)
	}
	// Another lock name is another lock; an expired lock is taken over.
	if code, _, stderr := runCLI(t, "", syncArgs("sync", "--lock-name", "other", "--method", "degree")...); code != 0 {
		t.Fatalf("other lock: exit %d: %s", code, stderr)
	}
	cypher(t, "MATCH (l:FondueLock) SET l.expires = timestamp() - 1", nil)
	if code, _, stderr := runCLI(t, "", syncArgs("sync", "--method", "degree")...); code != 0 {
		t.Fatalf("stale lock: exit %d: %s", code, stderr)
	}
	if n := len(cypher(t, "MATCH (l:FondueLock) RETURN l", nil)); n != 0 {
		t.Fatalf("%d locks left", n)
	}
}

// Authentication: the password from the environment or a file, never in
// the output, even at debug level; a wrong or missing one exits 3.
func TestSyncAuth(t *testing.T) {
	const pw = "s3cr3t-Pa55word"
	ctx := ctxT(t, 5*time.Minute)
	auth, err := neo4jtest.Start(ctx, neo4jtest.Options{Password: pw, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer auth.Stop()
	d, err := auth.Driver()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testgraph.Run(ctx, d, "CREATE (:P {uid: 1})-[:K]->(:P {uid: 2})-[:K]->(:P {uid: 3})-[:K]->(:P {uid: 1})", nil); err != nil {
		t.Fatal(err)
	}
	args := []string{"sync", "--uri", auth.BoltURL(), "--log-level", "debug", "--output", "json", "--method", "degree"}
	file := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(file, []byte(pw+"\n"), 0o600)
	code, out, stderr := runCLI(t, "", append(args, "--password-file", file)...)
	if code != 0 {
		t.Fatalf("password file: exit %d: %s", code, stderr)
	}
	if strings.Contains(out+stderr, pw) || !strings.Contains(stderr, `"level":"DEBUG"`) {
		t.Fatalf("the password leaked, or no debug logs:\n%s\n%s", out, stderr)
	}
	t.Setenv("FONDUE_NEO4J_PASSWORD", pw)
	code, out, stderr = runCLI(t, "", args...)
	if code != 0 || strings.Contains(out+stderr, pw) {
		t.Fatalf("password from env: exit %d, leaked %v: %s", code, strings.Contains(out+stderr, pw), stderr)
	}
	// Two failed logins (Neo4j 3.1 rate-limits after three in a row).
	t.Setenv("FONDUE_NEO4J_PASSWORD", "wrong-password")
	code, _, stderr = runCLI(t, "", args...)
	if code != exitAuth || !strings.Contains(lastLine(stderr), `authentication failed for user "neo4j" (wrong user or password)`) || strings.Contains(stderr, "wrong-password") {
		t.Fatalf("wrong password: exit %d: %s", code, stderr)
	}
	os.Unsetenv("FONDUE_NEO4J_PASSWORD")
	code, _, stderr = runCLI(t, "", args[:3]...)
	if code != exitAuth || !strings.Contains(stderr, "requires authentication: set FONDUE_NEO4J_PASSWORD or neo4j.password_file") {
		t.Fatalf("no password: exit %d: %s", code, stderr)
	}
}

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
		s.write.BatchSize != 7 || !s.split || s.engine.Split.Top != 3 || s.engine.Split.Method != defaultSplitter() ||
		s.lock.TTL != 5*time.Minute || s.write.Property != "ambiguity" || s.conn.Password != "" {
		t.Fatalf("file: %+v", s)
	}
	t.Setenv("FONDUE_NEO4J_URI", "bolt://env:7687")
	t.Setenv("FONDUE_GRAPH_NODE_LABELS", "X, Y")
	t.Setenv("FONDUE_WRITE_BATCH_SIZE", "8")
	t.Setenv("FONDUE_NEO4J_PASSWORD", "pw")
	s = capture()
	if s.conn.URI != "bolt://env:7687" || strings.Join(s.pull.NodeLabels, "|") != "X|Y" || s.write.BatchSize != 8 || s.conn.Password != "pw" {
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
	if s.conn.URI != "bolt://flag:7687" || strings.Join(s.pull.NodeLabels, "|") != "F" || s.write.BatchSize != 9 || s.split || s.engine.Split.Method != "" {
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

// A scheduled re-run warm-starts from the previous run's embedding, kept in
// a node property or in a checkpoint file, and converges in fewer epochs.
func TestSyncWarmStart(t *testing.T) {
	reset(t)
	g := load(t, netscience, "Author", "COAUTHOR", "id")
	ck := filepath.Join(t.TempDir(), "sync.ck")
	for _, store := range [][]string{{"--embedding-property", "fondue_embedding"}, {"--checkpoint", ck}} {
		var epochs [2]int
		for k := range epochs {
			args := append(syncArgs("sync", "--node-labels", "Author", "--id-property", "id", "--output", "json",
				"--run-id", fmt.Sprintf("warm-%s-%d", store[0][2:5], k)), store...)
			code, out, stderr := runCLI(t, "", args...)
			if code != 0 {
				t.Fatalf("%v run %d: exit %d: %s", store, k, code, stderr)
			}
			var sum syncSummary
			if err := json.Unmarshal([]byte(out), &sum); err != nil {
				t.Fatal(err)
			}
			epochs[k] = sum.Epochs
			if k == 1 && sum.WarmStartNodes != g.NumNodes() {
				t.Fatalf("%v: second run warm-started %d of %d nodes: %s", store, sum.WarmStartNodes, g.NumNodes(), stderr)
			}
		}
		t.Logf("%v: cold %d epochs, warm %d", store, epochs[0], epochs[1])
		// The file keeps the optimizer state and resumes exactly (measured:
		// 12 epochs against 316); a property keeps vectors only, which still
		// saves most of the work (126 against 316 here; 16 against 160 on
		// condmat05, sampled mode).
		factor := 5
		if store[0] == "--embedding-property" {
			factor = 2
		}
		if epochs[1]*factor > epochs[0] {
			t.Errorf("%v: warm start took %d epochs, cold %d: want %dx fewer", store, epochs[1], epochs[0], factor)
		}
	}
	if n := cypher(t, "MATCH (n:Author) WHERE size(n.fondue_embedding) = 8 RETURN count(n)", nil)[0].Values[0]; n != int64(g.NumNodes()) {
		t.Fatalf("%v nodes carry an 8-dimensional embedding", n)
	}
}
