package neo4jtest

// Provisioning: auth mode, start-up failures, process clean-up, the
// installation.

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

	"github.com/fondue-neo4j/fondue-neo4j/internal/toolcache"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// processGone reports whether pid has exited (a zombie counts as exited:
// in a container nobody may reap it).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// Format: pid (comm) state ...
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] == 'Z'
	}
	return false
}

func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running %s later", pid, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestAuthOn(t *testing.T) {
	ctx := ctxT(t, 5*time.Minute)
	const password = "fondue-S3cret"
	s, err := Start(ctx, Options{Password: password, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if !s.AuthEnabled() {
		t.Fatal("AuthEnabled() is false")
	}

	// Wrong password: a clear, non-retryable auth error, returned at once.
	wrong, err := neo4j.NewDriverWithContext(s.BoltURL(), neo4j.BasicAuth(User, "not-the-password", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close(ctx)
	start := time.Now()
	err = wrong.VerifyConnectivity(ctx)
	var nerr *neo4j.Neo4jError
	if !errors.As(err, &nerr) || nerr.Code != "Neo.ClientError.Security.Unauthorized" {
		t.Fatalf("wrong password: %T %v, want Neo.ClientError.Security.Unauthorized", err, err)
	}
	if !neo4j.IsNeo4jError(err) || neo4j.IsRetryable(err) || neo4j.IsConnectivityError(err) {
		t.Errorf("wrong password error classified wrongly: %v", err)
	}
	t.Logf("wrong password: %v (%s)", err, time.Since(start).Round(time.Millisecond))
	_, err = neo4j.ExecuteQuery(ctx, wrong, "RETURN 1", nil, neo4j.EagerResultTransformer)
	if !errors.As(err, &nerr) || nerr.Code != "Neo.ClientError.Security.Unauthorized" {
		t.Fatalf("query with a wrong password: %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the auth failure took %s: it was retried", time.Since(start))
	}

	// The right password works, and the account is usable (no password
	// change pending).
	d := newDriver(t, s)
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatalf("right password: %v", err)
	}
	res, err := neo4j.ExecuteQuery(ctx, d, "CREATE (n:AuthOn {k: 1}) RETURN n.k AS k", nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("query with the right password: %v", err)
	}
	if k, _ := res.Records[0].Get("k"); k != int64(1) {
		t.Fatalf("got %v", k)
	}

	// No credentials at all are rejected too.
	none, err := neo4j.NewDriverWithContext(s.BoltURL(), neo4j.NoAuth())
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close(ctx)
	err = none.VerifyConnectivity(ctx)
	if !errors.As(err, &nerr) || !strings.HasPrefix(nerr.Code, "Neo.ClientError.Security.") {
		t.Fatalf("no credentials: %v, want a Neo.ClientError.Security error", err)
	}
	t.Logf("no credentials: %v", err)

	// Separate servers have separate data.
	if c := count(t, newDriver(t, srv), "(n:AuthOn)", nil); c != 0 {
		t.Fatalf("the shared server sees %d nodes of the auth server", c)
	}

	// Neo4j 3.1 rate-limits logins: after 3 failures in a row the next
	// attempt (even with the right password) is refused for 5 seconds.
	for i := 1; i <= 4; i++ {
		err := wrong.VerifyConnectivity(ctx)
		want := "Neo.ClientError.Security.Unauthorized"
		if i == 4 {
			want = "Neo.ClientError.Security.AuthenticationRateLimit"
		}
		if !errors.As(err, &nerr) || nerr.Code != want {
			t.Fatalf("wrong password, attempt %d in a row: %v, want %s", i, err, want)
		}
	}
	if err := d.VerifyConnectivity(ctx); err != nil {
		// The driver reuses its pooled, authenticated connection.
		t.Fatalf("an already open connection after the rate limit: %v", err)
	}

	pid, dir := s.PID(), s.Dir()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid, 5*time.Second)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Stop left %s behind: %v", dir, err)
	}
}

func TestStartFailureReportsLog(t *testing.T) {
	ctx := ctxT(t, 2*time.Minute)
	// A heap this small makes the JVM exit during start-up.
	s, err := Start(ctx, Options{HeapSize: "1k"})
	if err == nil {
		s.Stop()
		t.Fatal("Start succeeded with a 1k heap")
	}
	msg := err.Error()
	for _, want := range []string{"exited during start-up", "console.log", "heap"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
	t.Logf("start-up failure:\n%s", msg)
	cache, _ := CacheDir()
	entries, _ := os.ReadDir(filepath.Join(cache, "run"))
	for _, e := range entries {
		owner := string(readFile(filepath.Join(cache, "run", e.Name(), "owner.pid")))
		if owner == fmt.Sprint(os.Getpid()) && e.Name() != filepath.Base(srv.Dir()) {
			t.Errorf("the failed start left %s behind", e.Name())
		}
	}
}

func TestStartTimeout(t *testing.T) {
	ctx := ctxT(t, 2*time.Minute)
	start := time.Now()
	s, err := Start(ctx, Options{StartTimeout: 300 * time.Millisecond})
	if err == nil {
		s.Stop()
		t.Fatal("a server started within 300ms")
	}
	if !strings.Contains(err.Error(), `no "Started." line within 300ms`) {
		t.Fatalf("unexpected error: %v", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("the timeout took %s", time.Since(start))
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
	// The live shared server's directory is kept.
	if _, err := os.Stat(srv.Dir()); err != nil {
		t.Fatalf("the running server's directory was removed: %v", err)
	}
}

func TestInstalled(t *testing.T) {
	cache, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t, time.Minute)
	// The installation is complete and found without downloading.
	start := time.Now()
	home, err := Install(ctx, cache, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > time.Second {
		t.Errorf("Install of an installed server took %s", time.Since(start))
	}
	for _, f := range []string{toolcache.ReadyMarker, "bin/neo4j", "plugins/org/neo4j/bolt/v1/packstream/utf8/SunMiscUTF8Encoder.class"} {
		if _, err := os.Stat(filepath.Join(home, f)); err != nil {
			t.Error(err)
		}
	}
	conf := string(readFile(filepath.Join(home, "conf", "neo4j.conf")))
	if !strings.Contains(conf, "dbms.jvm.additional=--add-opens=java.base/java.lang=ALL-UNNAMED") {
		t.Error("the installed neo4j.conf lacks the Java 17 flags")
	}
}
