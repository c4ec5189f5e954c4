package neo4jtest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// srv is the server of the current run (the suite runs once per version).
var srv *Server

const panicHelperEnv = "NEO4JTEST_PANIC_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(panicHelperEnv) == "1" {
		panicHelper()
		return
	}
	Main(m, Options{}, func(s *Server) { srv = s })
}

// panicHelper runs in a child test process (see TestNoLeftoverAfterPanic):
// it starts a server, reports its pid and panics without stopping it.
func panicHelper() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	fmt.Printf("PID %d DIR %s\n", s.PID(), s.Dir())
	os.Stdout.Sync()
	panic("deliberate panic with a running Neo4j")
}

// newDriver returns a driver through the proxy that the test closes at its end.
func newDriver(t *testing.T, s *Server) neo4j.DriverWithContext {
	t.Helper()
	d, err := s.NewDriver(func(c *neo4j.Config) { c.MaxTransactionRetryTime = 5 * time.Second })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(context.Background()) })
	return d
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// resetDB empties the server and clears the proxy's faults.
func resetDB(t *testing.T) {
	t.Helper()
	t.Logf("server: %s", srv.Version())
	if err := srv.Reset(ctxT(t, time.Minute)); err != nil {
		t.Fatal(err)
	}
}

// count returns the number of matches of a Cypher pattern such as (n:X),
// read directly from the server.
func count(t *testing.T, pattern string, params map[string]any) int64 {
	t.Helper()
	d, err := srv.Driver()
	if err != nil {
		t.Fatal(err)
	}
	res, err := neo4j.ExecuteQuery(ctxT(t, time.Minute), d, "MATCH "+pattern+" RETURN count(*) AS c", params, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("count %s: %v", pattern, err)
	}
	c, _, err := neo4j.GetRecordValue[int64](res.Records[0], "c")
	if err != nil {
		t.Fatal(err)
	}
	return c
}
