package neo4jtest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// Main runs a test package against one Neo4j server. Call it from TestMain:
//
//	var srv *neo4jtest.Server
//
//	func TestMain(m *testing.M) {
//		neo4jtest.Main(m, neo4jtest.Options{}, func(s *neo4jtest.Server) { srv = s })
//	}
//
// It starts the server (installing Neo4j on first use), passes it to use,
// runs the tests, stops the server and exits with the tests' status. If the
// server cannot be started it prints why and exits with status 1: the tests
// fail, they are never skipped.
func Main(m *testing.M, opts Options, use func(*Server)) {
	os.Exit(run(m, opts, use))
}

func run(m *testing.M, opts Options, use func(*Server)) int {
	if opts.Logf == nil {
		opts.Logf = func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, format+"\n", args...)
		}
	}
	// A cold install downloads 137 MB; give it time, but not forever.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	srv, err := Start(ctx, opts)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: could not start the Neo4j test server:\n%v\n", err)
		return 1
	}
	defer func() {
		if err := srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "neo4jtest: stop: %v\n", err)
		}
	}()
	use(srv)
	return m.Run()
}
