package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/internal/neo4jtest"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// srv is the package's Neo4j 3.1 test server (auth off), behind the Bolt
// proxy; tests reset it and are not parallel (the proxy's faults are global).
var srv *neo4jtest.Server

func TestMain(m *testing.M) {
	neo4jtest.Main(m, neo4jtest.Options{}, func(s *neo4jtest.Server) { srv = s })
}

func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// reset empties the database and clears the proxy's faults.
func reset(t testing.TB) {
	t.Helper()
	srv.Proxy().ClearFaults()
	if err := srv.Proxy().Restore(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Reset(ctxT(t, 2*time.Minute)); err != nil {
		t.Fatal(err)
	}
}

// logBuffer collects a test's logs (and shows them with -v).
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// open connects to the test server with short retries.
func open(t testing.TB, mod ...func(*Config)) (*Conn, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	cfg := Config{URI: srv.BoltURL(), MaxRetryTime: 10 * time.Second, ConnectTimeout: 5 * time.Second,
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	for _, f := range mod {
		f(&cfg)
	}
	c, err := Open(ctxT(t, time.Minute), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c, logs
}

// run executes one statement on the test server and returns its records.
func run(t testing.TB, q string, params map[string]any) []*neo4j.Record {
	t.Helper()
	d, err := srv.Driver()
	if err != nil {
		t.Fatal(err)
	}
	res, err := neo4j.ExecuteQuery(ctxT(t, 5*time.Minute), d, q, params, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res.Records
}

// loadEdgeList creates one (:label {prop: id}) node per id of an edge list
// and one relationship per line, in batches, and returns the graph as read
// from the file.
func loadEdgeList(t testing.TB, path, label, relType, prop string) *fondue.Graph {
	t.Helper()
	g, _, err := fondue.ReadEdgeListFile(path, fondue.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	run(t, fmt.Sprintf("CREATE INDEX ON :`%s`(`%s`)", label, prop), nil)
	const batch = 20000
	var ids []any
	for i := 0; i < g.NumNodes(); i++ {
		k, _ := g.IntKey(i)
		ids = append(ids, k)
	}
	for lo := 0; lo < len(ids); lo += batch {
		run(t, fmt.Sprintf("UNWIND $ids AS id CREATE (:`%s` {`%s`: id})", label, prop), map[string]any{"ids": ids[lo:min(len(ids), lo+batch)]})
	}
	var edges []any
	flush := func() {
		if len(edges) > 0 {
			run(t, fmt.Sprintf("UNWIND $edges AS e MATCH (a:`%[1]s` {`%[2]s`: e[0]}), (b:`%[1]s` {`%[2]s`: e[1]}) CREATE (a)-[:`%[3]s`]->(b)", label, prop, relType),
				map[string]any{"edges": edges})
			edges = edges[:0]
		}
	}
	for i := 0; i < g.NumNodes(); i++ {
		for _, j := range g.Neighbors(i) {
			if int(j) > i {
				a, _ := g.IntKey(i)
				b, _ := g.IntKey(int(j))
				edges = append(edges, []any{a, b})
				if len(edges) == batch {
					flush()
				}
			}
		}
	}
	flush()
	return g
}

// dump returns every node and relationship as sorted lines, nodes named by
// their uid (or, for clones, their split key), so that two dumps of the
// same graph are equal whatever the internal ids.
func dump(t testing.TB) string {
	t.Helper()
	names := map[int64]string{}
	type node struct {
		labels []string
		props  map[string]any
	}
	nodes := map[int64]node{}
	var lines []string
	for _, r := range run(t, "MATCH (n) WHERE NOT n:FondueLock AND NOT n:FondueRun RETURN id(n), labels(n), properties(n)", nil) {
		id := r.Values[0].(int64)
		props := r.Values[2].(map[string]any)
		name := fmt.Sprintf("id:%d", id)
		if u, ok := props["uid"]; ok {
			name = fmt.Sprintf("uid:%v", u)
		} else if k, ok := props[PropSplitKey]; ok {
			name = fmt.Sprintf("clone:%v", k)
		}
		names[id] = name
		var labels []string
		for _, l := range r.Values[1].([]any) {
			labels = append(labels, l.(string))
		}
		slices.Sort(labels)
		nodes[id] = node{labels, props}
	}
	for id, n := range nodes {
		if from, ok := n.props[PropSplitFromID].(int64); ok {
			n.props[PropSplitFromID] = names[from] // internal ids differ between databases
		}
		lines = append(lines, fmt.Sprintf("N %s %q %s", names[id], n.labels, jsonOf(t, n.props)))
	}
	for _, r := range run(t, "MATCH (a)-[r]->(b) RETURN id(a), type(r), id(b), properties(r)", nil) {
		lines = append(lines, fmt.Sprintf("R %s -[%q %s]-> %s", names[r.Values[0].(int64)], r.Values[1], jsonOf(t, r.Values[3]), names[r.Values[2].(int64)]))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func jsonOf(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// diff shows the lines only in a or only in b.
func diff(a, b string) string {
	as, bs := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range as {
		if !slices.Contains(bs, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range bs {
		if !slices.Contains(as, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

func score(t testing.TB, g *fondue.Graph, seed uint64) *fondue.Result {
	t.Helper()
	res, err := fondue.Score(context.Background(), g, fondue.Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestMainHelpersDump(t *testing.T) {
	reset(t)
	run(t, "CREATE (:A {uid: 1, x: [1, 2]})-[:T {w: 0.5}]->(:B {uid: 2})", nil)
	d := dump(t)
	want := "N uid:1 [\"A\"] {\"uid\":1,\"x\":[1,2]}\nN uid:2 [\"B\"] {\"uid\":2}\nR uid:1 -[\"T\" {\"w\":0.5}]-> uid:2"
	if d != want {
		t.Fatalf("dump:\n%s\nwant:\n%s", d, want)
	}
}

// closedPort returns a loopback address where nothing listens.
func closedPort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
