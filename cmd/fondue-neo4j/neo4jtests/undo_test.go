package neo4jtests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
)

// undo takes the marker label from the run's record: a split made with
// --marker-label is undone without it (it used to find nothing, exit 0
// and delete the run's record). A run id that is not there (a typo) exits
// 5 naming the closest run ids, and so does undoing a run twice.
func TestUndoFromTheRunRecord(t *testing.T) {
	reset(t)
	load(t, polbooks, "Book", "CO_PURCHASED", "uid")
	base := syncArgs("sync", "--node-labels", "Book", "--id-property", "uid", "--run-id", "nightly-20250101")
	if code, _, stderr := runCLI(t, "", base...); code != 0 {
		t.Fatalf("sync: exit %d: %s", code, stderr)
	}
	before := dump(t)
	code, out, stderr := runCLI(t, "", append(base, "--split", "--split-top", "3", "--marker-label", "Doppel", "--output", "json")...)
	var sum syncSummary
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || sum.Split == nil || sum.Split.Split == 0 {
		t.Fatalf("split: exit %d: %s\n%s", code, out, stderr)
	}
	clones := cypher(t, "MATCH (c:Doppel) RETURN count(c)", nil)[0].Values[0]

	code, out, stderr = runCLI(t, "", syncArgs("undo", "--run-id", "nightly-20250102", "--output", "json")...)
	if code != exitEmpty || out != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 ||
		!strings.Contains(stderr, `fondue-neo4j: nothing to undo: no run "nightly-20250102" in the database`) ||
		!strings.Contains(stderr, "closest run ids: nightly-20250101") {
		t.Fatalf("undo of a mistyped run id: exit %d (want %d), stdout %q, stderr:\n%s", code, exitEmpty, out, stderr)
	}

	code, out, stderr = runCLI(t, "", syncArgs("undo", "--run-id", "nightly-20250101", "--output", "json")...)
	var us undoSummary
	if code != 0 || json.Unmarshal([]byte(out), &us) != nil || us.Originals != sum.Split.Split || us.Restored != us.Originals ||
		int64(us.ClonesDeleted) != clones || us.MarkerLabel != "Doppel" {
		t.Fatalf("undo without --marker-label: exit %d: %s\n%s", code, out, stderr)
	}
	if d := dump(t); d != before {
		t.Fatalf("undo did not restore the graph:\n%s", testgraph.Diff(before, d))
	}
	if code, _, stderr := runCLI(t, "", syncArgs("undo", "--run-id", "nightly-20250101")...); code != exitEmpty || !strings.Contains(stderr, "nothing to undo") {
		t.Fatalf("second undo: exit %d (want %d): %s", code, exitEmpty, stderr)
	}
}
