package neo4jtests

// The real knowledge graph (dblp679-kg), bulk-imported with neo4j-admin,
// scored with its context and evidence properties, split and undone.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/testgraph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// realImport is the import of the real set name in the datasets folder
// ($BENCH_DATASETS, else ../shared/datasets beside the repository, else
// /work/shared/datasets, where the project's machines keep it): the node
// and relationship files given, each checked to be there.
func realImport(t *testing.T, name string, nodes, rels []string) neo4jtest.ImportOptions {
	t.Helper()
	data := os.Getenv("BENCH_DATASETS")
	if data == "" {
		data = filepath.Join(repoRoot, "..", "shared", "datasets")
		if _, err := os.Stat(data); err != nil {
			data = "/work/shared/datasets"
		}
	}
	dir := filepath.Join(data, "real", name)
	o := neo4jtest.ImportOptions{Threads: 2}
	for _, f := range nodes {
		o.Nodes = append(o.Nodes, filepath.Join(dir, f+".csv"))
	}
	for _, f := range rels {
		o.Relationships = append(o.Relationships, filepath.Join(dir, f+".csv"))
	}
	for _, f := range append(slices.Clone(o.Nodes), o.Relationships...) {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("the %s import files: %v", name, err)
		}
	}
	return o
}

// kgFiles is the import of the real knowledge graph, as its README gives it.
func kgFiles(t *testing.T) neo4jtest.ImportOptions {
	return realImport(t, "dblp679-kg", []string{"authors", "papers", "venues", "keywords"}, []string{"wrote", "published_in", "has_keyword"})
}

// wroteCounts counts the WROTE relationships by (author, paper) uids, a
// clone's counted as its original's (fondue_split_from), and returns the
// total.
func wroteCounts(t *testing.T) (map[[2]string]int, int) {
	t.Helper()
	counts := map[[2]string]int{}
	total := 0
	for _, r := range cypher(t, `MATCH (a)-[:WROTE]->(p) RETURN coalesce(a.fondue_split_from, a.uid) AS author, p.uid AS paper, count(*) AS n`, nil) {
		a, _ := r.Values[0].(string)
		p, _ := r.Values[1].(string)
		n := int(r.Values[2].(int64))
		counts[[2]string{a, p}] += n
		total += n
	}
	return counts, total
}

// contextDump is the dump of the context: every node but the authors and
// the clones, and every relationship that does not start at one.
func contextDump(t *testing.T) string {
	t.Helper()
	var keep []string
	for _, line := range strings.Split(dump(t), "\n") {
		if !strings.Contains(line, `["Author"`) && !strings.HasPrefix(line, "R uid:a:") && !strings.HasPrefix(line, "R clone:") && !strings.HasPrefix(line, "N clone:") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// dblp679-kg imported with neo4j-admin database import full; sync scores
// the authors (write.node_labels Author) with the papers, venues and
// keywords as context and the papers' titles and years as evidence, and
// splits the 20 most ambiguous authors. The scores land on the authors
// only; after the split every WROTE relationship exists exactly once
// (each (author or its clone, paper) pair as often as imported, the same
// total), each clone has exactly the WROTE relationships of its group of
// the stored plan, the context nodes and their relationships are
// untouched, and any reasons in the plan are well formed; undo restores
// the imported graph exactly (the written scores aside). It asserts
// structure and exactness, not a number of groups: with or without the
// engine's merge by evidence.
func TestSyncImportedKnowledgeGraph(t *testing.T) {
	reset(t)
	t0 := time.Now()
	st, err := srv.Import(ctxT(t, 5*time.Minute), kgFiles(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: imported in %s (with the restart %s)", srv.Version(), st.Duration.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	counts := cypher(t, `MATCH (n) WITH count(n) AS nodes MATCH ()-[r]->() RETURN nodes, count(r)`, nil)
	if n, r := counts[0].Values[0].(int64), counts[0].Values[1].(int64); n != 23242 || r != 53069 {
		t.Fatalf("imported %d nodes and %d relationships, want 23242 and 53069 (the dataset's README)", n, r)
	}
	imported := dump(t)
	contextBefore := contextDump(t)
	wroteBefore, totalBefore := wroteCounts(t)
	if totalBefore != 24576 {
		t.Fatalf("%d WROTE relationships imported, want 24576", totalBefore)
	}

	const run = "kg-import"
	args := syncArgs("sync", "--node-labels", "Author,Paper,Venue,Keyword", "--relationship-types", "WROTE,PUBLISHED_IN,HAS_KEYWORD",
		"--id-property", "uid", "--write-node-labels", "Author", "--evidence-properties", "title,year",
		"--display-property", "name,title", "--split", "--split-top", "20", "--run-id", run, "--output", "json")
	t1 := time.Now()
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("sync: exit %d: %s", code, stderr)
	}
	t.Logf("%s: sync --split in %s", srv.Version(), time.Since(t1).Round(time.Millisecond))
	var sum syncSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Scored == nil || sum.Split == nil {
		t.Fatalf("summary %v: %s", err, out)
	}
	sc := sum.Scored
	if sum.NodeCount != 23242 || sc.Labels["Author"].Context != 0 || sc.Labels["Author"].Scored+sc.Labels["Author"].Unscored != 8869 ||
		sc.Labels["Paper"].Scored != 0 || sc.Labels["Venue"].Scored != 0 || sc.Labels["Keyword"].Scored != 0 || sc.Context != 23242-8869 {
		t.Fatalf("summary: %+v, scored %+v", sum, sc)
	}
	if ev, _ := sum.Configuration["evidenceProperties"].([]any); !slices.Equal(ev, []any{"title", "year"}) {
		t.Errorf("configuration evidenceProperties %v", sum.Configuration["evidenceProperties"])
	}
	sp := sum.Split
	if sp.Planned == 0 || sp.Planned > 20 || sp.Split != sp.Planned || sp.Failed != 0 || sp.NodesCreated < sp.Split {
		t.Fatalf("split: %+v", sp)
	}

	// Scores on the scored authors only (original authors: clones have
	// none until the next run).
	scored := cypher(t, `MATCH (a:Author) WHERE a.uid IS NOT NULL AND a.ambiguity IS NOT NULL AND a.fondue_run = $run RETURN count(a)`, map[string]any{"run": run})
	if n := scored[0].Values[0].(int64); int(n) != sc.Labels["Author"].Scored {
		t.Errorf("%d authors carry a score of the run, want %d", n, sc.Labels["Author"].Scored)
	}
	if contextDump(t) != contextBefore {
		t.Fatalf("the context changed:\n%s", testgraph.Diff(contextBefore, contextDump(t)))
	}

	// Every WROTE relationship exactly once.
	wroteAfter, totalAfter := wroteCounts(t)
	if totalAfter != totalBefore || len(wroteAfter) != len(wroteBefore) {
		t.Fatalf("%d WROTE relationships in %d pairs after the split, want %d in %d", totalAfter, len(wroteAfter), totalBefore, len(wroteBefore))
	}
	for pair, n := range wroteBefore {
		if wroteAfter[pair] != n {
			t.Fatalf("WROTE %v: %d after the split, %d imported", pair, wroteAfter[pair], n)
		}
	}

	// Each clone holds exactly its group of the stored plan.
	recs := cypher(t, `MATCH (r:FondueRun {run_id: $run}) RETURN r.plan`, map[string]any{"run": run})
	if len(recs) != 1 {
		t.Fatalf("%d stored plans of the run", len(recs))
	}
	plan, err := splitplan.Unmarshal([]byte(recs[0].Values[0].(string)))
	if err != nil || len(plan.Nodes) != sp.Planned {
		t.Fatalf("stored plan: %v, %d nodes, want %d", err, len(plan.Nodes), sp.Planned)
	}
	held := map[string][]string{} // original uid / group -> papers
	for _, r := range cypher(t, `MATCH (a:Author)-[:WROTE]->(p) WHERE a.fondue_split_run = $run OR a.fondue_split_runs IS NOT NULL
		RETURN coalesce(a.fondue_split_from, a.uid) + '/' + toString(coalesce(a.fondue_split_group, 0)), collect(DISTINCT p.uid)`, map[string]any{"run": run}) {
		var papers []string
		for _, p := range r.Values[1].([]any) {
			papers = append(papers, p.(string))
		}
		slices.Sort(papers)
		held[r.Values[0].(string)] = papers
	}
	reasons := 0
	for _, n := range plan.Nodes {
		if len(n.Groups) < 2 || n.Entities < 1 {
			t.Fatalf("planned node %v: %d groups, %d entities", n.Key, len(n.Groups), n.Entities)
		}
		for g, grp := range n.Groups {
			want := make([]string, len(grp.Neighbors))
			for k, nb := range grp.Neighbors {
				want[k] = nb.Text()
			}
			slices.Sort(want)
			if got := held[fmt.Sprintf("%s/%d", n.Key.Text(), g)]; !slices.Equal(got, want) {
				t.Fatalf("node %v group %d: WROTE %v, want the plan's %v", n.Key, g, got, want)
			}
			for _, r := range grp.Reasons {
				reasons++
				if r.Kind == "" || r.Value == "" || !(r.Weight >= 0) || math.IsInf(r.Weight, 0) {
					t.Fatalf("node %v group %d: reason %+v", n.Key, g, r)
				}
			}
		}
	}
	t.Logf("%s: %d nodes split into %d new nodes, %d relationships moved; %d reasons in the plan", srv.Version(), sp.Split, sp.NodesCreated, sp.RelationshipsMoved, reasons)

	t2 := time.Now()
	code, out, stderr = runCLI(t, "", syncArgs("undo", "--run-id", run, "--output", "json")...)
	var u undoSummary
	if err := json.Unmarshal([]byte(out), &u); code != 0 || err != nil || u.Restored != sp.Split || u.ClonesDeleted != sp.NodesCreated || u.RelationshipsMoved != sp.RelationshipsMoved {
		t.Fatalf("undo: exit %d %v: %s %s", code, err, out, stderr)
	}
	t.Logf("%s: undo in %s", srv.Version(), time.Since(t2).Round(time.Millisecond))
	// The graph as imported, once the scores written are removed.
	cypher(t, `MATCH (a:Author) REMOVE a.ambiguity, a.ambiguity_score, a.ambiguity_entities, a.fondue_run`, nil)
	if d := dump(t); d != imported {
		t.Fatalf("undo did not restore the imported graph:\n%s", testgraph.Diff(imported, d))
	}
}
