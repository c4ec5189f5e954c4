package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// reviewData is what a review page carries, as far as these tests read it.
type reviewData struct {
	Source     string `json:"source"`
	Input      string `json:"input"`
	Splitter   string `json:"splitter"`
	LinksKnown bool   `json:"linksKnown"`
	Plan       struct {
		RunID      string `json:"runId"`
		IDProperty string `json:"idProperty"`
	} `json:"plan"`
	Nodes []struct {
		KeyJSON   string  `json:"kj"`
		IDJSON    string  `json:"ij"`
		Name      string  `json:"name"`
		Ambiguity float64 `json:"ambiguity"`
		Entities  int     `json:"entities"`
		Groups    [][]int `json:"groups"`
		Links     []int   `json:"links"`
		Neighbors []struct {
			KeyJSON string `json:"kj"`
			IDJSON  string `json:"ij"`
			Name    string `json:"n"`
		} `json:"nb"`
	} `json:"nodes"`
}

func readReviewPage(t *testing.T, path string) reviewData {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	const open = `<script type="application/json" id="fondue-data">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatalf("%s: no data", path)
	}
	j := strings.Index(page[i:], "</script>")
	var d reviewData
	if err := json.Unmarshal([]byte(page[i+len(open):i+j]), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// review proposes the groups score proposes, for the same nodes.
func TestReviewEdgeList(t *testing.T) {
	out := filepath.Join(t.TempDir(), "lesmis.html")
	code, stdout, stderr := runCLI(t, "", "review", lesmis, "--names", lesmisNames, "--top", "5", "--output-file", out, "--seed", "3")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "wrote the review page") {
		t.Fatalf("exit %d: %q %s", code, stdout, stderr)
	}
	d := readReviewPage(t, out)
	if d.Source != "edgelist" || d.Input != lesmis || d.Splitter != "ncut" || !d.LinksKnown || len(d.Nodes) != 5 || d.Nodes[0].Name != "Valjean" {
		t.Fatalf("page data: %+v", d)
	}
	_, js, _ := runCLI(t, "", "score", lesmis, "--names", lesmisNames, "--top", "5", "--split", "--output", "json", "--seed", "3")
	var rows []struct {
		Node       int64      `json:"node"`
		Name       string     `json:"name"`
		Ambiguity  float64    `json:"ambiguity"`
		Entities   int        `json:"entities"`
		SplitNames [][]string `json:"splitNames"`
	}
	if err := json.Unmarshal([]byte(js), &rows); err != nil {
		t.Fatal(err)
	}
	for k, n := range d.Nodes {
		r := rows[k]
		if n.KeyJSON != jsonNum(r.Node) || n.Name != r.Name || n.Ambiguity != r.Ambiguity || n.Entities != r.Entities || r.Entities < 1 || len(n.Groups) != len(r.SplitNames) {
			t.Fatalf("node %d: page %s %s, score %+v", k, n.KeyJSON, n.Name, r)
		}
		for g, grp := range n.Groups {
			var got []string
			for _, i := range grp {
				got = append(got, n.Neighbors[i].Name)
			}
			if strings.Join(got, ",") != strings.Join(r.SplitNames[g], ",") {
				t.Errorf("%s group %d: page %v, score %v", n.Name, g, got, r.SplitNames[g])
			}
		}
	}
	// --splitter picks the method, as in score.
	code, _, stderr = runCLI(t, "", "review", lesmis, "--top", "2", "--splitter", "mcl", "--output-file", out)
	if d := readReviewPage(t, out); code != 0 || d.Splitter != "mcl" || d.Nodes[0].Name != "11" {
		t.Errorf("--splitter mcl: exit %d, %+v %s", code, d.Splitter, stderr)
	}
}

// dryRun writes what "sync --split --dry-run" prints for a small plan.
func dryRun(t *testing.T, bare bool) string {
	t.Helper()
	plan := &splitplan.Plan{RunID: "20250101T000000Z-abc", CreatedAt: "2025-01-01T00:00:00.000Z", Splitter: "ncut",
		IDProperty: "uid", RelationshipTypes: []string{"APPEARS_WITH"}, MarkerLabel: "FondueSplit",
		Nodes: []splitplan.Node{{ID: keys.String("4:db:11"), Key: keys.Int(11), Labels: []string{"Character"}, Ambiguity: 1, Score: 36.9, Entities: 3,
			Groups: []splitplan.Group{
				{Neighbors: []keys.Key{keys.Int(26), keys.Int(55), keys.Int(49)}, NeighborIDs: []keys.Key{keys.String("4:db:26"), keys.String("4:db:55"), keys.String("4:db:49")}},
				{Neighbors: []keys.Key{keys.Int(0), keys.Int(2), keys.Int(3)}, NeighborIDs: []keys.Key{keys.String("4:db:0"), keys.String("4:db:2"), keys.String("4:db:3")}},
			}}}}
	var v any = &syncSummary{RunID: plan.RunID, NodeCount: 77, RelationshipCount: 254, DryRun: true, Plan: plan}
	if bare {
		v = plan
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "dry-run.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A Neo4j user reviews the dry run's plan with display names, and with the
// edge list for the links between neighbours.
func TestReviewPlan(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "plan.html")
	for _, bare := range []bool{false, true} {
		plan := dryRun(t, bare)
		code, _, stderr := runCLI(t, "", "review", "--plan", plan, "--names", lesmisNames, "--output-file", out, lesmis)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		d := readReviewPage(t, out)
		if d.Source != "neo4j" || d.Plan.RunID != "20250101T000000Z-abc" || d.Plan.IDProperty != "uid" || !d.LinksKnown || len(d.Nodes) != 1 {
			t.Fatalf("page data: %+v", d)
		}
		n := d.Nodes[0]
		var nbNames []string
		for _, nb := range n.Neighbors {
			nbNames = append(nbNames, nb.Name+"="+nb.KeyJSON+"/"+nb.IDJSON)
		}
		if n.Name != "Valjean" || n.KeyJSON != "11" || n.IDJSON != `"4:db:11"` || n.Entities != 3 ||
			strings.Join(nbNames, ",") != `Cosette=26/"4:db:26",Marius=55/"4:db:55",Gillenormand=49/"4:db:49",Myriel=0/"4:db:0",MlleBaptistine=2/"4:db:2",MmeMagloire=3/"4:db:3"` {
			t.Errorf("node %s %s %s: %v", n.Name, n.KeyJSON, n.IDJSON, nbNames)
		}
		// Cosette-Marius, Cosette-Gillenormand, Marius-Gillenormand, Myriel-Baptistine, Myriel-Magloire, Baptistine-Magloire.
		if len(n.Links) != 12 {
			t.Errorf("links %v, want 6 pairs", n.Links)
		}
	}
	// Without the edge list: no links, and the page says so.
	code, _, stderr := runCLI(t, "", "review", "--plan", dryRun(t, false), "--output-file", out)
	if d := readReviewPage(t, out); code != 0 || d.LinksKnown || len(d.Nodes[0].Links) != 0 || d.Nodes[0].Name != "11" {
		t.Errorf("without names and edges: exit %d %+v %s", code, d, stderr)
	}
}

func TestReviewBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := filepath.Join(dir, "out.html")
	noPlan := write("noplan.json", `{"runId": "r", "nodeCount": 3, "dryRun": true}`)
	garbage := write("garbage.json", `{"plan": [1, 2`)
	uneven := write("uneven.json", `{"plan": {"runId": "r", "nodes": [{"id": 1, "key": 1, "groups": [{"neighbors": [2, 3], "neighborIds": [2]}]}]}}`)
	twice := write("twice.json", `{"plan": {"runId": "r", "nodes": [{"id": 1, "key": 1, "groups": [{"neighbors": [2], "neighborIds": [2]}, {"neighbors": [2], "neighborIds": [2]}]}]}}`)
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"review", "--plan", twice, "--output-file", out}, "twice.json: review: node 1: neighbour 2 twice"},
		{[]string{"review"}, "needs an edge-list file (or --plan FILE)"},
		{[]string{"review", lesmis, "--top", "0", "--output-file", out}, "flag --top: review.top = 0: want a positive integer"},
		{[]string{"review", lesmis, "--output-file", ""}, "review.out = : want the HTML file to write"},
		{[]string{"review", lesmis, "--output-file", filepath.Join(dir, "no", "such", "dir.html")}, "review page " + filepath.Join(dir, "no", "such", "dir.html") + ": folder " + filepath.Join(dir, "no", "such") + " does not exist (checked before scoring)"},
		{[]string{"review", lesmis, "--output-file", dir}, "is a folder; give a file name"},
		{[]string{"review", lesmis, "--names", write("bad.names", "1\n"), "--output-file", out}, "bad.names:1"},
		{[]string{"review", "--plan", filepath.Join(dir, "missing.json"), "--output-file", out}, "missing.json: no such file"},
		{[]string{"review", "--plan", noPlan, "--output-file", out}, "has no split plan: make it with \"sync --split --split-top K --dry-run\""},
		{[]string{"review", "--plan", garbage, "--output-file", out}, "not the JSON of \"sync --dry-run\""},
		{[]string{"review", "--plan", uneven, "--output-file", out}, "group 0 has 2 neighbors and 1 neighborIds"},
		{[]string{"review", "--plan", noPlan, lesmis, lesmis}, "takes at most one edge-list file"},
		{[]string{"review", filepath.Join(dir, "nope.edges"), "--output-file", out}, "no such file"},
		{[]string{"review", lesmis, "--splitter", "kmeans", "--output-file", out}, "flag --splitter: split.method = kmeans: want one of"},
		{[]string{"review", lesmis, "--print-header", "--output-file", out}, "unknown flag: --print-header"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(t, "", c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.msg) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.msg)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") > 0 || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: want one line on stderr, got %q", c.args, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed review wrote a page")
	}
}

// review's flags have settings like score's (review.top, review.out,
// review.plan, names, header, split.method), checked as strictly; its
// failures follow the exit codes of score, each one line on stderr.
func TestReviewSettingsAndExitCodes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env.html")
	t.Setenv("FONDUE_REVIEW_TOP", "2")
	t.Setenv("FONDUE_REVIEW_OUT", out)
	t.Setenv("FONDUE_NAMES", lesmisNames)
	t.Setenv("FONDUE_SPLIT_METHOD", "mcl")
	if code, _, stderr := runCLI(t, "", "review", lesmis); code != 0 {
		t.Fatalf("review from the environment: exit %d: %s", code, stderr)
	}
	d := readReviewPage(t, out)
	if len(d.Nodes) != 2 || d.Nodes[0].Name != "Valjean" {
		t.Fatalf("FONDUE_REVIEW_TOP=2 FONDUE_NAMES: %d nodes, first %+v", len(d.Nodes), d.Nodes[0].Name)
	}
	if got, _ := os.ReadFile(out); !strings.Contains(string(got), `"splitter":"mcl"`) {
		t.Errorf("FONDUE_SPLIT_METHOD=mcl: the page's splitter is not mcl")
	}
	for _, k := range []string{"FONDUE_REVIEW_TOP", "FONDUE_REVIEW_OUT", "FONDUE_NAMES", "FONDUE_SPLIT_METHOD"} {
		os.Unsetenv(k)
	}
	// The same from a config file, and review.plan from it makes the edge
	// list optional.
	cfg := writeFile(t, dir, "fondue.yaml", "review:\n  top: 3\n  out: "+filepath.Join(dir, "cfg.html")+"\n")
	if code, _, stderr := runCLI(t, "", "review", lesmis, "--config", cfg); code != 0 || len(readReviewPage(t, filepath.Join(dir, "cfg.html")).Nodes) != 3 {
		t.Fatalf("review.top from the file: exit %d: %s", code, stderr)
	}
	loops := writeFile(t, dir, "loops.txt", "1 1\n2 2\n")
	cases := []struct {
		args []string
		env  map[string]string
		file string
		code int
		msg  string
	}{
		{[]string{"review", lesmis}, map[string]string{"FONDUE_REVIEW_TOP": "0"}, "", exitUsage, `environment variable FONDUE_REVIEW_TOP: review.top = "0": want a positive integer`},
		{[]string{"review", lesmis}, map[string]string{"FONDUE_REVIEW_TOPP": "5"}, "", exitUsage, `FONDUE_REVIEW_TOPP: not a setting of fondue-neo4j (did you mean FONDUE_REVIEW_TOP?)`},
		{[]string{"review", lesmis}, nil, "review:\n  topp: 5\n", exitUsage, `review.topp: unknown key (did you mean review.top?)`},
		{[]string{"review", lesmis}, nil, "review: 5\n", exitUsage, `review is a section of keys (top, out, plan, approved)`},
		{[]string{"review"}, map[string]string{"FONDUE_REVIEW_PLAN": filepath.Join(dir, "missing.json")}, "", exitUsage, "missing.json: no such file"},
		{[]string{"review", loops, "--output-file", filepath.Join(dir, "x.html")}, nil, "", exitEmpty, "nothing to score: its 2 edge lines are all self-loops"},
		{[]string{"review", lesmis, "--output-file", filepath.Join(dir, "x.html"), "--max-memory", "1MB"}, nil, "", exitMemory, "exceeds the limit"},
		{[]string{"review", lesmis, "--output-file", filepath.Join(dir, "x.html"), "--dim", "100"}, nil, "", exitUsage, "embedding dimension 100 is not smaller than the graph's 77 nodes"},
	}
	for _, c := range cases {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		args := c.args
		if c.file != "" {
			args = append(args, "--config", writeFile(t, dir, "c.yaml", c.file))
		}
		code, stdout, stderr := runCLI(t, "", args...)
		if code != c.code || !strings.Contains(stderr, c.msg) || stdout != "" {
			t.Errorf("%v %v %q: exit %d (want %d), stderr %q, want %q", c.args, c.env, c.file, code, c.code, stderr, c.msg)
		}
		wantOneLine(t, c.msg, stderr)
		for k := range c.env {
			os.Unsetenv(k)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.html")); err == nil {
		t.Error("a failed review wrote a page")
	}
}

// A dry run with graph.display_property carries names and the links
// between neighbours: review --plan needs neither a names file nor an edge
// list (either still wins when given).
func TestReviewPlanNamesAndLinksFromPlan(t *testing.T) {
	plan := &splitplan.Plan{RunID: "r1", Splitter: "ncut", IDProperty: "id", NodeLabels: []string{"Character"},
		RelationshipTypes: []string{"APPEARS_WITH"}, DisplayProperties: splitplan.PropertyList{"name"}, MarkerLabel: "FondueSplit", NeighborLinks: true,
		Nodes: []splitplan.Node{{ID: keys.String("4:db:11"), Key: keys.Int(11), Name: "Valjean from Neo4j", Ambiguity: 1, Score: 36.9,
			Groups: []splitplan.Group{
				{Neighbors: []keys.Key{keys.Int(26), keys.Int(55)}, NeighborIDs: []keys.Key{keys.String("4:db:26"), keys.String("4:db:55")}, Names: []string{"Cosette", "Marius"}},
				{Neighbors: []keys.Key{keys.Int(0), keys.Int(2)}, NeighborIDs: []keys.Key{keys.String("4:db:0"), keys.String("4:db:2")}, Names: []string{"Myriel", ""}},
			},
			Links: [][2]int{{0, 1}, {2, 3}}, LinksOmitted: 5}}}
	b, _ := json.Marshal(&syncSummary{RunID: "r1", DryRun: true, Plan: plan})
	dir := t.TempDir()
	in := writeFile(t, dir, "dry.json", string(b))
	out := filepath.Join(dir, "page.html")
	code, _, stderr := runCLI(t, "", "review", "--plan", in, "--output-file", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, _ := os.ReadFile(out)
	d := readReviewPage(t, out)
	n := d.Nodes[0]
	var names []string
	for _, nb := range n.Neighbors {
		names = append(names, nb.Name)
	}
	if !d.LinksKnown || n.Name != "Valjean from Neo4j" || strings.Join(names, ",") != "Cosette,Marius,Myriel,2" ||
		fmt.Sprint(n.Links) != "[0 1 2 3]" || !strings.Contains(string(page), `"linksOmitted":5`) ||
		!strings.Contains(string(page), `"nodeLabels":["Character"]`) || !strings.Contains(string(page), `"displayProperty":"name"`) {
		t.Fatalf("page from the plan: %+v", d)
	}
	// The names file and the edge list win.
	code, _, stderr = runCLI(t, "", "review", "--plan", in, "--names", lesmisNames, "--output-file", out, lesmis)
	d = readReviewPage(t, out)
	if code != 0 || d.Nodes[0].Name != "Valjean" || d.Nodes[0].Neighbors[3].Name != "MlleBaptistine" || len(d.Nodes[0].Links) != 4 {
		t.Fatalf("names file and edge list: exit %d %+v %s", code, d.Nodes[0], stderr)
	}
	// A plan without links (older, or a Cypher projection's) draws none.
	plan.NeighborLinks, plan.Nodes[0].Links = false, nil
	b, _ = json.Marshal(plan)
	code, _, _ = runCLI(t, "", "review", "--plan", writeFile(t, dir, "bare.json", string(b)), "--output-file", out)
	if d := readReviewPage(t, out); code != 0 || d.LinksKnown || len(d.Nodes[0].Links) != 0 {
		t.Fatalf("plan without links: %+v", d)
	}
}
