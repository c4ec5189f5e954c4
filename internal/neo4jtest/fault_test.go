package neo4jtest

// Fault injection through the proxy: the driver must see connectivity
// errors, Neo4j must roll back, and managed transactions must retry.

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

func TestDropAllMidExecuteWrite(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, 2*time.Minute)
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)
	attempts := 0
	var firstErr error
	_, err := s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		attempts++
		if _, err := tx.Run(ctx, "CREATE (:DropAll {attempt: $a})", map[string]any{"a": attempts}); err != nil {
			return nil, err
		}
		if attempts == 1 {
			if n := srv.Proxy().DropAll(); n < 1 {
				return nil, fmt.Errorf("DropAll cut %d connections", n)
			}
		}
		res, err := tx.Run(ctx, "CREATE (:DropAll {attempt: $a}) RETURN 1", map[string]any{"a": attempts})
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return nil, err
	})
	if err != nil {
		t.Fatalf("ExecuteWrite did not recover: %v", err)
	}
	if attempts != 2 {
		t.Fatalf("%d attempts, want 2", attempts)
	}
	if !neo4j.IsConnectivityError(firstErr) || !neo4j.IsRetryable(firstErr) {
		t.Fatalf("the dropped connection gave %T %v, want a retryable connectivity error", firstErr, firstErr)
	}
	t.Logf("error seen by the callback: %v", firstErr)
	// Only the second attempt's two nodes exist: the first was rolled back.
	if c := count(t, d, "(n:DropAll)", nil); c != 2 {
		t.Fatalf("%d nodes, want 2", c)
	}
	if c := count(t, d, "(n:DropAll {attempt: 1})", nil); c != 0 {
		t.Fatalf("%d nodes of the dropped attempt survived", c)
	}
}

func TestDropAtRunMidBatchWrite(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, 2*time.Minute)
	const batches, batchSize = 5, 1000
	rows := func(b int) []map[string]any {
		r := make([]map[string]any, batchSize)
		for i := range r {
			r[i] = map[string]any{"uid": int64(b*batchSize + i), "score": 0.5}
		}
		return r
	}
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)
	srv.Proxy().DropAtRun(3) // the third batch never reaches Neo4j
	defer srv.Proxy().ClearFaults()
	attempts := 0
	var failedAt int
	_, err := s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		attempts++
		for b := 0; b < batches; b++ {
			res, err := tx.Run(ctx, "UNWIND $rows AS row CREATE (n:Batch) SET n = row", map[string]any{"rows": rows(b)})
			if err == nil {
				_, err = res.Consume(ctx)
			}
			if err != nil {
				if attempts == 1 {
					failedAt = b + 1
				}
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil {
		t.Fatalf("ExecuteWrite did not recover: %v", err)
	}
	if attempts != 2 || failedAt != 3 {
		t.Fatalf("%d attempts, first failed at batch %d; want 2 attempts, failure at batch 3", attempts, failedAt)
	}
	if c := count(t, d, "(n:Batch)", nil); c != batches*batchSize {
		t.Fatalf("%d nodes, want %d (the dropped attempt's batches must be rolled back)", c, batches*batchSize)
	}
	res, err := neo4j.ExecuteQuery(ctx, d, "MATCH (n:Batch) RETURN count(DISTINCT n.uid) AS u", nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := res.Records[0].Get("u"); u != int64(batches*batchSize) {
		t.Fatalf("%v distinct uids: duplicates from the dropped attempt", u)
	}
}

func TestDropAfterBytesMidResult(t *testing.T) {
	d := newDriver(t, srv)
	ctx := ctxT(t, 2*time.Minute)
	s := d.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead})
	defer s.Close(ctx)
	const rows = 20000
	var seen []int
	var firstErr error
	n, err := neo4j.ExecuteRead(ctx, s, func(tx neo4j.ManagedTransaction) (int, error) {
		if len(seen) == 0 {
			srv.Proxy().DropAfterBytes(500 << 10) // ~5000 rows of ~100 bytes
		}
		res, err := tx.Run(ctx, "UNWIND range(1, $n) AS i RETURN i, $pad AS pad", map[string]any{"n": rows, "pad": string(make([]byte, 90))})
		if err != nil {
			return 0, err
		}
		got := 0
		for res.Next(ctx) {
			got++
		}
		seen = append(seen, got)
		if res.Err() != nil && firstErr == nil {
			firstErr = res.Err()
		}
		return got, res.Err()
	})
	if err != nil {
		t.Fatalf("ExecuteRead did not recover: %v", err)
	}
	if n != rows || len(seen) != 2 {
		t.Fatalf("got %d rows, attempts saw %v", n, seen)
	}
	// 500 kB at about 100 bytes a row: the driver gets about 5000 rows.
	if seen[0] < 4000 || seen[0] > 6000 {
		t.Fatalf("the first attempt saw %d rows, want about 5000: the cut was not where the budget ran out", seen[0])
	}
	if !neo4j.IsConnectivityError(firstErr) {
		t.Fatalf("the cut gave %T %v, want a connectivity error", firstErr, firstErr)
	}
	t.Logf("cut after %d of %d rows: %v", seen[0], rows, firstErr)
}

func TestRefuseAndRestore(t *testing.T) {
	d := newDriver(t, srv)
	ctx := ctxT(t, 2*time.Minute)
	proxy := srv.Proxy()
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatal(err)
	}
	proxy.Refuse()
	defer proxy.Restore()
	start := time.Now()
	err := d.VerifyConnectivity(ctx)
	if err == nil {
		t.Fatal("VerifyConnectivity succeeded while the server refuses connections")
	}
	if !neo4j.IsConnectivityError(err) {
		t.Errorf("got %T %v, want a connectivity error", err, err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("refusal took %s to surface", time.Since(start))
	}
	t.Logf("while refused: %v", err)

	// A managed transaction started while the server is away retries and
	// succeeds once it is back.
	done := make(chan error, 1)
	go func() {
		_, err := neo4j.ExecuteQuery(ctx, d, "RETURN 1", nil, neo4j.EagerResultTransformer)
		done <- err
	}()
	time.Sleep(1500 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("the query finished (%v) while the server was refusing", err)
	default:
	}
	if err := proxy.Restore(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the retried query failed after Restore: %v", err)
	}
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestDropWhenQueryMatches(t *testing.T) {
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	srv.Proxy().DropWhen(func(r Request) bool { return r.Message == "RUN" && r.Query == "RETURN 'cut me'" })
	defer srv.Proxy().ClearFaults()
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)
	_, err := s.Run(ctx, "RETURN 'cut me'", nil)
	if err == nil {
		t.Fatal("the matching query went through")
	}
	var cerr *neo4j.ConnectivityError
	if !errors.As(err, &cerr) {
		t.Fatalf("got %T %v, want *neo4j.ConnectivityError", err, err)
	}
	if _, err := s.Run(ctx, "RETURN 'fine'", nil); err != nil {
		t.Fatalf("a non-matching query after the cut: %v", err)
	}
}
