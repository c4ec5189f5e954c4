package filesource_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/filesource"
)

// file writes text to a file of the test's folder and returns its path.
func file(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPullErrors(t *testing.T) {
	loops := file(t, "loops.edges", "1 1\n2 2\n")
	bad := file(t, "bad.edges", "1 2\n3\n")
	list := file(t, "ids.txt", "# authors\n1\nnine\n")
	edges := file(t, "g.edges", "1 2\n2 3\n")
	for _, tc := range []struct {
		name string
		src  filesource.Source
		pull syncjob.PullOptions
		is   error
		want string
	}{
		{"self-loops only", filesource.Source{EdgeList: loops}, syncjob.PullOptions{}, syncjob.ErrEmpty,
			"edge list " + loops + ": nothing to score: its 2 edge lines are all self-loops (dropped)"},
		{"bad line", filesource.Source{EdgeList: bad}, syncjob.PullOptions{}, syncjob.ErrInvalid,
			bad + `:2: want 2 node ids ("u v"), found 1 field "3"`},
		{"no such file", filesource.Source{EdgeList: bad + ".not"}, syncjob.PullOptions{}, syncjob.ErrInvalid,
			"edge list " + bad + ".not: no such file"},
		{"a query", filesource.Source{EdgeList: edges}, syncjob.PullOptions{NodeQuery: "MATCH (n) RETURN n"}, syncjob.ErrInvalid,
			"PullOptions.NodeQuery chooses what to read from Neo4j: files are read whole"},
		{"labels of an edge list", filesource.Source{EdgeList: edges}, syncjob.PullOptions{WriteNodeLabels: []string{"A"}}, syncjob.ErrInvalid,
			"PullOptions.WriteNodeLabels and PullOptions.EvidenceProperties need the import files: an edge list has no labels or properties"},
		{"prefix of no node", filesource.Source{EdgeList: edges, Select: selection(t, "a:", "")}, syncjob.PullOptions{}, syncjob.ErrEmpty,
			`nothing to score: no node of the edge list is selected by --score-prefix "a:"`},
		{"listed id not in the graph", filesource.Source{EdgeList: edges, Select: selection(t, "", list)}, syncjob.PullOptions{}, syncjob.ErrInvalid,
			list + `:3: node "nine" is not in the edge list`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.src.Pull(context.Background(), tc.pull)
			if err == nil || err.Error() != tc.want || !isKind(err, tc.is) {
				t.Errorf("got %v, want %q (%v)", err, tc.want, tc.is)
			}
		})
	}
}

func selection(t *testing.T, prefix, file string) filesource.Selection {
	t.Helper()
	sel, err := filesource.ReadSelection(prefix, file)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func isKind(err, kind error) bool {
	return kind == syncjob.ErrEmpty && syncjob.IsEmpty(err) || kind == syncjob.ErrInvalid && syncjob.IsInvalid(err)
}

// TestScore runs the job's pipeline on a file: the same scores as the
// engine's on the graph read, the selection's targets, and an estimate
// that counts the file reader (FromFile) beside ForGraph's parts.
func TestScore(t *testing.T) {
	src := &filesource.Source{EdgeList: "../../testdata/lesmis.edges", Select: selection(t, "1", "")}
	var est memory.Estimate
	o := fondue.Options{Method: "degree"}
	sc, err := syncjob.Score(context.Background(), src, syncjob.Options{Score: o,
		Memory: syncjob.MemoryGuard{Limit: -1, Estimated: func(e memory.Estimate, _ int64) { est = e }}})
	if err != nil {
		t.Fatal(err)
	}
	g := sc.Subgraph.Graph
	targets := 0
	for i := range g.NumNodes() {
		want := g.Key(i)[0] == '1'
		if sc.Subgraph.IsTarget(i) != want {
			t.Fatalf("node %s: target %v, want %v", g.Key(i), !want, want)
		}
		if want {
			targets++
		}
	}
	if targets == 0 || targets == g.NumNodes() {
		t.Fatalf("%d targets of %d nodes: the selection should choose some", targets, g.NumNodes())
	}
	o.Targets = sc.Subgraph.Targets
	ref, err := fondue.Score(context.Background(), g, o)
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	if !slices.EqualFunc(sc.Result.Scores, ref.Scores, same) {
		t.Errorf("scores differ from fondue.Score's on the same graph and targets")
	}
	if sc.Summary.NodeCount != g.NumNodes() || sc.Summary.Scored.Nodes != len(ref.Ranking()) {
		t.Errorf("summary counts %d nodes, %d scored; want %d, %d", sc.Summary.NodeCount, sc.Summary.Scored.Nodes, g.NumNodes(), len(ref.Ranking()))
	}
	mo := memory.ForGraph(g, o)
	mo.FromFile = true
	if want := memory.Predict(int64(g.NumNodes()), int64(g.NumEdges()), mo); est.Peak != want.Peak {
		t.Errorf("estimated peak %d, want %d (ForGraph with FromFile)", est.Peak, want.Peak)
	}
	mo.FromFile = false
	if without := memory.Predict(int64(g.NumNodes()), int64(g.NumEdges()), mo); est.Peak <= without.Peak {
		t.Errorf("estimated peak %d does not count the reader (%d without)", est.Peak, without.Peak)
	}
}

// TestPullKG reads the import files: the write labels' nodes are the
// targets, names from name or title, the evidence in the context.
func TestPullKG(t *testing.T) {
	src := &filesource.Source{Nodes: []string{"../../testdata/kg/authors.csv", "../../testdata/kg/papers.csv"},
		Relationships: []string{"../../testdata/kg/wrote.csv"}}
	sg, err := src.Pull(context.Background(), syncjob.PullOptions{WriteNodeLabels: []string{"Author"}, EvidenceProperties: []string{"year"}})
	if err != nil {
		t.Fatal(err)
	}
	g := sg.Graph
	for _, c := range []struct{ key, name string }{{"a:1", "j. smith"}, {"p:1", "Fast joins on compressed column stores"}} {
		i, ok := g.Index(c.key)
		if !ok || sg.Names[i] != c.name || sg.IsTarget(i) != (c.key[0] == 'a') {
			t.Errorf("node %s: name %q, target %v; want %q, %v", c.key, sg.Names[i], sg.IsTarget(i), c.name, c.key[0] == 'a')
		}
	}
	if sg.Context == nil || len(sg.Context.Properties) != 1 || sg.Context.Properties[0].Name != "year" {
		t.Errorf("context %+v, want the evidence year", sg.Context)
	}
	_, err = src.Pull(context.Background(), syncjob.PullOptions{WriteNodeLabels: []string{"Venue"}})
	if want := `--score-labels: no node has the label "Venue" (labels in the node files: Author, Paper)`; err == nil || err.Error() != want || !syncjob.IsInvalid(err) {
		t.Errorf("a label no node has: got %v, want %q (ErrInvalid)", err, want)
	}
}

// TestProgress reports the bytes read every MiB, and once at the end.
func TestProgress(t *testing.T) {
	var b strings.Builder
	for i := range 300000 {
		fmt.Fprintf(&b, "%d %d\n", i, i+1)
	}
	var got [][2]int
	src := &filesource.Source{EdgeList: "-", Stdin: strings.NewReader(b.String()),
		Progress: func(done, total int) { got = append(got, [2]int{done, total}) }}
	if _, err := src.ReadEdgeList(); err != nil {
		t.Fatal(err)
	}
	n := b.Len()
	if len(got) < n>>20 || got[len(got)-1] != [2]int{n, n} {
		t.Fatalf("reports %v, want one a MiB of the %d bytes and [%d %d] last", got, n, n, n)
	}
	for _, r := range got[:len(got)-1] {
		if r[1] != 0 || r[0] >= n {
			t.Errorf("report %v before the end: want done < %d of an unknown total (0)", r, n)
		}
	}
}
