package neo4jtest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// Main runs a test package's whole suite once per server version (every
// version in Versions, or those $TESTENV_NEO4J_VERSIONS selects). Call it
// from TestMain:
//
//	var srv *neo4jtest.Server
//
//	func TestMain(m *testing.M) {
//		neo4jtest.Main(m, neo4jtest.Options{}, func(s *neo4jtest.Server) { srv = s })
//	}
//
// The servers start in parallel (installing on first use); then, for each
// version in turn, use receives its server and the tests run. opts.Version
// is ignored. If a server cannot be started Main prints why and exits with
// status 1: the tests fail, they are never skipped.
func Main(m *testing.M, opts Options, use func(*Server)) {
	os.Exit(Run(m, opts, use))
}

// Run is Main without the exit: it returns the exit code, for a TestMain
// that cleans up after the suites.
func Run(m *testing.M, opts Options, use func(*Server)) int {
	if opts.Logf == nil {
		opts.Logf = func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, format+"\n", args...)
		}
	}
	versions, err := SelectedVersions()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	// A cold install downloads a few hundred MB from Maven Central.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	servers, err := StartAll(ctx, versions, opts)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: could not start the Neo4j test servers:\n%v\n", err)
		return 1
	}
	code := 0
	for i, srv := range servers {
		fmt.Fprintf(os.Stderr, "=== neo4jtest: running the tests on %s\n", srv.Version())
		use(srv)
		if c := m.Run(); c != 0 {
			fmt.Fprintf(os.Stderr, "--- neo4jtest: tests failed on %s\n", srv.Version())
			code = c
		}
		if err := srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "neo4jtest: stop: %v\n", err)
		}
		servers[i] = nil
	}
	return code
}

// StartAll starts one server per version, in parallel. On failure it stops
// those that started and returns every error.
func StartAll(ctx context.Context, versions []Version, opts Options) ([]*Server, error) {
	servers := make([]*Server, len(versions))
	errs := make([]error, len(versions))
	var wg sync.WaitGroup
	for i, v := range versions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := opts
			o.Version = v
			servers[i], errs[i] = Start(ctx, o)
		}()
	}
	wg.Wait()
	var msg string
	for i, err := range errs {
		if err != nil {
			msg += fmt.Sprintf("%s: %v\n", versions[i], err)
		}
	}
	if msg != "" {
		for _, s := range servers {
			if s != nil {
				s.Stop()
			}
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return servers, nil
}
