package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
)

// A dry run of sync --duplicates (its --output json, shortened): the
// merge plan of two pairs.
const mergeDryRun = `{"runId":"d1","nodeCount":30,"relationshipCount":40,"dryRun":true,"duplicates":{"relationshipType":"FONDUE_DUPLICATE"},` +
	`"mergePlan":{"format":"fondue-neo4j-merge-plan","version":1,"kind":"merge","runId":"d1","createdAt":"2026-01-01T00:00:00.000Z",` +
	`"idProperty":"uid","candidateType":"FONDUE_DUPLICATE","pairs":[` +
	`{"keep":25,"merge":26,"keepName":"Jeffrey Bilmes","mergeName":"Jeff A. Bilmes","score":7.5,"reasons":[{"kind":"name","value":"short form or nickname","weight":3.5},{"kind":"co-authors","value":"2 shared co-authors","weight":2}],"decision":"undecided","keepFingerprint":"sha256:a","mergeFingerprint":"sha256:b"},` +
	`{"keep":27,"merge":28,"keepName":"Thomas Lucas","mergeName":"Thomas LUCAS","score":2.7,"reasons":[{"kind":"name","value":"same name up to case","weight":4}],"decision":"undecided"}]}}`

// plan list|accept|reject on a merge plan: pairs as KEY,KEY (either
// order), the approved plan in mergeplan's format with the decisions; a
// pair not in the plan is exit code 2, the approved plan unchanged; and
// review --plan writes the page of the pairs.
func TestPlanMergeCommands(t *testing.T) {
	dir := t.TempDir()
	dry := filepath.Join(dir, "duplicates.json")
	if err := os.WriteFile(dry, []byte(mergeDryRun), 0o600); err != nil {
		t.Fatal(err)
	}
	approved := filepath.Join(dir, "merge.json")
	run := func(args ...string) (int, string, string) {
		return runCLI(t, "", append(args, "--plan", dry, "--approved", approved)...)
	}
	code, out, stderr := run("plan", "list")
	want := "25\t26\tJeffrey Bilmes\tJeff A. Bilmes\tundecided\t7.5\tshort form or nickname; 2 shared co-authors\n" +
		"27\t28\tThomas Lucas\tThomas LUCAS\tundecided\t2.7\tsame name up to case\n"
	if code != 0 || out != want {
		t.Fatalf("plan list: exit %d %s\n%s\nwant\n%s", code, stderr, out, want)
	}
	if code, _, stderr := run("plan", "accept", "26,25"); code != 0 {
		t.Fatalf("accept: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run("plan", "reject", "27,28"); code != 0 {
		t.Fatalf("reject: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(approved)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := mergeplan.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if acc := mp.Accepted(); len(acc) != 1 || acc[0].Keep != keys.Int(25) || mp.Pairs[1].Decision != mergeplan.DecisionReject ||
		mp.ReviewedAt == "" || mp.Input != dry || mp.Pairs[0].KeepFingerprint != "sha256:a" {
		t.Fatalf("approved plan: %s", data)
	}
	if _, out, _ := run("plan", "list"); !strings.Contains(out, "\taccept\t") || !strings.Contains(out, "\treject\t") {
		t.Errorf("plan list after the decisions:\n%s", out)
	}
	for _, bad := range []string{"25,99", "25"} {
		code, _, stderr := run("plan", "accept", bad)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("accept %s: exit %d, %q", bad, code, stderr)
		}
	}
	if again, _ := os.ReadFile(approved); string(again) != string(data) {
		t.Error("a refused decision changed the approved plan")
	}

	page := filepath.Join(dir, "review.html")
	if code, _, stderr := runCLI(t, "", "review", "--plan", dry, "--output-file", page); code != 0 {
		t.Fatalf("review: exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(html), "merge plan of run d1") || !strings.Contains(string(html), "Jeff A. Bilmes") {
		t.Fatalf("review page: %v", err)
	}
}

// sync --duplicates refuses a split or a merge in the same run, before
// connecting: exit code 2, one line naming the flags.
func TestSyncDuplicatesUsage(t *testing.T) {
	t.Setenv("FONDUE_NEO4J_PASSWORD", "secret")
	for _, args := range [][]string{{"--split", "--split-top", "3"}, {"--merge", "--plan", "x.json"}} {
		code, _, stderr := runCLI(t, "", append([]string{"sync", "--duplicates", "--uri", "bolt://127.0.0.1:1"}, args...)...)
		if code != 2 || !strings.Contains(stderr, "duplicates.enabled (--duplicates)") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("sync --duplicates %v: exit %d, %q", args, code, stderr)
		}
	}
}
