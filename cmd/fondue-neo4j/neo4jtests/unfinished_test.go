package neo4jtests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
)

// A sync --split killed (kill -9) mid-split is finished by the same
// command run again with no run id, as a CronJob's retry or the next night
// runs it: it resumes the killed run under its run id, says so (log and
// JSON summary), and leaves the graph as the same run uninterrupted does;
// the run's record then says it finished, and the next run is a new one.
func TestSyncResumesKilledSplit(t *testing.T) {
	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	args := syncArgs("sync", "--node-labels", "Book", "--id-property", "uid", "--split", "--split-top", "8", "--output", "json")

	dead, done := killMidSplit(t, args)
	t.Logf("killed run %s after %d splits", dead, done)

	// The same command: it takes the dead process's lock over and resumes.
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("the same command again: exit %d: %s", code, stderr)
	}
	var sum syncSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, out)
	}
	sp := sum.Split
	if sum.RunID != dead || !sum.Resumed || sum.NodeCount != 0 || sp == nil || len(sum.Unfinished) != 1 {
		t.Fatalf("the second run did not resume %s: %s", dead, out)
	}
	u := sum.Unfinished[0]
	if u.RunID != dead || u.Split != int(done) || u.Planned != sp.Planned || u.Action != "resumed" ||
		sp.AlreadyDone != int(done) || sp.Split+sp.AlreadyDone != sp.Planned {
		t.Fatalf("resumed %+v, split %+v: want %d of %d done before, the rest now", u, sp, done, sp.Planned)
	}
	if line := fmt.Sprintf("resuming run %s, which stopped after %d of %d splits", dead, done, sp.Planned); !strings.Contains(stderr, line) {
		t.Fatalf("the log does not say %q:\n%s", line, stderr)
	}
	t.Logf("resumed: %+v, split %d now", u, sp.Split)
	if recs := cypher(t, "MATCH (r:FondueRun) RETURN r.run_id, r.unfinished", nil); len(recs) != 1 || recs[0].Values[1] != nil {
		t.Fatalf("the resumed run's record: %v", recs)
	}
	if n := len(cypher(t, "MATCH (l:FondueLock) RETURN l", nil)); n != 0 {
		t.Fatalf("%d locks left", n)
	}
	splitAt := regexp.MustCompile(`"fondue_split_at":"[^"]*"`)
	got := splitAt.ReplaceAllString(dump(t), `"fondue_split_at":"T"`)

	// A finished run is not resumed: the next run is a new one.
	code, out, stderr = runCLI(t, "", args...)
	var next syncSummary
	if code != 0 || json.Unmarshal([]byte(out), &next) != nil || next.RunID == dead || next.Resumed || next.Unfinished != nil || next.NodeCount == 0 {
		t.Fatalf("the run after: exit %d: %s\n%s", code, out, stderr)
	}

	// The graph is that of the same run uninterrupted.
	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	if code, _, stderr := runCLI(t, "", append(args, "--run-id", dead)...); code != 0 {
		t.Fatalf("reference: exit %d: %s", code, stderr)
	}
	if want := splitAt.ReplaceAllString(dump(t), `"fondue_split_at":"T"`); got != want {
		t.Fatalf("killed and resumed, against uninterrupted:\n%s", testgraph.Diff(want, got))
	}
}

// killMidSplit starts sync with args and kills it (kill -9) once its third
// split is sent: two are done, the third is done or rolled back with the
// connection. It returns the killed run's id and how many nodes it split.
func killMidSplit(t *testing.T, args []string) (string, int64) {
	t.Helper()
	killAfter(t, args, "SET m += $rows[i]", 3, "split")
	recs := cypher(t, "MATCH (r:FondueRun) RETURN r.run_id, r.unfinished", nil)
	if len(recs) != 1 || recs[0].Values[1] != true {
		t.Fatalf("the killed run's record: %v", recs)
	}
	dead := recs[0].Values[0].(string)
	done := cypher(t, "MATCH (n:Book) WHERE $run IN n.fondue_split_runs RETURN count(n)", map[string]any{"run": dead})[0].Values[0].(int64)
	if done < 2 || done > 3 {
		t.Fatalf("the killed run split %d nodes, want 2 or 3", done)
	}
	return dead, done
}

// killAfter starts the command line args and kills it (kill -9) once the
// server was sent the statement holding text n times (doing: what the run
// had to do by then, for the failure of one that did not within 3
// minutes), then clears the proxy's faults. It returns the killed process.
func killAfter(t *testing.T, args []string, text string, n int, doing string) *exec.Cmd {
	t.Helper()
	const limit = 3 * time.Minute
	srv.Proxy().CountSent(text)
	cmd := exec.Command(cli, args...)
	cmd.Env = cliEnv(t, nil)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(limit); srv.Proxy().SentCount() < n; time.Sleep(2 * time.Millisecond) {
		select {
		case err := <-exited:
			t.Fatalf("the run ended (%v) before it could be killed:\n%s", err, errb.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the run did not %s within %s:\n%s", doing, limit, errb.String())
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	if err := srv.Proxy().ClearFaults(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// With --unfinished fail, the same command after a kill -9 mid-split
// refuses to run (exit 1), naming the killed run; with --unfinished undo,
// it undoes the killed run's splits and then runs afresh: the graph is
// that of the new run alone on the graph as it was.
func TestSyncUndoesKilledSplit(t *testing.T) {
	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	args := syncArgs("sync", "--node-labels", "Book", "--id-property", "uid", "--split", "--split-top", "8", "--output", "json")
	dead, done := killMidSplit(t, args)

	code, out, stderr := runCLI(t, "", append(args, "--unfinished", "fail")...)
	if line := fmt.Sprintf("run %s stopped after %d of ", dead, done); code != 1 || out != "" || !strings.Contains(lastLine(stderr), line) ||
		!strings.Contains(lastLine(stderr), "split.unfinished") {
		t.Fatalf("--unfinished fail: exit %d (want 1), want %q in the last line:\n%s", code, line, stderr)
	}
	t.Logf("--unfinished fail: exit 1: %s", lastLine(stderr))

	code, out, stderr = runCLI(t, "", append(args, "--unfinished", "undo")...)
	var sum syncSummary
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil {
		t.Fatalf("--unfinished undo: exit %d: %s\n%s", code, out, stderr)
	}
	if sum.RunID == dead || sum.Resumed || sum.NodeCount != 105 || len(sum.Unfinished) != 1 || sum.Split == nil || sum.Split.Split == 0 {
		t.Fatalf("--unfinished undo: %s", out)
	}
	if u := sum.Unfinished[0]; u.RunID != dead || u.Split != int(done) || u.Action != "undone" {
		t.Fatalf("--unfinished undo: unfinished %+v", u)
	}
	if line := fmt.Sprintf("undid run %s, which stopped after %d of ", dead, done); !strings.Contains(stderr, line) {
		t.Fatalf("the log does not say %q:\n%s", line, stderr)
	}
	if n := cypher(t, "MATCH (n) WHERE n.fondue_split_run = $run OR $run IN n.fondue_split_runs OR n.run_id = $run RETURN count(n)", map[string]any{"run": dead})[0].Values[0]; n != int64(0) {
		t.Fatalf("%v nodes of the undone run %s are left", n, dead)
	}
	splitAt := regexp.MustCompile(`"fondue_split_at":"[^"]*"`)
	got := splitAt.ReplaceAllString(dump(t), `"fondue_split_at":"T"`)

	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	if code, _, stderr := runCLI(t, "", append(args, "--run-id", sum.RunID)...); code != 0 {
		t.Fatalf("reference: exit %d: %s", code, stderr)
	}
	if want := splitAt.ReplaceAllString(dump(t), `"fondue_split_at":"T"`); got != want {
		t.Fatalf("killed, undone and run again, against one run:\n%s", testgraph.Diff(want, got))
	}
}
