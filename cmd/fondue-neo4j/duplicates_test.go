package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/dedup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/spf13/cobra"
)

// dupGraph writes a small bibliography as import files: 24 authors with
// distinct first and last names writing 60 papers in pairs and triples,
// two people under two names each, who write with the same co-authors, at
// the same venue, on the same topic, in the same years: "Jeffrey Bilmes"
// (a25) and "Jeff A. Bilmes" (a26), "Thomas Lucas" (a27) and "Thomas
// LUCAS" (a28); and two others whose names are close to others' but who
// share nothing with them: "Hannah Hughes" (a29; a08 is Hans Hughes) and
// "Karl Keller" (a30; a11 is Karin Keller). It returns the --nodes and
// --relationships arguments, and the same graph as an edge list and its
// names file.
func dupGraph(t *testing.T) (kg []string, edgeList, namesFile string) {
	t.Helper()
	dir := t.TempDir()
	var edges, nm strings.Builder
	edges.WriteString("# the same graph as an edge list\n")
	first := strings.Fields("Anna Boris Carla Dmitri Elena Felix Greta Hans Ines Jonas Karin Lars Maria Nils Olga Pavel Rosa Sven Tara Uwe Vera Wim Xenia Yann")
	last := strings.Fields("Adams Baker Clark Davis Evans Fisher Green Hughes Irwin Jones Keller Lopez Moore Nash Owens Price Quinn Reed Stone Turner Ulrich Vance Walsh Young")
	topics := strings.Fields("parsing tagging translation summarization retrieval dialogue morphology semantics")
	var authors, papers, wrote, in strings.Builder
	authors.WriteString("uid:ID(Author),name,:LABEL\n")
	author := func(id, name string) {
		fmt.Fprintf(&authors, "%s,%s,Author\n", id, name)
		fmt.Fprintf(&nm, "%s\t%s\n", id, name)
	}
	for i := range first {
		author(fmt.Sprintf("a%02d", i+1), first[i]+" "+last[i])
	}
	author("a25", "Jeffrey Bilmes")
	author("a26", "Jeff A. Bilmes")
	author("a27", "Thomas Lucas")
	author("a28", "Thomas LUCAS")
	// Two other people whose names are close to the names of a08 and a11.
	author("a29", "Hannah Hughes")
	author("a30", "Karl Keller")
	papers.WriteString("uid:ID(Paper),title,year:int,:LABEL\n")
	wrote.WriteString(":START_ID(Author),:END_ID(Paper),:TYPE\n")
	in.WriteString(":START_ID(Paper),:END_ID(Venue),:TYPE\n")
	paper := func(k int, title string, year int, venue int, by ...int) {
		fmt.Fprintf(&papers, "p%d,%s,%d,Paper\n", k, title, year)
		fmt.Fprintf(&nm, "p%d\t%s (%d)\n", k, title, year)
		for _, a := range by {
			fmt.Fprintf(&wrote, "a%02d,p%d,WROTE\n", a, k)
			fmt.Fprintf(&edges, "a%02d p%d\n", a, k)
		}
		fmt.Fprintf(&in, "p%d,v%d,PUBLISHED_IN\n", k, venue)
		fmt.Fprintf(&edges, "p%d v%d\n", k, venue)
	}
	for k := range 60 {
		by := []int{k%24 + 1, (k*7+3)%24 + 1}
		if k%3 == 0 {
			by = append(by, (k*5+11)%24+1)
		}
		slices.Sort(by)
		paper(k, "Neural "+topics[k%8]+" for "+topics[(k+3)%8], 2000+k%15, k%3, slices.Compact(by)...)
	}
	// Bilmes writes on graphical models at venue 3 with a01 and a02; Lucas
	// on phonology at venue 4 with a05 and a06.
	for k := range 6 {
		paper(60+k, fmt.Sprintf("Graphical models for speech part %d", k), 2005+k, 3, 1, 2, 25+k%2)
		paper(70+k, fmt.Sprintf("Phonology of tone systems part %d", k), 2010+k, 4, 5, 6, 27+k%2)
	}
	for k := range 4 {
		paper(80+k, fmt.Sprintf("Protein folding kinetics part %d", k), 2019, 0, 29, 30, 13+k)
	}
	venues := "uid:ID(Venue),name,:LABEL\nv0,ACL,Venue\nv1,EMNLP,Venue\nv2,COLING,Venue\nv3,ICASSP,Venue\nv4,Interspeech,Venue\n"
	for k, v := range strings.Fields("ACL EMNLP COLING ICASSP Interspeech") {
		fmt.Fprintf(&nm, "v%d\t%s\n", k, v)
	}
	kg = []string{
		"--nodes", writeFile(t, dir, "authors.csv", authors.String()),
		"--nodes", writeFile(t, dir, "papers.csv", papers.String()),
		"--nodes", writeFile(t, dir, "venues.csv", venues),
		"--relationships", writeFile(t, dir, "wrote.csv", wrote.String()),
		"--relationships", writeFile(t, dir, "published_in.csv", in.String()),
	}
	return kg, writeFile(t, dir, "g.edges", edges.String()), writeFile(t, dir, "g.names", nm.String())
}

// dupPair is a pair of duplicates --output json.
type dupPair struct {
	A, B         string
	Score        float64
	NameA, NameB string
	Reasons      []struct{ Kind, Text string }
}

func runDuplicatesJSON(t *testing.T, args ...string) []dupPair {
	t.Helper()
	code, out, stderr := runCLI(t, "", append([]string{"duplicates", "--output", "json", "--log-level", "error"}, args...)...)
	if code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, stderr)
	}
	var pairs []dupPair
	if err := json.Unmarshal([]byte(out), &pairs); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	return pairs
}

// The contract: duplicates on import files prints every candidate
// pair scored (--top 0) as JSON objects with a, b (the :ID values), score
// (best first) and reasons; the two planted people come first; --top K
// is the first K of them; the TSV has the same pairs, with a header.
func TestDuplicatesImportFiles(t *testing.T) {
	kg, _, _ := dupGraph(t)
	args := append(slices.Clone(kg), "--score-labels", "Author", "--name-property", "name", "--evidence-properties", "title,year", "--top", "0")
	pairs := runDuplicatesJSON(t, args...)
	if len(pairs) < 3 {
		t.Fatalf("%d pairs: %+v", len(pairs), pairs)
	}
	names := map[string]string{"a25": "Jeffrey Bilmes", "a26": "Jeff A. Bilmes", "a27": "Thomas Lucas", "a28": "Thomas LUCAS"}
	seen := map[[2]string]bool{}
	for k, p := range pairs {
		if !strings.HasPrefix(p.A, "a") || !strings.HasPrefix(p.B, "a") || p.A == p.B {
			t.Fatalf("pair %d: %q %q: want two authors", k, p.A, p.B)
		}
		key := [2]string{min(p.A, p.B), max(p.A, p.B)}
		if seen[key] {
			t.Fatalf("pair %v twice", key)
		}
		seen[key] = true
		if k > 0 && p.Score > pairs[k-1].Score {
			t.Fatalf("pair %d scores %v after %v: not best first", k, p.Score, pairs[k-1].Score)
		}
		if n, ok := names[p.A]; ok && p.NameA != n {
			t.Errorf("pair %d: nameA %q, want %q", k, p.NameA, n)
		}
		if len(p.Reasons) == 0 || p.Reasons[0].Kind == "" || p.Reasons[0].Text == "" {
			t.Errorf("pair %d (%s, %s): reasons %+v", k, p.A, p.B, p.Reasons)
		}
	}
	top2 := []string{pairs[0].A + "-" + pairs[0].B, pairs[1].A + "-" + pairs[1].B}
	slices.Sort(top2)
	if top2[0] != "a25-a26" || top2[1] != "a27-a28" {
		t.Errorf("best pairs %q, want a25-a26 and a27-a28; all: %+v", top2, pairs[:min(5, len(pairs))])
	}

	// --top 2: the first two.
	first := runDuplicatesJSON(t, append(slices.Clone(args[:len(args)-1]), "2")...)
	if len(first) != 2 || first[0].A != pairs[0].A || first[1].B != pairs[1].B || first[0].Score != pairs[0].Score {
		t.Errorf("--top 2: %+v, want the first two of %+v", first, pairs[:2])
	}

	// TSV: the same pairs, a header with --print-header, none when piped.
	code, out, stderr := runCLI(t, "", append([]string{"duplicates", "--print-header", "--log-level", "error"}, args...)...)
	if code != 0 {
		t.Fatalf("tsv: exit %d: %s", code, stderr)
	}
	r := csv.NewReader(strings.NewReader(out))
	r.Comma = '\t'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if strings.Join(recs[0], ",") != "a,b,score,name_a,name_b,reasons" || len(recs) != len(pairs)+1 {
		t.Fatalf("TSV header %q, %d lines for %d pairs", recs[0], len(recs), len(pairs))
	}
	for k, rec := range recs[1:] {
		p := pairs[k]
		if rec[0] != p.A || rec[1] != p.B || rec[3] != p.NameA || rec[4] != p.NameB || !strings.HasPrefix(rec[5], p.Reasons[0].Text) {
			t.Fatalf("TSV line %d %q, JSON %+v", k+1, rec, p)
		}
	}
	_, piped, _ := runCLI(t, "", append([]string{"duplicates", "--log-level", "error"}, args...)...)
	if piped != strings.SplitN(out, "\n", 2)[1] {
		t.Errorf("without --print-header: not the same lines without the header")
	}
}

// The same input gives the same output whatever the number of workers.
func TestDuplicatesDeterministic(t *testing.T) {
	kg, _, _ := dupGraph(t)
	var outs []string
	for _, threads := range []string{"1", "2", "1"} {
		code, out, stderr := runCLI(t, "", append([]string{"duplicates", "--score-labels", "Author", "--evidence-properties", "title,year",
			"--output", "json", "--log-level", "error", "--threads", threads}, kg...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] || outs[0] != outs[2] {
		t.Errorf("--threads 1 and 2 differ:\n%s\n---\n%s", outs[0], outs[1])
	}
}

// An edge list works too, its names from --names: the ids of the pairs are
// the edge list's, the names the file's, the planted people first.
func TestDuplicatesEdgeList(t *testing.T) {
	_, edges, names := dupGraph(t)
	pairs := runDuplicatesJSON(t, edges, "--names", names, "--score-prefix", "a")
	if len(pairs) < 2 {
		t.Fatalf("pairs %+v", pairs)
	}
	top2 := []string{pairs[0].A + "-" + pairs[0].B, pairs[1].A + "-" + pairs[1].B}
	slices.Sort(top2)
	if top2[0] != "a25-a26" || top2[1] != "a27-a28" {
		t.Errorf("best pairs %q, want a25-a26 and a27-a28; all: %+v", top2, pairs)
	}
	for _, p := range pairs {
		if !strings.HasPrefix(p.A, "a") || !strings.HasPrefix(p.B, "a") || p.NameA == "" || p.NameA == p.A {
			t.Fatalf("pair %+v: not two authors by id, with their names (--score-prefix a, --names)", p)
		}
	}
}

// Without a names file the nodes have no names: the candidates come from
// the links alone (dedup's nameless blocking), not from the ids read as
// names ("user07" has letters enough to pass for one, and no name key would
// pair two of them). A ring of 60 users, each linked to the 3 nearest on
// each side, with user00's links split in two: user60 took those to
// user01, user03 and user58. user60's best pair is user00, no reason is a
// name's, and the pairs are those dedup finds on the graph with no names.
func TestDuplicatesEdgeListNameless(t *testing.T) {
	const n, k = 60, 3
	id := func(i int) string { return fmt.Sprintf("user%02d", i) }
	var b strings.Builder
	for i := 0; i < n; i++ {
		for d := 1; d <= k; d++ {
			j := (i + d) % n
			switch {
			case i == 0 && d%2 == 1:
				fmt.Fprintf(&b, "%s %s\n", id(n), id(j))
			case j == 0 && d%2 == 0:
				fmt.Fprintf(&b, "%s %s\n", id(i), id(n))
			default:
				fmt.Fprintf(&b, "%s %s\n", id(i), id(j))
			}
		}
	}
	path := writeFile(t, t.TempDir(), "ring.edges", b.String())
	pairs := runDuplicatesJSON(t, path, "--top", "0", "--seed", "7")

	g, _, err := edgelist.ReadFile(path, edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	want, err := dedup.Find(context.Background(), dedup.Input{Graph: g, Names: make([]string, g.NumNodes())}, dedup.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != len(want.Pairs) || len(pairs) == 0 {
		t.Fatalf("%d pairs, dedup with no names %d", len(pairs), len(want.Pairs))
	}
	var piece []dupPair
	for i, p := range pairs {
		w := want.Pairs[i]
		if p.A != g.Key(w.A) || p.B != g.Key(w.B) || p.Score != w.Score {
			t.Fatalf("pair %d: %s-%s %v, dedup with no names %s-%s %v", i, p.A, p.B, p.Score, g.Key(w.A), g.Key(w.B), w.Score)
		}
		for _, r := range p.Reasons {
			if r.Kind == "name" {
				t.Fatalf("pair %s-%s: a name reason %q", p.A, p.B, r.Text)
			}
		}
		switch id(n) {
		case p.A:
			piece = append(piece, dupPair{A: p.B, Score: p.Score})
		case p.B:
			piece = append(piece, dupPair{A: p.A, Score: p.Score})
		}
	}
	if len(piece) < 2 || piece[0].A != id(0) || piece[0].Score <= piece[1].Score {
		t.Errorf("pairs of %s (the other, score): %+v; want %s first, ahead of the next", id(n), piece, id(0))
	}
}

// Bad input: one line naming the flag or file, the documented exit code,
// nothing on stdout.
func TestDuplicatesErrors(t *testing.T) {
	kg, _, _ := dupGraph(t)
	dir := t.TempDir()
	alias := writeFile(t, dir, "people.csv", "uid:ID(Author),name,alias,:LABEL\nx1,Ann Lee,,Author\nx2,Ann Li,,Author\n")
	others := writeFile(t, dir, "others.names", "zz\tNobody\n")
	pairsOnly := writeFile(t, dir, "pairs.edges", "0 1\n2 3\n4 5\n") // no node with two neighbours
	pairsNames := writeFile(t, dir, "pairs.names", "0\tAnn Lee\n1\tAnn Li\n2\tBo Ma\n3\tB. Ma\n4\tCy Ng\n5\tC. Ng\n")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{append([]string{"--name-property", "fullname", "--score-labels", "Author"}, kg...), exitUsage,
			`--name-property: no node file has a property "fullname"`},
		{[]string{"--nodes", alias, "--name-property", "alias"}, exitUsage,
			"--name-property alias: none of the 2 nodes compared has it"},
		{append([]string{"--name-property", "title", "--score-labels", "Author"}, kg...), exitUsage,
			"--name-property title: none of the 30 nodes compared has it"},
		{append([]string{"--name-property", "", "--score-labels", "Author"}, kg...), exitUsage, "--name-property is empty"},
		{append([]string{"--top", "-1"}, kg...), exitUsage, "--top"},
		{append([]string{"--top", "many"}, kg...), exitUsage, "--top"},
		{append([]string{"--output", "xml"}, kg...), exitUsage, "--output"},
		{append([]string{"--score-labels", "Editor"}, kg...), exitUsage, `no node has the label "Editor"`},
		{[]string{lesmis, "--score-labels", "Author"}, exitUsage, "--score-labels chooses nodes of --nodes files"},
		{[]string{lesmis, "--names", filepath.Join(dir, "absent.names")}, exitUsage, "absent.names: no such file"},
		{[]string{lesmis, "--names", others}, exitUsage, "--names " + others + ": it names none of the 77 nodes compared"},
		{[]string{lesmis, "--score-prefix", "11"}, exitEmpty, "nothing to compare"},
		{[]string{pairsOnly, "--names", pairsNames}, exitEmpty, "too little in the graph to learn the weights from"},
		{[]string{}, exitUsage, "one edge-list file (or --nodes and --relationships files)"},
		{append([]string{"--score-labels", "Author", "--max-memory", "1MB"}, kg...), exitMemory, "exceeds the limit of 976.6 KiB (max_memory); raise max_memory"},
	}
	for _, c := range cases {
		args := append([]string{"duplicates"}, c.args...)
		code, out, stderr := runCLI(t, "", args...)
		if code != c.code || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", args, code, out, stderr, c.code, c.want)
			continue
		}
		wantOneLine(t, strings.Join(args, " "), stderr)
	}
}

// docs/duplicates.md: every flag it names is a flag of duplicates or
// estimate, or of the commands of its Neo4j section (sync, review, plan,
// undo), and its commands run on the acl-dup set beside the repository
// (BENCH_DATASETS, else /work/shared/datasets), the first printing the
// header and pairs the page shows.
func TestDuplicatesDoc(t *testing.T) {
	data, err := os.ReadFile("../../docs/duplicates.md")
	if err != nil {
		t.Fatal(err)
	}
	root := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}).rootCmd()
	var cmds []*cobra.Command
	for _, name := range [][]string{{"duplicates"}, {"estimate"}, {"sync"}, {"review"}, {"plan", "accept"}, {"undo"}} {
		c, _, err := root.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, m := range regexp.MustCompile("(?:^|[\\s`(\\[])--([a-z][a-z0-9-]*)").FindAllStringSubmatch(string(data), -1) {
		if !slices.ContainsFunc(cmds, func(c *cobra.Command) bool { return c.Flags().Lookup(m[1]) != nil }) {
			t.Errorf("docs/duplicates.md names --%s, which none of its commands has", m[1])
		}
	}
	datasets := "/work/shared/datasets"
	if env := os.Getenv("BENCH_DATASETS"); env != "" {
		datasets = env
	}
	shown := regexp.MustCompile("(?s)\\(shortened[^)]*\\):\\s*```\\n(.*?)```").FindSubmatch(data)
	if shown == nil {
		t.Fatal("docs/duplicates.md shows no output")
	}
	ran := 0
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "fondue-neo4j duplicates ") {
			continue
		}
		line = strings.ReplaceAll(line, "../shared/datasets/", datasets+"/")
		args := append(strings.Fields(strings.TrimPrefix(line, "fondue-neo4j ")), "--log-level", "error")
		code, out, stderr := runCLI(t, "", args...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || len(lines) < 20 {
			t.Fatalf("%s: exit %d, %d lines: %s", line, code, len(lines), stderr)
		}
		if ran == 0 {
			// The pairs shown are among those printed, by ids and names
			// (their order and scores move with the engine's weights).
			printed := map[string]bool{}
			for _, l := range lines {
				f := strings.Split(l, "\t")
				printed[strings.Join(slices.Concat(f[:2], f[3:5]), "\t")] = len(f) == 6
			}
			for k, row := range strings.Split(strings.TrimSpace(string(shown[1])), "\n") {
				want := regexp.MustCompile(`\s{2,}`).Split(row, 6)
				if len(want) != 6 || !printed[strings.Join(slices.Concat(want[:2], want[3:5]), "\t")] {
					t.Errorf("docs/duplicates.md shows %q (line %d), which the command does not print", want, k)
				}
			}
		}
		ran++
	}
	if ran != 3 {
		t.Errorf("docs/duplicates.md: %d duplicates commands run, want 3 (import files, edge list, edge list without names)", ran)
	}
}

// estimate --duplicates predicts a duplicates run: more memory with more
// nodes compared, the graph's counts from a file too; --compared needs
// --duplicates and at most the nodes; a graph that does not fit exits
// with 7.
func TestEstimateDuplicates(t *testing.T) {
	peak := func(args ...string) int64 {
		t.Helper()
		code, out, stderr := runCLI(t, "", append([]string{"estimate", "--duplicates", "--output", "json", "--max-memory", "none"}, args...)...)
		var e struct{ BytesPeak int64 }
		if err := json.Unmarshal([]byte(out), &e); code != 0 || err != nil || e.BytesPeak <= 0 {
			t.Fatalf("%q: exit %d, %v: %s %s", args, code, err, out, stderr)
		}
		return e.BytesPeak
	}
	few, all := peak("--nodes", "100000", "--edges", "200000", "--compared", "1000"), peak("--nodes", "100000", "--edges", "200000")
	if few >= all {
		t.Errorf("1000 of 100000 nodes compared: %d bytes, all: %d", few, all)
	}
	_, scoring, _ := runCLI(t, "", "estimate", "--nodes", "100000", "--edges", "200000", "--output", "json", "--max-memory", "none")
	_, dup, _ := runCLI(t, "", "estimate", "--nodes", "100000", "--edges", "200000", "--output", "json", "--max-memory", "none", "--duplicates")
	if scoring == dup {
		t.Errorf("--duplicates changes nothing: %s", dup)
	}
	if p := peak(lesmis); p <= 0 {
		t.Errorf("from a file: %d", p)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--nodes", "10", "--edges", "20", "--compared", "5"}, exitUsage, "--compared counts the nodes of a duplicates run: add --duplicates"},
		{[]string{"--duplicates", "--nodes", "10", "--edges", "20", "--compared", "11"}, exitUsage, "--compared 11: want between 0 and the 10 nodes"},
		{[]string{"--duplicates", "--nodes", "1000000", "--edges", "10000000", "--max-memory", "100MB"}, exitMemory, "does not fit"},
	} {
		args := append([]string{"estimate"}, c.args...)
		code, _, stderr := runCLI(t, "", args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want %d and %q", args, code, stderr, c.code, c.want)
		}
	}
}

// A run whose context ends says "interrupted", exits with 130 and prints
// nothing.
func TestDuplicatesInterrupted(t *testing.T) {
	kg, edges, names := dupGraph(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{append([]string{"duplicates", "--score-labels", "Author"}, kg...), {"duplicates", edges, "--names", names}} {
		var out, errb bytes.Buffer
		code := run(ctx, args, strings.NewReader(""), &out, &errb)
		if code != exitInterrupted || !strings.HasSuffix(errb.String(), "fondue-neo4j: interrupted\n") || out.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q", args, code, errb.String(), out.String())
		}
	}
}
