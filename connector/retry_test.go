package connector

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// One retry budget for the whole run: once the server is gone, the write
// that noticed retries for MaxRetryTime and fails; the lock's release
// that follows gets what is left of the budget (nothing), not a budget of
// its own.
func TestRetryBudgetIsTheRuns(t *testing.T) {
	reset(t)
	loadEdgeList(t, "testdata/netscience.edges", "Author", "COAUTHOR", "uid")
	const budget = 4 * time.Second
	c, _ := open(t, func(c *Config) { c.MaxRetryTime, c.ConnectTimeout = budget, 3*time.Second })
	ctx := ctxT(t, 2*time.Minute)
	sg, err := c.Pull(ctx, syncjob.PullOptions{NodeLabels: []string{"Author"}, IDProperty: "uid"})
	if err != nil {
		t.Fatal(err)
	}
	res := scoreGraph(t, sg.Graph, 1)
	l, err := c.AcquireLock(ctx, syncjob.LockOptions{RunID: "budget"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Proxy().Refuse()
	defer srv.Proxy().ClearFaults()
	t0 := time.Now()
	_, err = syncjob.WriteScores(ctx, c, sg, res, syncjob.WriteOptions{Property: "ambiguity", RunID: "budget", BatchSize: 100}, nil)
	write := time.Since(t0)
	if !errors.Is(err, syncjob.ErrUnreachable) || !strings.Contains(err.Error(), "lost the connection to Neo4j") {
		t.Fatalf("write with the server gone: %v", err)
	}
	if err := l.Release(ctx); !errors.Is(err, syncjob.ErrUnreachable) {
		t.Fatalf("release with the server gone: %v", err)
	}
	total := time.Since(t0)
	t.Logf("write failed after %s, release after %s", write.Round(time.Millisecond), total.Round(time.Millisecond))
	// The write retried for the budget; the whole failure, release
	// included, fits in the budget and slack for a busy machine.
	if write < budget || total > budget+3*time.Second {
		t.Fatalf("write failed after %s, release after %s: want the budget %s once (with at most 3s slack)", write, total, budget)
	}
	// Once the server is back, a call succeeds and the budget is whole again.
	if err := srv.Proxy().ClearFaults(); err != nil {
		t.Fatal(err)
	}
	if _, err := syncjob.LoadPlan(ctx, c, "budget"); err != nil {
		t.Fatal(err)
	}
	if left := c.retryLeft(); left != budget {
		t.Fatalf("budget left after a success: %s", left)
	}
}

// connect_timeout bounds connecting: a server that accepts connections but
// never answers fails Open within it (it used to take twice as long).
func TestOpenConnectTimeout(t *testing.T) {
	reset(t)
	srv.Proxy().Stall()
	defer func() {
		srv.Proxy().ClearFaults()
		srv.Proxy().DropAll()
	}()
	const timeout = 5 * time.Second
	t0 := time.Now()
	_, err := Open(ctxT(t, time.Minute), Config{URI: srv.BoltURL(), User: neo4jtest.User, Password: srv.Password(), ConnectTimeout: timeout})
	elapsed := time.Since(t0)
	t.Logf("failed after %s: %v", elapsed.Round(time.Millisecond), err)
	if !errors.Is(err, syncjob.ErrUnreachable) || !strings.Contains(err.Error(), "no answer within 5s") || elapsed > timeout+3*time.Second {
		t.Fatalf("a server that never answers: %v after %s, want ErrUnreachable within %s (and 3s slack)", err, elapsed, timeout)
	}
}
