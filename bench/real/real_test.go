package real

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/bench/research"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// testData is the copy of the real sets (without their .names files).
const testData = "../testdata/real"

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// A neighbour with several persons or none is left out of the ARI; one
// missing from the proposal is a group of its own.
func TestSplitARI(t *testing.T) {
	nb := []LabelledNeighbour{
		{"n1", []string{"A"}}, {"n2", []string{"A"}}, {"n3", []string{"B"}}, {"n4", []string{"B"}},
		{"n5", []string{"A", "B"}}, {"n6", nil}, {"n7", []string{"B"}},
	}
	groups := map[string]int{"n1": 0, "n2": 0, "n3": 1, "n4": 1, "n5": 0, "n6": 1}
	// Over n1..n4 and n7: truth AABBB, proposal 0 0 1 1 x. Pairs together
	// in both: 2; in the truth 1 + 3 = 4, in the proposal 1 + 1 = 2; of
	// C(5,2) = 10 pairs: expected 4·2/10 = 0.8, maximum 3, ARI 1.2/2.2.
	ari, n, persons, ok := splitARI(nb, groups)
	if !ok || n != 5 || persons != 2 || !near(ari, 1.2/2.2) {
		t.Errorf("splitARI = %v, %d, %d, %v; want %v, 5, 2, true", ari, n, persons, ok, 1.2/2.2)
	}
	// With n7 in B's group the split is perfect: n5 and n6 do not count.
	groups["n7"] = 1
	if ari, _, _, _ := splitARI(nb, groups); ari != 1 {
		t.Errorf("perfect split: ARI %v", ari)
	}
	// One person among the labelled neighbours: not evaluated.
	if _, n, persons, ok := splitARI(nb[:2], groups); ok || n != 2 || persons != 1 {
		t.Errorf("one person: %d neighbours, %d persons, ok %v", n, persons, ok)
	}
}

func TestTruthPrefix(t *testing.T) {
	ln := func(ids ...string) []LabelledName {
		var out []LabelledName
		for _, id := range ids {
			out = append(out, LabelledName{ID: id})
		}
		return out
	}
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{[]string{"a:1", "a:20"}, "a:"},
		{[]string{"author:1", "author:2"}, "author:"},
		{[]string{"1", "2"}, ""},
		{[]string{"a:1", "p:2"}, ""},
		{[]string{"a:1", "2"}, ""},
	} {
		if got := truthPrefix(ln(c.ids...)); got != c.want {
			t.Errorf("truthPrefix(%v) = %q, want %q", c.ids, got, c.want)
		}
	}
}

// Malformed truth and neighbours lines are errors naming file:line.
func TestRealParseErrors(t *testing.T) {
	const header = "id\tname\tpersons\tpapers\tforeign\tdegree\tlabels\n"
	truthCases := []struct{ text, want string }{
		{"id\tname\n", "t.tsv:1: header"},
		{header + "1\tx\t1\t2\t0\t2\n", "t.tsv:2: 6 fields, want 7"},
		{header + "# comment\n1\tx\ttwo\t2\t0\t2\t1:2\n", "t.tsv:3: persons \"two\""},
		{header + "1\tx\t2\t2\t0\t2\t1:2\n", "t.tsv:2: persons 2 but 1 labels"},
		{header + "1\tx\t1\t2\t0\t2\t1-2\n", "t.tsv:2: labels \"1-2\""},
		{header + "1\tx\t1\t2\t0\t2\t1:2\n1\ty\t1\t2\t0\t2\t1:2\n", "t.tsv:3: id 1 listed twice (first on line 2)"},
		{header + "1\tx\t0\t2\t0\t2\t1:2\n", "t.tsv:2: persons 0"},
		{"", "t.tsv: empty"},
		{header, "t.tsv: no labelled names"},
	}
	for _, c := range truthCases {
		_, err := readTruth("t.tsv", strings.NewReader(c.text))
		var re *ParseError
		if err == nil || !errors.As(err, &re) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("truth %q: error %v, want %q...", c.text, err, c.want)
		}
	}
	truth, err := readTruth("t.tsv", strings.NewReader(header+"1\tx\t2\t3\t0\t2\t7:2,8:1\n"))
	if err != nil || len(truth) != 1 || !slices.Equal(truth[0].Labels, []PersonCount{{"7", 2}, {"8", 1}}) || truth[0].Line != 2 {
		t.Fatalf("good truth: %+v, %v", truth, err)
	}
	g, err := graph.NewGraph(4, [][2]int{{1, 2}, {1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	const nh = "id\tneighbour\tlabels\n"
	nbCases := []struct{ text, want string }{
		{nh + "9\t2\t7\n", "n.tsv:2: name 9 is not in the truth file"},
		{nh + "1\t0\t7\n", "n.tsv:2: 0 is not a neighbour of 1 in the graph"},
		{nh + "1\t2\t7\n1\t2\t8\n", "n.tsv:3: neighbour 2 of 1 listed twice"},
		{nh + "1\t2\t7,\n", "n.tsv:2: labels \"7,\""},
		{nh + "1\t2\n", "n.tsv:2: 2 fields, want 3"},
	}
	for _, c := range nbCases {
		_, err := readNeighbours("n.tsv", strings.NewReader(c.text), truth, g)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("neighbours %q: error %v, want %q...", c.text, err, c.want)
		}
	}
	nb, err := readNeighbours("n.tsv", strings.NewReader(nh+"1\t2\t7\n1\t3\t\n"), truth, g)
	if err != nil || len(nb["1"]) != 2 || !slices.Equal(nb["1"][0].Persons, []string{"7"}) || nb["1"][1].Persons != nil {
		t.Fatalf("good neighbours: %+v, %v", nb, err)
	}
}

// Both shapes of dblp679 use the committed development list; a set
// without one, or whose ids the list does not match, is split by hash.
func TestDevHalf(t *testing.T) {
	ids, err := readDevList(devLists, "dblp679.dev.txt")
	if err != nil || len(ids) != 332 {
		t.Fatalf("committed list: %d ids, %v", len(ids), err)
	}
	var truth, wrote []LabelledName
	for _, id := range append(slices.Clone(ids), "999999") { // one name not in the list
		truth = append(truth, LabelledName{ID: id})
		wrote = append(wrote, LabelledName{ID: "a:" + id})
	}
	dev, rule := devHalf("dblp679", "", truth)
	if len(dev) != 332 || !dev[ids[0]] || dev["999999"] || !strings.HasPrefix(rule, "committed list bench/real/dblp679.dev.txt") {
		t.Errorf("dblp679: %d dev names, %q", len(dev), rule)
	}
	dev, rule = devHalf("dblp679-wrote", "a:", wrote)
	if len(dev) != 332 || !dev["a:"+ids[0]] || dev["a:999999"] || !strings.HasPrefix(rule, "committed list") {
		t.Errorf("dblp679-wrote: %d dev names, %q", len(dev), rule)
	}
	// Another set named like it, with other ids: the hash, and a note.
	other := []LabelledName{{ID: "1"}, {ID: "2"}, {ID: "3"}}
	dev, rule = devHalf("dblp679-other", "", other)
	if !strings.HasPrefix(rule, "hash") || !strings.Contains(rule, "not a labelled name of dblp679-other") {
		t.Errorf("mismatched list: %q", rule)
	}
	for _, ln := range other {
		if dev[ln.ID] != devByHash(ln.ID) {
			t.Errorf("%s: dev %v, hash %v", ln.ID, dev[ln.ID], devByHash(ln.ID))
		}
	}
	// The hash ignores the shape's prefix and splits about in half.
	n := 0
	for k := range 1000 {
		if devByHash(strconv.Itoa(k)) {
			n++
		}
	}
	if n < 400 || n > 600 {
		t.Errorf("hash puts %d of 1000 ids in the development half", n)
	}
	dev, _ = devHalf("unknown", "a:", []LabelledName{{ID: "a:41"}})
	if dev["a:41"] != devByHash("41") {
		t.Error("the hash must ignore the prefix")
	}
}

func TestRealSetNames(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"x.edges", "x.truth.tsv", "x.neighbours.tsv", "y.edges", "y.truth.tsv", "README.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := SetNames(dir)
	if err != nil || !slices.Equal(got, []string{"x"}) {
		t.Fatalf("SetNames = %v, %v", got, err)
	}
	if got, err := SetNames(testData); err != nil || !slices.Equal(got, []string{"dblp679", "dblp679-wrote"}) {
		t.Fatalf("test data: %v, %v", got, err)
	}
}

// writeTinySet writes a hand-made real set:
//
//	name 1 (2 persons): neighbours 10, 11 (person A, linked), 12, 13
//	  (person B, linked), 14 (co-authored with both: left out), linked to
//	  10 and 12, so that one component holds them all
//	name 2 (1 person): 20, 21, 22, a triangle
//	name 3 (1 person): 30, 31, linked
//	name 4 (3 persons): 40 (A), 41 (B), 42 (C), unlinked; 40 and 41 share 43
//	name 5 (1 person, foreign occurrences): left out
//	name 6 (1 person, no edge): left out
func writeTinySet(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"tiny.edges": "# a hand-made real set\n" +
			"1 10\n1 11\n1 12\n1 13\n1 14\n10 11\n12 13\n14 10\n14 12\n" +
			"2 20\n2 21\n2 22\n20 21\n21 22\n20 22\n" +
			"3 30\n3 31\n30 31\n" +
			"4 40\n4 41\n4 42\n40 43\n41 43\n" +
			"5 50\n5 51\n",
		"tiny.truth.tsv": "id\tname\tpersons\tpapers\tforeign\tdegree\tlabels\n" +
			"1\tone\t2\t4\t0\t5\ta:2,b:2\n" +
			"2\ttwo\t1\t2\t0\t3\tc:2\n" +
			"3\tthree\t1\t1\t0\t2\td:1\n" +
			"4\tfour\t3\t3\t0\t3\te:1,f:1,g:1\n" +
			"5\tfive\t1\t1\t2\t2\th:1\n" +
			"6\tsix\t1\t1\t0\t0\ti:1\n",
		"tiny.neighbours.tsv": "id\tneighbour\tlabels\n" +
			"1\t10\ta\n1\t11\ta\n1\t12\tb\n1\t13\tb\n1\t14\ta,b\n" +
			"4\t40\te\n4\t41\tf\n4\t42\tg\n",
		"tiny.names": "1\tOne Person\n4\tFour People\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The whole evaluation on the hand-made set, against hand-computed values.
func TestRealTinySet(t *testing.T) {
	dir := t.TempDir()
	writeTinySet(t, dir)
	set, err := LoadSet(dir, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	if set.Prefix != "" || set.Targets != nil || set.Names.Of("1") != "One Person" || !strings.HasPrefix(set.DevRule, "hash") {
		t.Fatalf("tiny set: prefix %q, targets %v, names %v, dev %q", set.Prefix, set.Targets != nil, set.Names, set.DevRule)
	}
	cfg := Config{Dir: dir, Seeds: 1, Engine: fondue.Options{Seed: 1, Workers: 2},
		Methods:   []string{score.MethodDegree, score.MethodCC},
		Splitters: []string{research.EgoComponents, research.TwoHopComponents}}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sets) != 1 || !slices.Equal(res.Config.Sets, []string{"tiny"}) {
		t.Fatalf("sets %v", res.Config.Sets)
	}
	s := res.Sets[0]
	all := s.Halves[HalfAll]
	if all != (HalfInfo{Labelled: 6, Positives: 2, Positives2: 1, Negatives: 2, LeftOut: 2, SplitNames: 2, SplitNames2: 1, SplitNames3: 1}) {
		t.Errorf("halves: %+v", all)
	}
	if d, h := s.Halves[HalfDev], s.Halves[HalfHeldOut]; d.Labelled+h.Labelled != 6 || d.Positives+h.Positives != 2 || d.Negatives+h.Negatives != 2 {
		t.Errorf("dev %+v and held-out %+v do not add up to all", d, h)
	}
	if s.DegreeAgrees != 4 || s.Eligible != 4 {
		t.Errorf("eligible %d, degree agrees %d", s.Eligible, s.DegreeAgrees)
	}
	got := func(table map[string]map[string]map[string]metrics.Stat, name, metric string) float64 {
		return statMean(table, name, HalfAll, metric)
	}
	// Positives 1 (degree 5, cc 1) and 4 (3, 3); negatives 2 (3, 1) and
	// 3 (2, 1). Degree: 5 beats 3 and 2, 3 ties 3 and beats 2: 3.5 of 4.
	// Within bins (1: degrees 2, 3; 2: degree 5): 4 against 2 and 3: 1.5 of 2.
	// cc: 1 ties both negatives, 3 beats both: 3 of 4; within bins 2 of 2.
	// 2-person positives (name 1 only): degree 2 of 2, cc 1 of 2.
	for _, c := range []struct {
		method, metric string
		want           float64
	}{
		{"degree", MetricAUC, 3.5 / 4}, {"degree", MetricAUCBins, 1.5 / 2}, {"degree", MetricAUC2, 1}, {"degree", MetricP100, 0.5},
		{"cc", MetricAUC, 3.0 / 4}, {"cc", MetricAUCBins, 1}, {"cc", MetricAUC2, 0.5}, {"cc", MetricP100, 0.5},
	} {
		if v := got(s.Summary.Detection, c.method, c.metric); !near(v, c.want) {
			t.Errorf("%s %s = %v, want %v", c.method, c.metric, v, c.want)
		}
	}
	// The default method ran too (the splits follow its score) and was
	// measured only if asked: here it was not.
	if _, ok := s.Summary.Detection[score.DefaultMethod]; ok && !slices.Contains(cfg.Methods, score.DefaultMethod) {
		t.Error("the default method is reported without being asked for")
	}
	// Ego components: name 1 is one component (14 joins them): ARI 0, one
	// group for 2 persons; name 4 is three singletons: ARI 1, 3 for 3.
	// Two-hop: 40 and 41 share 43, so name 4 gets 2 groups: ARI 0.
	for _, c := range []struct {
		splitter, metric string
		want             float64
	}{
		{research.EgoComponents, MetricARI, 0.5}, {research.EgoComponents, MetricARI2, 0}, {research.EgoComponents, MetricARI3, 1},
		{research.EgoComponents, MetricGroups, 2}, {research.EgoComponents, MetricPersons, 2.5},
		{research.EgoComponents, MetricGroupsExact, 0.5}, {research.EgoComponents, MetricGroupsMAE, 0.5},
		{research.TwoHopComponents, MetricARI, 0}, {research.TwoHopComponents, MetricARI3, 0},
		{research.TwoHopComponents, MetricGroups, 1.5}, {research.TwoHopComponents, MetricGroupsMAE, 1},
	} {
		if v := got(s.Summary.Splitting, c.splitter, c.metric); !near(v, c.want) {
			t.Errorf("%s %s = %v, want %v", c.splitter, c.metric, v, c.want)
		}
	}
	// Component counts as entity estimates: ego 1, 1, 1, 3 against 2, 1,
	// 1, 3 persons; two-hop 1, 1, 1, 2.
	for _, c := range []struct {
		est, metric string
		want        float64
	}{
		{research.EgoComponents, MetricAllExact, 0.75}, {research.EgoComponents, MetricAllMAE, 0.25},
		{research.EgoComponents, MetricSplitExact, 0.5}, {research.EgoComponents, MetricSplitMAE, 0.5},
		{research.EgoComponents, MetricSplitMean, 2}, {research.EgoComponents, MetricAllMean, 1.5},
		{research.TwoHopComponents, MetricAllExact, 0.5}, {research.TwoHopComponents, MetricAllMAE, 0.5},
	} {
		if v := got(s.Summary.Entities, c.est, c.metric); !near(v, c.want) {
			t.Errorf("%s %s = %v, want %v", c.est, c.metric, v, c.want)
		}
	}
	if e := got(s.Summary.Entities, EstimatorEntities, MetricAllMean); !(e >= 1) {
		t.Errorf("the engine's estimate: mean %v, want >= 1", e)
	}
	// The per-name records, and the display names of X.names.
	if len(s.Splits) != 2 || s.Splits[0].ID != "1" || s.Splits[0].Labelled != 4 || !slices.Equal(s.Splits[1].ARI[research.EgoComponents], []float64{1}) {
		t.Errorf("split records: %+v", s.Splits)
	}
	var shown []string
	for _, top := range s.Top {
		shown = append(shown, top.Name)
	}
	if len(s.Top) != 4 || !slices.Contains(shown, "One Person") || !slices.Contains(shown, "two") {
		t.Errorf("top names: %v", shown)
	}
	// The reports: every table, the default's row first when it ran.
	rep := &Report{Results: res, Machine: setup.ThisMachine(), Command: "fondue-bench real"}
	var md, js bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## tiny", "### Detection", "### Splitting", "### Number of entities", "| `degree` | .875 † |",
		"| **`entities`** |", "| `ego-components` | .500 † | .000 † | 1.000 † | 2.0 | .500 † | 0.50 † |", "One Person"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md.String())
		}
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Results Results `json:"-"`
		Sets    []struct {
			Name  string
			Seeds []Seed
		}
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Sets) != 1 || len(back.Sets[0].Seeds) != 1 ||
		float64(back.Sets[0].Seeds[0].Detection["cc"][HalfAll][MetricAUC]) != 0.75 {
		t.Fatalf("results.json: %v %+v\n%s", err, back.Sets, js.String())
	}
}

// A set whose ids carry a prefix scores only the nodes with it: the
// others are context, never ranked.
func TestRealTargetsByPrefix(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"kg.edges": "a:1 p:1\na:1 p:2\na:1 p:3\na:2 p:1\na:3 p:3\na:3 p:4\na:4 p:4\na:4 p:5\n",
		"kg.truth.tsv": "id\tname\tpersons\tpapers\tforeign\tdegree\tlabels\n" +
			"a:1\tone\t2\t3\t0\t3\tx:2,y:1\na:4\tfour\t1\t2\t0\t2\tz:2\n",
		"kg.neighbours.tsv": "id\tneighbour\tlabels\na:1\tp:1\tx\na:1\tp:2\tx\na:1\tp:3\ty\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := LoadSet(dir, "kg")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, on := range set.Targets {
		if on {
			n++
			if !strings.HasPrefix(set.Graph.Key(i), "a:") {
				t.Errorf("target %s", set.Graph.Key(i))
			}
		}
	}
	if set.Prefix != "a:" || n != 4 {
		t.Fatalf("prefix %q, %d targets", set.Prefix, n)
	}
	res, err := Run(context.Background(), Config{Dir: dir, Seeds: 1, Engine: fondue.Options{Seed: 1, Workers: 1},
		Methods: []string{score.MethodDegree}, Splitters: []string{research.TwoHopComponents}})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Sets[0]
	if s.Scored != 4 || s.Nodes != 9 {
		t.Errorf("scored %d of %d nodes", s.Scored, s.Nodes)
	}
	// a:1's papers: p:1 alone (a:2 wrote nothing else), p:2 alone, p:3
	// with a:3 who wrote p:4 too, which a:1 did not: three groups, the
	// persons x, x, y: ARI of {p1},{p2},{p3} against x x y is 0.
	if v := statMean(s.Summary.Splitting, research.TwoHopComponents, HalfAll, MetricGroups); v != 3 {
		t.Errorf("two-hop groups of a:1: %v, want 3", v)
	}
	if v := statMean(s.Summary.Splitting, research.TwoHopComponents, HalfAll, MetricARI); v != 0 {
		t.Errorf("two-hop ARI of a:1: %v, want 0", v)
	}
}

// The quick preset on the copy of the real set: the loaders' counts match
// the data's README, the deterministic baselines reproduce its reference
// numbers, and the component baselines do what the README says.
func TestRealQuick(t *testing.T) {
	cfg := Config{Dir: testData, Seeds: 1, Engine: fondue.Options{Seed: 1, Workers: 2}}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sets) != 2 {
		t.Fatalf("%d sets", len(res.Sets))
	}
	co, wrote := res.Sets[0], res.Sets[1]
	if co.Name != "dblp679" || wrote.Name != "dblp679-wrote" {
		t.Fatalf("sets %s, %s", co.Name, wrote.Name)
	}
	// The data's README: 184 positives (88 with 2 persons), 394 negatives
	// in the co-author shape (8,846 nodes, 29,040 edges); in the WROTE
	// shape 8,869 names and 6,676 papers, 24,576 edges.
	if h := co.Halves[HalfAll]; h.Positives != 184 || h.Positives2 != 88 || h.Negatives != 394 || co.Nodes != 8846 || co.Edges != 29040 || co.Prefix != "" {
		t.Errorf("co-author shape: %+v, %d nodes, %d edges, prefix %q", h, co.Nodes, co.Edges, co.Prefix)
	}
	if h := wrote.Halves[HalfAll]; h.Positives != 184 || h.Negatives != 417 || wrote.Prefix != "a:" || wrote.Scored != 8869 || wrote.Nodes != 8869+6676 || wrote.Edges != 24576 {
		t.Errorf("WROTE shape: %+v, prefix %q, %d scored of %d nodes, %d edges", h, wrote.Prefix, wrote.Scored, wrote.Nodes, wrote.Edges)
	}
	for _, s := range res.Sets {
		if d, h := s.Halves[HalfDev], s.Halves[HalfHeldOut]; d.Labelled != 332 || h.Labelled != 333 || !strings.HasPrefix(s.DevRule, "committed list") {
			t.Errorf("%s: dev %d, held-out %d, %s", s.Name, d.Labelled, h.Labelled, s.DevRule)
		}
		if s.DegreeAgrees != s.Eligible {
			t.Errorf("%s: the truth's degree agrees with the graph's for %d of %d names", s.Name, s.DegreeAgrees, s.Eligible)
		}
	}
	det := func(s *SetResult, m, metric string) float64 {
		return statMean(s.Summary.Detection, m, HalfAll, metric)
	}
	spl := func(s *SetResult, sp, metric string) float64 {
		return statMean(s.Summary.Splitting, sp, HalfAll, metric)
	}
	// The README's reference numbers of the deterministic baselines.
	for _, c := range []struct {
		s      *SetResult
		what   string
		got    float64
		want   float64
		digits float64
	}{
		{co, "cc AUC", det(co, "cc", MetricAUC), .927, 1e3},
		{co, "cc AUC within bins", det(co, "cc", MetricAUCBins), .854, 1e3},
		{co, "degree AUC", det(co, "degree", MetricAUC), .847, 1e3},
		{co, "nc AUC", det(co, "nc", MetricAUC), .907, 1e3},
		{co, "lcc AUC", det(co, "lcc", MetricAUC), .898, 1e3},
		{co, "ego-components ARI", spl(co, research.EgoComponents, MetricARI), .782, 1e3},
		{co, "ego-components ARI, 2 persons", spl(co, research.EgoComponents, MetricARI2), .814, 1e3},
		{co, "ego-components groups", spl(co, research.EgoComponents, MetricGroups), 6.2, 10},
		// mcl is fondue's splitter: capped at GroupCap of the estimate
		// (bench/RANKING.md), not the README's raw .746 and .158.
		{co, "mcl ARI", spl(co, split.MCL, MetricARI), .745, 1e3},
		{wrote, "degree AUC", det(wrote, "degree", MetricAUC), .859, 1e3},
		{wrote, "cc AUC within bins", det(wrote, "cc", MetricAUCBins), .476, 1e3},
		{wrote, "nc AUC", det(wrote, "nc", MetricAUC), .500, 1e3},
		{wrote, "lcc AUC", det(wrote, "lcc", MetricAUC), .722, 1e3},
		{wrote, "two-hop-components ARI", spl(wrote, research.TwoHopComponents, MetricARI), .720, 1e3},
		{wrote, "two-hop-components ARI, 2 persons", spl(wrote, research.TwoHopComponents, MetricARI2), .741, 1e3},
		{wrote, "two-hop-components ARI, 3+", spl(wrote, research.TwoHopComponents, MetricARI3), .701, 1e3},
		{wrote, "mcl ARI", spl(wrote, split.MCL, MetricARI), .222, 1e3},
	} {
		if math.Round(c.got*c.digits)/c.digits != c.want {
			t.Errorf("%s %s = %v, the data README says %v", c.s.Name, c.what, c.got, c.want)
		}
	}
	// What a method knows beyond degree: cc beats degree within degree
	// bins on the co-author shape; the ego components split it well.
	if cc, deg := det(co, "cc", MetricAUCBins), det(co, "degree", MetricAUCBins); !(cc > deg+0.1) {
		t.Errorf("co-author AUC within bins: cc %.3f, degree %.3f", cc, deg)
	}
	if ari := spl(co, research.EgoComponents, MetricARI); !(ari > 0.7) {
		t.Errorf("co-author ego-components ARI %.3f", ari)
	}
	// The default method sees real ambiguity on both shapes.
	for _, s := range res.Sets {
		if auc := det(s, score.DefaultMethod, MetricAUC); !(auc > 0.8) {
			t.Errorf("%s: default method %s AUC %.3f", s.Name, score.DefaultMethod, auc)
		}
		if s.HasNames || len(s.Top) != topN || s.Top[0].Name == "" {
			t.Errorf("%s: top names %+v (display names: %v)", s.Name, s.Top, s.HasNames)
		}
	}
	// Every splitter the bench knows ran on every split-evaluated name.
	for _, s := range res.Sets {
		for _, sp := range setup.SplitterNames() {
			if _, ok := s.Summary.Splitting[sp]; !ok {
				t.Errorf("%s: no results for splitter %s", s.Name, sp)
			}
		}
		for _, rec := range s.Splits {
			if len(rec.ARI[split.Default]) != 1 {
				t.Fatalf("%s %s: %v", s.Name, rec.ID, rec.ARI)
			}
		}
	}
	// The reports and plots.
	out := t.TempDir()
	rep := &Report{Results: res, Machine: setup.ThisMachine(), Command: "fondue-bench real --quick"}
	if rep.Plots, err = rep.WritePlots(out); err != nil || !slices.Equal(rep.Plots, []string{"real-detection.png", "real-top.png", "real-ari.png", "real-groups.png"}) {
		t.Fatalf("plots %v: %v", rep.Plots, err)
	}
	for _, f := range rep.Plots {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() < 10000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## dblp679\n", "## dblp679-wrote\n", "| **`" + score.DefaultMethod + "`** |", "| **`" + split.Default + "`** |",
		"only the nodes with ids `a:…` scored", "committed list bench/real/dblp679.dev.txt", "![real-groups](real-groups.png)",
		"## Summary", "| dblp679 | detection AUC | `" + score.DefaultMethod + "` ", "| dblp679-wrote | split ARI, 3+ persons | `" + split.Default + "` "} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("RESULTS.md lacks %q", want)
		}
	}
}

// A set in a folder of its own with Neo4j import files: found by SetNames,
// read with its labels and evidence properties, targets by the labelled
// names' label.
func TestRealKnowledgeGraphSet(t *testing.T) {
	dir := t.TempDir()
	kg := filepath.Join(dir, "kg")
	if err := os.Mkdir(kg, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"kg.edges":          "a:1 p:1\na:1 p:2\na:2 p:2\np:1 v:1\np:2 v:1\n",
		"kg.truth.tsv":      "id\tname\tpersons\tpapers\tforeign\tdegree\tlabels\na:1\tone\t2\t2\t0\t2\tx:1,y:1\n",
		"kg.neighbours.tsv": "id\tneighbour\tlabels\na:1\tp:1\tx\na:1\tp:2\ty\n",
		"authors.csv":       "uid:ID(Author),name,:LABEL\na:1,one,Author\na:2,two,Author\n",
		"papers.csv":        "uid:ID(Paper),title,year:int,:LABEL\np:1,Graph Cuts,2001,Paper\np:2,Graphs,,Paper\n",
		"venues.csv":        "uid:ID(Venue),name,:LABEL\nv:1,KDD,Venue\n",
		"wrote.csv":         ":START_ID(Author),:END_ID(Paper),:TYPE\na:1,p:1,WROTE\na:1,p:2,WROTE\na:2,p:2,WROTE\n",
		"published_in.csv":  ":START_ID(Paper),:END_ID(Venue),:TYPE\np:1,v:1,PUBLISHED_IN\np:2,v:1,PUBLISHED_IN\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(kg, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := SetNames(dir); err != nil || !slices.Equal(got, []string{"kg"}) {
		t.Fatalf("SetNames = %v, %v", got, err)
	}
	set, err := LoadSet(dir, "kg")
	if err != nil {
		t.Fatal(err)
	}
	if err := set.LoadContext(context.Background(), []string{"title", "year"}); err != nil {
		t.Fatal(err)
	}
	c := set.Context
	if c == nil || !slices.Equal(c.Kinds, []string{"Author", "Paper", "Venue"}) || len(c.Properties) != 2 {
		t.Fatalf("context %+v", c)
	}
	g := set.Graph
	p1, _ := g.Index("p:1")
	p2, _ := g.Index("p:2")
	if c.Properties[0].Text[p1] != "Graph Cuts" || c.Properties[1].Number[p1] != 2001 || !math.IsNaN(c.Properties[1].Number[p2]) {
		t.Fatalf("properties of p:1 %q %v, p:2 year %v", c.Properties[0].Text[p1], c.Properties[1].Number[p1], c.Properties[1].Number[p2])
	}
	for i := range g.NumNodes() {
		if want := strings.HasPrefix(g.Key(i), "a:"); set.Targets[i] != want {
			t.Fatalf("%s: target %v, want %v", g.Key(i), set.Targets[i], want)
		}
	}
}
