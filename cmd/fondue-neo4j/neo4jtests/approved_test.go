package neo4jtests

// From a dry run to a reviewed, approved split and back: sync --dry-run,
// review --plan, a person's clicks in headless Chromium, sync --split
// --plan, undo; and approved plans the graph no longer matches.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/review"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/reviewtest"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// demoSelection is the demo graph's subgraph (docker/seed.cypher), named
// by its characters' names.
var demoSelection = []string{"--node-labels", "Character", "--relationship-types", "APPEARS_WITH", "--id-property", "id", "--display-property", "name"}

// writeTemp writes a file into the test's temporary folder.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// dryRunDemo runs "sync --split --split-top k --dry-run" on the demo graph
// and returns its output, saved to a file, and its plan.
func dryRunDemo(t *testing.T, k int) (string, *splitplan.Plan) {
	t.Helper()
	args := append(syncArgs("sync", "--split", "--split-top", fmt.Sprint(k), "--dry-run", "--output", "json", "--seed", "3"), demoSelection...)
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	var sum struct {
		Plan json.RawMessage `json:"plan"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("dry run output %v: %s", err, out)
	}
	plan, err := splitplan.Unmarshal(sum.Plan) // integer keys stay int64
	if err != nil || len(plan.Nodes) != k {
		t.Fatalf("dry run's plan %v: %s", err, out)
	}
	return writeTemp(t, "dry-run.json", []byte(out)), plan
}

// reviewPage runs "review --plan" on a dry run's output, with nothing
// else: the names and links come from the plan.
func reviewPage(t *testing.T, dryRun string) string {
	t.Helper()
	page := filepath.Join(t.TempDir(), "review.html")
	if code, _, stderr := runCLI(t, "", "review", "--plan", dryRun, "--output-file", page); code != 0 {
		t.Fatalf("review: exit %d: %s", code, stderr)
	}
	return page
}

// approvedGroup is the set of keys of a group.
func keySet(ks []keys.Key) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.Text())
	}
	slices.Sort(out)
	return out
}

// splitGroups reads how run split the node with key k: the original's
// neighbours (group 0), then each clone's, by group, as original keys
// (a neighbour that was split too, a clone with a key of its own, is
// named by its original's key).
func splitGroups(t *testing.T, run string, k keys.Key) [][]string {
	t.Helper()
	nb := func(rows [][]any) []string {
		var out []string
		for _, r := range rows {
			k, _ := keys.FromValue(r[0])
			out = append(out, k.Text())
		}
		slices.Sort(out)
		return out
	}
	collect := func(q string) [][]string {
		var groups [][]string
		for _, r := range cypher(t, q, map[string]any{"k": k.Value(), "run": run}) {
			var rows [][]any
			for _, x := range r.Values[0].([]any) {
				rows = append(rows, []any{x})
			}
			groups = append(groups, nb(rows))
		}
		return groups
	}
	out := collect(`MATCH (n:Character {id: $k}) RETURN [(n)-[:APPEARS_WITH]-(m) | coalesce(m.fondue_split_from, m.id)]`)
	out = append(out, collect(`MATCH (c:FondueSplit {fondue_split_from: $k, fondue_split_run: $run}) WITH c ORDER BY c.fondue_split_group
		RETURN [(c)-[:APPEARS_WITH]-(m) | coalesce(m.fondue_split_from, m.id)]`)...)
	return out
}

// The full path on the demo graph: a dry run, its review page (names and
// links from the plan), a person accepts the first split, moves a
// neighbour of the second and accepts it, rejects the third; sync --split
// --plan applies exactly that; re-running it changes nothing; another
// approved plan under its run id is refused; undo restores the graph.
// Then the same from an edge list's review page.
func TestApprovedPlanEndToEnd(t *testing.T) {
	reset(t)
	loadSeed(t)
	before := dump(t)
	dry, plan := dryRunDemo(t, 3)
	if d := dump(t); d != before {
		t.Fatalf("the dry run wrote:\n%s", testgraph.Diff(before, d))
	}
	p0 := plan.Nodes[0]
	if !slices.Equal(plan.DisplayProperties, []string{"name"}) || !plan.NeighborLinks || p0.Name == "" || len(p0.Links) == 0 || !slices.Equal(plan.NodeLabels, []string{"Character"}) {
		t.Fatalf("the dry run's plan lacks names, links or selection: %+v", p0)
	}
	page := reviewPage(t, dry)

	s := reviewtest.Open(t)
	s.Load(page)
	drawn := s.Drawing()
	if len(drawn) != 3 || drawn[0].Name != p0.Name || drawn[0].Links != len(p0.Links) {
		t.Fatalf("drawn: %+v; want 3 nodes, the first %s with %d links", drawn, p0.Name, len(p0.Links))
	}
	// Node 2: its first neighbour in a group of two or more moves to the
	// next group.
	p1 := plan.Nodes[1]
	var moved, from int
	pos := 0
	for g, grp := range p1.Groups {
		if len(grp.Neighbors) >= 2 {
			moved, from = pos, g
			break
		}
		pos += len(grp.Neighbors)
	}
	to := (from + 1) % len(p1.Groups)
	var want1 [][]keys.Key
	for g, grp := range p1.Groups {
		ks := slices.Clone(grp.Neighbors)
		if g == from {
			ks = ks[1:]
		}
		if g == to {
			ks = append(ks, p1.Groups[from].Neighbors[0])
		}
		want1 = append(want1, ks)
	}
	s.Decide(1, "accept")
	s.MoveToNextGroup(2, moved)
	s.Decide(2, "accept")
	s.Decide(3, "reject")
	data := s.Export()
	approved := writeTemp(t, "approved.json", data)
	ap, err := review.ParsePlan(data)
	if err != nil || len(ap.Nodes) != 2 || ap.Nodes[1].Decision != review.DecisionEdit || len(ap.Rejected) != 1 {
		t.Fatalf("exported plan %v: %s", err, data)
	}

	// Apply it.
	apply := append(syncArgs("sync", "--split", "--plan", approved, "--output", "json"), demoSelection...)
	code, out, stderr := runCLI(t, "", apply...)
	if code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	var sum struct {
		syncSummary
		ApprovedPlan splitplan.ApprovedRef `json:"approvedPlan"`
	}
	sha := sha256.Sum256(data)
	fingerprint := "sha256:" + hex.EncodeToString(sha[:])
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.RunID != plan.RunID || sum.Split == nil || sum.Split.Split != 2 ||
		sum.ApprovedPlan.Fingerprint != fingerprint || sum.ApprovedPlan.ReviewedAt != ap.ReviewedAt {
		t.Fatalf("apply summary %v: %s", err, out)
	}
	for k, want := range [][][]keys.Key{nil, want1} {
		n := ap.Nodes[k]
		if want == nil {
			for _, g := range plan.Nodes[0].Groups {
				want = append(want, g.Neighbors)
			}
		}
		got := splitGroups(t, plan.RunID, n.Key)
		var wantSets [][]string
		for _, g := range want {
			wantSets = append(wantSets, keySet(g))
		}
		if fmt.Sprint(got) != fmt.Sprint(wantSets) {
			t.Errorf("node %v (%s) split as %v, approved %v", n.Key, n.Name, got, wantSets)
		}
	}
	rejected := plan.Nodes[2].Key
	if r := cypher(t, "MATCH (n:Character {id: $k}) RETURN n.fondue_split_runs, COUNT { (:FondueSplit {fondue_split_from: $k}) }", map[string]any{"k": rejected.Value()}); r[0].Values[0] != nil || r[0].Values[1] != int64(0) {
		t.Errorf("the rejected node %v was split: %v", rejected, r[0].Values)
	}
	// The run's node points to the approved plan.
	r := cypher(t, "MATCH (r:FondueRun {run_id: $run}) RETURN r.approved_plan, r.reviewed_at", map[string]any{"run": plan.RunID})
	if len(r) != 1 || r[0].Values[0] != fingerprint || r[0].Values[1] != ap.ReviewedAt {
		t.Fatalf("run node: %v", r)
	}
	after := dump(t)

	// Re-running resumes: nothing to do.
	code, out, stderr = runCLI(t, "", apply...)
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || !sum.Resumed || sum.Split.AlreadyDone != 2 {
		t.Fatalf("re-run: exit %d %v: %s %s", code, err, out, stderr)
	}
	if d := dump(t); d != after {
		t.Fatalf("re-running changed the graph:\n%s", testgraph.Diff(after, d))
	}
	// Another export of the page is another approved plan: not under this run id.
	s.Decide(2, "reset")
	s.Decide(2, "accept")
	other := writeTemp(t, "approved-2.json", s.Export())
	code, _, stderr = runCLI(t, "", append(syncArgs("sync", "--split", "--plan", other), demoSelection...)...)
	if code != exitUsage || !strings.Contains(lastLine(stderr), "run id "+plan.RunID+" already holds another split plan (approved plan "+fingerprint[:19]) {
		t.Fatalf("another approved plan under the same run id: exit %d: %s", code, stderr)
	}
	if d := dump(t); d != after {
		t.Fatalf("the refused plan changed the graph:\n%s", testgraph.Diff(after, d))
	}

	// Undo restores the graph.
	code, out, stderr = runCLI(t, "", syncArgs("undo", "--run-id", plan.RunID, "--output", "json")...)
	var u undoSummary
	if err := json.Unmarshal([]byte(out), &u); code != 0 || err != nil || u.Restored != 2 {
		t.Fatalf("undo: exit %d %v: %s %s", code, err, out, stderr)
	}
	if d := dump(t); d != before {
		t.Fatalf("undo did not restore the graph:\n%s", testgraph.Diff(before, d))
	}
	if n := len(cypher(t, "MATCH (r:FondueRun) RETURN r", nil)); n != 0 {
		t.Fatalf("%d run nodes left after undo", n)
	}

	// An edge list's review page: its plan has no element ids and no
	// selection; the nodes are found by key (graph.id_property).
	edgePage := filepath.Join(t.TempDir(), "edges.html")
	if code, _, stderr := runCLI(t, "", "review", filepath.Join(repoRoot, "testdata/lesmis.edges"), "--names", filepath.Join(repoRoot, "testdata/lesmis.names"),
		"--top", "2", "--output-file", edgePage); code != 0 {
		t.Fatalf("review of the edge list: exit %d: %s", code, stderr)
	}
	s.Load(edgePage)
	s.Decide(1, "accept")
	edgeData := s.Export()
	edgeAp, err := review.ParsePlan(edgeData)
	if err != nil || edgeAp.Source != review.SourceEdgeList || len(edgeAp.Nodes) != 1 {
		t.Fatalf("edge-list plan %v: %s", err, edgeData)
	}
	edgeApproved := writeTemp(t, "edge-approved.json", edgeData)
	code, out, stderr = runCLI(t, "", append(syncArgs("sync", "--split", "--plan", edgeApproved, "--output", "json"), demoSelection...)...)
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || sum.Split.Split != 1 || !strings.HasPrefix(sum.RunID, "approved-") {
		t.Fatalf("edge-list plan: exit %d %v: %s %s", code, err, out, stderr)
	}
	en := edgeAp.Nodes[0]
	var wantSets [][]string
	for _, g := range en.Groups {
		wantSets = append(wantSets, keySet(g.Neighbors))
	}
	if got := splitGroups(t, sum.RunID, en.Key); fmt.Sprint(got) != fmt.Sprint(wantSets) {
		t.Errorf("edge-list plan: node %v split as %v, approved %v", en.Key, got, wantSets)
	}
	if code, _, stderr := runCLI(t, "", syncArgs("undo", "--run-id", sum.RunID)...); code != 0 {
		t.Fatalf("undo: exit %d: %s", code, stderr)
	}
	if d := dump(t); d != before {
		t.Fatalf("undo of the edge-list plan did not restore the graph:\n%s", testgraph.Diff(before, d))
	}
}

// A plan reviewed before the graph changed is refused, naming what
// changed, and nothing is written: not a node, not the run's plan, no lock
// left.
func TestApprovedPlanStale(t *testing.T) {
	reset(t)
	loadSeed(t)
	dry, plan := dryRunDemo(t, 2)
	s := reviewtest.Open(t)
	s.Load(reviewPage(t, dry))
	s.Decide(1, "accept")
	s.Decide(2, "accept")
	approved := writeTemp(t, "approved.json", s.Export())

	// After the review: the first node gains a neighbour and loses one.
	// (Not the second node: it would change too.)
	n0 := plan.Nodes[0]
	var gone keys.Key
	var goneName string
	for j, k := range n0.Groups[0].Neighbors {
		if k != plan.Nodes[1].Key {
			gone, goneName = k, n0.Groups[0].Names[j]
			break
		}
	}
	cypher(t, `MATCH (v:Character {id: $k}), (g:Character {id: $gone})-[r:APPEARS_WITH]-(v)
		CREATE (v)-[:APPEARS_WITH]->(:Character {id: 77, name: 'Newcomer'}) DELETE r`, map[string]any{"k": n0.Key.Value(), "gone": gone.Value()})
	before := dump(t)
	code, out, stderr := runCLI(t, "", append(syncArgs("sync", "--split", "--plan", approved, "--output", "json"), demoSelection...)...)
	want := fmt.Sprintf("approved plan %s no longer matches the graph (1 of its 2 nodes changed since the review); nothing was split: node %v (%s): added neighbour 77 (Newcomer); removed %v (%s)",
		approved, n0.Key, n0.Name, gone, goneName)
	if code != exitUsage || out != "" || lastLine(stderr) != "fondue-neo4j: "+want {
		t.Fatalf("stale plan: exit %d, stderr:\n%s\nwant the line:\n%s", code, stderr, want)
	}
	if d := dump(t); d != before {
		t.Fatalf("a refused plan wrote:\n%s", testgraph.Diff(before, d))
	}
	if n := len(cypher(t, "MATCH (n) WHERE n:FondueRun OR n:FondueLock RETURN n", nil)); n != 0 {
		t.Fatalf("%d run or lock nodes left by a refused plan", n)
	}
	// The dry run of the plan says the same, without a lock.
	code, _, stderr = runCLI(t, "", append(syncArgs("sync", "--split", "--plan", approved, "--dry-run"), demoSelection...)...)
	if code != exitUsage || !strings.Contains(lastLine(stderr), "added neighbour 77 (Newcomer)") {
		t.Fatalf("dry run of a stale plan: exit %d: %s", code, stderr)
	}
}

// The server goes away in the middle of an approved plan's split: the run
// fails with exit code 4; the same command, run again, resumes it (the
// plan stored under its run id) and the graph is the one an uninterrupted
// run makes.
func TestApprovedPlanResume(t *testing.T) {
	reset(t)
	loadSeed(t)
	dry, plan := dryRunDemo(t, 3)
	s := reviewtest.Open(t)
	s.Load(reviewPage(t, dry))
	for rank := 1; rank <= 3; rank++ {
		s.Decide(rank, "accept")
	}
	approved := writeTemp(t, "approved.json", s.Export())
	before := dump(t)
	args := append(syncArgs("sync", "--split", "--plan", approved, "--lock-ttl", "20s"), demoSelection...)
	if code, _, stderr := runCLI(t, "", args...); code != 0 {
		t.Fatalf("reference: exit %d: %s", code, stderr)
	}
	splitAt := regexp.MustCompile(`"fondue_split_at":"[^"]*"`)
	reference := splitAt.ReplaceAllString(dump(t), `"fondue_split_at":"T"`)
	// Undo it (the same nodes, so the same dump; the run id is free again).
	if code, _, stderr := runCLI(t, "", syncArgs("undo", "--run-id", plan.RunID)...); code != 0 {
		t.Fatalf("undo: exit %d: %s", code, stderr)
	}
	if d := dump(t); d != before {
		t.Fatalf("undo did not restore the graph:\n%s", testgraph.Diff(before, d))
	}

	// At the clones of the second node (one statement a node), once the
	// first is split.
	fired := cutAt("SET m += $rows[i]", 2)
	code, _, stderr := runCLI(t, "", args...)
	if code != exitUnreachable || !strings.Contains(lastLine(stderr), "splitting node") {
		t.Fatalf("cut: exit %d (want %d, fault fired %v): %s", code, exitUnreachable, fired(), stderr)
	}
	if n := cypher(t, "MATCH (c:FondueSplit) RETURN count(c)", nil)[0].Values[0]; n == int64(0) {
		t.Fatal("the cut came before any split: the test resumes nothing")
	}
	rerun(t, args, splitAt, reference)
}

// Without a browser: plan accept and plan reject on a dry run's plan,
// then sync --split --plan splits exactly the accepted nodes, each into
// its proposed groups, and leaves the rejected one whole.
func TestApprovedPlanFromCommandLine(t *testing.T) {
	reset(t)
	loadSeed(t)
	dry, plan := dryRunDemo(t, 3)
	approved := filepath.Join(t.TempDir(), "approved.json")
	k := func(n int) string { return plan.Nodes[n].Key.Text() }
	for _, args := range [][]string{{"accept", k(0), k(1)}, {"reject", k(2)}} {
		if code, _, stderr := runCLI(t, "", append([]string{"plan"}, append(args, "--plan", dry, "--approved", approved)...)...); code != 0 {
			t.Fatalf("plan %v: exit %d: %s", args, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "", append(syncArgs("sync", "--split", "--plan", approved), demoSelection...)...); code != 0 {
		t.Fatalf("sync --split --plan: exit %d: %s", code, stderr)
	}
	for n := range 2 {
		var want [][]string
		for _, g := range plan.Nodes[n].Groups {
			want = append(want, keySet(g.Neighbors))
		}
		if got := splitGroups(t, plan.RunID, plan.Nodes[n].Key); !slices.EqualFunc(got, want, slices.Equal[[]string]) {
			t.Errorf("node %s split into %v, want %v", k(n), got, want)
		}
	}
	if c := cypher(t, "MATCH (c:FondueSplit {fondue_split_from: $k}) RETURN count(c)", map[string]any{"k": plan.Nodes[2].Key.Value()})[0].Values[0]; c != int64(0) {
		t.Errorf("the rejected node %s has %v clones", k(2), c)
	}
}
