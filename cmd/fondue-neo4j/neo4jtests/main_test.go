package neo4jtests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The CLI's exit codes (README, "Exit codes"): part of its interface.
const (
	exitUsage       = 2
	exitAuth        = 3
	exitUnreachable = 4
	exitEmpty       = 5
	exitLocked      = 6
	exitMemory      = 7
)

var (
	// srv is the server of the current run (the suite runs once per version).
	srv *neo4jtest.Server
	// repoRoot is the module's root directory; cli the fondue-neo4j binary
	// built from it.
	repoRoot, cli string
)

func TestMain(m *testing.M) {
	var err error
	if repoRoot, err = filepath.Abs("../../.."); err == nil {
		_, err = os.Stat(filepath.Join(repoRoot, "go.mod"))
	}
	if err == nil {
		cli, err = buildCLI(repoRoot)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: build the fondue-neo4j command: %v\n", err)
		os.Exit(1)
	}
	neo4jtest.Main(m, neo4jtest.Options{}, func(s *neo4jtest.Server) { srv = s })
}

// binDirPrefix names the temporary directories that hold the binary.
const binDirPrefix = "fondue-neo4j-cli-"

// buildCLI builds ./cmd/fondue-neo4j into a new temporary directory and
// returns the binary's path. neo4jtest.Main exits the process without
// returning, so the directory cannot be removed at the end: it records its
// owner's pid, and the next run removes the directories of owners that are
// gone.
func buildCLI(root string) (string, error) {
	removeStaleBinDirs()
	dir, err := os.MkdirTemp("", binDirPrefix)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return "", err
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, "fondue-neo4j")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, "./cmd/fondue-neo4j")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("%s build: %v\n%s", goTool, err, out)
	}
	return bin, nil
}

func removeStaleBinDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), binDirPrefix+"*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.TrimSpace(string(must(os.ReadFile(filepath.Join(d, "owner.pid"))))))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			os.RemoveAll(d)
		}
	}
}

func must(b []byte, _ error) []byte { return b }

// cliEnv is the environment of every run of the command: nothing from the
// test's own environment but PATH, HOME and TMPDIR (a FONDUE_* variable in
// the developer's shell must not change the tests), no configuration file
// from $XDG_CONFIG_HOME, the test server's password in
// FONDUE_NEO4J_PASSWORD; then env, where an empty value removes the
// variable.
func cliEnv(t *testing.T, env map[string]string) []string {
	vars := map[string]string{
		"XDG_CONFIG_HOME":       filepath.Join(t.TempDir(), "no-config"),
		"FONDUE_NEO4J_PASSWORD": srv.Password(),
	}
	for _, k := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			vars[k] = v
		}
	}
	for k, v := range env {
		vars[k] = v
	}
	var out []string
	for k, v := range vars {
		if v != "" {
			out = append(out, k+"="+v)
		}
	}
	sort.Strings(out)
	return out
}

// runCLI runs the command with the default environment (cliEnv) in the
// test's directory and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return runCLIIn(t, "", nil, stdin, args...)
}

// runCLIEnv is runCLI with more environment variables (an empty value
// removes one, e.g. the password).
func runCLIEnv(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return runCLIIn(t, "", env, stdin, args...)
}

// runCLIIn is runCLIEnv in directory dir ("": the test's directory).
func runCLIIn(t *testing.T, dir string, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Dir = dir
	cmd.Env = cliEnv(t, env)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case ctx.Err() != nil:
		t.Fatalf("fondue-neo4j %v did not finish within 5 minutes; stderr:\n%s", args, errb.String())
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("fondue-neo4j %v: %v; stderr:\n%s", args, err, errb.String())
	return 0, "", ""
}

const (
	netscience = "../../../connector/testdata/netscience.edges"
	polbooks   = "../../../connector/testdata/polbooks.edges"
)

func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// reset empties the database and clears the proxy's faults.
func reset(t *testing.T) {
	t.Helper()
	t.Logf("server: %s", srv.Version())
	if err := srv.Reset(ctxT(t, 2*time.Minute)); err != nil {
		t.Fatal(err)
	}
}

// driver is a direct driver (not through the proxy) for set-up and checks.
func driver(t *testing.T) neo4j.DriverWithContext {
	d, err := srv.Driver()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func cypher(t *testing.T, q string, params map[string]any) []*neo4j.Record {
	t.Helper()
	recs, err := testgraph.Run(ctxT(t, time.Minute), driver(t), q, params)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func load(t *testing.T, path, label, relType, prop string) *graph.Graph {
	t.Helper()
	g, _, err := edgelist.ReadFile(path, edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	if err := testgraph.Load(ctxT(t, 5*time.Minute), driver(t), g, label, relType, prop); err != nil {
		t.Fatal(err)
	}
	return g
}

func dump(t *testing.T) string {
	t.Helper()
	s, err := testgraph.Dump(ctxT(t, time.Minute), driver(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// syncArgs are the connection flags for the test server (the password is
// in the environment, see cliEnv).
func syncArgs(cmd string, more ...string) []string {
	return append([]string{cmd, "--uri", srv.BoltURL(), "--max-retry-time", "3s", "--connect-timeout", "5s"}, more...)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
