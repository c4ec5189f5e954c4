package neo4jtests

// The README's Neo4j path, end to end: the demo graph of docker/seed.cypher,
// the README's sync command line, the example queries of the README and
// docs/.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/neo4jtest"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"go.yaml.in/yaml/v3"
)

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cypherStatements splits a Cypher script into its statements (each ends
// with ";" at the end of a line). Each statement comes with the "//"
// comment lines just before it.
func cypherStatements(script string) (stmts, comments []string) {
	var stmt, comment []string
	for _, line := range strings.Split(script, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "//") && len(stmt) == 0:
			comment = append(comment, strings.TrimSpace(strings.TrimPrefix(trimmed, "//")))
		case trimmed == "" && len(stmt) == 0:
		default:
			stmt = append(stmt, line)
			if strings.HasSuffix(trimmed, ";") {
				stmts = append(stmts, strings.TrimSuffix(strings.TrimSpace(strings.Join(stmt, "\n")), ";"))
				comments = append(comments, strings.Join(comment, " "))
				stmt, comment = nil, nil
			}
		}
	}
	if len(stmt) > 0 {
		stmts = append(stmts, strings.TrimSpace(strings.Join(stmt, "\n")))
		comments = append(comments, strings.Join(comment, " "))
	}
	return stmts, comments
}

// codeBlocks returns the bodies of the README's fenced blocks whose info
// string is lang ("" : any).
func codeBlocks(readme, lang string) []string {
	var blocks []string
	var cur []string
	in, want := false, false
	sc := bufio.NewScanner(strings.NewReader(readme))
	for sc.Scan() {
		line := sc.Text()
		if fence, ok := strings.CutPrefix(strings.TrimSpace(line), "```"); ok {
			if !in {
				in, want, cur = true, lang == "" || strings.TrimSpace(fence) == lang, nil
			} else {
				if want {
					blocks = append(blocks, strings.Join(cur, "\n"))
				}
				in = false
			}
			continue
		}
		if in {
			cur = append(cur, line)
		}
	}
	return blocks
}

// readmeSyncArgs finds the README's one command line that runs
// "sync --config config.example.yaml" and returns its arguments (after the
// program: "go run ./cmd/fondue-neo4j" or "fondue-neo4j"), without a
// trailing "#" comment.
func readmeSyncArgs(t *testing.T, readme string) []string {
	t.Helper()
	var found []string
	for _, block := range codeBlocks(readme, "") {
		for _, line := range strings.Split(block, "\n") {
			if strings.Contains(line, "sync --config config.example.yaml") {
				found = append(found, line)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("README.md has %d command lines with \"sync --config config.example.yaml\" in a code block, want 1: %q", len(found), found)
	}
	line := found[0]
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	_, rest, ok := strings.Cut(line, "fondue-neo4j ")
	if !ok || strings.ContainsAny(rest, `"'$\|;&<>`+"`") {
		t.Fatalf("README.md's sync command %q: want \"[go run ./cmd/]fondue-neo4j sync ...\" with plain arguments", found[0])
	}
	args := strings.Fields(rest)
	if args[0] != "sync" {
		t.Fatalf("README.md's sync command %q", found[0])
	}
	return args
}

// loadSeed runs docker/seed.cypher, statement by statement, as the
// container's health check does with cypher-shell.
func loadSeed(t *testing.T) {
	t.Helper()
	stmts, _ := cypherStatements(readRepoFile(t, "docker/seed.cypher"))
	if len(stmts) == 0 {
		t.Fatal("docker/seed.cypher has no statement")
	}
	for _, s := range stmts {
		cypher(t, s, nil)
	}
}

// TestReadmeNeo4jPath: a user with the docker-compose.yml demo: the seed
// loaded twice (it is idempotent), the README's sync command as it is, run
// from the repository root with the URI and password in the environment;
// then a later run of part of the graph that splits its top nodes, and
// every query of the README and of docs/ (docs/neo4j.md, "Using the
// scores") on the result, each
// checked against what its comment says it returns; then the undo of the
// split.
//
// So that the queries have something to leave out, the demo graph gets
// three characters without relationships (isolated: a run writes its id on
// them, but no score), and the later run scores only the characters
// labelled Later (ids 40 and up, one isolated one among them): the other
// characters keep the first run's scores.
func TestReadmeNeo4jPath(t *testing.T) {
	reset(t)
	loadSeed(t)
	loadSeed(t)
	var nodes, rels, named int64
	for _, r := range cypher(t, "MATCH (c:Character) RETURN count(c), count(c.name), COUNT { ()-[:APPEARS_WITH]->() }", nil) {
		nodes, named, rels = r.Values[0].(int64), r.Values[1].(int64), r.Values[2].(int64)
	}
	if nodes != 77 || rels != 254 || named != 77 {
		t.Fatalf("demo graph: %d characters (%d named), %d relationships: want 77 (77), 254", nodes, named, rels)
	}
	cypher(t, "UNWIND [100, 101, 102] AS i CREATE (:Character {id: i, name: 'Loner ' + toString(i)})", nil)

	readme := readRepoFile(t, "README.md")
	args := readmeSyncArgs(t, readme)
	if !slices.Contains(args, "json") {
		t.Fatalf("README.md's sync command %q no longer prints the JSON summary (--output json): update this test", args)
	}
	env := map[string]string{"FONDUE_NEO4J_URI": srv.BoltURL(), "FONDUE_NEO4J_PASSWORD": srv.Password()}
	first := readmeSync(t, env, args...)
	if first.NodeCount != 80 || first.RelationshipCount != 254 || first.NodePropertiesWritten != 3*77 || first.UnscoredNodes != 3 || first.Neo4jVersion != srv.ServerVersion() {
		t.Fatalf("README sync: summary %+v", first)
	}
	if sc := first.Scored; sc == nil || sc.Nodes != 77 || !slices.Equal(sc.labelCounts(), []string{"Character 77/3"}) || len(sc.Top) != 10 || sc.Top[0].Ambiguity != 1 {
		t.Fatalf("README sync: scored %+v, want 77 characters scored, 3 not, and the 10 most ambiguous", sc)
	}

	// The later run, of the characters labelled Later, by name; it splits
	// its 3 most ambiguous nodes. The demo's :Character(id) is uniquely
	// constrained, so, as the README says, it must not be copied to the
	// new nodes (split.skip_properties). Its default run id must be later
	// than the first's: they name the second they start in.
	cypher(t, "MATCH (c:Character) WHERE c.id >= 40 AND c.id <= 100 SET c:Later", nil)
	started, err := time.Parse("20060102T150405Z", first.RunID[:min(16, len(first.RunID))])
	if err != nil {
		t.Fatalf("first run id %q: %v", first.RunID, err)
	}
	time.Sleep(time.Until(started.Add(time.Second)))
	later := readmeSync(t, env, append(slices.Clone(args), "--node-labels", "Later", "--display-property", "name",
		"--split", "--split-top", "3", "--skip-properties", "id")...)
	sc := later.Scored
	if later.RunID <= first.RunID || later.Split == nil || later.Split.Split != 3 || sc == nil || sc.Nodes != later.NodeCount-later.UnscoredNodes || later.UnscoredNodes < 2 {
		t.Fatalf("later run (after %s): summary %+v, scored %+v", first.RunID, later, sc)
	}
	counts := fmt.Sprintf("%d/%d", sc.Nodes, later.UnscoredNodes)
	if !slices.Equal(sc.labelCounts(), []string{"Character " + counts, "Later " + counts}) || len(sc.Top) != 10 || sc.Top[0].Name == "" {
		t.Fatalf("later run: scored %+v, want %s of Character and Later, the 10 most ambiguous named", sc, counts)
	}

	if len(codeBlocks(readme, "cypher")) == 0 {
		t.Fatal("README.md has no ```cypher block")
	}
	blocks := codeBlocks(readme, "cypher")
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		blocks = append(blocks, codeBlocks(readRepoFile(t, filepath.Join("docs", filepath.Base(p))), "cypher")...)
	}
	stmts, comments := cypherStatements(strings.Join(blocks, "\n"))
	params := map[string]any{"run": later.RunID}
	checked := map[string]bool{}
	for k, q := range stmts {
		title := comments[k]
		t.Logf("documented query %q", title)
		check, ok := readmeQueryChecks[readmeQueryKind(title)]
		if !ok {
			t.Errorf("documented query %q has no check here: add one to readmeQueryChecks", title)
			continue
		}
		t.Run(readmeQueryKind(title), func(t *testing.T) {
			check(t, &readmeRun{first: first, later: later, query: q}, cypher(t, q, params))
		})
		checked[readmeQueryKind(title)] = true
	}
	for kind := range readmeQueryChecks {
		if !checked[kind] {
			t.Errorf("neither README.md nor docs/ has the %q query any more", kind)
		}
	}
	if t.Failed() {
		return
	}
	// And the README's undo of that split restores the demo graph.
	if code, _, stderr := runCLIIn(t, repoRoot, env, "", "undo", "--config", "config.example.yaml", "--run-id", later.RunID); code != 0 {
		t.Fatalf("undo: exit %d:\n%s", code, stderr)
	}
	if n := cypher(t, "MATCH (c:Character) RETURN count(c), COUNT { ()-[:APPEARS_WITH]->() }", nil)[0].Values; n[0] != int64(80) || n[1] != int64(254) {
		t.Fatalf("after undo: %v characters and relationships, want 80 and 254", n)
	}
}

// readmeSync runs "fondue-neo4j args..." from the repository root and
// returns its JSON summary.
func readmeSync(t *testing.T, env map[string]string, args ...string) *syncSummary {
	t.Helper()
	t.Logf("fondue-neo4j %s (in %s)", strings.Join(args, " "), repoRoot)
	code, out, stderr := runCLIIn(t, repoRoot, env, "", args...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	var sum syncSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("summary %v:\n%s", err, out)
	}
	return &sum
}

// readmeRun is what the README's queries run on: the first run (the
// README's command: every node) and the later one (the characters
// labelled Later, 3 of them split).
type readmeRun struct {
	first, later *syncSummary
	query        string
}

// readmeQueryKind names a README query by its comment.
func readmeQueryKind(title string) string {
	for _, k := range []struct{ kind, words string }{
		{"top", "most ambiguous nodes"},
		{"review", "review queue"},
		{"runs", "scores of each run"},
		{"split", "created by a split"},
		{"index", "index"},
		{"duplicates", "duplicate pairs"},
	} {
		if strings.Contains(strings.ToLower(title), k.words) {
			return k.kind
		}
	}
	return title
}

func get[T any](t *testing.T, r *neo4j.Record, key string) T {
	t.Helper()
	v, ok := r.Get(key)
	if !ok {
		t.Fatalf("no column %q in %v", key, r.Keys)
	}
	x, ok := v.(T)
	if !ok {
		t.Fatalf("column %q is %T (%v), want %T", key, v, v, x)
	}
	return x
}

// scoredBy returns the ambiguity of every node that the run of selection
// label scored, by name (its nodes with a score, but split clones).
func scoredBy(t *testing.T, label string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, r := range cypher(t, "MATCH (n) WHERE $label IN labels(n) AND n.ambiguity IS NOT NULL AND NOT n:FondueSplit RETURN n.name, n.ambiguity", map[string]any{"label": label}) {
		out[r.Values[0].(string)] = r.Values[1].(float64)
	}
	return out
}

// readmeQueryChecks check the rows of each README query against what its
// comment says.
var readmeQueryChecks = map[string]func(t *testing.T, run *readmeRun, recs []*neo4j.Record){
	// The 20 most ambiguous nodes of the last run: nodes that the later
	// run scored (none of the first run's scores, no isolated node), the
	// 20 highest of its ambiguities, from 1 down, those of the run's
	// summary first; with their labels, score and degree.
	"top": func(t *testing.T, run *readmeRun, recs []*neo4j.Record) {
		scored := scoredBy(t, "Later")
		if len(scored) != run.later.Scored.Nodes {
			t.Fatalf("%d nodes of the later run have a score; its summary says %d", len(scored), run.later.Scored.Nodes)
		}
		want := slices.Sorted(maps.Values(scored))
		slices.Reverse(want)
		if len(recs) != 20 {
			t.Fatalf("%d rows, want 20", len(recs))
		}
		for k, r := range recs {
			name, amb := get[string](t, r, "name"), get[float64](t, r, "ambiguity")
			if a, ok := scored[name]; !ok || a != amb {
				t.Fatalf("row %d: %s (ambiguity %v) was not scored by the last run, %s", k, name, amb, run.later.RunID)
			}
			if amb != want[k] {
				t.Fatalf("row %d: %s, ambiguity %v; the last run's %d-th highest is %v", k, name, amb, k+1, want[k])
			}
			labels := get[[]any](t, r, "labels")
			degree := cypher(t, "MATCH (n:Character {name: $name}) WHERE NOT n:FondueSplit RETURN COUNT { (n)--() }", map[string]any{"name": name})[0].Values[0]
			if get[int64](t, r, "degree") != degree || !slices.Contains(labels, any("Later")) || math.IsNaN(get[float64](t, r, "score")) {
				t.Fatalf("row %d: %v (degree %v)", k, r.AsMap(), degree)
			}
		}
		for k, n := range run.later.Scored.Top {
			if scored[n.Name] != n.Ambiguity || n.Ambiguity != want[k] {
				t.Fatalf("the summary's most ambiguous node %d, %s at %v, is not the query's", k, n.Name, n.Ambiguity)
			}
		}
	},
	// The review queue: every node above 0.99 (in the run that scored it)
	// but the split ones, most ambiguous first.
	"review": func(t *testing.T, run *readmeRun, recs []*neo4j.Record) {
		var want, splitTop []string
		for _, r := range cypher(t, "MATCH (c) WHERE c.ambiguity > 0.99 RETURN c.name, c.fondue_split_runs IS NULL", nil) {
			if r.Values[1] == true {
				want = append(want, r.Values[0].(string))
			} else {
				splitTop = append(splitTop, r.Values[0].(string))
			}
		}
		if len(splitTop) == 0 {
			t.Fatal("no split character above 0.99: the check of \"not yet split\" checks nothing")
		}
		var got []string
		prev := 2.0
		for _, r := range recs {
			if amb := r.Values[1].(float64); amb > prev {
				t.Fatalf("not most ambiguous first: %v", recs)
			} else {
				prev = amb
			}
			got = append(got, r.Values[0].(string))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("review queue %q, want %q (split: %q)", got, want, splitTop)
		}
	},
	// Each run with the number of nodes holding its scores: the later
	// run's scored nodes (not its isolated ones), then the first run's
	// that the later one did not score again.
	"runs": func(t *testing.T, run *readmeRun, recs []*neo4j.Record) {
		firstOnly := cypher(t, "MATCH (c:Character) WHERE NOT c:Later AND c.id < 100 RETURN count(c)", nil)[0].Values[0].(int64)
		want := fmt.Sprintf("[%s %d] [%s %d]", run.later.RunID, run.later.Scored.Nodes, run.first.RunID, firstOnly)
		var got []string
		for _, r := range recs {
			got = append(got, fmt.Sprintf("[%s %d]", get[string](t, r, "run"), get[int64](t, r, "nodes")))
		}
		if strings.Join(got, " ") != want {
			t.Fatalf("%s, want %s", strings.Join(got, " "), want)
		}
	},
	// Each clone of the later run's split, next to its named original:
	// the nodes the run split.
	"split": func(t *testing.T, run *readmeRun, recs []*neo4j.Record) {
		clones := cypher(t, "MATCH (c:FondueSplit {fondue_split_run: $run}) RETURN count(c)", map[string]any{"run": run.later.RunID})[0].Values[0].(int64)
		if clones < 3 || int64(len(recs)) != clones {
			t.Fatalf("%d rows for %d clones, want one per clone (at least 3)", len(recs), clones)
		}
		var originals, want []string
		for _, r := range recs {
			if get[string](t, r, "original") == "" || get[int64](t, r, "part") < 1 || get[int64](t, r, "relationships") < 1 {
				t.Fatalf("row %v", r.AsMap())
			}
			if o := get[string](t, r, "original"); !slices.Contains(originals, o) {
				originals = append(originals, o)
			}
		}
		for _, n := range run.later.Split.Nodes {
			want = append(want, n.Name)
		}
		slices.Sort(originals)
		slices.Sort(want)
		if !slices.Equal(originals, want) {
			t.Fatalf("originals %q, want the split nodes %q", originals, want)
		}
	},
	// The index exists afterwards (and the statement can run again).
	// The duplicate pairs of probability above .9 (docs/duplicates.md),
	// best first: of three FONDUE_DUPLICATE relationships made here
	// between characters, the two above .9, the higher score first, with
	// their names and reasons; removed again after.
	"duplicates": func(t *testing.T, run *readmeRun, recs []*neo4j.Record) {
		if len(recs) != 0 {
			t.Fatalf("%d pairs before any sync --duplicates", len(recs))
		}
		cypher(t, `UNWIND [['Valjean', 'Javert', 5.0, .99], ['Marius', 'Cosette', 9.0, .9999], ['Fantine', 'Myriel', 1.0, .73]] AS p
			MATCH (a:Character {name: p[0]}), (b:Character {name: p[1]}) WHERE NOT a:FondueSplit AND NOT b:FondueSplit
			CREATE (a)-[:FONDUE_DUPLICATE {score: p[2], probability: p[3], reasons: ['same venue'], fondue_run: 'readme'}]->(b)`, nil)
		defer cypher(t, "MATCH ()-[d:FONDUE_DUPLICATE]->() DELETE d", nil)
		var got []string
		for _, r := range cypher(t, run.query, nil) {
			got = append(got, fmt.Sprintf("%s-%s %v %v", get[string](t, r, "a"), get[string](t, r, "b"), get[float64](t, r, "score"), get[[]any](t, r, "reasons")))
		}
		if want := []string{"Marius-Cosette 9 [same venue]", "Valjean-Javert 5 [same venue]"}; !slices.Equal(got, want) {
			t.Fatalf("pairs %q, want %q", got, want)
		}
	},
	"index": func(t *testing.T, run *readmeRun, recs []*neo4j.Record) {
		cypher(t, run.query, nil)
		name := strings.Fields(strings.SplitN(run.query, "INDEX", 2)[1])[0]
		if n := len(cypher(t, "SHOW INDEXES YIELD name WHERE name = $name RETURN name", map[string]any{"name": name})); n != 1 {
			t.Fatalf("index %s: %d found", name, n)
		}
	},
}

// docker-compose.yml runs the Neo4j patch release the tests run.
func TestComposeImageIsTested(t *testing.T) {
	var c struct {
		Services map[string]struct {
			Image string `yaml:"image"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(readRepoFile(t, "docker-compose.yml")), &c); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("neo4j:%s-community", neo4jtest.LTS.Neo4j)
	if got := c.Services["neo4j"].Image; got != want {
		t.Fatalf("docker-compose.yml runs %q; the tests run %s: want %q", got, neo4jtest.LTS, want)
	}
}
