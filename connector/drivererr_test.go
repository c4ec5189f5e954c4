package connector

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The classification of driver errors, on error values made as the
// driver makes them (no server).

func TestConnectErrorClassifies(t *testing.T) {
	c := &Conn{cfg: Config{URI: "bolt://db:7687", User: "neo4j", Password: "pw", Database: "graph", ConnectTimeout: 3 * time.Second}}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	cases := []struct {
		err  error
		kind error
		msg  string
	}{
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Security.AuthenticationRateLimit", Msg: "too many"}, syncjob.ErrAuth,
			`Neo4j at bolt://db:7687: too many failed logins for user "neo4j": the server refuses logins for a few seconds (check the password)`},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Security.Unauthorized", Msg: "no"}, syncjob.ErrAuth,
			`Neo4j at bolt://db:7687: authentication failed for user "neo4j" (wrong user or password)`},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Database.DatabaseNotFound", Msg: "no db"}, syncjob.ErrInvalid,
			`Neo4j at bolt://db:7687: database "graph" does not exist`},
		{&neo4j.Neo4jError{Code: "Neo.TransientError.General.DatabaseUnavailable", Msg: "starting\nup"}, syncjob.ErrUnreachable,
			`Neo4j at bolt://db:7687: starting ...`},
		{refused, syncjob.ErrUnreachable,
			"cannot reach Neo4j at bolt://db:7687: connection refused (is Neo4j running, and is the Bolt port right?)"},
		{fmt.Errorf("dial: %w", context.DeadlineExceeded), syncjob.ErrUnreachable,
			"cannot reach Neo4j at bolt://db:7687: no answer within 3s"},
		// internal/bolt/connect.go, Connect and the manifest negotiation.
		{errors.New("server did not accept any of the requested Bolt versions ([4]bolt.protocolVersion{...})"), syncjob.ErrUnreachable,
			"Neo4j at bolt://db:7687 does not speak a Bolt version this driver supports (3.0 and later): is it a Neo4j Bolt port? (server did not accept any of the requested Bolt versions ([4]bolt.protocolVersion{...}))"},
		{&neo4j.ConnectivityError{Inner: errors.New("tls: first record does not look like a TLS handshake")}, syncjob.ErrUnreachable,
			"Neo4j at bolt://db:7687 does not speak a Bolt version this driver supports (3.0 and later): is it a Neo4j Bolt port? (ConnectivityError: tls: first record does not look like a TLS handshake)"},
		{&neo4j.UsageError{Message: "server responded HTTP"}, syncjob.ErrUnreachable,
			"cannot reach Neo4j at bolt://db:7687: server responded HTTP"},
	}
	for _, tc := range cases {
		got := c.connectError(tc.err)
		if !errors.Is(got, tc.kind) || got.Error() != tc.msg {
			t.Errorf("%v:\n got %v (%v)\nwant %s (%v)", tc.err, got, errors.Is(got, tc.kind), tc.msg, tc.kind)
		}
		if !errors.Is(got, tc.err) {
			t.Errorf("%v: the driver's error is not wrapped in %v", tc.err, got)
		}
	}
	c.cfg.Password = ""
	got := c.connectError(&neo4j.Neo4jError{Code: "Neo.ClientError.Security.Unauthorized"})
	if !syncjob.IsAuth(got) || !errors.Is(got, ErrNoPassword) || got.Error() != "Neo4j at bolt://db:7687 requires authentication" {
		t.Errorf("no password: %v", got)
	}
}

func TestClassifyWrapsTheDriversError(t *testing.T) {
	c := &Conn{cfg: Config{URI: "bolt://db:7687", Database: "graph", MaxRetryTime: 5 * time.Second}}
	if c.classify(nil, "x") != nil {
		t.Error("classify(nil) is not nil")
	}
	own := errorf(syncjob.ErrInvalid, nil, "mine")
	for _, err := range []error{own, context.Canceled, fmt.Errorf("read: %w", context.DeadlineExceeded)} {
		if got := c.classify(err, "x"); got != err {
			t.Errorf("classify(%v) = %v, want it unchanged", err, got)
		}
	}
	lost := &neo4j.ConnectivityError{Inner: errors.New("EOF")}
	eof := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	syntax := &neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError", Msg: "Invalid input 'X'\n  ^"}
	cases := []struct {
		err  error
		kind error // nil: none
		msg  string
	}{
		{lost, syncjob.ErrUnreachable, "lost the connection to Neo4j at bolt://db:7687 while trying to list the runs (retried for up to 5s): ConnectivityError: EOF"},
		{eof, syncjob.ErrUnreachable, "lost the connection to Neo4j at bolt://db:7687 while trying to list the runs (retried for up to 5s): read tcp: connection reset by peer"},
		{&neo4j.TransactionExecutionLimit{Cause: "timeout", Errors: []error{eof}}, syncjob.ErrUnreachable, ""},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Security.Forbidden", Msg: "denied"}, syncjob.ErrAuth, "Neo4j at bolt://db:7687 refused to list the runs: denied"},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Database.DatabaseNotFound"}, syncjob.ErrInvalid, `Neo4j at bolt://db:7687: database "graph" does not exist`},
		{syntax, nil, "list the runs: Neo4jError: Neo.ClientError.Statement.SyntaxError (Invalid input 'X' ..."},
	}
	for _, tc := range cases {
		got := c.classify(tc.err, "list the runs")
		if tc.kind != nil && !errors.Is(got, tc.kind) || tc.kind == nil && errors.As(got, new(*syncjob.Error)) {
			t.Errorf("%v: %v is not of kind %v", tc.err, got, tc.kind)
		}
		if tc.msg != "" && got.Error() != tc.msg {
			t.Errorf("%v:\n got %s\nwant %s", tc.err, got, tc.msg)
		}
		if !errors.Is(got, tc.err) {
			t.Errorf("%v: the driver's error is not wrapped in %v", tc.err, got)
		}
	}
	var nerr *neo4j.Neo4jError
	if got := c.classify(syntax, "x"); !errors.As(got, &nerr) || nerr != syntax {
		t.Errorf("the Neo4jError is not found in %v", got)
	}
}

func TestIsCanceled(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{context.Canceled, true},
		{fmt.Errorf("pull: %w", context.Canceled), true},
		// errorutil.ConnectionReadCanceled, which does not unwrap.
		{errors.New("Reading from connection has been canceled: context canceled"), true},
		// errorutil.CombineErrors formats the later error with %v.
		{fmt.Errorf("error %v occurred after previous error %w", context.Canceled, errors.New("EOF")), true},
		{context.DeadlineExceeded, false},
		{&neo4j.ConnectivityError{Inner: errors.New("EOF")}, false},
	} {
		if got := isCanceled(tc.err); got != tc.want {
			t.Errorf("isCanceled(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
