package neo4jtests

// The README's Neo4j path, end to end: the demo graph of docker/seed.cypher,
// the README's sync command line, the README's example queries.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/neo4jtest"
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
// from the repository root with the URI and password in the environment,
// then every example query of the README on the result, and a split (the
// README's split query needs one) and its undo.
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

	readme := readRepoFile(t, "README.md")
	args := readmeSyncArgs(t, readme)
	env := map[string]string{"FONDUE_NEO4J_URI": srv.BoltURL(), "FONDUE_NEO4J_PASSWORD": srv.Password()}
	t.Logf("fondue-neo4j %s (in %s)", strings.Join(args, " "), repoRoot)
	code, out, stderr := runCLIIn(t, repoRoot, env, "", args...)
	if code != 0 {
		t.Fatalf("README sync: exit %d:\n%s", code, stderr)
	}
	runID := ""
	if slices.Contains(args, "json") {
		var sum syncSummary
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatalf("README sync: summary %v:\n%s", err, out)
		}
		if sum.NodeCount != 77 || sum.RelationshipCount != 254 || sum.NodePropertiesWritten != 2*77 || sum.Neo4jVersion != srv.ServerVersion() {
			t.Fatalf("README sync: summary %+v", sum)
		}
		runID = sum.RunID
	}
	if runID == "" {
		runID = cypher(t, "MATCH (c:Character) RETURN c.fondue_run LIMIT 1", nil)[0].Values[0].(string)
	}

	// A split, for the README's query on split nodes (run before it). The
	// demo's :Character(id) is uniquely constrained, so, as the README says,
	// it must not be copied to the new nodes (split.skip_properties).
	const splitRun = "readme-split"
	splitArgs := append(slices.Clone(args), "--split", "--split-top", "3", "--run-id", splitRun, "--skip-properties", "id")

	stmts, comments := cypherStatements(strings.Join(codeBlocks(readme, "cypher"), "\n"))
	if len(stmts) == 0 {
		t.Fatal("README.md has no ```cypher block")
	}
	params := map[string]any{"run": splitRun}
	checked := map[string]bool{}
	for k, q := range stmts {
		title := comments[k]
		t.Logf("README query %q", title)
		check, ok := readmeQueryChecks[readmeQueryKind(title)]
		if !ok {
			t.Errorf("README query %q has no check here: add one to readmeQueryChecks", title)
			continue
		}
		if readmeQueryKind(title) == "split" {
			if code, _, stderr := runCLIIn(t, repoRoot, env, "", splitArgs...); code != 0 {
				t.Fatalf("split: exit %d:\n%s", code, stderr)
			}
		}
		recs := cypher(t, q, params)
		check(t, &readmeRun{runID: runID, splitRun: splitRun, query: q}, recs)
		checked[readmeQueryKind(title)] = true
	}
	for kind := range readmeQueryChecks {
		if !checked[kind] {
			t.Errorf("README.md no longer has the %q query", kind)
		}
	}
	if t.Failed() {
		return
	}
	// And the README's undo of that split restores the demo graph.
	if code, _, stderr := runCLIIn(t, repoRoot, env, "", "undo", "--config", "config.example.yaml", "--run-id", splitRun); code != 0 {
		t.Fatalf("undo: exit %d:\n%s", code, stderr)
	}
	if n := cypher(t, "MATCH (c:Character) RETURN count(c), COUNT { ()-[:APPEARS_WITH]->() }", nil)[0].Values; n[0] != int64(77) || n[1] != int64(254) {
		t.Fatalf("after undo: %v characters and relationships, want 77 and 254", n)
	}
}

type readmeRun struct {
	runID, splitRun, query string
}

// readmeQueryKind names a README query by its comment.
func readmeQueryKind(title string) string {
	for _, k := range []struct{ kind, words string }{
		{"top", "most ambiguous nodes"},
		{"review", "review queue"},
		{"runs", "each run scored"},
		{"split", "created by a split"},
		{"index", "index"},
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

// readmeQueryChecks check the rows of each README query on the demo graph.
var readmeQueryChecks = map[string]func(t *testing.T, run *readmeRun, recs []*neo4j.Record){
	// The 20 most ambiguous nodes: 20 named characters, ambiguity in (0, 1]
	// and descending from 1, a score and a degree; Valjean, the hub, among
	// them.
	"top": func(t *testing.T, run *readmeRun, recs []*neo4j.Record) {
		if len(recs) != 20 {
			t.Fatalf("%d rows, want 20", len(recs))
		}
		prev, names := 2.0, []string{}
		for k, r := range recs {
			amb := get[float64](t, r, "ambiguity")
			get[float64](t, r, "score")
			name := get[string](t, r, "name")
			labels := get[[]any](t, r, "labels")
			if amb <= 0 || amb > 1 || amb > prev || (k == 0 && amb != 1) || get[int64](t, r, "degree") < 1 || !slices.Contains(labels, any("Character")) {
				t.Fatalf("row %d: %v", k, r.AsMap())
			}
			prev = amb
			names = append(names, name)
		}
		if !slices.Contains(names, "Valjean") {
			t.Errorf("Valjean is not among the 20 most ambiguous characters: %v", names)
		}
	},
	// The review queue is written for :Author: nothing on the demo graph.
	// With the demo's label it lists the top 1%: the one node at 1.
	"review": func(t *testing.T, run *readmeRun, recs []*neo4j.Record) {
		if len(recs) != 0 {
			t.Fatalf("%d rows on a graph without :Author", len(recs))
		}
		if !strings.Contains(run.query, ":Author") {
			t.Fatalf("the review query no longer reads :Author: update this check\n%s", run.query)
		}
		recs = cypher(t, strings.ReplaceAll(run.query, ":Author", ":Character"), nil)
		if len(recs) != 1 || recs[0].Values[1] != 1.0 || recs[0].Values[0] == nil {
			t.Fatalf("review queue of the demo graph: %v, want one named character at 1", recs)
		}
	},
	// One run, every character.
	"runs": func(t *testing.T, run *readmeRun, recs []*neo4j.Record) {
		if len(recs) != 1 || get[string](t, recs[0], "run") != run.runID || get[int64](t, recs[0], "nodes") != 77 {
			t.Fatalf("%v, want run %s with 77 nodes", recs, run.runID)
		}
	},
	// Each clone of the split, next to its named original.
	"split": func(t *testing.T, run *readmeRun, recs []*neo4j.Record) {
		clones := cypher(t, "MATCH (c:FondueSplit {fondue_split_run: $run}) RETURN count(c)", map[string]any{"run": run.splitRun})[0].Values[0].(int64)
		if clones < 3 || int64(len(recs)) != clones {
			t.Fatalf("%d rows for %d clones, want one per clone (at least 3)", len(recs), clones)
		}
		for _, r := range recs {
			if get[string](t, r, "original") == "" || get[int64](t, r, "part") < 1 || get[int64](t, r, "relationships") < 1 {
				t.Fatalf("row %v", r.AsMap())
			}
		}
	},
	// The index exists afterwards (and the statement can run again).
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
