package neo4jtests

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/review"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// nightGraph is three cliques of five people (uids 0-4, 100-104,
// 200-204) that hub 1000 joins (three links each), and a fourth clique
// (500-504) apart.
func nightGraph(t *testing.T) {
	cypher(t, `UNWIND [0, 100, 200, 500] AS base
UNWIND range(base, base + 4) AS u
CREATE (:P {uid: u})`, nil)
	cypher(t, `MATCH (a:P), (b:P) WHERE a.uid < b.uid AND a.uid / 100 = b.uid / 100 CREATE (a)-[:K]->(b)`, nil)
	cypher(t, `CREATE (h:P {uid: 1000}) WITH h
MATCH (p:P) WHERE p.uid IN [0, 1, 2, 100, 101, 102, 200, 201, 202] CREATE (h)-[:K]->(p)`, nil)
}

// The second night, live: night 1 splits the hub, whose clones get keys
// (1001, 1002: the integers after the largest); new links reach a clone,
// night 2 scores the clones like any node and splits that clone again.
// Undo refuses night 1 first, naming night 2; night 2 then night 1 undo
// exactly: without the links added between the nights, re-scored with the
// same run id, the graph is the start's, dump for dump.
func TestSecondNight(t *testing.T) {
	reset(t)
	nightGraph(t)
	base := syncArgs("sync", "--node-labels", "P", "--id-property", "uid", "--relationship-types", "K", "--output", "json")
	sync := func(runID string, more ...string) syncSummary {
		t.Helper()
		code, out, stderr := runCLI(t, "", append(append(base, "--run-id", runID), more...)...)
		var sum syncSummary
		if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil {
			t.Fatalf("sync %s: exit %d %v: %s %s", runID, code, err, out, stderr)
		}
		return sum
	}
	sync("ref")
	start := dump(t)

	n1 := sync("night-1", "--split", "--split-top", "1")
	if n1.Split == nil || n1.Split.Split != 1 || n1.Split.Nodes[0].Key != keys.Int(1000) || n1.Split.NodesCreated != 2 {
		t.Fatalf("night 1 split: %+v", n1.Split)
	}
	clones := cypher(t, "MATCH (c:P:FondueSplit) RETURN c.uid ORDER BY c.uid", nil)
	if len(clones) != 2 || clones[0].Values[0] != int64(1001) || clones[1].Values[0] != int64(1002) {
		t.Fatalf("clones of night 1: %v", clones)
	}
	cypher(t, `MATCH (c:P {uid: 1001}), (p:P) WHERE p.uid IN [500, 501, 502] CREATE (c)-[:K {added: true}]->(p)`, nil)

	n2 := sync("night-2", "--split", "--split-top", "1")
	if n2.NodeCount != 23 || n2.Scored == nil || n2.Scored.Nodes != 23 {
		t.Fatalf("night 2 scored %d of %d nodes: the clones are left out", n2.Scored.Nodes, n2.NodeCount)
	}
	if n2.Split == nil || n2.Split.Split != 1 || n2.Split.Nodes[0].Key != keys.Int(1001) {
		t.Fatalf("night 2 split: %+v", n2.Split)
	}
	if r := cypher(t, "MATCH (c:P {uid: 1001}) RETURN c.ambiguity IS NOT NULL, c.fondue_split_runs", nil); r[0].Values[0] != true {
		t.Fatalf("clone 1001 after night 2: %v", r[0].Values)
	}
	if r := cypher(t, "MATCH (c:P {fondue_split_from: 1001}) RETURN c.uid, c.fondue_split_run", nil); len(r) != 1 || r[0].Values[0] != int64(1003) || r[0].Values[1] != "night-2" {
		t.Fatalf("clones of clone 1001: %v", r)
	}
	two := dump(t)

	code, _, stderr := runCLI(t, "", syncArgs("undo", "--run-id", "night-1")...)
	if code != exitUsage || !strings.Contains(stderr, "night-2 split nodes that run night-1 created; undo run night-2 first") {
		t.Fatalf("undo of night 1 before night 2: exit %d: %s", code, stderr)
	}
	if d := dump(t); d != two {
		t.Fatalf("a refused undo changed the graph:\n%s", testgraph.Diff(two, d))
	}
	for _, run := range []string{"night-2", "night-1"} {
		code, out, stderr := runCLI(t, "", syncArgs("undo", "--run-id", run, "--output", "json")...)
		var u undoSummary
		if err := json.Unmarshal([]byte(out), &u); code != 0 || err != nil || u.Restored != 1 {
			t.Fatalf("undo %s: exit %d %v: %s %s", run, code, err, out, stderr)
		}
	}
	// The links added to clone 1001 moved to the hub with the undo.
	if r := cypher(t, "MATCH (:P {uid: 1000})-[r:K {added: true}]->() DELETE r RETURN count(*)", nil); r[0].Values[0] != int64(3) {
		t.Fatalf("links added between the nights, on the hub after the undo: %v", r[0].Values[0])
	}
	sync("ref")
	if d := dump(t); d != start {
		t.Fatalf("the undos did not restore the graph:\n%s", testgraph.Diff(start, d))
	}
}

// A node rejected in review is remembered: the next dry runs do not
// propose it (the summary says why), until "undo --forget-decisions".
func TestDecisionsRemembered(t *testing.T) {
	reset(t)
	loadSeed(t)
	_, plan := dryRunDemo(t, 2)
	a := plan.Nodes[0]
	var nbs []string
	for _, g := range a.Groups {
		for _, k := range g.Neighbors {
			nbs = append(nbs, k.Text())
		}
	}
	ap := review.ApprovedPlan{Format: review.PlanFormat, Version: review.PlanVersion, ReviewedAt: "2026-01-01T00:00:00.000Z", Source: review.SourceNeo4j,
		PlanSettings: review.PlanSettings{RunID: plan.RunID, CreatedAt: plan.CreatedAt, Splitter: plan.Splitter, IDProperty: plan.IDProperty,
			NodeLabels: plan.NodeLabels, RelationshipTypes: plan.RelationshipTypes, MarkerLabel: plan.MarkerLabel},
		Nodes:     []review.ApprovedNode{},
		Rejected:  []review.DecidedNode{{Key: a.Key, ID: a.ID, Name: a.Name, Fingerprint: review.Fingerprint(a.Key.Text(), nbs)}},
		Undecided: []keys.Key{plan.Nodes[1].Key}}
	data, err := json.Marshal(ap)
	if err != nil {
		t.Fatal(err)
	}
	file := writeTemp(t, "approved.json", data)
	if code, out, stderr := runCLI(t, "", append(syncArgs("sync", "--split", "--plan", file, "--output", "json"), demoSelection...)...); code != 0 {
		t.Fatalf("apply the rejection: exit %d: %s %s", code, out, stderr)
	}
	dry := func() (proposed []keys.Key, remembered []keys.Key) {
		t.Helper()
		args := append(syncArgs("sync", "--split", "--split-top", "2", "--dry-run", "--output", "json", "--seed", "3"), demoSelection...)
		code, out, stderr := runCLI(t, "", args...)
		var sum struct {
			Plan       *splitplan.Plan      `json:"plan"`
			Remembered []splitplan.Decision `json:"remembered"`
		}
		if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil {
			t.Fatalf("dry run: exit %d %v: %s", code, err, stderr)
		}
		for _, n := range sum.Plan.Nodes {
			proposed = append(proposed, n.Key)
		}
		for _, d := range sum.Remembered {
			remembered = append(remembered, d.Key)
		}
		return proposed, remembered
	}
	proposed, remembered := dry()
	if slices.Contains(proposed, a.Key) || !slices.Equal(remembered, []keys.Key{a.Key}) {
		t.Fatalf("after the rejection of %v: proposed %v, remembered %v", a.Key, proposed, remembered)
	}
	code, out, stderr := runCLI(t, "", syncArgs("undo", "--forget-decisions", "--output", "json")...)
	var forgot struct {
		Forgotten int `json:"decisionsForgotten"`
	}
	if err := json.Unmarshal([]byte(out), &forgot); code != 0 || err != nil || forgot.Forgotten != 1 {
		t.Fatalf("forget: exit %d %v: %s %s", code, err, out, stderr)
	}
	if proposed, remembered = dry(); !slices.Contains(proposed, a.Key) || len(remembered) != 0 {
		t.Fatalf("after forgetting: proposed %v, remembered %v", proposed, remembered)
	}
}
