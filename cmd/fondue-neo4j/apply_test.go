package main

import (
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/review"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// approvedJSON is a valid approved plan of one accepted node (Valjean),
// reviewed from a dry run (ids) or an edge list (no ids, no selection).
func approvedJSON(t *testing.T, source string) string {
	t.Helper()
	groups := [][]int64{{26, 55}, {0, 2}}
	n := review.ApprovedNode{Key: keys.Int(11), Name: "Valjean", Decision: review.DecisionAccept, Ambiguity: 1, Score: 36.9, Degree: 4}
	var texts []string
	for _, g := range groups {
		var ag review.ApprovedGroup
		for _, k := range g {
			ag.Neighbors = append(ag.Neighbors, keys.Int(k))
			if source == review.SourceNeo4j {
				ag.NeighborIDs = append(ag.NeighborIDs, keys.String("4:db:"+jsonNum(k)))
			}
			texts = append(texts, jsonNum(k))
		}
		n.Groups = append(n.Groups, ag)
	}
	n.Fingerprint = review.Fingerprint("11", texts)
	if source == review.SourceNeo4j {
		n.ID = keys.String("4:db:11")
	}
	p := review.ApprovedPlan{Format: review.PlanFormat, Version: review.PlanVersion, ReviewedAt: "2025-01-01T12:00:00.000Z",
		Source: source, Input: "lesmis", Nodes: []review.ApprovedNode{n}, Rejected: []review.DecidedNode{}, Undecided: []keys.Key{}}
	p.Splitter = "ncut"
	if source == review.SourceNeo4j {
		p.RunID, p.IDProperty, p.NodeLabels, p.RelationshipTypes = "20250101T000000Z-abc", "id", []string{"Character"}, []string{"APPEARS_WITH"}
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := review.ParsePlan(b); err != nil {
		t.Fatalf("the test's approved plan: %v", err)
	}
	return string(b)
}

// sync --split --plan refuses, before connecting, what cannot be applied:
// one line, exit code 2.
func TestSyncPlanBadInput(t *testing.T) {
	dir := t.TempDir()
	neo := writeFile(t, dir, "neo4j.json", approvedJSON(t, review.SourceNeo4j))
	edges := writeFile(t, dir, "edges.json", approvedJSON(t, review.SourceEdgeList))
	tampered := writeFile(t, dir, "tampered.json", strings.Replace(approvedJSON(t, review.SourceNeo4j), `"neighbors":[26,55]`, `"neighbors":[26,56]`, 1))
	dryRunPlan := writeFile(t, dir, "dry.json", `{"runId": "r", "nodes": []}`)
	sel := []string{"--node-labels", "Character", "--relationship-types", "APPEARS_WITH", "--id-property", "id"}
	// Nothing listens here: a case that got past its check would fail
	// with exit 4, not 2.
	base := []string{"sync", "--uri", "bolt://127.0.0.1:1", "--connect-timeout", "1s", "--split"}
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"sync", "--uri", "bolt://127.0.0.1:1", "--plan", neo}, "split.plan (--plan " + neo + ") applies an approved plan: it needs split.enabled (--split)"},
		{append(slicesOf(base, "--plan", filepath.Join(dir, "nope.json")), sel...), "approved plan " + filepath.Join(dir, "nope.json") + ": no such file"},
		{append(slicesOf(base, "--plan", dryRunPlan), sel...), `approved plan: format "", want "fondue-neo4j-approved-plan" (export it from the review page)`},
		{append(slicesOf(base, "--plan", tampered), sel...), "approved plan: node 11: the groups do not hold the neighbours that were reviewed"},
		{slicesOf(base, "--plan", neo, "--node-labels", "Character", "--relationship-types", "APPEARS_WITH"), `was reviewed from a dry run with graph.id_property = "id"; this run has "": apply it with the dry run's selection`},
		{slicesOf(base, "--plan", neo, "--relationship-types", "APPEARS_WITH", "--id-property", "id"), "was reviewed from a dry run with graph.node_labels = [Character]; this run has [] (all): apply it with the dry run's selection"},
		{slicesOf(base, "--plan", neo, "--node-labels", "Character", "--id-property", "id"), "graph.relationship_types = [APPEARS_WITH]; this run has [] (all)"},
		{slicesOf(base, "--plan", edges), "approved plan " + edges + " was reviewed from an edge list (lesmis): its nodes are found by their ids in a key property: set graph.id_property (--id-property)"},
		{slicesOf(base, "--plan", neo, "--node-query", "MATCH (n) RETURN elementId(n) AS id", "--relationship-query", "MATCH (a)--(b) RETURN elementId(a) AS source, elementId(b) AS target"), "not to a Cypher projection"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(t, "", c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.msg) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args[1:], code, stderr, c.msg)
		}
		wantOneLine(t, c.msg, stderr)
	}
	// Past the checks, the run connects: nothing listens there.
	code, _, stderr := runCLI(t, "", append(slicesOf(base, "--plan", neo), sel...)...)
	if code != exitUnreachable {
		t.Errorf("a valid plan: exit %d, want %d (unreachable): %s", code, exitUnreachable, stderr)
	}
	// split.plan from the environment, as every key.
	t.Setenv("FONDUE_SPLIT_PLAN", neo)
	code, _, stderr = runCLI(t, "", "sync", "--uri", "bolt://127.0.0.1:1")
	if code != exitUsage || !strings.Contains(stderr, "split.plan (--plan "+neo+") applies an approved plan") {
		t.Errorf("FONDUE_SPLIT_PLAN: exit %d: %s", code, stderr)
	}
}

func slicesOf(base []string, more ...string) []string {
	return append(append([]string{}, base...), more...)
}

// A node of an approved plan that changed after the whole-plan check was
// left alone by its transaction: the run fails, naming it, after the
// summary (syncjob.IncompleteError; report prints the summary).
func TestReportApprovedPlanSkips(t *testing.T) {
	var out, errb strings.Builder
	a := newApp(strings.NewReader(""), &out, &errb)
	a.log = slog.New(slog.NewTextHandler(&errb, nil))
	sum := &syncSummary{RunID: "r1", ApprovedPlan: &splitplan.ApprovedRef{File: "approved.json", ReviewedAt: "2025-01-01T12:00:00.000Z", Fingerprint: "sha256:ab"},
		Split: &splitplan.SplitStats{Planned: 2, Split: 1, Skipped: 1, Nodes: []splitplan.NodeOutcome{
			{Key: keys.Int(48), Name: "Gavroche", Outcome: splitplan.OutcomeSplit},
			{Key: keys.Int(11), Name: "Valjean", Outcome: splitplan.OutcomeChanged, Reason: "added neighbour 77 (Newcomer)"},
		}}}
	if err := a.report(sum, &syncSettings{json: true}); err != nil || !strings.Contains(out.String(), `"approvedPlan"`) {
		t.Fatalf("report: %v\nstdout %s", err, out.String())
	}
	err := error(&syncjob.IncompleteError{RunID: sum.RunID, Approved: true, Stats: sum.Split})
	want := "1 of 2 approved splits were not made: the graph changed after the check (the others were made; re-run to retry, or undo them: fondue-neo4j undo --run-id r1): node 11 (Valjean): added neighbour 77 (Newcomer)"
	if err.Error() != want || exitCode(err) != err {
		t.Fatalf("%v\nwant %s (exit code 1)", err, want)
	}
}
