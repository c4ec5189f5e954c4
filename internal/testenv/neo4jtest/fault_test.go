package neo4jtest

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestDropAfterBytesMidResult: a result cut off mid-stream is a connectivity
// error for the reader, and the proxy counts the cut.
func TestDropAfterBytesMidResult(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	dropped := srv.Proxy().Stats().Dropped
	srv.Proxy().DropAfterBytes(20000)
	s := d.NewSession(ctx, neo4j.SessionConfig{FetchSize: 1000})
	defer s.Close(ctx)
	res, err := s.Run(ctx, "UNWIND range(1, 200000) AS i RETURN i, 'padding padding' AS p", nil)
	n := 0
	if err == nil {
		for res.Next(ctx) {
			n++
		}
		err = res.Err()
	}
	if err == nil || !neo4j.IsConnectivityError(err) {
		t.Fatalf("read %d records, err %v: want a connectivity error", n, err)
	}
	if n == 0 || n >= 200000 {
		t.Errorf("read %d records before the cut", n)
	}
	if got := srv.Proxy().Stats().Dropped; got != dropped+1 {
		t.Errorf("dropped %d connections, want 1", got-dropped)
	}
}

// TestDropWhenSentRetriesOnce: a managed transaction whose statement never
// reached the server is retried by the driver and applied exactly once.
func TestDropWhenSentRetriesOnce(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	dropped := srv.Proxy().Stats().Dropped
	srv.Proxy().DropWhenSent("CREATE (:Marked", 1)
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)
	attempts := 0
	_, err := s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		attempts++
		_, err := tx.Run(ctx, "CREATE (:Marked {at: $at})", map[string]any{"at": attempts})
		return nil, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 2 || srv.Proxy().Stats().Dropped != dropped+1 {
		t.Errorf("%d attempts, %d cuts: want 2 and 1", attempts, srv.Proxy().Stats().Dropped-dropped)
	}
	if c := count(t, "(n:Marked {at: 2})", nil); c != 1 || count(t, "(n:Marked)", nil) != 1 {
		t.Errorf("%d nodes from the retry, %d in all: want exactly one", c, count(t, "(n:Marked)", nil))
	}
}

// TestDropAllMidTransaction: cutting an open transaction's connection rolls
// it back on the server.
func TestDropAllMidTransaction(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)
	tx, err := s.BeginTransaction(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Run(ctx, "UNWIND range(1, 100) AS i CREATE (:Lost {i: i})", nil); err != nil {
		t.Fatal(err)
	}
	if n := srv.Proxy().DropAll(); n == 0 {
		t.Fatal("no connection to drop")
	}
	if err := tx.Commit(ctx); err == nil {
		t.Fatal("commit through a cut connection succeeded")
	}
	deadline := time.Now().Add(20 * time.Second)
	for count(t, "(n:Lost)", nil) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the cut transaction's nodes are visible")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestRefuseAndRestore(t *testing.T) {
	resetDB(t)
	ctx := ctxT(t, time.Minute)
	srv.Proxy().Refuse()
	d, err := neo4j.NewDriverWithContext(srv.BoltURL(), srv.AuthToken())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	err = d.VerifyConnectivity(ctx)
	if err == nil || !errors.Is(err, syscall.ECONNREFUSED) && !neo4j.IsConnectivityError(err) {
		t.Fatalf("refused proxy: %v", err)
	}
	if err := srv.Proxy().Restore(); err != nil {
		t.Fatal(err)
	}
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatalf("after Restore: %v", err)
	}
}

// TestStall: a stalled server holds a query until the caller's deadline;
// after Resume the same driver works.
func TestStall(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	if err := d.VerifyConnectivity(ctxT(t, time.Minute)); err != nil {
		t.Fatal(err)
	}
	srv.Proxy().Stall()
	short, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := neo4j.ExecuteQuery(short, d, "RETURN 1", nil, neo4j.EagerResultTransformer)
	if err == nil {
		t.Fatal("a query went through a stalled proxy")
	}
	if el := time.Since(start); el < 1500*time.Millisecond {
		t.Errorf("failed after %s, before the deadline: %v", el, err)
	}
	srv.Proxy().Resume()
	srv.Proxy().DropAll() // the stalled connection's state is unknown
	if _, err := neo4j.ExecuteQuery(ctxT(t, time.Minute), d, "RETURN 1", nil, neo4j.EagerResultTransformer); err != nil {
		t.Fatalf("after Resume: %v", err)
	}
}

// TestDropWhenSentNeverReachesServer: the triggering statement is not
// forwarded, so even an auto-commit write is not applied; with
// RefuseAfterCut the server is gone at once for the driver's reconnect.
func TestDropWhenSentNeverReachesServer(t *testing.T) {
	resetDB(t)
	ctx := ctxT(t, time.Minute)
	d, err := neo4j.NewDriverWithContext(srv.BoltURL(), srv.AuthToken(), func(c *neo4j.Config) { c.MaxTransactionRetryTime = 0 })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatal(err)
	}
	srv.Proxy().DropWhenSent("CREATE (:AutoCommit", 1)
	srv.Proxy().RefuseAfterCut()
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)
	res, err := s.Run(ctx, "CREATE (:AutoCommit {x: 1})", nil)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err == nil {
		t.Fatal("the cut statement succeeded")
	}
	if c := count(t, "(n:AutoCommit)", nil); c != 0 {
		t.Fatalf("the cut statement reached the server: %d nodes", c)
	}
	if err := d.VerifyConnectivity(ctx); err == nil {
		t.Fatal("a new connection was accepted after RefuseAfterCut")
	}
	if err := srv.Proxy().ClearFaults(); err != nil {
		t.Fatal(err)
	}
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatalf("after ClearFaults: %v", err)
	}
}

// TestRefuseCutsConnectionsBeingSetUp: a connection the proxy accepted just
// before the server went away, and was still setting up (dialling the
// server) at that moment, is cut too, however late it registers; both ways
// of going away (Refuse, a cut with RefuseAfterCut).
func TestRefuseCutsConnectionsBeingSetUp(t *testing.T) {
	for _, way := range []struct {
		name string
		gone func(t *testing.T)
	}{
		{"Refuse", func(*testing.T) { srv.Proxy().Refuse() }},
		{"RefuseAfterCut", func(t *testing.T) {
			// Another client's statement triggers the cut (this runs in the
			// proxy's goroutine: no t.Fatal).
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			d, err := neo4j.NewDriverWithContext(srv.BoltURL(), srv.AuthToken(), func(c *neo4j.Config) { c.MaxTransactionRetryTime = 0 })
			if err != nil {
				t.Error(err)
				return
			}
			defer d.Close(ctx)
			srv.Proxy().DropWhenSent("RETURN 'cut'", 1)
			srv.Proxy().RefuseAfterCut()
			if _, err := neo4j.ExecuteQuery(ctx, d, "RETURN 'cut'", nil, neo4j.EagerResultTransformer); err == nil {
				t.Error("the cut statement succeeded")
			}
		}},
	} {
		t.Run(way.name, func(t *testing.T) {
			resetDB(t)
			ctx := ctxT(t, time.Minute)
			d, err := neo4j.NewDriverWithContext(srv.BoltURL(), srv.AuthToken())
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close(ctx)
			p := srv.Proxy()
			before := p.Stats()
			p.mu.Lock()
			p.beforeRegister = func() { way.gone(t) }
			p.mu.Unlock()
			if err := d.VerifyConnectivity(ctx); err == nil {
				t.Fatal("a connection accepted before the server went away was relayed after")
			}
			if st := p.Stats(); st.Refused != before.Refused+1 {
				t.Errorf("stats %+v, before %+v: want one more refused", st, before)
			}
			if err := p.ClearFaults(); err != nil {
				t.Fatal(err)
			}
			if err := d.VerifyConnectivity(ctx); err != nil {
				t.Fatalf("after ClearFaults: %v", err)
			}
		})
	}
}

// TestDropAllKeepsRefuseAfterCutArmed: DropAll is not a fault's cut, so it
// does not take the server away; the armed RefuseAfterCut waits for one.
func TestDropAllKeepsRefuseAfterCutArmed(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatal(err)
	}
	srv.Proxy().RefuseAfterCut()
	if n := srv.Proxy().DropAll(); n == 0 {
		t.Fatal("no connection to drop")
	}
	if _, err := neo4j.ExecuteQuery(ctx, d, "RETURN 1", nil, neo4j.EagerResultTransformer); err != nil {
		t.Fatalf("after DropAll with RefuseAfterCut armed: %v", err)
	}
	srv.Proxy().DropWhenSent("RETURN 'cut'", 1)
	if _, err := neo4j.ExecuteQuery(ctx, d, "RETURN 'cut'", nil, neo4j.EagerResultTransformer); err == nil {
		t.Fatal("the cut statement succeeded")
	}
	if err := d.VerifyConnectivity(ctx); err == nil {
		t.Fatal("a new connection was accepted after the fault's cut")
	}
	if err := srv.Proxy().ClearFaults(); err != nil {
		t.Fatal(err)
	}
}

// TestStallWhenSent: the proxy stalls as the client sends the text, before
// those bytes reach the server, for every connection; a cut discards them.
func TestStallWhenSent(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatal(err)
	}
	srv.Proxy().StallWhenSent("CREATE (:Held", 1)
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	res, err := s.Run(short, "CREATE (:Held {x: 1})", nil)
	if err == nil {
		_, err = res.Consume(short)
	}
	if err == nil {
		t.Fatal("a statement went through the stalled proxy")
	}
	if n := srv.Proxy().SentCount(); n != 1 {
		t.Errorf("SentCount %d, want 1", n)
	}
	other, cancel2 := context.WithTimeout(ctx, time.Second)
	defer cancel2()
	if _, err := neo4j.ExecuteQuery(other, d, "RETURN 1", nil, neo4j.EagerResultTransformer); err == nil {
		t.Fatal("another query went through the stalled proxy")
	}
	srv.Proxy().DropAll()
	if err := srv.Proxy().ClearFaults(); err != nil {
		t.Fatal(err)
	}
	if c := count(t, "(n:Held)", nil); c != 0 {
		t.Fatalf("the held statement reached the server: %d nodes", c)
	}
	if _, err := neo4j.ExecuteQuery(ctx, d, "RETURN 1", nil, neo4j.EagerResultTransformer); err != nil {
		t.Fatalf("after ClearFaults: %v", err)
	}
}
