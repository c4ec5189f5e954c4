package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/review"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// A dry run's plan of two nodes (the output of "sync --split --dry-run
// --output json"), with names.
const planDryRun = `{"runId":"r1","nodeCount":77,"relationshipCount":254,"dryRun":true,"plan":{"runId":"r1","createdAt":"2025-01-01T00:00:00.000Z","splitter":"ncut","idProperty":"uid","relationshipTypes":["APPEARS_WITH"],"displayProperty":"name","markerLabel":"FondueSplit","nodes":[` +
	`{"id":"4:db:11","key":11,"name":"Valjean","ambiguity":1,"score":36.9,"entities":2,"groups":[{"neighbors":[26,55],"neighborIds":["4:db:26","4:db:55"],"names":["Cosette","Marius"]},{"neighbors":[0],"neighborIds":["4:db:0"],"names":["Myriel"]}]},` +
	`{"id":"4:db:48","key":48,"name":"Gavroche","ambiguity":0.9,"score":20.5,"groups":[{"neighbors":[27],"neighborIds":["4:db:27"],"names":["Javert"]},{"neighbors":[25],"neighborIds":["4:db:25"],"names":["Thenardier"]}]}]}}`

// plan list, accept and reject: the decisions land in the approved plan
// as the page would write them, each command keeping the others'; bad
// input is one line and exit code 2, the approved plan left as it was.
func TestPlanCommands(t *testing.T) {
	dir := t.TempDir()
	dry := filepath.Join(dir, "dry-run.json")
	if err := os.WriteFile(dry, []byte(planDryRun), 0o600); err != nil {
		t.Fatal(err)
	}
	approved := filepath.Join(dir, "approved.json")
	run := func(args ...string) (int, string, string) {
		return runCLI(t, "", append(args, "--plan", dry, "--approved", approved)...)
	}
	list := func() string {
		t.Helper()
		code, out, stderr := run("plan", "list")
		if code != 0 {
			t.Fatalf("plan list: exit %d: %s", code, stderr)
		}
		return out
	}
	if got, want := list(), "11\tValjean\tundecided\t1\t2\tCosette,Marius|Myriel\n48\tGavroche\tundecided\t0.9\t0\tJavert|Thenardier\n"; got != want {
		t.Fatalf("plan list before any decision:\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(approved); !os.IsNotExist(err) {
		t.Fatalf("plan list wrote the approved plan: %v", err)
	}
	if code, _, stderr := run("plan", "accept", "11"); code != 0 {
		t.Fatalf("accept: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run("plan", "reject", "48"); code != 0 {
		t.Fatalf("reject: exit %d: %s", code, stderr)
	}
	if got := list(); !strings.Contains(got, "11\tValjean\taccept\t") || !strings.Contains(got, "48\tGavroche\treject\t") {
		t.Fatalf("plan list after the decisions:\n%s", got)
	}
	data, err := os.ReadFile(approved)
	if err != nil {
		t.Fatal(err)
	}
	ap, err := review.ParsePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	if ap.RunID != "r1" || len(ap.Nodes) != 1 || ap.Nodes[0].Key != keys.Int(11) || len(ap.Nodes[0].Groups) != 2 ||
		ap.Nodes[0].Fingerprint != review.Fingerprint("11", []string{"26", "55", "0"}) ||
		len(ap.Rejected) != 1 || ap.Rejected[0].Key != keys.Int(48) || len(ap.Undecided) != 0 || ap.Input != dry {
		t.Fatalf("approved plan:\n%s", data)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"plan", "accept", "7"}, "node 7 is not in the plan (its nodes: 11, 48)"},
		{[]string{"plan", "accept"}, "plan accept needs the keys of the nodes to accept"},
		{[]string{"plan", "list", "11"}, "plan list needs no arguments"},
	} {
		code, out, stderr := run(c.args...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.msg) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q, want exit 2 and %q", c.args, code, out, stderr, c.msg)
		}
	}
	if code, _, stderr := runCLI(t, "", "plan", "undo", "11"); code != 2 || !strings.Contains(stderr, `unknown command "undo"`) {
		t.Errorf("plan undo: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "plan", "list", "--approved", approved); code != 2 || !strings.Contains(stderr, "plan needs --plan FILE") {
		t.Errorf("no --plan: exit %d, %q", code, stderr)
	}
	// An approved plan of another dry run is refused, not overwritten.
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(strings.ReplaceAll(planDryRun, `"r1"`, `"r2"`)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "plan", "accept", "48", "--plan", other, "--approved", approved)
	if code != 2 || !strings.Contains(stderr, "approved plan: reviewed from the dry run of run r1, not from the dry run of run r2") {
		t.Errorf("another dry run: exit %d, %q", code, stderr)
	}
	if after, _ := os.ReadFile(approved); string(after) != string(data) {
		t.Error("a refused decision changed the approved plan")
	}
}
