package connector

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// srv is the test server of the current run (the suite runs once per
// version), behind the fault proxy; tests reset it and are not parallel
// (the proxy's faults are global).
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
	t.Logf("server: %s", srv.Version())
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
	cfg := Config{URI: srv.BoltURL(), User: neo4jtest.User, Password: srv.Password(), MaxRetryTime: 10 * time.Second, ConnectTimeout: 5 * time.Second,
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

// loadEdgeList loads an edge list as (:label {prop: id}) nodes and
// relationships of type relType, and returns the graph read from the file.
func loadEdgeList(t testing.TB, path, label, relType, prop string) *graph.Graph {
	t.Helper()
	g, _, err := edgelist.ReadFile(path, edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	d, err := srv.Driver()
	if err != nil {
		t.Fatal(err)
	}
	if err := testgraph.Load(ctxT(t, 10*time.Minute), d, g, label, relType, prop); err != nil {
		t.Fatal(err)
	}
	return g
}

// elementIDProp matches a split provenance property that holds an element
// id: element ids are not reused after a reset, so a dump of a graph built
// twice differs there only.
var elementIDProp = regexp.MustCompile(`"fondue_split_from_id":"[^"]*"`)

// dump is testgraph.Dump of the test server, element ids masked.
func dump(t testing.TB) string {
	t.Helper()
	d, err := srv.Driver()
	if err != nil {
		t.Fatal(err)
	}
	s, err := testgraph.Dump(ctxT(t, time.Minute), d)
	if err != nil {
		t.Fatal(err)
	}
	return elementIDProp.ReplaceAllString(s, `"fondue_split_from_id":"<element id>"`)
}

func diff(a, b string) string { return testgraph.Diff(a, b) }

func scoreGraph(t testing.TB, g *graph.Graph, seed uint64) *fondue.Result {
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
