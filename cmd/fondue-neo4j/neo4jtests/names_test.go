package neo4jtests

// A graph of several kinds of nodes, each named by another property:
// graph.display_property lists them, the first a node has names it, in the
// dry run's plan, its review page, the summary and the messages of an
// approved plan applied later (with the plan's display properties).

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/review"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/reviewtest"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// moviesSelection is the subgraph of the movies graph (see
// TestHeterogeneousNames), without its display properties.
var moviesSelection = []string{"--node-labels", "Character,Movie", "--relationship-types", "APPEARS_WITH", "--id-property", "id"}

func TestHeterogeneousNames(t *testing.T) {
	reset(t)
	loadSeed(t)
	// A third of the characters become movies, named by a title; Valjean
	// also gets a title, but his name comes first; one movie is isolated.
	cypher(t, `MATCH (c:Character) WHERE c.id % 3 = 0
		REMOVE c:Character SET c:Movie, c.title = 'Film of ' + c.name REMOVE c.name`, nil)
	cypher(t, "MATCH (c:Character {id: 11}) SET c.title = 'Monsieur Madeleine'", nil)
	cypher(t, "CREATE (:Movie {id: 200, title: 'Lonely film'})", nil)
	names := map[string]string{} // key -> the name a node is shown by
	labelOf := map[string]string{}
	for _, r := range cypher(t, "MATCH (n) RETURN n.id, coalesce(n.name, n.title), labels(n)[0]", nil) {
		k := fmt.Sprint(r.Values[0])
		names[k], labelOf[k] = r.Values[1].(string), r.Values[2].(string)
	}
	if names["11"] != "Valjean" || names["0"] != "Film of Myriel" || len(names) != 78 {
		t.Fatalf("movies graph: %d nodes, 11 is %q, 0 is %q", len(names), names["11"], names["0"])
	}
	display := []string{"--display-property", "name,title"}

	// The dry run: every node and neighbour of its plan named, movies by
	// their titles; the summary counts the scored nodes of each label and
	// names the most ambiguous.
	args := append(append(syncArgs("sync", "--split", "--split-top", "3", "--dry-run", "--output", "json", "--seed", "3"), moviesSelection...), display...)
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	var sum struct {
		syncSummary
		Plan json.RawMessage `json:"plan"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("dry run output %v: %s", err, out)
	}
	plan, err := splitplan.Unmarshal(sum.Plan)
	if err != nil || len(plan.Nodes) != 3 || !slices.Equal(plan.DisplayProperties, []string{"name", "title"}) {
		t.Fatalf("dry run's plan %v: %s", err, sum.Plan)
	}
	movies := 0
	for _, n := range plan.Nodes {
		if k := n.Key.Text(); n.Name != names[k] {
			t.Errorf("plan: node %s named %q, want %q", k, n.Name, names[k])
		}
		for _, g := range n.Groups {
			for j, nb := range g.Neighbors {
				k := nb.Text()
				if g.Names[j] != names[k] {
					t.Errorf("plan: neighbour %s of %v named %q, want %q", k, n.Key, g.Names[j], names[k])
				}
				if labelOf[k] == "Movie" {
					movies++
				}
			}
		}
	}
	if movies == 0 {
		t.Fatal("no movie among the planned nodes' neighbours: the test names no movie")
	}
	sc := sum.Scored
	if sc == nil || sum.UnscoredNodes != 1 || sc.Nodes != 77 || len(sc.Top) != 10 ||
		!slices.Equal(sc.labelCounts(), []string{"Character 51/0", "Movie 26/1"}) {
		t.Fatalf("summary: scored %+v, unscored %d; want 51 characters and 26 movies (1 isolated)", sc, sum.UnscoredNodes)
	}
	for _, n := range sc.Top {
		if k := fmt.Sprint(n.Key); n.Name != names[k] || !slices.Equal(n.Labels, []string{labelOf[k]}) || !strings.Contains(n.ID, ":") {
			t.Errorf("summary: top node %+v, want %q, :%s", n, names[k], labelOf[k])
		}
	}
	if t.Failed() {
		return
	}

	// The review page shows the same names.
	dry := writeTemp(t, "dry-run.json", []byte(out))
	s := reviewtest.Open(t)
	s.Load(reviewPage(t, dry))
	for k, d := range s.Drawing() {
		if d.Name != plan.Nodes[k].Name {
			t.Errorf("review page: node %d shown as %q, want %q", k+1, d.Name, plan.Nodes[k].Name)
		}
	}
	var chips []string
	s.Eval(`Array.from(document.querySelectorAll(".chip")).map(c => c.textContent)`, &chips)
	var want []string
	for _, n := range plan.Nodes {
		for _, g := range n.Groups {
			want = append(want, g.Names...)
		}
	}
	slices.Sort(chips) // the page lists each group's neighbours by name
	slices.Sort(want)
	if !slices.Equal(chips, want) {
		t.Errorf("review page: neighbours shown as %q, want %q", chips, want)
	}

	// An approved plan applied without --display-property: a node whose
	// neighbours changed is named, and so is its new neighbour, a movie,
	// by the plan's display properties.
	s.Decide(1, "accept")
	s.Decide(2, "accept")
	data := s.Export()
	ap, err := review.ParsePlan(data)
	if err != nil || len(ap.Nodes) != 2 || !slices.Equal(ap.DisplayProperties, []string{"name", "title"}) {
		t.Fatalf("approved plan %v: %s", err, data)
	}
	approved := writeTemp(t, "approved.json", data)
	n0 := plan.Nodes[0]
	cypher(t, "MATCH (v {id: $k}) CREATE (v)-[:APPEARS_WITH]->(:Movie {id: 300, title: 'New film'})", map[string]any{"k": n0.Key.Value()})
	before := dump(t)
	code, _, stderr = runCLI(t, "", append(syncArgs("sync", "--split", "--plan", approved), moviesSelection...)...)
	want1 := fmt.Sprintf("nothing was split: node %v (%s): added neighbour 300 (New film)", n0.Key, n0.Name)
	if code != exitUsage || !strings.HasSuffix(lastLine(stderr), want1) {
		t.Fatalf("stale plan: exit %d, stderr:\n%s\nwant a line ending in:\n%s", code, stderr, want1)
	}
	if d := dump(t); d != before {
		t.Fatal("a refused plan wrote")
	}
}
