package neo4jtests

// The knowledge-graph shape: (:Author)-[:WROTE]->(:Paper), authors scored
// and split, papers context (write.node_labels).

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
)

// Paper uids of the two communities J. Smith (uid 1) wrote for.
var (
	chemPapers  = []int64{100, 101, 102, 103, 104, 105}
	poetsPapers = []int64{200, 201, 202, 203, 204}
)

// wroteGraph builds a small bibliography with a planted homonym: one
// Author "J. Smith" (uid 1) who wrote 6 papers with chemists (uids 11-14)
// and 5 with poets (21-24), each community's papers sharing its own
// co-authors; ordinary authors (31-34) with 5 papers of their own (300-304);
// an isolated author and an isolated paper, each with old score
// properties, and an old score on paper 100; and COAUTHOR relationships
// (a type the sync does not pull), two of them at J. Smith. Every WROTE
// relationship has a property pos.
func wroteGraph(t *testing.T) {
	t.Helper()
	authors := []map[string]any{{"uid": int64(1), "name": "J. Smith"}, {"uid": int64(40), "name": "Hermit", "ambiguity": 0.9, "ambiguity_score": 2.5, "ambiguity_entities": int64(4)}}
	for _, c := range []struct {
		base int64
		kind string
	}{{11, "Chemist"}, {21, "Poet"}, {31, "Other"}} {
		for k := range int64(4) {
			authors = append(authors, map[string]any{"uid": c.base + k, "name": fmt.Sprintf("%s %d", c.kind, k+1)})
		}
	}
	var papers []map[string]any
	var wrote [][]int64 // author, paper, pos
	community := func(first int64, n int, authorBase int64, smith bool) {
		for k := range int64(n) {
			p := first + k
			papers = append(papers, map[string]any{"uid": p, "title": fmt.Sprintf("Paper %d", p)})
			if smith {
				wrote = append(wrote, []int64{1, p, 1})
			}
			wrote = append(wrote, []int64{authorBase + k%4, p, 2}, []int64{authorBase + (k+1)%4, p, 3})
			if !smith {
				wrote = append(wrote, []int64{authorBase + (k+2)%4, p, 1})
			}
		}
	}
	community(100, len(chemPapers), 11, true)
	community(200, len(poetsPapers), 21, true)
	community(300, 5, 31, false)
	papers = append(papers, map[string]any{"uid": int64(399), "title": "Lonely paper", "ambiguity": 0.25, "ambiguity_score": 1.5, "ambiguity_entities": int64(2)})
	cypher(t, "UNWIND $authors AS a CREATE (n:Author) SET n = a", map[string]any{"authors": authors})
	cypher(t, "UNWIND $papers AS p CREATE (n:Paper) SET n = p", map[string]any{"papers": papers})
	cypher(t, "MATCH (p:Paper {uid: 100}) SET p.ambiguity = 0.5, p.ambiguity_entities = 7", nil)
	cypher(t, "UNWIND $wrote AS w MATCH (a:Author {uid: w[0]}), (p:Paper {uid: w[1]}) CREATE (a)-[:WROTE {pos: w[2]}]->(p)", map[string]any{"wrote": wrote})
	cypher(t, "UNWIND [[1, 11], [21, 1], [11, 12], [31, 32]] AS c MATCH (a:Author {uid: c[0]}), (b:Author {uid: c[1]}) CREATE (a)-[:COAUTHOR]->(b)", nil)
}

// relationships lists every relationship as "from -TYPE-> to pos", its
// ends by uid, a split node as "clone".
func relationships(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, r := range cypher(t, `MATCH (a)-[r]->(b) WHERE NOT a:FondueRun AND NOT a:FondueLock
		RETURN CASE WHEN a:FondueSplit THEN 'clone' ELSE toString(a.uid) END + ' -' + type(r) + '-> ' +
		       CASE WHEN b:FondueSplit THEN 'clone' ELSE toString(b.uid) END + ' ' + coalesce(toString(r.pos), '')`, nil) {
		out = append(out, r.Values[0].(string))
	}
	slices.Sort(out)
	return out
}

// In (:Author)-[:WROTE]->(:Paper) with write.node_labels Author: only the
// authors are scored, written and split, the papers are context. The
// planted homonym J. Smith is the most ambiguous author, estimated to be
// two or more persons; the split gives a new Author the WROTE
// relationships of one community's papers, J. Smith keeps the other's,
// and nothing else moves (COAUTHOR is not pulled); undo restores the
// graph exactly. A write label that is not pulled, or does not exist, is
// refused before anything is written.
func TestSyncKnowledgeGraph(t *testing.T) {
	reset(t)
	wroteGraph(t)
	initial := dump(t)

	// Refused before the pull: nothing written.
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--node-labels", "Author,Paper", "--write-node-labels", "Venue"}, exitUsage, `write.node_labels: label "Venue" is not one of graph.node_labels (Author, Paper)`},
		{[]string{"--write-node-labels", "Ghost"}, exitEmpty, `write node label "Ghost" does not exist in the database`},
	} {
		code, _, stderr := runCLI(t, "", syncArgs("sync", append(c.args, "--relationship-types", "WROTE", "--id-property", "uid")...)...)
		if code != c.code || !strings.Contains(stderr, c.msg) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d (want %d), stderr %q (want %q)", c.args, code, c.code, stderr, c.msg)
		}
	}
	if d := dump(t); d != initial {
		t.Fatalf("a refused run wrote:\n%s", testgraph.Diff(initial, d))
	}

	base := syncArgs("sync", "--node-labels", "Author,Paper", "--relationship-types", "WROTE", "--id-property", "uid",
		"--write-node-labels", "Author", "--display-property", "name", "--run-id", "kg-1", "--output", "json")
	code, out, stderr := runCLI(t, "", base...)
	if code != 0 {
		t.Fatalf("sync: exit %d: %s", code, stderr)
	}
	var sum syncSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("summary %v: %s", err, out)
	}
	// 13 linked authors scored, the hermit isolated; 16 linked papers and
	// the lonely one are context.
	sc := sum.Scored
	if sc == nil || sc.Nodes != 13 || sc.Context != 17 || sum.UnscoredNodes != 1 || sum.NodePropertiesWritten != 3*13 ||
		sc.Labels["Author"].Scored != 13 || sc.Labels["Author"].Unscored != 1 || sc.Labels["Author"].Context != 0 ||
		sc.Labels["Paper"].Scored != 0 || sc.Labels["Paper"].Context != 17 {
		t.Fatalf("summary: %+v, scored %+v", sum, sc)
	}
	if len(sc.Top) == 0 || sc.Top[0].Name != "J. Smith" || sc.Top[0].Ambiguity != 1 || !slices.Equal(sc.Top[0].Labels, []string{"Author"}) {
		t.Fatalf("most ambiguous: %+v, want J. Smith", sc.Top)
	}
	for _, n := range sc.Top {
		if !slices.Equal(n.Labels, []string{"Author"}) {
			t.Fatalf("top node %+v is not an Author", n)
		}
	}
	// Only authors carry the scores; papers keep what they had.
	for _, r := range cypher(t, `MATCH (a:Author) RETURN a.uid, a.ambiguity, a.ambiguity_score, a.ambiguity_entities, a.fondue_run`, nil) {
		uid, amb, score, ent, run := r.Values[0].(int64), r.Values[1], r.Values[2], r.Values[3], r.Values[4]
		if uid == 40 { // isolated: its old scores are removed
			if amb != nil || score != nil || ent != nil || run != "kg-1" {
				t.Fatalf("isolated author: %v", r.Values)
			}
			continue
		}
		e, _ := ent.(int64)
		if a, _ := amb.(float64); a <= 0 || a > 1 || score == nil || e < 1 || run != "kg-1" {
			t.Fatalf("author %d: %v", uid, r.Values)
		}
		if uid == 1 && (amb != 1.0 || e < 2) {
			t.Fatalf("J. Smith: ambiguity %v, entities %v: want the most ambiguous, 2 or more entities", amb, ent)
		}
	}
	for _, r := range cypher(t, `MATCH (p:Paper) RETURN p.uid, p.ambiguity, p.ambiguity_score, p.ambiguity_entities, p.fondue_run`, nil) {
		uid := r.Values[0].(int64)
		want := []any{nil, nil, nil, nil}
		switch uid {
		case 100:
			want = []any{0.5, nil, int64(7), nil}
		case 399:
			want = []any{0.25, 1.5, int64(2), nil}
		}
		if !slices.Equal(r.Values[1:], want) {
			t.Fatalf("paper %d: %v, want %v (papers are context: never written)", uid, r.Values[1:], want)
		}
	}
	before := dump(t)
	relsBefore := relationships(t)

	// The dry run's plan: J. Smith, with his estimated number of entities.
	splitArgs := append(slices.Clone(base), "--split", "--split-top", "1")
	code, out, stderr = runCLI(t, "", append(slices.Clone(splitArgs), "--dry-run")...)
	var dry syncSummary
	if err := json.Unmarshal([]byte(out), &dry); code != 0 || err != nil || dry.Plan == nil || len(dry.Plan.Nodes) != 1 {
		t.Fatalf("dry run: exit %d %v: %s %s", code, err, out, stderr)
	}
	if pn := dry.Plan.Nodes[0]; pn.Name != "J. Smith" || pn.Entities < 2 || len(pn.Groups) != 2 {
		t.Fatalf("planned node %+v: want J. Smith, 2 or more entities, 2 groups", pn)
	}
	if d := dump(t); d != before {
		t.Fatalf("the dry run wrote:\n%s", testgraph.Diff(before, d))
	}

	// The split: one new Author with one community's WROTE relationships.
	code, out, stderr = runCLI(t, "", splitArgs...)
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || sum.Split == nil || sum.Split.Split != 1 || sum.Split.NodesCreated != 1 {
		t.Fatalf("split: exit %d %v: %s %s", code, err, out, stderr)
	}
	clones := cypher(t, `MATCH (c:FondueSplit) RETURN labels(c), properties(c)`, nil)
	if len(clones) != 1 {
		t.Fatalf("%d split nodes, want 1", len(clones))
	}
	labels := clones[0].Values[0].([]any)
	props := clones[0].Values[1].(map[string]any)
	// The new Author has a key of its own (split.clone_key: an integer
	// that no other node has), so later runs score it.
	uid, isInt := props["uid"].(int64)
	if !slices.Contains(labels, any("Author")) || props["name"] != "J. Smith" || props["fondue_split_run"] != "kg-1" || !isInt ||
		cypher(t, `MATCH (n {uid: $u}) RETURN count(n)`, map[string]any{"u": uid})[0].Values[0] != int64(1) {
		t.Fatalf("split node %v %v", labels, props)
	}
	for k := range props {
		if strings.HasPrefix(k, "ambiguity") || k == "fondue_run" {
			t.Fatalf("split node holds the written property %s: %v", k, props)
		}
	}
	relsAfter := relationships(t)
	var cloneRels []string
	for _, r := range relsAfter {
		if strings.Contains(r, "clone") {
			cloneRels = append(cloneRels, r)
		}
	}
	wroteTo := func(papers []int64) []string {
		var out []string
		for _, p := range papers {
			out = append(out, fmt.Sprintf("clone -WROTE-> %d 1", p))
		}
		slices.Sort(out)
		return out
	}
	var moved []int64
	switch {
	case slices.Equal(cloneRels, wroteTo(chemPapers)):
		moved = chemPapers
	case slices.Equal(cloneRels, wroteTo(poetsPapers)):
		moved = poetsPapers
	default:
		t.Fatalf("the new Author's relationships %q: want exactly the WROTE relationships to the chemists' papers %v or to the poets' %v",
			cloneRels, chemPapers, poetsPapers)
	}
	// Everything else as before: J. Smith keeps the other community's
	// papers and his COAUTHOR relationships, nobody else changed.
	var want []string
	for _, r := range relsBefore {
		for _, p := range moved {
			if r == fmt.Sprintf("1 -WROTE-> %d 1", p) {
				r = fmt.Sprintf("clone -WROTE-> %d 1", p)
			}
		}
		want = append(want, r)
	}
	slices.Sort(want)
	if !slices.Equal(relsAfter, want) {
		t.Fatalf("relationships after the split:\n%s\nwant:\n%s", strings.Join(relsAfter, "\n"), strings.Join(want, "\n"))
	}

	code, out, stderr = runCLI(t, "", syncArgs("undo", "--run-id", "kg-1", "--output", "json")...)
	var u undoSummary
	if err := json.Unmarshal([]byte(out), &u); code != 0 || err != nil || u.Restored != 1 || u.ClonesDeleted != 1 || u.RelationshipsMoved != len(moved) {
		t.Fatalf("undo: exit %d %v: %s %s", code, err, out, stderr)
	}
	if d := dump(t); d != before {
		t.Fatalf("undo did not restore the graph:\n%s", testgraph.Diff(before, d))
	}
}
