package neo4jtest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/toolcache"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestRestartKeepsData restarts the suite's server mid-suite, cleanly and
// then after SIGKILL, on its data folder: each time it comes up again, with
// the nodes and the constraint committed before, the same password and the
// same BoltURL; a driver opened before the restarts keeps working; and the
// tests after this one run on the restarted server.
func TestRestartKeepsData(t *testing.T) {
	resetDB(t)
	ctx := ctxT(t, 10*time.Minute)
	d := newDriver(t, srv)
	write := func(q string) {
		t.Helper()
		if _, err := neo4j.ExecuteQuery(ctx, d, q, nil, neo4j.EagerResultTransformer); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	write("CREATE CONSTRAINT kept_n FOR (k:Kept) REQUIRE k.n IS UNIQUE")
	write("UNWIND range(1, 1000) AS i CREATE (:Kept {n: i})")
	url, dir := srv.BoltURL(), srv.Dir()
	for _, restart := range []struct {
		name string
		opts RestartOptions
		n    int64
	}{{"clean", RestartOptions{}, 1000}, {"after SIGKILL", RestartOptions{Kill: true}, 1001}} {
		pid := srv.PID()
		if err := srv.Restart(ctx, restart.opts); err != nil {
			t.Fatalf("restart (%s): %v", restart.name, err)
		}
		if srv.PID() == pid || !processGone(pid) {
			t.Fatalf("restart (%s): the JVM pid %d is still the server's or still running (now %d)", restart.name, pid, srv.PID())
		}
		if srv.BoltURL() != url || srv.Dir() != dir || srv.ServerVersion() != srv.Version().Neo4j {
			t.Fatalf("restart (%s): BoltURL %s, dir %s, version %s; want %s, %s, %s", restart.name,
				srv.BoltURL(), srv.Dir(), srv.ServerVersion(), url, dir, srv.Version().Neo4j)
		}
		if got := count(t, "(k:Kept)", nil); got != restart.n {
			t.Fatalf("after the restart (%s): %d :Kept nodes, want %d", restart.name, got, restart.n)
		}
		// The old driver reconnects through the proxy; the constraint holds.
		_, err := neo4j.ExecuteQuery(ctx, d, "CREATE (:Kept {n: 1})", nil, neo4j.EagerResultTransformer)
		var nerr *neo4j.Neo4jError
		if !errors.As(err, &nerr) || nerr.Code != "Neo.ClientError.Schema.ConstraintValidationFailed" {
			t.Fatalf("after the restart (%s): a duplicate n: %v, want the constraint's error", restart.name, err)
		}
		if restart.n == 1000 {
			write("CREATE (:Kept {n: 1001})") // committed, then the server is killed
		}
	}
	fresh := newDriver(t, srv)
	if err := fresh.VerifyConnectivity(ctx); err != nil {
		t.Fatalf("a new driver after the restarts: %v", err)
	}
}

// TestServerVersionAndPlugins checks that the running server is the pinned
// version, with the pinned GDS and APOC core procedures callable.
func TestServerVersionAndPlugins(t *testing.T) {
	resetDB(t)
	if got := srv.ServerVersion(); got != srv.Version().Neo4j {
		t.Fatalf("server reports %q, want %q", got, srv.Version().Neo4j)
	}
	d := newDriver(t, srv)
	ctx := ctxT(t, time.Minute)
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := neo4j.ExecuteQuery(ctx, d,
		`CALL dbms.components() YIELD name, versions, edition WHERE name = 'Neo4j Kernel'
		 RETURN versions[0] AS v, edition, gds.version() AS gds, apoc.version() AS apoc`, nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Records[0].AsMap()
	want := map[string]any{"v": srv.Version().Neo4j, "edition": "community", "gds": srv.Version().GDS, "apoc": srv.Version().APOC}
	for k, w := range want {
		if r[k] != w {
			t.Errorf("%s = %v, want %v", k, r[k], w)
		}
	}
	// A GDS algorithm and an APOC procedure run on real data.
	if _, err := neo4j.ExecuteQuery(ctx, d, "CREATE (a:P {id: 1})-[:R]->(b:P {id: 2})-[:R]->(c:P {id: 3})-[:R]->(a)", nil, neo4j.EagerResultTransformer); err != nil {
		t.Fatal(err)
	}
	res, err = neo4j.ExecuteQuery(ctx, d, `CALL gds.graph.project('g', 'P', {R: {orientation: 'UNDIRECTED'}}) YIELD nodeCount
		CALL gds.localClusteringCoefficient.stream('g') YIELD nodeId, localClusteringCoefficient AS c
		RETURN nodeCount, collect(c) AS cs`, nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	if nc, _ := res.Records[0].Get("nodeCount"); nc != int64(3) {
		t.Errorf("projected %v nodes, want 3", nc)
	}
	if cs, _ := res.Records[0].Get("cs"); fmt.Sprint(cs) != "[1 1 1]" {
		t.Errorf("clustering coefficients of a triangle: %v, want [1 1 1]", cs)
	}
	res, err = neo4j.ExecuteQuery(ctx, d, "MATCH (n:P) WITH collect(n) AS ns CALL apoc.refactor.rename.label('P', 'Q', ns) YIELD total RETURN total", nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	if got := count(t, "(n:Q)", nil); got != 3 {
		t.Errorf("after apoc.refactor.rename.label: %d :Q nodes, want 3", got)
	}
}

// TestAuth: authentication is on; a wrong password is refused with the
// driver's typed error, the right one accepted.
func TestAuth(t *testing.T) {
	resetDB(t)
	ctx := ctxT(t, time.Minute)
	bad, err := neo4j.NewDriverWithContext(srv.BoltURL(), neo4j.BasicAuth(User, "not-the-password", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close(ctx)
	err = bad.VerifyConnectivity(ctx)
	var nerr *neo4j.Neo4jError
	if !errors.As(err, &nerr) || nerr.Code != "Neo.ClientError.Security.Unauthorized" {
		t.Fatalf("wrong password: %v, want Neo.ClientError.Security.Unauthorized", err)
	}
	none, err := neo4j.NewDriverWithContext(srv.BoltURL(), neo4j.NoAuth())
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close(ctx)
	if err := none.VerifyConnectivity(ctx); err == nil {
		t.Fatal("no credentials accepted")
	}
	if err := newDriver(t, srv).VerifyConnectivity(ctx); err != nil {
		t.Fatalf("right password: %v", err)
	}
}

func TestFindJDKMissing(t *testing.T) {
	_, err := FindJDK(99)
	if err == nil || !strings.Contains(err.Error(), "no Java 99 JDK") || !strings.Contains(err.Error(), EnvJavaHome(99)) {
		t.Fatalf("FindJDK(99): %v", err)
	}
	t.Setenv(EnvJavaHome(17), t.TempDir())
	if _, err := FindJDK(17); err == nil || !strings.Contains(err.Error(), "is not a Java 17 JDK") {
		t.Fatalf("FindJDK with a bad %s: %v", EnvJavaHome(17), err)
	}
}

// TestUnresolvableArtifact: a version Maven cannot resolve is one error
// that names the artifact, and leaves no installation behind.
func TestUnresolvableArtifact(t *testing.T) {
	cache := t.TempDir()
	v := Version{Neo4j: "5.26.19", GDS: "0.0.0-no-such-version", APOC: srv.Version().APOC, Java: 17}
	_, err := Install(ctxT(t, 10*time.Minute), cache, v, t.Logf)
	if err == nil || !strings.Contains(err.Error(), "org.neo4j.gds") || !strings.Contains(err.Error(), "0.0.0-no-such-version") {
		t.Fatalf("Install of a missing GDS version: %v", err)
	}
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		if toolcache.Installed(filepath.Join(cache, e.Name())) {
			t.Errorf("a failed install left %s marked installed", e.Name())
		}
	}
}

func TestStartFailureReportsLog(t *testing.T) {
	ctx := ctxT(t, 3*time.Minute)
	before := ownDirs(t)
	s, err := Start(ctx, Options{Version: srv.Version(), Settings: map[string]string{"server.no_such_setting": "1"}})
	if err == nil {
		s.Stop()
		t.Fatal("Start succeeded with an unknown setting")
	}
	msg := err.Error()
	for _, want := range []string{"exited before the server was ready", "server.no_such_setting"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
	assertNoNewDir(t, before)
}

// TestStartFailureAfterBuildExits: a failure once the DBMS runs (here
// setting a password Neo4j refuses as too short) ends the JVM at once with
// the error in the output, rather than leaving Neo4j's threads running
// without a READY line until the start timeout.
func TestStartFailureAfterBuildExits(t *testing.T) {
	ctx := ctxT(t, 5*time.Minute)
	before := ownDirs(t)
	s, err := Start(ctx, Options{Version: srv.Version(), Password: "short"})
	if err == nil {
		s.Stop()
		t.Fatal("Start succeeded with a 5-character password")
	}
	msg := err.Error()
	for _, want := range []string{"exited before the server was ready", "Neo4jTestServer: start-up failed", "password"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
	assertNoNewDir(t, before)
}

func TestStartTimeout(t *testing.T) {
	ctx := ctxT(t, 2*time.Minute)
	before := ownDirs(t)
	start := time.Now()
	s, err := Start(ctx, Options{Version: srv.Version(), StartTimeout: 300 * time.Millisecond})
	if err == nil {
		s.Stop()
		t.Fatal("a server started within 300ms")
	}
	if !strings.Contains(err.Error(), "not ready within 300ms") {
		t.Fatalf("unexpected error: %v", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("the timeout took %s", time.Since(start))
	}
	assertNoNewDir(t, before)
}

// ownDirs lists the server directories this process owns.
func ownDirs(t *testing.T) map[string]bool {
	t.Helper()
	cache, _ := CacheDir()
	entries, _ := os.ReadDir(filepath.Join(cache, "run"))
	dirs := map[string]bool{}
	for _, e := range entries {
		if string(readFile(filepath.Join(cache, "run", e.Name(), "owner.pid"))) == fmt.Sprint(os.Getpid()) {
			dirs[e.Name()] = true
		}
	}
	return dirs
}

// assertNoNewDir checks that a failed start left no directory behind.
func assertNoNewDir(t *testing.T, before map[string]bool) {
	t.Helper()
	for d := range ownDirs(t) {
		if !before[d] {
			t.Errorf("a failed start left %s behind", d)
		}
	}
}

func processGone(pid int) bool {
	err := syscall.Kill(pid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return true
	}
	// A zombie is gone for our purposes.
	st, rerr := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return rerr == nil && strings.Contains(string(st), ") Z ")
}

func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("JVM pid %d still alive %s after its parent died", pid, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestNoLeftoverAfterPanic runs a child test process that starts a server
// and panics: the JVM must die with it, and the next Start removes its
// directory.
func TestNoLeftoverAfterPanic(t *testing.T) {
	ctx := ctxT(t, 5*time.Minute)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), panicHelperEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(stderr.String(), "deliberate panic") {
		t.Fatalf("the helper did not panic: %v\n%s\n%s", err, out, tail(stderr.String(), 20))
	}
	var pid int
	var dir string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "PID %d DIR %s", &pid, &dir); err == nil {
			break
		}
	}
	if pid == 0 || dir == "" {
		t.Fatalf("no PID line from the helper: %q", out)
	}
	waitGone(t, pid, 15*time.Second)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("expected the crashed helper's directory %s to remain until the next Start: %v", dir, err)
	}
	removeStaleServerDirs(filepath.Dir(dir), t.Logf)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale directory %s was not removed: %v", dir, err)
	}
	if _, err := os.Stat(srv.Dir()); err != nil {
		t.Fatalf("the running server's directory was removed: %v", err)
	}
}

func TestInstalled(t *testing.T) {
	cache, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	home, err := Install(ctxT(t, time.Minute), cache, srv.Version(), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("Install of an installed server took %s", time.Since(start))
	}
	for _, f := range []string{toolcache.ReadyMarker, "classes/Neo4jTestServer.class", "pom.xml",
		"lib/neo4j-" + srv.Version().Neo4j + ".jar", "plugins/apoc-core-" + srv.Version().APOC + ".jar", "plugins/proc-" + srv.Version().GDS + ".jar"} {
		if _, err := os.Stat(filepath.Join(home, f)); err != nil {
			t.Error(err)
		}
	}
}
