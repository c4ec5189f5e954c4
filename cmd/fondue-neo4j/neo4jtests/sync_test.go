package neo4jtests

// sync and undo, run as a child process against the test server.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// syncSummary is sync's --output json summary (the fields the tests read).
type syncSummary struct {
	RunID                 string                  `json:"runId"`
	NodeCount             int                     `json:"nodeCount"`
	RelationshipCount     int                     `json:"relationshipCount"`
	NodePropertiesWritten int                     `json:"nodePropertiesWritten"`
	ComputeMillis         int64                   `json:"computeMillis"`
	Epochs                int                     `json:"epochs"`
	WarmStartNodes        int                     `json:"warmStartNodes"`
	UnscoredNodes         int                     `json:"unscoredNodes"`
	Scored                *scoredSummary          `json:"scored"`
	Configuration         map[string]any          `json:"configuration"`
	Split                 *splitplan.SplitStats   `json:"split"`
	Resumed               bool                    `json:"resumed"`
	Unfinished            []syncjob.UnfinishedRun `json:"unfinished"`
	DryRun                bool                    `json:"dryRun"`
	Plan                  *splitplan.Plan         `json:"plan"`
	Neo4jVersion          string                  `json:"neo4jVersion"`
}

// scoredSummary is the summary's "scored": the scored nodes per label and
// the most ambiguous nodes.
type scoredSummary struct {
	Nodes   int `json:"nodes"`
	Context int `json:"context"`
	Labels  map[string]struct {
		Scored   int `json:"scored"`
		Unscored int `json:"unscored"`
		Context  int `json:"context"`
	} `json:"labels"`
	Top []struct {
		Key       any      `json:"key"`
		ID        string   `json:"id"`
		Labels    []string `json:"labels"`
		Name      string   `json:"name"`
		Ambiguity float64  `json:"ambiguity"`
		Score     float64  `json:"score"`
	} `json:"top"`
}

// labelCounts are the scored and unscored nodes of each label, as
// "label scored/unscored".
func (s *scoredSummary) labelCounts() []string {
	var out []string
	for l, c := range s.Labels {
		out = append(out, fmt.Sprintf("%s %d/%d", l, c.Scored, c.Unscored))
	}
	slices.Sort(out)
	return out
}

// undoSummary is undo's --output json summary.
type undoSummary struct {
	RunID string `json:"runId"`
	syncjob.UndoStats
}

// scoreRow is a line of score --output json.
type scoreRow struct {
	Node      int64   `json:"node"`
	Ambiguity float64 `json:"ambiguity"`
	Score     float64 `json:"score"`
	Entities  int64   `json:"entities"`
}

// End to end: an edge list loaded into Neo4j, synced, read back: the
// properties equal score's ambiguity, score and entities columns on the
// same file with the same seed, exactly.
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
		sum.NodePropertiesWritten != 3*g.NumNodes() || sum.Configuration["writeProperty"] != "ambiguity" ||
		sum.Configuration["randomSeed"] != 7.0 || sum.ComputeMillis <= 0 || sum.Neo4jVersion != srv.ServerVersion() {
		t.Fatalf("summary %+v (server %s)", sum, srv.ServerVersion())
	}
	code, out, stderr = runCLI(t, "", "score", netscience, "--output", "json", "--seed", "7")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, stderr)
	}
	var rows []scoreRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != g.NumNodes() {
		t.Fatalf("score output %v: %d rows", err, len(rows))
	}
	recs := cypher(t, "MATCH (n:Author) RETURN n.id, n.ambiguity, n.ambiguity_score, n.fondue_run, n.ambiguity_entities", nil)
	got := map[int64][]any{}
	for _, r := range recs {
		got[r.Values[0].(int64)] = r.Values[1:]
	}
	for _, r := range rows {
		v := got[r.Node]
		if v == nil || v[0] != r.Ambiguity || v[1] != r.Score || v[2] != "e2e" || v[3] != r.Entities || r.Entities < 1 {
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
	if _, isInt := n0.ID.Int64(); isInt || n0.ID.Text() == "" {
		t.Fatalf("plan node id %#v: want an element id (string)", n0.ID)
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
	// Every clone names its original by element id.
	if strings.Contains(after, `"fondue_split_from_id":"missing:`) || !strings.Contains(after, `"fondue_split_from_id":"uid:`) {
		t.Fatalf("fondue_split_from_id does not hold the original's element id:\n%s", after)
	}

	// Re-running the run id resumes its (finished) plan: no change.
	code, out, stderr = runCLI(t, "", splitArgs...)
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || !sum.Resumed || sum.Split.AlreadyDone != len(dry.Plan.Nodes) {
		t.Fatalf("re-run: exit %d %v: %s %s", code, err, out, stderr)
	}
	if d := dump(t); d != after {
		t.Fatalf("re-run changed the graph:\n%s", testgraph.Diff(after, d))
	}

	code, out, stderr = runCLI(t, "", syncArgs("undo", "--run-id", "split-1", "--output", "json")...)
	var u undoSummary
	if err := json.Unmarshal([]byte(out), &u); code != 0 || err != nil || u.Restored != len(dry.Plan.Nodes) {
		t.Fatalf("undo: exit %d %v: %s %s", code, err, out, stderr)
	}
	if d := dump(t); d != before {
		t.Fatalf("undo did not restore the graph:\n%s", testgraph.Diff(before, d))
	}
	// Undoing twice changes nothing, and says there is nothing to undo.
	if code, _, stderr := runCLI(t, "", syncArgs("undo", "--run", "split-1")...); code != exitEmpty || !strings.Contains(stderr, "nothing to undo") {
		t.Fatalf("second undo: exit %d: %s", code, stderr)
	}
	if d := dump(t); d != before {
		t.Fatalf("a second undo changed the graph:\n%s", testgraph.Diff(before, d))
	}
}

// The server goes away in the middle of the pull, of the write, then of
// the split: the connection is cut and the proxy stops listening, in one
// step (goneWhen), so every retry is refused; sync fails with exit 4 naming
// what it was doing. The server also hangs mid-write (stall): sync fails
// with exit 4 within its timeouts. Each time, the same command, re-run,
// completes, and the graph is the one an uninterrupted run makes. Each
// fault fires at a point of the run's requests that the test chooses, in
// the proxy, so that a busy machine cannot move it.
//
// lock.ttl is long enough for the run's own retries to fail first: the
// run gives up max_retry_time (3 s) after the cut.
func TestSyncFaultsRerun(t *testing.T) {
	const fetch = 10
	args := syncArgs("sync", "--node-labels", "Book", "--id-property", "uid", "--run-id", "fault-1",
		"--split", "--split-top", "4", "--batch-size", "20", "--fetch-size", fmt.Sprint(fetch), "--lock-ttl", "20s")
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
		arm  func() (fired func() bool)
		// doing is what the error says the run was doing.
		doing string
	}{
		// Mid-pull: the nodes are read (one read transaction), and the
		// server goes away as the client asks for the relationships of a
		// part of them (several parts are read at once).
		{"pull", func() func() bool {
			relQuery := []byte("AS targets")
			return goneWhen(func() {
				srv.Proxy().DropWhen(func(sent []byte) bool { return bytes.Contains(sent, relQuery) })
			})
		}, "pull the subgraph"},
		{"write", func() func() bool { return cutAt("= $values[0][i]", 2) }, "writing batch 2 of"},
		{"split", func() func() bool { return cutAt("SET m += $rows[i]", 2) }, "splitting node"},
	} {
		t.Run(stage.name, func(t *testing.T) {
			reset(t)
			load(t, polbooks, "Book", "CO_PURCHASED", "uid")
			fired := stage.arm()
			t0 := time.Now()
			code, _, stderr := runCLI(t, "", args...)
			if code != exitUnreachable || !strings.Contains(stderr, "lost the connection to Neo4j") || !strings.Contains(lastLine(stderr), stage.doing) {
				t.Fatalf("exit %d (want %d), stderr (want %q in the last line):\n%s\nproxy: %+v, fault fired %v, armed text sent %d times",
					code, exitUnreachable, stage.doing, stderr, srv.Proxy().Stats(), fired(), srv.Proxy().SentCount())
			}
			// The run gives up max_retry_time (3s) after the loss; the
			// lock's release gets the rest of that budget (nothing): one
			// attempt, refused at once. Slack for the pull, the fit and
			// two busy cores.
			elapsed := time.Since(t0)
			if bound := 3*time.Second + 25*time.Second; elapsed > bound {
				t.Errorf("failed after %s, want at most %s", elapsed.Round(time.Millisecond), bound)
			}
			t.Logf("failed in %s: %s", elapsed.Round(time.Millisecond), lastLine(stderr))
			rerun(t, args, splitAt, reference)
		})
	}

	// The server stops answering in the middle of the write (as the second
	// batch's statement is sent): nothing is refused, nothing is cut, the
	// bytes just stop. The lock cannot be refreshed either, so the run stops
	// after lock.ttl and gives up releasing the lock after connect_timeout +
	// max_retry_time.
	t.Run("stall", func(t *testing.T) {
		args := append(slices.Clone(args), "--lock-ttl", "6s")
		reset(t)
		load(t, polbooks, "Book", "CO_PURCHASED", "uid")
		srv.Proxy().StallWhenSent("= $values[0][i]", 2)
		t0 := time.Now()
		code, _, stderr := runCLI(t, "", args...)
		elapsed := time.Since(t0)
		// lock.ttl 6s + connect_timeout 5s + max_retry_time 3s, and slack
		// for two busy cores.
		const bound = 6*time.Second + 5*time.Second + 3*time.Second + 15*time.Second
		if code != exitUnreachable || !strings.Contains(lastLine(stderr), "lost the connection to Neo4j") || elapsed > bound {
			t.Fatalf("stalled server: exit %d (want %d) after %s (want at most %s), write statements sent %d (want 2), stderr:\n%s",
				code, exitUnreachable, elapsed.Round(time.Millisecond), bound, srv.Proxy().SentCount(), stderr)
		}
		t.Logf("failed in %s: %s", elapsed.Round(time.Millisecond), lastLine(stderr))
		rerun(t, args, splitAt, reference)
	})
}

// cutAt makes the server go away (goneWhen) as a client sends text for the
// nth time, before the server sees it.
func cutAt(text string, nth int) (fired func() bool) {
	return goneWhen(func() { srv.Proxy().DropWhenSent(text, nth) })
}

// goneWhen arms a cut (arm), with RefuseAfterCut: the cut, the refusal of
// new connections and the cut of every other one happen in one step in the
// proxy, until rerun (ClearFaults). The driver retries a transaction on a
// new connection at once after a cut; a test goroutine that watched for the
// cut and then refused would race that retry, which, on a busy machine,
// could complete the whole interrupted step first. fired reports whether
// the cut happened.
func goneWhen(arm func()) (fired func() bool) {
	before := srv.Proxy().Stats().Dropped
	srv.Proxy().RefuseAfterCut()
	arm()
	return func() bool { return srv.Proxy().Stats().Dropped > before }
}

// rerun brings the server back, expires the failed run's lock (it could not
// release it: the server was gone) and runs args again: the graph must be
// the reference.
func rerun(t *testing.T, args []string, splitAt *regexp.Regexp, reference string) {
	t.Helper()
	// Connections of a stall are in an unknown state: cut them before the
	// stall ends, so that the bytes it held are never relayed.
	srv.Proxy().DropAll()
	if err := srv.Proxy().ClearFaults(); err != nil {
		t.Fatal(err)
	}
	// A crashed run's lock expires after lock.ttl (TestSyncLocked waits for
	// a real expiry); here it is expired at once.
	cypher(t, "MATCH (l:FondueLock) SET l.expires = timestamp() - 1", nil)
	if code, _, stderr := runCLI(t, "", args...); code != 0 {
		t.Fatalf("re-run: exit %d: %s", code, stderr)
	}
	if d := splitAt.ReplaceAllString(dump(t), `"fondue_split_at":"T"`); d != reference {
		t.Fatalf("after the re-run:\n%s", testgraph.Diff(reference, d))
	}
	if n := len(cypher(t, "MATCH (l:FondueLock) RETURN l", nil)); n != 0 {
		t.Fatalf("%d locks left after the re-run", n)
	}
}

// Every failure: one clear line on stderr, the right exit code, quickly.
// (One :Float node has a float key: whichever node the pull reads first,
// that is the one named.)
func TestSyncErrors(t *testing.T) {
	reset(t)
	cypher(t, "CREATE (:`We``ird})` {uid: 1})-[:T]->(:`We``ird})` {uid: 2})-[:T]->(:`We``ird})` {uid: 3}), (:Float {uid: 1.5})-[:T]->(:Float {uid: 2})", nil)
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
		{[]string{"sync"}, map[string]string{"FONDUE_NEO4J_URI": "bolt://" + closed}, exitUnreachable, "connection refused"},
		{syncArgs("sync", "--node-labels", "Persn"), nil, exitEmpty, `node label "Persn" does not exist in the database; existing node labels: "Float", "We` + "`" + `ird})"`},
		{syncArgs("sync", "--node-labels", "Float", "--id-property", "uid"), nil, exitUsage, `key property "uid" of node elementId(n) = "`},
		{syncArgs("sync", "--node-labels", "Float", "--id-property", "uid"), nil, exitUsage, "is the float 1.5: keys must be integers or strings"},
		{syncArgs("sync", "--node-labels", "bad\tlabel"), nil, exitUsage, "control character"},
		// Names are literal: a space is part of the name, a quote is no
		// CSV syntax.
		{syncArgs("sync", "--node-labels", "Float "), nil, exitEmpty, `node label "Float " does not exist in the database ("Float" does: names are taken literally, spaces included)`},
		{syncArgs("sync", "--node-labels", `We"ird`), nil, exitEmpty, `node label "We\"ird" does not exist in the database; existing node labels: "Float"`},
		{syncArgs("sync"), map[string]string{"FONDUE_GRAPH_NODE_LABELS": "Float, We`ird})"}, exitEmpty, `node label " We` + "`" + `ird})" does not exist`},
		{syncArgs("sync", "--node-query", "MATCH (n) RETURN elementId(n) AS id", "--relationship-query", "MATCH (a)-->(b) RETURN elementId(a) AS a, elementId(b) AS b"), nil, exitUsage, "the relationship query must return the column(s) source, target; it returns a, b"},
		{syncArgs("sync", "--node-query", "MATCH (n) RETURN n.uid AS id", "--relationship-query", "MATCH (a)-->(b) RETURN elementId(a) AS source, elementId(b) AS target"), nil, exitUsage, "the node query: column id must hold a node's element id, as returned by elementId(n)"},
		{syncArgs("sync", "--node-query", "MATCH (n) RETURN id(n) AS id", "--relationship-query", "MATCH (a)-->(b) RETURN id(a) AS source, id(b) AS target"), nil, exitUsage, "column id must hold a node's element id, as returned by elementId(n); row 1 has the integer"},
		{syncArgs("sync", "--node-query", "MATCH (n) RETURN elementId(n) AS id"), nil, exitUsage, "set both or neither"},
		{syncArgs("sync", "--split"), nil, exitUsage, "split.enabled needs split.top or split.min_ambiguity"},
		// An evidence property no node has is refused, as score refuses it.
		{syncArgs("sync", "--evidence-properties", "uid,venue"), nil, exitUsage, `no node has the evidence property "venue"`},
		// The memory guard is syncjob's: refused after the pull, before scoring.
		{syncArgs("sync", "--node-labels", "Float", "--max-memory", "1MiB"), nil, exitMemory, "exceeds the limit of 1.0 MiB (max_memory); lower embedding.dim, raise max_memory, or use a larger machine"},
		{syncArgs("sync", "--lock-ttl", "5"), nil, exitUsage, "lock.ttl = 5: want a positive duration"},
		{syncArgs("sync", "--run-id", "a/b"), nil, exitUsage, `run_id "a/b"`},
		{syncArgs("sync", "--output", "xml"), nil, exitUsage, `output = xml: want one of text`},
		{syncArgs("sync", "--password-file", filepath.Join(dir, "nope")), nil, exitUsage, "neo4j.password_file: cannot read"},
		{syncArgs("sync", "--password-file", write("empty", "\n")), nil, exitUsage, "is empty"},
		{syncArgs("sync", "--config", write("pw.yaml", "neo4j:\n  password: hunter2\n")), nil, exitUsage, "neo4j.password must not be in the config file"},
		{syncArgs("sync", "--write-property", "x", "--score-property", "x"), nil, exitUsage, "must differ"},
		{syncArgs("sync", "--uri", "http://x"), nil, exitUsage, `scheme "http"`},
		{syncArgs("sync", "--database", "nodb"), nil, exitUsage, `database "nodb" does not exist`},
		{syncArgs("undo"), nil, exitUsage, "undo needs --run-id ID"},
		{syncArgs("sync", "extra"), nil, exitUsage, "needs no arguments"},
	}
	for _, c := range cases {
		t0 := time.Now()
		code, out, stderr := runCLIEnv(t, c.env, "", c.args...)
		line := lastLine(stderr)
		if code != c.code || !strings.Contains(line, c.msg) || out != "" {
			t.Errorf("%q: exit %d (want %d), stderr %q (want %q)", c.args[1:], code, c.code, stderr, c.msg)
		}
		if strings.Contains(stderr, "goroutine") || !strings.HasPrefix(line, "fondue-neo4j: ") {
			t.Errorf("%q: not one clear line: %q", c.args, stderr)
		}
		if time.Since(t0) > 15*time.Second {
			t.Errorf("%q: took %s", c.args, time.Since(t0))
		}
	}
	// A label with a backtick and "})" is escaped and works.
	if code, _, stderr := runCLI(t, "", syncArgs("sync", "--node-labels", "We`ird})", "--id-property", "uid")...); code != 0 {
		t.Fatalf("weird label: exit %d: %s", code, stderr)
	}
	if n := cypher(t, "MATCH (n:`We``ird})`) WHERE n.ambiguity > 0 RETURN count(n)", nil)[0].Values[0]; n != int64(3) {
		t.Fatalf("%v nodes of the weird label scored, want 3", n)
	}
	// An empty database: nothing to score.
	reset(t)
	if code, _, stderr := runCLI(t, "", syncArgs("sync")...); code != exitEmpty || !strings.Contains(stderr, "the database has no nodes") {
		t.Fatalf("empty: exit %d: %s", code, stderr)
	}
}

// A second run while one holds the lock exits 6 at once; a lock whose
// holder stopped refreshing it expires after lock.ttl and is taken over.
func TestSyncLocked(t *testing.T) {
	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	cypher(t, "CREATE (:FondueLock {name: 'fondue-neo4j', owner: 'x', run: 'nightly-1', host: 'cron-1', expires: timestamp() + 600000})", nil)
	code, _, stderr := runCLI(t, "", syncArgs("sync")...)
	if code != exitLocked || !strings.Contains(stderr, `another run holds the lock "fondue-neo4j": run "nightly-1" on host "cron-1"`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", syncArgs("undo", "--run-id", "x")...); code != exitLocked {
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
	// A run that dies holding the lock (the server is gone when it tries
	// to release it) leaves it behind; the next run on another host is
	// refused until lock.ttl has passed since the lock's last refresh, then
	// takes it over. (On the same host the dead run's lock is taken over
	// at once: TestSyncResumeAfterKill.)
	args := syncArgs("sync", "--method", "degree", "--lock-ttl", "10s", "--batch-size", "20", "--max-retry-time", "1s")
	fired := cutAt("= $values[0][i]", 1)
	code, _, stderr = runCLI(t, "", args...)
	if code != exitUnreachable {
		t.Fatalf("cut run: exit %d (fault fired %v): %s", code, fired(), stderr)
	}
	if err := srv.Proxy().ClearFaults(); err != nil {
		t.Fatal(err)
	}
	recs := cypher(t, "MATCH (l:FondueLock) RETURN l.expires - timestamp()", nil)
	if len(recs) != 1 {
		t.Fatalf("%d locks after the cut run, want its lock", len(recs))
	}
	remaining := time.Duration(recs[0].Values[0].(int64)) * time.Millisecond
	cypher(t, "MATCH (l:FondueLock) SET l.host = 'cron-2'", nil) // as if it had run on another host
	if remaining < 2*time.Second {
		t.Fatalf("the cut run's lock expires in %s: the run took too long for this test's lock.ttl", remaining)
	}
	if code, _, stderr := runCLI(t, "", args...); code != exitLocked {
		t.Fatalf("right after the cut run: exit %d, want %d: %s", code, exitLocked, stderr)
	}
	time.Sleep(remaining + 500*time.Millisecond)
	if code, _, stderr := runCLI(t, "", args...); code != 0 {
		t.Fatalf("after lock.ttl: exit %d: %s", code, stderr)
	}
	if n := len(cypher(t, "MATCH (l:FondueLock) RETURN l", nil)); n != 0 {
		t.Fatalf("%d locks left", n)
	}
}

// Authentication is always on: the password from the environment or a
// file, never in the output, even at debug level; a wrong or missing one
// exits 3.
func TestSyncAuth(t *testing.T) {
	reset(t)
	cypher(t, "CREATE (a:P {uid: 1})-[:K]->(:P {uid: 2})-[:K]->(:P {uid: 3})-[:K]->(a)", nil)
	pw := srv.Password()
	args := []string{"sync", "--uri", srv.BoltURL(), "--log-level", "debug", "--output", "json", "--method", "degree"}
	noPassword := map[string]string{"FONDUE_NEO4J_PASSWORD": ""}
	file := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte(pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLIEnv(t, noPassword, "", append(args, "--password-file", file)...)
	if code != 0 {
		t.Fatalf("password file: exit %d: %s", code, stderr)
	}
	if strings.Contains(out+stderr, pw) || !strings.Contains(stderr, `"level":"DEBUG"`) {
		t.Fatalf("the password leaked, or no debug logs:\n%s\n%s", out, stderr)
	}
	// neo4j.password_file from the environment, too.
	code, out, stderr = runCLIEnv(t, map[string]string{"FONDUE_NEO4J_PASSWORD": "", "FONDUE_NEO4J_PASSWORD_FILE": file}, "", args...)
	if code != 0 || strings.Contains(out+stderr, pw) {
		t.Fatalf("FONDUE_NEO4J_PASSWORD_FILE: exit %d, leaked %v: %s", code, strings.Contains(out+stderr, pw), stderr)
	}
	code, out, stderr = runCLI(t, "", args...) // FONDUE_NEO4J_PASSWORD
	if code != 0 || strings.Contains(out+stderr, pw) {
		t.Fatalf("password from env: exit %d, leaked %v: %s", code, strings.Contains(out+stderr, pw), stderr)
	}
	// Two failed logins (the server may rate-limit logins after several
	// failures in a row).
	const wrong = "wrong-password"
	code, out, stderr = runCLIEnv(t, map[string]string{"FONDUE_NEO4J_PASSWORD": wrong}, "", args...)
	if code != exitAuth || !strings.Contains(lastLine(stderr), `authentication failed for user "neo4j" (wrong user or password)`) || strings.Contains(out+stderr, wrong) {
		t.Fatalf("wrong password: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLIEnv(t, noPassword, "", args[:3]...)
	if code != exitAuth || !strings.Contains(lastLine(stderr), "requires authentication: set FONDUE_NEO4J_PASSWORD or neo4j.password_file") {
		t.Fatalf("no password: exit %d: %s", code, stderr)
	}
	// The right password works again at once.
	if code, _, stderr := runCLI(t, "", args...); code != 0 {
		t.Fatalf("after the failed logins: exit %d: %s", code, stderr)
	}
	if n := cypher(t, "MATCH (n:P) WHERE n.ambiguity > 0 RETURN count(n)", nil)[0].Values[0]; n != int64(3) {
		t.Fatalf("%v nodes scored, want 3", n)
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
		// 12 epochs against 73). A property keeps vectors only: before the
		// smoothed start (issue 11) that saved most of the work here (126
		// against 316), but the cold fit now stops at 73 epochs and the
		// vectors-only re-run of this small exact-mode graph takes 124 (a
		// known regression, README "Scheduled re-runs"): assert only that it
		// stays within twice the cold fit.
		if store[0] == "--embedding-property" {
			if epochs[1] > 2*epochs[0] {
				t.Errorf("%v: warm start took %d epochs, cold %d: want at most 2x", store, epochs[1], epochs[0])
			}
		} else if epochs[1]*5 > epochs[0] {
			t.Errorf("%v: warm start took %d epochs, cold %d: want 5x fewer", store, epochs[1], epochs[0])
		}
	}
	if n := cypher(t, "MATCH (n:Author) WHERE size(n.fondue_embedding) = 8 RETURN count(n)", nil)[0].Values[0]; n != int64(g.NumNodes()) {
		t.Fatalf("%v nodes carry an 8-dimensional embedding", n)
	}
}

// One retry budget per run: after the server is lost mid-write, the run
// ends max_retry_time later (the write's retries and the lock's release
// used to take a budget each, one after the other); connect_timeout
// bounds connecting to a server that accepts connections and never
// answers (it used to take twice as long).
func TestSyncRetryBudgetAndConnectTimeout(t *testing.T) {
	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	const budget, connect = 10 * time.Second, 5 * time.Second
	args := []string{"sync", "--uri", srv.BoltURL(), "--node-labels", "Book", "--id-property", "uid", "--method", "degree",
		"--batch-size", "20", "--max-retry-time", budget.String(), "--connect-timeout", connect.String()}
	stop := cutAt("= $values[0][i]", 2)
	t0 := time.Now()
	code, _, stderr := runCLI(t, "", args...)
	elapsed := time.Since(t0)
	stop()
	t.Logf("server lost mid-write: exit %d after %s: %s", code, elapsed.Round(time.Millisecond), lastLine(stderr))
	if code != exitUnreachable || !strings.Contains(lastLine(stderr), "lost the connection to Neo4j") || !strings.Contains(lastLine(stderr), "writing batch 2 of") {
		t.Fatalf("server lost mid-write: exit %d (want %d): %s", code, exitUnreachable, stderr)
	}
	// The budget, and slack for the start, the pull and two busy cores
	// (a budget for the write and another for the lock's release took 26 s
	// at least, 31 s as measured).
	if bound := budget + 10*time.Second; elapsed > bound || elapsed < budget {
		t.Fatalf("server lost mid-write: the run ended after %s, want the retry budget %s once (at most %s)", elapsed, budget, bound)
	}

	if err := srv.Proxy().ClearFaults(); err != nil {
		t.Fatal(err)
	}
	srv.Proxy().DropAll()
	srv.Proxy().Stall()
	t0 = time.Now()
	code, _, stderr = runCLI(t, "", args...)
	elapsed = time.Since(t0)
	if err := srv.Proxy().ClearFaults(); err != nil {
		t.Fatal(err)
	}
	srv.Proxy().DropAll()
	t.Logf("server that never answers: exit %d after %s: %s", code, elapsed.Round(time.Millisecond), lastLine(stderr))
	if code != exitUnreachable || !strings.Contains(lastLine(stderr), "no answer within 5s (neo4j.connect_timeout)") {
		t.Fatalf("server that never answers: exit %d (want %d): %s", code, exitUnreachable, stderr)
	}
	if bound := connect + 3*time.Second; elapsed > bound {
		t.Fatalf("server that never answers: failed after %s, want at most connect_timeout %s (and 3s slack)", elapsed, connect)
	}
}

// A run killed while it holds the lock (kill -9: it cannot release it) is
// resumed at once by the next run on the same host, which takes the dead
// process's lock over, saying so, instead of waiting lock.ttl.
func TestSyncResumeAfterKill(t *testing.T) {
	reset(t)
	load(t, netscience, "Author", "COAUTHOR", "uid")
	args := syncArgs("sync", "--node-labels", "Author", "--id-property", "uid", "--method", "degree", "--run-id", "killed-1")
	// Kill it once it writes (it holds the lock then): one node per
	// transaction, so that the write takes seconds.
	cmd := killAfter(t, append(args, "--batch-size", "1"), "= $values[0][i]", 1, "start writing")
	recs := cypher(t, "MATCH (l:FondueLock) RETURN l.run, l.expires - timestamp()", nil)
	if len(recs) != 1 || recs[0].Values[0] != "killed-1" {
		t.Fatalf("the killed run's lock: %v", recs)
	}
	t.Logf("killed pid %d; its lock expires in %d ms", cmd.Process.Pid, recs[0].Values[1])
	code, _, stderr := runCLI(t, "", args...)
	if code != 0 || !strings.Contains(stderr, "took over the lock of a run that is no longer running") {
		t.Fatalf("resume after the kill: exit %d: %s", code, stderr)
	}
	if n := len(cypher(t, "MATCH (l:FondueLock) RETURN l", nil)); n != 0 {
		t.Fatalf("%d locks left", n)
	}
	if n := cypher(t, "MATCH (n:Author) WHERE n.fondue_run <> 'killed-1' OR n.fondue_run IS NULL RETURN count(n)", nil)[0].Values[0]; n != int64(0) {
		t.Fatalf("%v authors not written by the resumed run", n)
	}
}

// A bad name in the configuration stops the run before anything is
// written (no score, no stored plan), so that re-running the same run id
// with the configuration fixed, as the README advises, works; the dry run
// checks the write properties as the real run does. A plan stored by an
// earlier attempt that split nothing is replaced by the re-run.
func TestSyncBadNameBeforeWriting(t *testing.T) {
	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	before := dump(t)
	args := syncArgs("sync", "--node-labels", "Book", "--id-property", "uid", "--run-id", "fix-1", "--split", "--split-top", "2")
	code, out, stderr := runCLIEnv(t, map[string]string{"FONDUE_SPLIT_SKIP_PROPERTIES": "title\nsubtitle"}, "", args...)
	if code != exitUsage || out != "" || !strings.Contains(lastLine(stderr), `environment variable FONDUE_SPLIT_SKIP_PROPERTIES: split.skip_properties = "title\nsubtitle": name "title\nsubtitle" contains the control character U+000A`) {
		t.Fatalf("a skip property with a newline: exit %d: %s", code, stderr)
	}
	if d := dump(t); d != before {
		t.Fatalf("the refused run wrote:\n%s", testgraph.Diff(before, d))
	}
	code, _, stderr = runCLI(t, "", append(args, "--dry-run", "--write-property", "ambiguity\nx")...)
	if code != exitUsage || !strings.Contains(lastLine(stderr), `flag --write-property: write.property = "ambiguity\nx": name "ambiguity\nx" contains the control character U+000A`) {
		t.Fatalf("a dry run with a bad write property: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", append(args, "--skip-properties", "title")...)
	if code != 0 {
		t.Fatalf("the same run id with the configuration fixed: exit %d: %s", code, stderr)
	}
	if n := cypher(t, "MATCH (c:FondueSplit {fondue_split_run: 'fix-1'}) RETURN count(c)", nil)[0].Values[0]; n == int64(0) {
		t.Fatal("the fixed run split nothing")
	}

	// A plan stored by an earlier attempt (an earlier version stored it
	// before finding the bad name) that split nothing: the re-run replaces
	// it instead of failing on it for ever.
	r := cypher(t, "MATCH (n:Book {uid: 1})--(m:Book) WITH n, collect(m) AS ms RETURN elementId(n), [m IN ms | m.uid], [m IN ms | elementId(m)]", nil)[0]
	asKeys := func(vs []any) []keys.Key {
		var out []keys.Key
		for _, v := range vs {
			k, err := keys.FromValue(v)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, k)
		}
		return out
	}
	nb, nbIDs := asKeys(r.Values[1].([]any)), asKeys(r.Values[2].([]any))
	stale, _ := json.Marshal(splitplan.Plan{RunID: "fix-2", CreatedAt: "2025-01-01T00:00:00.000Z", Splitter: "ncut", IDProperty: "uid",
		NodeLabels: []string{"Book"}, MarkerLabel: "FondueSplit", SkipProperties: []string{"title\nsubtitle"},
		Nodes: []splitplan.Node{{ID: asKeys(r.Values[:1])[0], Key: keys.Int(1), Groups: []splitplan.Group{
			{Neighbors: nb[:1], NeighborIDs: nbIDs[:1]}, {Neighbors: nb[1:], NeighborIDs: nbIDs[1:]}}}}})
	cypher(t, "CREATE (:FondueRun {run_id: 'fix-2', plan: $plan, created_at: '2025-01-01T00:00:00.000Z'})", map[string]any{"plan": string(stale)})
	args2 := syncArgs("sync", "--node-labels", "Book", "--id-property", "uid", "--run-id", "fix-2", "--split", "--split-top", "2", "--output", "json")
	code, out, stderr = runCLI(t, "", args2...)
	var sum syncSummary
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || sum.Resumed || sum.Split == nil || sum.Split.Split == 0 {
		t.Fatalf("re-run over a stored plan that split nothing: exit %d: %s\n%s", code, out, stderr)
	}
}
