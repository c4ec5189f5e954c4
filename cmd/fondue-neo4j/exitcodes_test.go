package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// failingWriter fails every write, like a closed pipe.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// closedAddr returns a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// docExitCodes returns the codes of the exit-code table of
// docs/exit-codes.md (its first table).
func docExitCodes(t *testing.T) map[int]string {
	data, err := os.ReadFile("../../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "# Exit codes\n")
	if !ok {
		t.Fatal("docs/exit-codes.md has no '# Exit codes' title")
	}
	codes := map[int]string{}
	row := regexp.MustCompile(`^\| (\d+) \| (.+) \|$`)
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "#") {
			break
		}
		if m := row.FindStringSubmatch(line); m != nil {
			c, _ := strconv.Atoi(m[1])
			codes[c] = m[2]
		}
	}
	return codes
}

// The exit-code table of docs/exit-codes.md: every documented code is the code of the
// documented case, run here, except those that need a Neo4j server, which
// the integration tests of neo4jtests/sync_test.go run.
func TestDocumentedExitCodes(t *testing.T) {
	dir := t.TempDir()
	loops := writeFile(t, dir, "loops.txt", "1 1\n2 2\n")
	empty := writeFile(t, dir, "empty.txt", "")
	bad := writeFile(t, dir, "bad.txt", "1 2\n2 3 x\n")
	closed := closedAddr(t)
	type c struct {
		args []string
		env  map[string]string
		want string // in the one stderr line
		// brokenStdout makes every write to stdout fail, like a closed pipe.
		brokenStdout bool
	}
	cases := map[int][]c{
		exitOK:    {{args: []string{"score", lesmis, "--top", "1"}}, {args: []string{"estimate", lesmis}}},
		exitError: {{args: []string{"score", lesmis, "--top", "1"}, brokenStdout: true, want: "broken pipe"}},
		exitUsage: {
			{args: []string{"score", lesmis, "--threads", "two"}, want: "flag --threads: threads = two: want a non-negative integer"},
			{args: []string{"score", lesmis}, env: map[string]string{"FONDUE_THREADS": "two"}, want: `FONDUE_THREADS: threads = "two"`},
			{args: []string{"score", lesmis, "--config", writeFile(t, dir, "c.yaml", "embedding:\n  dimm: 4\n")}, want: "unknown key"},
			{args: []string{"score", bad}, want: `bad.txt:2: weight "x" is not a number`},
			{args: []string{"score", lesmis, "--dim", "100"}, want: "embedding dimension 100 is not smaller than the graph's 77 nodes"},
			{args: []string{"frobnicate"}, want: "unknown command"},
			{args: []string{"score", lesmis, "--score-nodes", filepath.Join(dir, "absent.txt")}, want: "absent.txt: no such file"},
		},
		exitUnreachable: {
			{args: []string{"sync", "--uri", "bolt://" + closed, "--connect-timeout", "2s"}, want: "cannot reach Neo4j"},
			{args: []string{"undo", "--run-id", "x", "--uri", "bolt://" + closed, "--connect-timeout", "2s"}, want: "cannot reach Neo4j"},
		},
		exitEmpty: {
			{args: []string{"score", loops}, want: "nothing to score: its 2 edge lines are all self-loops"},
			{args: []string{"score", empty}, want: "no edges found"},
			{args: []string{"score", lesmis, "--score-prefix", "x"}, want: `no node of the edge list is selected by --score-prefix "x"`},
		},
		exitMemory: {
			{args: []string{"score", lesmis, "--max-memory", "1MB"}, want: "exceeds the limit"},
			{args: []string{"estimate", lesmis, "--max-memory", "1KB"}, want: "does not fit"},
			{args: []string{"estimate", "--nodes", "1000000", "--edges", "10000000", "--max-memory", "100MB"}, want: "does not fit"},
		},
	}
	needsServer := map[int]string{
		exitAuth:   "TestSyncAuth (neo4jtests/sync_test.go)",
		exitLocked: "TestSyncLocked (neo4jtests/sync_test.go)",
	}
	documented := docExitCodes(t)
	want := []int{exitOK, exitError, exitUsage, exitAuth, exitUnreachable, exitEmpty, exitLocked, exitMemory, exitInterrupted}
	var got []int
	for code := range documented {
		got = append(got, code)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("docs/exit-codes.md documents exit codes %v, the program has %v", got, want)
	}
	for code := range documented {
		if code == exitInterrupted {
			continue // TestInterrupted
		}
		if _, ok := needsServer[code]; ok {
			continue
		}
		if len(cases[code]) == 0 {
			t.Errorf("exit code %d (%s) has no case here", code, documented[code])
		}
		for _, cs := range cases[code] {
			var out io.Writer = &bytes.Buffer{}
			if cs.brokenStdout {
				out = failingWriter{}
			}
			for k, v := range cs.env {
				t.Setenv(k, v)
			}
			var errb bytes.Buffer
			got := run(context.Background(), cs.args, strings.NewReader(""), out, &errb)
			for k := range cs.env {
				os.Unsetenv(k)
			}
			if got != code {
				t.Errorf("%v: exit %d, want %d (%s); stderr %q", cs.args, got, code, documented[code], errb.String())
				continue
			}
			if code == exitOK {
				continue
			}
			if !strings.Contains(errb.String(), cs.want) {
				t.Errorf("%v: stderr %q lacks %q", cs.args, errb.String(), cs.want)
			}
			wantOneLine(t, strings.Join(cs.args, " "), errb.String())
		}
	}
}

// A run whose context ends (Ctrl-C, SIGTERM: see main) says
// "interrupted" and exits with 130.
func TestInterruptedInProcess(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"score", lesmis}, strings.NewReader(""), &out, &errb)
	if code != exitInterrupted || errb.String() != "fondue-neo4j: interrupted\n" || out.Len() != 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, errb.String(), out.String())
	}
}

// binary builds fondue-neo4j, for the tests that send it signals.
func binary(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fondue-neo4j")
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	if out, err := exec.Command(goBin, "build", "-o", path, ".").CombinedOutput(); err != nil {
		t.Fatalf("building fondue-neo4j: %v\n%s", err, out)
	}
	return path
}

// SIGTERM and Ctrl-C (SIGINT) both stop a run with "interrupted" and exit
// code 130, and leave the checkpoint as it was: written whole or not at all.
func TestInterruptedBySignal(t *testing.T) {
	bin := binary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			ck := filepath.Join(dir, "emb.ck")
			if out, err := exec.Command(bin, "score", lesmis, "--checkpoint", ck, "--epochs", "20", "--log-level", "error").CombinedOutput(); err != nil {
				t.Fatalf("first run: %v %s", err, out)
			}
			before, err := os.ReadFile(ck)
			if err != nil {
				t.Fatal(err)
			}
			// A fit that would run for minutes.
			cmd := exec.Command(bin, "score", lesmis, "--checkpoint", ck, "--epochs", "100000000", "--tol", "1e-300",
				"--mode", "sampled", "--log-level", "error")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(700 * time.Millisecond)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatal("still running 30s after the signal")
			}
			if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || stderr.String() != "fondue-neo4j: interrupted\n" || stdout.Len() != 0 {
				t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr.String(), stdout.String())
			}
			after, err := os.ReadFile(ck)
			if err != nil || !bytes.Equal(before, after) {
				t.Fatalf("the checkpoint changed: %v", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("left behind in the checkpoint's folder: %v", entries)
			}
		})
	}
}
