package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

const kgTestdata = "../../testdata/kg/"

// kgArgs are the flags that read testdata/kg.
func kgArgs() []string {
	var args []string
	for _, f := range []string{"authors", "papers", "venues", "keywords"} {
		args = append(args, "--nodes", kgTestdata+f+".csv")
	}
	for _, f := range []string{"wrote", "published_in", "has_keyword"} {
		args = append(args, "--relationships", kgTestdata+f+".csv")
	}
	return args
}

// realKG is the folder of the real knowledge graph of issue 31.
func realKG() string {
	dir := "/work/shared/datasets"
	if env := os.Getenv("BENCH_DATASETS"); env != "" {
		dir = env
	}
	return filepath.Join(dir, "real", "dblp679-kg")
}

// score --nodes ... --score-labels Author: only authors, by their :ID, with
// their name; the same scores with the files given comma-separated.
func TestScoreImportFiles(t *testing.T) {
	args := append([]string{"score"}, kgArgs()...)
	args = append(args, "--score-labels", "Author", "--evidence-properties", "title,year", "--split", "--print-header")
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 7 || lines[0] != "node\tname\tambiguity\tdegree\tscore\tentities\tsplit" {
		t.Fatalf("output:\n%s", out)
	}
	names := map[string]string{"a:1": "j. smith", "a:2": "m. garcia", "a:3": "l. chen", "a:4": "k. novak", "a:5": "r. okafor", "a:6": "s. ito"}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if names[f[0]] != f[1] {
			t.Errorf("line %q: want an author by :ID and name", l)
		}
	}
	// j. smith's papers are of two persons (column stores, proteins): no
	// group mixes them, and the entity estimate says at least 2.
	f := strings.Split(lines[1], "\t")
	if e, err := strconv.Atoi(f[5]); f[0] != "a:1" || err != nil || e < 2 || !strings.Contains(f[6], "Fast joins on compressed column stores") {
		t.Errorf("most ambiguous: %q", lines[1])
	}
	for _, grp := range strings.Split(f[6], "|") {
		if strings.Contains(grp, "column") && (strings.Contains(grp, "rotein") || strings.Contains(grp, "olding")) {
			t.Errorf("a group mixes column stores and proteins: %q", grp)
		}
	}
	comma := []string{"score", "--nodes", kgTestdata + "authors.csv," + kgTestdata + "papers.csv," + kgTestdata + "venues.csv," + kgTestdata + "keywords.csv",
		"--relationships", kgTestdata + "wrote.csv," + kgTestdata + "published_in.csv," + kgTestdata + "has_keyword.csv",
		"--score-labels", "Author", "--evidence-properties", "title,year", "--split", "--print-header"}
	if code, out2, stderr := runCLI(t, "", comma...); code != 0 || out2 != out {
		t.Errorf("comma-separated files: exit %d, %s\n%s", code, stderr, out2)
	}
	// JSON: ids as the files spell them; no reasons without them.
	code, out, stderr = runCLI(t, "", append(args[:len(args)-1], "--output", "json", "--top", "1")...)
	var rows []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 || rows[0]["node"] != "a:1" || rows[0]["name"] != "j. smith" {
		t.Fatalf("json: exit %d, %s %s", code, out, stderr)
	}
	// Without --score-labels every node is scored: venues and keywords too.
	code, out, _ = runCLI(t, "", append([]string{"score"}, kgArgs()...)...)
	if code != 0 || strings.Count(out, "\n") != 19 || !strings.Contains(out, "v:1\tVery Large Data Bases\t") {
		t.Errorf("all nodes: exit %d\n%s", code, out)
	}
}

// Bad input: one line, file:line: what is wrong, exit code 2; nothing to
// score, exit code 5.
func TestScoreImportFilesErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	people := write("people.csv", "pid:ID(P),name,year:int,:LABEL\n1,Ann,1999,Person\n2,Bob,,Person\n3,Cy,2001,Person\n")
	badRel := write("bad.csv", ":START_ID(P),:END_ID(P),:TYPE\n1,2,KNOWS\n2,9,KNOWS\n")
	badYear := write("badyear.csv", "pid:ID(Q),year:int\nq,soon\n")
	loops := write("loops.csv", ":START_ID(P),:END_ID(P),:TYPE\n1,1,KNOWS\n")
	knows := write("knows.csv", ":START_ID(P),:END_ID(P),:TYPE\n1,2,KNOWS\n")
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--nodes", people, "--relationships", badRel}, 2, badRel + `:3: :END_ID "9" is not a node of ID space P`},
		{[]string{"--nodes", people, "--nodes", badYear, "--relationships", knows, "--evidence-properties", "year"}, 2,
			badYear + `:2: year: "soon" is not a whole number (column year:int)`},
		{[]string{"--nodes", people, "--relationships", knows, "--evidence-properties", "venue"}, 2,
			`--evidence-properties: no node file has a property "venue" (node files: ` + people + ")"},
		{[]string{"--nodes", people, "--relationships", knows, "--score-labels", "Author"}, 2,
			`--score-labels: no node has the label "Author" (labels in the node files: Person)`},
		{[]string{lesmis, "--nodes", people}, 2, "give an edge list (" + lesmis + ") or --nodes and --relationships files, not both"},
		{[]string{"--relationships", knows}, 2, "--relationships needs the node files too"},
		{[]string{lesmis, "--score-labels", "Person"}, 2, "an edge list has no labels"},
		{[]string{"--nodes", people, "--relationships", knows, "--score-prefix", "1"}, 2, "with --nodes, choose them by label"},
		{[]string{"--nodes", people, "--relationships", filepath.Join(dir, "none.csv")}, 2, filepath.Join(dir, "none.csv") + ": cannot be read: no such file"},
		{[]string{"--nodes", people, "--relationships", loops}, 5, "nothing to score"},
		{[]string{"--nodes", people}, 5, "nothing to score"},
	}
	for _, c := range cases {
		for _, cmd := range []string{"score", "review"} {
			args := append([]string{cmd}, c.args...)
			if cmd == "review" {
				args = append(args, "--output-file", filepath.Join(dir, "r.html"))
			}
			code, _, stderr := runCLI(t, "", args...)
			if code != c.code || stderr != "fondue-neo4j: "+c.msg+"\n" && !strings.Contains(stderr, c.msg) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 && c.code == 2 {
				t.Errorf("%v: exit %d, %q; want %d, %q", args, code, stderr, c.code, c.msg)
			}
		}
	}
}

// review --nodes writes the page of the top authors, named by their names.
func TestReviewImportFiles(t *testing.T) {
	page := filepath.Join(t.TempDir(), "kg.html")
	args := append([]string{"review"}, kgArgs()...)
	args = append(args, "--score-labels", "Author", "--evidence-properties", "title,year", "--top", "2", "--output-file", page)
	code, _, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<script type="application/json" id="fondue-data">(.*)</script>`).FindSubmatch(data)
	var doc struct {
		Input string `json:"input"`
		Nodes []struct {
			Name string `json:"name"`
			NB   []struct {
				N string `json:"n"`
			} `json:"nb"`
		} `json:"nodes"`
	}
	if m == nil || json.Unmarshal(m[1], &doc) != nil || len(doc.Nodes) != 2 || doc.Nodes[0].Name != "j. smith" || len(doc.Nodes[0].NB) != 6 ||
		!strings.HasPrefix(doc.Input, kgTestdata+"authors.csv, ") {
		t.Fatalf("page data %s", m[1])
	}
	if !slices.ContainsFunc(doc.Nodes[0].NB, func(nb struct {
		N string `json:"n"`
	}) bool {
		return nb.N == "Indexing compressed columns"
	}) {
		t.Errorf("neighbours not named by title: %+v", doc.Nodes[0].NB)
	}
}

// docs/knowledge-graphs.md: every flag it names is a flag of score or
// review, and its commands run as documented (the real set's in its folder).
func TestKnowledgeGraphDocCommands(t *testing.T) {
	data, err := os.ReadFile("../../docs/knowledge-graphs.md")
	if err != nil {
		t.Fatal(err)
	}
	root := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}).rootCmd()
	var cmds []*cobra.Command
	for _, name := range []string{"score", "review", "sync"} {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, m := range regexp.MustCompile("(?:^|[\\s`(\\[])--([a-z][a-z0-9-]*)").FindAllStringSubmatch(string(data), -1) {
		if !slices.ContainsFunc(cmds, func(c *cobra.Command) bool { return c.Flags().Lookup(m[1]) != nil }) {
			t.Errorf("docs/knowledge-graphs.md names --%s, which score, review and sync do not have", m[1])
		}
	}
	ran := 0
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "fondue-neo4j score ") && !strings.HasPrefix(line, "fondue-neo4j review ") || strings.Contains(line, " --plan ") {
			continue // sync, and so a dry run's plan, needs a server: the live tests run it
		}
		args := strings.Fields(strings.TrimPrefix(line, "fondue-neo4j "))
		real := !strings.Contains(line, "testdata/")
		for k, a := range args {
			switch {
			case real && (strings.HasSuffix(a, ".csv") || strings.HasSuffix(a, ".edges")):
				args[k] = filepath.Join(realKG(), a)
			case strings.Contains(a, "testdata/"):
				args[k] = strings.ReplaceAll(a, "testdata/", "../../testdata/")
			case strings.HasSuffix(a, ".html"):
				args[k] = filepath.Join(t.TempDir(), a)
			}
		}
		code, out, stderr := runCLI(t, "", args...)
		want := 20
		if !real {
			want = 3
		}
		if code != 0 || args[0] == "score" && strings.Count(out, "\n") != want {
			t.Errorf("%s: exit %d, %d lines; %s", line, code, strings.Count(out, "\n"), stderr)
		}
		ran++
	}
	if ran != 4 {
		t.Errorf("%d documented commands ran, want 4", ran)
	}
}

// review --plan with --nodes: the import files name the plan's nodes (and
// give its links); the plan's reasons are on the page.
func TestReviewPlanWithImportFiles(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "dry.json")
	const dry = `{"plan":{"runId":"r1","splitter":"ncut","idProperty":"uid","nodes":[{"id":"4:db:1","key":"a:1","ambiguity":1,"score":2,"groups":[` +
		`{"neighbors":["p:1","p:2"],"neighborIds":["4:db:11","4:db:12"],"reasons":[{"kind":"Venue","value":"Very Large Data Bases","weight":1.5}]},` +
		`{"neighbors":["p:4"],"neighborIds":["4:db:14"]}]}]}}`
	if err := os.WriteFile(plan, []byte(dry), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "plan.html")
	code, _, stderr := runCLI(t, "", append(append([]string{"review", "--plan", plan}, kgArgs()...), "--output-file", page)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"j. smith"`, `"n":"Fast joins on compressed column stores"`, `"reasons":[[{"k":"Venue","v":"Very Large Data Bases","w":1.5}],[]]`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("page without %s", want)
		}
	}
	// An edge list and --nodes: one or the other.
	code, _, stderr = runCLI(t, "", append(append([]string{"review", lesmis, "--plan", plan}, kgArgs()...), "--output-file", page)...)
	if code != 2 || !strings.Contains(stderr, "not both") {
		t.Errorf("edge list and --nodes with --plan: exit %d, %s", code, stderr)
	}
}

// On the real knowledge graph, nodes whose split the group cap bounds
// (a:7673, a:4292 in its top 50) keep one list of reasons per group:
// score --split prints them so, and review takes them.
func TestRealKGReasonsPerGroup(t *testing.T) {
	dir := realKG()
	var args []string
	for _, f := range []string{"authors", "papers", "venues", "keywords"} {
		args = append(args, "--nodes", filepath.Join(dir, f+".csv"))
	}
	for _, f := range []string{"wrote", "published_in", "has_keyword"} {
		args = append(args, "--relationships", filepath.Join(dir, f+".csv"))
	}
	args = append(args, "--score-labels", "Author", "--evidence-properties", "title", "--top", "50")
	code, out, stderr := runCLI(t, "", append([]string{"score", "--split", "--output", "json"}, args...)...)
	var rows []struct {
		Node    string     `json:"node"`
		Split   [][]string `json:"split"`
		Reasons [][]any    `json:"reasons"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 50 {
		t.Fatalf("score: exit %d, %s", code, stderr)
	}
	capped := 0
	for _, r := range rows {
		if len(r.Reasons) != len(r.Split) {
			t.Errorf("%s: reasons for %d groups, %d groups", r.Node, len(r.Reasons), len(r.Split))
		}
		if len(r.Split) == 12 { // GroupCap of an estimate of 4
			capped++
		}
	}
	if capped == 0 {
		t.Errorf("no node of the top 50 has a capped split: the test no longer checks the cap")
	}
	page := filepath.Join(t.TempDir(), "kg.html")
	if code, _, stderr := runCLI(t, "", append([]string{"review", "--output-file", page}, args...)...); code != 0 {
		t.Errorf("review: exit %d, %s", code, stderr)
	}
}
