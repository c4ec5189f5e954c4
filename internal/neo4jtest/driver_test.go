package neo4jtest

// Tests of neo4j-go-driver v5 against the real Neo4j 3.1 through the proxy.

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

func TestVerifyConnectivityAndVersion(t *testing.T) {
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatal(err)
	}
	info, err := d.GetServerInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v := info.ProtocolVersion(); v.Major != 3 || v.Minor != 0 {
		t.Errorf("negotiated Bolt %d.%d, want 3.0", v.Major, v.Minor)
	}
	if !strings.Contains(info.Agent(), "3.1.1") {
		t.Errorf("server agent %q does not name 3.1.1", info.Agent())
	}
	res, err := neo4j.ExecuteQuery(ctx, d, "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition",
		nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 1 {
		t.Fatalf("dbms.components() returned %d rows", len(res.Records))
	}
	r := res.Records[0].AsMap()
	if r["name"] != "Neo4j Kernel" || !reflect.DeepEqual(r["versions"], []any{"3.1.1"}) || r["edition"] != "community" {
		t.Errorf("dbms.components() = %v", r)
	}
	rss, err := srv.RSS()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server agent %s, JVM pid %d RSS %d MiB", info.Agent(), srv.PID(), rss>>20)
}

func TestAutoCommitAndManagedTransactions(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)

	// Auto-commit.
	res, err := s.Run(ctx, "CREATE (n:Auto {k: $k}) RETURN n.k AS k", map[string]any{"k": "a"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := res.Single(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := rec.Get("k"); k != "a" {
		t.Fatalf("auto-commit returned %v", k)
	}
	sum, err := res.Consume(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Counters().NodesCreated() != 1 {
		t.Errorf("nodes created = %d", sum.Counters().NodesCreated())
	}

	// Managed write, with transaction metadata and a timeout (BEGIN
	// metadata that Bolt v1 cannot carry and the proxy drops).
	id, err := neo4j.ExecuteWrite(ctx, s, func(tx neo4j.ManagedTransaction) (int64, error) {
		res, err := tx.Run(ctx, "CREATE (n:Managed {k: $k}) RETURN id(n) AS id", map[string]any{"k": "b"})
		if err != nil {
			return 0, err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return 0, err
		}
		v, _, err := neo4j.GetRecordValue[int64](rec, "id")
		return v, err
	}, neo4j.WithTxTimeout(30*time.Second), neo4j.WithTxMetadata(map[string]any{"app": "fondue", "run": 1}))
	if err != nil {
		t.Fatal(err)
	}
	if bm := s.LastBookmarks(); len(bm) != 1 || bm[0] == "" {
		t.Errorf("no bookmark after COMMIT: %v", bm)
	}

	// Managed read in another session, chained by bookmark.
	s2 := d.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead, Bookmarks: s.LastBookmarks()})
	defer s2.Close(ctx)
	k, err := neo4j.ExecuteRead(ctx, s2, func(tx neo4j.ManagedTransaction) (string, error) {
		res, err := tx.Run(ctx, "MATCH (n:Managed) WHERE id(n) = $id RETURN n.k AS k", map[string]any{"id": id})
		if err != nil {
			return "", err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return "", err
		}
		v, _, err := neo4j.GetRecordValue[string](rec, "k")
		return v, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if k != "b" {
		t.Fatalf("read back %q", k)
	}
	if c := count(t, d, "(n:Auto)", nil) + count(t, d, "(n:Managed)", nil); c != 2 {
		t.Fatalf("%d nodes, want 2", c)
	}
}

func TestRolledBackWriteIsGone(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)
	tx, err := s.BeginTransaction(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Run(ctx, "UNWIND range(1, 10) AS i CREATE (:Gone {i: i})", nil); err != nil {
		t.Fatal(err)
	}
	// Visible inside the transaction...
	res, err := tx.Run(ctx, "MATCH (n:Gone) RETURN count(n) AS c", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := res.Single(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := rec.Get("c"); c != int64(10) {
		t.Fatalf("inside the transaction: %v nodes", c)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	// ...and gone after the rollback.
	if c := count(t, d, "(n:Gone)", nil); c != 0 {
		t.Fatalf("%d nodes survived the rollback", c)
	}
	// The session is usable after the rollback.
	if _, err := s.Run(ctx, "CREATE (:Kept)", nil); err != nil {
		t.Fatal(err)
	}
	if c := count(t, d, "(n:Kept)", nil); c != 1 {
		t.Fatalf("%d Kept nodes", c)
	}
}

func TestFailedExecuteWriteIsRolledBack(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)

	// The callback fails: the transaction is rolled back.
	appErr := errors.New("application error")
	_, err := s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		if _, err := tx.Run(ctx, "CREATE (:Failed {step: 1})", nil); err != nil {
			return nil, err
		}
		return nil, appErr
	})
	if !errors.Is(err, appErr) {
		t.Fatalf("ExecuteWrite returned %v, want the callback's error", err)
	}

	// A statement fails on the server: the earlier write of the same
	// transaction is rolled back too.
	_, err = s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		if _, err := tx.Run(ctx, "CREATE (:Failed {step: 2})", nil); err != nil {
			return nil, err
		}
		res, err := tx.Run(ctx, "UNWIND [1, 0] AS x RETURN 1 / x AS y", nil)
		if err != nil {
			return nil, err
		}
		_, err = res.Collect(ctx)
		return nil, err
	})
	var nerr *neo4j.Neo4jError
	if !errors.As(err, &nerr) || nerr.Code != "Neo.ClientError.Statement.ArithmeticError" {
		t.Fatalf("ExecuteWrite returned %v, want Neo.ClientError.Statement.ArithmeticError", err)
	}
	if c := count(t, d, "(n:Failed)", nil); c != 0 {
		t.Fatalf("%d nodes of failed transactions survived", c)
	}
	// The same session (and its connection, after RESET) still works.
	if _, err := s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		_, err := tx.Run(ctx, "CREATE (:Failed {step: 3})", nil)
		return nil, err
	}); err != nil {
		t.Fatal(err)
	}
	if c := count(t, d, "(n:Failed)", nil); c != 1 {
		t.Fatalf("%d nodes, want 1", c)
	}
}

func TestSyntaxError(t *testing.T) {
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)
	for i := 0; i < 3; i++ { // and the connection recovers every time
		_, err := s.Run(ctx, "MATCH (n RETURN n", nil)
		var nerr *neo4j.Neo4jError
		if !errors.As(err, &nerr) {
			t.Fatalf("got %T %v, want *neo4j.Neo4jError", err, err)
		}
		if nerr.Code != "Neo.ClientError.Statement.SyntaxError" || !neo4j.IsNeo4jError(err) {
			t.Fatalf("code %q, want Neo.ClientError.Statement.SyntaxError", nerr.Code)
		}
		if !strings.Contains(nerr.Msg, "line 1, column 10") {
			t.Errorf("message lacks the position: %q", nerr.Msg)
		}
		if neo4j.IsRetryable(err) {
			t.Error("a syntax error must not be retryable")
		}
		res, err := s.Run(ctx, "RETURN 42 AS x", nil)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := res.Single(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if x, _ := rec.Get("x"); x != int64(42) {
			t.Fatalf("after the error: %v", x)
		}
	}
	// Inside a managed transaction the error is returned, not retried.
	attempts := 0
	_, err := neo4j.ExecuteWrite(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
		attempts++
		_, err := tx.Run(ctx, "CREAT (n)", nil)
		return nil, err
	})
	var nerr *neo4j.Neo4jError
	if !errors.As(err, &nerr) || nerr.Code != "Neo.ClientError.Statement.SyntaxError" || attempts != 1 {
		t.Fatalf("ExecuteWrite: %v after %d attempts", err, attempts)
	}
}

func TestParameterTypes(t *testing.T) {
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	long := strings.Repeat("ab✓", 30000) // 150 kB: several Bolt chunks
	params := map[string]any{
		"i":      int64(-1 << 62),
		"small":  int64(7),
		"f":      3.25,
		"tiny":   5e-324,
		"s":      "héllo \"wörld\" ✓ 🎉",
		"empty":  "",
		"long":   long,
		"t":      true,
		"fa":     false,
		"null":   nil,
		"list":   []any{int64(1), "two", 3.5, false, nil, []any{int64(4)}},
		"ints":   []int64{1, -2, 1 << 40},
		"floats": []float64{0.5, -1.25, 1e300},
		"strs":   []string{"a", "", "c"},
		"map":    map[string]any{"k": int64(1), "nested": map[string]any{"x": []any{"y"}}, "nil": nil},
	}
	want := map[string]any{
		"i": int64(-1 << 62), "small": int64(7), "f": 3.25, "tiny": 5e-324,
		"s": "héllo \"wörld\" ✓ 🎉", "empty": "", "long": long, "t": true, "fa": false, "null": nil,
		"list":   []any{int64(1), "two", 3.5, false, nil, []any{int64(4)}},
		"ints":   []any{int64(1), int64(-2), int64(1 << 40)},
		"floats": []any{0.5, -1.25, 1e300},
		"strs":   []any{"a", "", "c"},
		"map":    map[string]any{"k": int64(1), "nested": map[string]any{"x": []any{"y"}}, "nil": nil},
	}
	var cols []string
	for k := range params {
		cols = append(cols, "$"+k+" AS "+k)
	}
	res, err := neo4j.ExecuteQuery(ctx, d, "RETURN "+strings.Join(cols, ", "), params, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Records[0].AsMap()
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			g := got[k]
			if k == "long" {
				g, w = len(got[k].(string)), len(long)
			}
			t.Errorf("$%s came back as %#v, want %#v", k, g, w)
		}
	}

	// UNWIND $rows with a list of maps, as the product writes batches.
	resetDB(t)
	emb := make([]float64, 128)
	for i := range emb {
		emb[i] = float64(i) / 7
	}
	rows := make([]map[string]any, 500)
	for i := range rows {
		rows[i] = map[string]any{"uid": int64(i), "score": float64(i) / 2, "name": "n" + string(rune('a'+i%26)), "emb": emb, "tags": []string{"x", "y"}}
	}
	res, err = neo4j.ExecuteQuery(ctx, d,
		"UNWIND $rows AS row CREATE (n:`Row Label` {uid: row.uid}) SET n += row, n.run = $run RETURN count(n) AS c",
		map[string]any{"rows": rows, "run": "r1"}, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := res.Records[0].Get("c"); c != int64(500) {
		t.Fatalf("created %v rows", c)
	}
	if n := res.Summary.Counters().NodesCreated(); n != 500 {
		t.Errorf("summary says %d nodes created", n)
	}
	res, err = neo4j.ExecuteQuery(ctx, d,
		"MATCH (n:`Row Label`) WHERE n.uid = $uid RETURN properties(n) AS p", map[string]any{"uid": int64(123)}, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Records[0].AsMap()["p"].(map[string]any)
	wantEmb := make([]any, len(emb))
	for i, v := range emb {
		wantEmb[i] = v
	}
	if p["score"] != 61.5 || p["run"] != "r1" || !reflect.DeepEqual(p["emb"], wantEmb) || !reflect.DeepEqual(p["tags"], []any{"x", "y"}) {
		t.Errorf("stored properties %v", p)
	}
}

func TestUnsupportedParameterTypesFailCleanly(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	// Bolt v1 has no temporal or spatial types and Neo4j 3.1 takes no byte
	// arrays: it would drop the connection (a retryable connectivity error,
	// retried until the driver gives up). The proxy answers with a clear,
	// non-retryable error instead, and the connection stays usable.
	for name, v := range map[string]any{
		"time.Time": time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		"[]byte":    []byte{1, 2, 3},
		"nested":    map[string]any{"at": []any{time.Duration(0), neo4j.Duration{Days: 1}}},
	} {
		_, err := neo4j.ExecuteQuery(ctx, d, "RETURN $v AS v", map[string]any{"v": v}, neo4j.EagerResultTransformer)
		var nerr *neo4j.Neo4jError
		if !errors.As(err, &nerr) || nerr.Code != "Neo.ClientError.Statement.TypeError" || !strings.Contains(nerr.Msg, "$v") {
			t.Errorf("%s parameter: %v, want Neo.ClientError.Statement.TypeError naming $v", name, err)
		}
	}
	// Inside a transaction: not retried, and the transaction's earlier
	// write is rolled back.
	s := d.NewSession(ctx, neo4j.SessionConfig{})
	defer s.Close(ctx)
	attempts := 0
	_, err := s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		attempts++
		if _, err := tx.Run(ctx, "CREATE (:BadParam)", nil); err != nil {
			return nil, err
		}
		res, err := tx.Run(ctx, "CREATE (:BadParam {at: $at})", map[string]any{"at": time.Now()})
		if err != nil {
			return nil, err
		}
		return res.Consume(ctx)
	})
	if !neo4j.IsNeo4jError(err) || attempts != 1 {
		t.Fatalf("ExecuteWrite: %v after %d attempts", err, attempts)
	}
	if c := count(t, d, "(n:BadParam)", nil); c != 0 {
		t.Fatalf("%d nodes of the failed transaction survived", c)
	}
	res, err := neo4j.ExecuteQuery(ctx, d, "RETURN $t AS t", map[string]any{"t": "2024-01-02T03:04:05Z"}, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("after the rejected parameters: %v", err)
	}
	if v, _ := res.Records[0].Get("t"); v != "2024-01-02T03:04:05Z" {
		t.Fatalf("got %v", v)
	}
}

func TestCypherNotIn31(t *testing.T) {
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	// The connector's dialect switch depends on these failing on 3.1 (see
	// README.md), and on their 3.1 spellings working.
	for _, q := range []string{
		"MATCH (n) WHERE elementId(n) = $id RETURN n",
		"CREATE CONSTRAINT c IF NOT EXISTS FOR (n:L) REQUIRE n.k IS UNIQUE",
		"CALL { RETURN 1 AS x } RETURN x",
		"RETURN datetime() AS t",
	} {
		_, err := neo4j.ExecuteQuery(ctx, d, q, map[string]any{"id": "1"}, neo4j.EagerResultTransformer)
		var nerr *neo4j.Neo4jError
		if !errors.As(err, &nerr) || nerr.Code != "Neo.ClientError.Statement.SyntaxError" {
			t.Errorf("%s: %v, want a syntax error on 3.1", q, err)
		}
	}
	resetDB(t)
	for _, q := range []string{
		"MATCH (n) WHERE id(n) = $id RETURN n",
		"CREATE CONSTRAINT ON (n:L) ASSERT n.k IS UNIQUE",
		"MERGE (n:L {k: 1}) ON CREATE SET n.c = 1 ON MATCH SET n.c = n.c + 1",
	} {
		if _, err := neo4j.ExecuteQuery(ctx, d, q, map[string]any{"id": int64(1)}, neo4j.EagerResultTransformer); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	_, err := neo4j.ExecuteQuery(ctx, d, "CREATE (:L {k: 1})", nil, neo4j.EagerResultTransformer)
	var nerr *neo4j.Neo4jError
	if !errors.As(err, &nerr) || nerr.Code != "Neo.ClientError.Schema.ConstraintValidationFailed" {
		t.Errorf("duplicate key: %v, want Neo.ClientError.Schema.ConstraintValidationFailed", err)
	}
}

func TestStreamingLargeResult(t *testing.T) {
	const rows = 100_000
	pad := strings.Repeat("p", 500)
	d := newDriver(t, srv)
	ctx := ctxT(t, 3*time.Minute)
	s := d.NewSession(ctx, neo4j.SessionConfig{FetchSize: 100, AccessMode: neo4j.AccessModeRead})
	defer s.Close(ctx)
	proxy := srv.Proxy()
	type result struct {
		n, sum             int64
		relayedAtFirstPeek int64
		total              int64
	}
	r, err := neo4j.ExecuteRead(ctx, s, func(tx neo4j.ManagedTransaction) (result, error) {
		var r result
		before := proxy.Stats().BytesToClient
		res, err := tx.Run(ctx, "UNWIND range(1, $n) AS i RETURN i, $pad AS pad", map[string]any{"n": rows, "pad": pad})
		if err != nil {
			return r, err
		}
		for res.Next(ctx) {
			i := res.Record().Values[0].(int64)
			r.n++
			r.sum += i
			if r.n == 10 {
				// Stop reading for a while: a proxy that buffered whole
				// results would now have relayed (nearly) all of it.
				time.Sleep(time.Second)
				r.relayedAtFirstPeek = proxy.Stats().BytesToClient - before
			}
		}
		r.total = proxy.Stats().BytesToClient - before
		return r, res.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.n != rows || r.sum != rows*(rows+1)/2 {
		t.Fatalf("got %d rows summing to %d", r.n, r.sum)
	}
	if r.total < rows*500 {
		t.Fatalf("only %d bytes relayed for %d rows of 500 bytes", r.total, rows)
	}
	t.Logf("relayed %d of %d bytes (%.0f%%) while the driver held 10 records",
		r.relayedAtFirstPeek, r.total, 100*float64(r.relayedAtFirstPeek)/float64(r.total))
	if r.relayedAtFirstPeek > r.total/3 {
		t.Fatalf("the proxy relayed %d of %d bytes while the driver was not reading: it buffers results",
			r.relayedAtFirstPeek, r.total)
	}
}

func TestConcurrentConnections(t *testing.T) {
	resetDB(t)
	d := newDriver(t, srv)
	ctx := ctxT(t, 3*time.Minute)
	// neo4j-go-driver v5.28.4 lazily sets Connector.SupplyConnection on the
	// first Connect without a lock: concurrent first connections are a data
	// race (go test -race). One connection first avoids it.
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatal(err)
	}
	before := srv.Proxy().Stats()
	const workers, ops = 16, 20
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			s := d.NewSession(ctx, neo4j.SessionConfig{})
			defer s.Close(ctx)
			for i := 0; i < ops; i++ {
				key := int64(w*1000 + i)
				_, err := s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
					_, err := tx.Run(ctx, "CREATE (:Conc {k: $k})", map[string]any{"k": key})
					return nil, err
				})
				if err != nil {
					errs <- err
					return
				}
				got, err := neo4j.ExecuteRead(ctx, s, func(tx neo4j.ManagedTransaction) (int64, error) {
					res, err := tx.Run(ctx, "MATCH (n:Conc {k: $k}) RETURN count(n) AS c", map[string]any{"k": key})
					if err != nil {
						return 0, err
					}
					rec, err := res.Single(ctx)
					if err != nil {
						return 0, err
					}
					c, _, err := neo4j.GetRecordValue[int64](rec, "c")
					return c, err
				})
				if err == nil && got != 1 {
					err = errors.New("a committed write is not visible")
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if c := count(t, d, "(n:Conc)", nil); c != workers*ops {
		t.Fatalf("%d nodes, want %d", c, workers*ops)
	}
	if opened := srv.Proxy().Stats().Accepted - before.Accepted; opened < 2 {
		t.Fatalf("the driver opened %d connections for %d concurrent sessions", opened, workers)
	}
}

func TestReset(t *testing.T) {
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	for _, q := range []string{
		"UNWIND range(1, 50000) AS i CREATE (:`Weird Label` {k: i})",
		"MATCH (a:`Weird Label` {k: 1}), (b:`Weird Label` {k: 2}) CREATE (a)-[:`REL TYPE`]->(b)",
		"CREATE CONSTRAINT ON (n:`Weird Label`) ASSERT n.k IS UNIQUE",
		"CREATE CONSTRAINT ON (n:`We:ird ``La(bel`) ASSERT n.`p)r op` IS UNIQUE",
		"CREATE CONSTRAINT ON (n:Änder) ASSERT n.k IS UNIQUE",
		"CREATE INDEX ON :Other(name)",
		"CREATE INDEX ON :`Ot:her ``x(y`(`na)me`)",
	} {
		if _, err := neo4j.ExecuteQuery(ctx, d, q, nil, neo4j.EagerResultTransformer); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := srv.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if c := count(t, d, "(n)", nil); c != 0 {
		t.Fatalf("%d nodes left", c)
	}
	for _, q := range []string{"CALL db.constraints()", "CALL db.indexes()"} {
		res, err := neo4j.ExecuteQuery(ctx, d, q, nil, neo4j.EagerResultTransformer)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) != 0 {
			t.Errorf("%s still lists %v", q, res.Records[0].Values)
		}
	}
	// The constraint is really gone: duplicates are accepted now.
	if _, err := neo4j.ExecuteQuery(ctx, d, "CREATE (:`Weird Label` {k: 1}), (:`Weird Label` {k: 1})", nil, neo4j.EagerResultTransformer); err != nil {
		t.Fatal(err)
	}
}
