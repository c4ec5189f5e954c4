package neo4jcsv

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// files writes name -> content into a temporary folder and returns the paths.
func files(t testing.TB, dir string, kv ...string) []string {
	t.Helper()
	var out []string
	for k := 0; k < len(kv); k += 2 {
		p := filepath.Join(dir, kv[k])
		if err := os.WriteFile(p, []byte(kv[k+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// A small graph with every header feature: ID spaces, an id used in two
// spaces, several labels, typed and array columns, :IGNORE, quoting, a
// byte-order mark, duplicate relationships and a self-loop.
func TestReadSmall(t *testing.T) {
	dir := t.TempDir()
	nodes := files(t, dir,
		"people.csv", "\xef\xbb\xbfpid:ID(Person),name,born:date,:LABEL,skip:IGNORE,tags:string[]\n"+
			"1,\"Smith, J.\",1970-07-01,Person;Author,x,a;b\n"+
			"2,\"Doe \"\"JD\"\" J.\",,Author;Person,y,\n"+
			"3,,,Person,z,c\n",
		"docs.csv", ":ID(Doc),title,year:int,score:double,ok:boolean,:LABEL\n"+
			"1,\"A title\nover two lines\",2001,0.5,true,Doc\n"+
			"d2,Another,,-1e3,false,Doc\n",
		"misc.csv", "id:ID,name:string\nm1,Thing\n")
	rels := files(t, dir,
		"wrote.csv", ":START_ID(Person),:END_ID(Doc),:TYPE,since:int\n1,1,WROTE,3\n2,1,WROTE,\n1,1,WROTE,4\n2,d2,WROTE,\n",
		"knows.csv", ":END_ID(Person),:START_ID(Person),:TYPE\n1,2,KNOWS\n2,1,KNOWS\n3,3,KNOWS\n",
		"about.csv", ":START_ID(Doc),:END_ID,:TYPE\nd2,m1,ABOUT\n")
	g, err := Read(context.Background(), Options{Nodes: nodes, Relationships: rels, ScoreLabels: []string{"Author"},
		EvidenceProperties: []string{"born", "year", "score", "tags", "title", "pid"}})
	if err != nil {
		t.Fatal(err)
	}
	gr := g.Graph
	if gr.NumNodes() != 6 || gr.NumEdges() != 5 || gr.Duplicates() != 2 || gr.SelfLoops() != 1 {
		t.Fatalf("%d nodes, %d edges, %d duplicates, %d self-loops; want 6, 5, 2, 1", gr.NumNodes(), gr.NumEdges(), gr.Duplicates(), gr.SelfLoops())
	}
	idx := func(key string) int {
		i, ok := gr.Index(key)
		if !ok {
			t.Fatalf("no node %q", key)
		}
		return i
	}
	p1, p2, p3, d1, d2, m1 := idx("1 (Person)"), idx("2"), idx("3"), idx("1 (Doc)"), idx("d2"), idx("m1")
	for _, e := range [][2]int{{p1, d1}, {p2, d1}, {p2, d2}, {p1, p2}, {d2, m1}} {
		if !gr.HasEdge(e[0], e[1]) {
			t.Errorf("edge %s-%s missing", g.IDs[e[0]], g.IDs[e[1]])
		}
	}
	if g.IDs[p1] != "1" || g.IDs[d1] != "1" || g.Names[p1] != "Smith, J." || g.Names[p2] != `Doe "JD" J.` || g.Names[p3] != "" ||
		g.Names[d1] != "A title\nover two lines" || g.Names[m1] != "Thing" {
		t.Errorf("ids %q %q, names %q", g.IDs[p1], g.IDs[d1], g.Names)
	}
	if !g.Targets[p1] || !g.Targets[p2] || g.Targets[p3] || g.Targets[d1] || g.Targets[m1] {
		t.Errorf("targets %v", g.Targets)
	}
	c := g.Context
	kind := func(i int) string {
		if c.Kind[i] < 0 {
			return "-"
		}
		return c.Kinds[c.Kind[i]]
	}
	if kind(p1) != "Author:Person" || kind(p2) != "Author:Person" || kind(p3) != "Person" || kind(d1) != "Doc" || kind(m1) != "-" {
		t.Errorf("kinds %q %q %q %q %q", kind(p1), kind(p2), kind(p3), kind(d1), kind(m1))
	}
	if strings.Join(g.Labels[p2], ";") != "Author;Person" {
		t.Errorf("labels of 2: %v", g.Labels[p2])
	}
	ps := c.Properties
	want := []struct {
		name    string
		numeric bool
	}{{"born", true}, {"year", true}, {"score", true}, {"tags", false}, {"title", false}, {"pid", false}}
	for k, w := range want {
		if ps[k].Name != w.name || ps[k].Numeric != w.numeric {
			t.Fatalf("property %d: %s numeric %v, want %s %v", k, ps[k].Name, ps[k].Numeric, w.name, w.numeric)
		}
	}
	if b := ps[0].Number[p1]; b < 1970.49 || b > 1970.51 || !math.IsNaN(ps[0].Number[p2]) || !math.IsNaN(ps[0].Number[d1]) {
		t.Errorf("born %v", ps[0].Number)
	}
	if ps[1].Number[d1] != 2001 || !math.IsNaN(ps[1].Number[d2]) || ps[2].Number[d2] != -1000 {
		t.Errorf("year %v score %v", ps[1].Number, ps[2].Number)
	}
	if ps[3].Text[p1] != "a;b" || ps[3].Text[p2] != "" || ps[4].Text[d2] != "Another" || ps[5].Text[p3] != "3" || ps[5].Text[d1] != "" {
		t.Errorf("tags %q title %q pid %q", ps[3].Text, ps[4].Text, ps[5].Text)
	}
	// No score labels: every node is scored (nil Targets).
	g, err = Read(context.Background(), Options{Nodes: nodes, Relationships: rels})
	if err != nil || g.Targets != nil || len(g.Context.Properties) != 0 {
		t.Fatalf("no score labels: %v, targets %v", err, g.Targets)
	}
}

// Every malformed input is a *ParseError naming the file and line, in the
// user's words.
func TestReadErrors(t *testing.T) {
	const people = "p:ID(P),name,year:int,:LABEL\n1,Ann,1999,Person\n2,Bob,,Person\n"
	const docs = ":ID(D),title,:LABEL\n1,T,Doc\n"
	cases := []struct {
		name  string
		nodes []string // name, content pairs
		rels  []string
		ev    []string
		score []string
		file  string
		line  int
		msg   string
	}{
		{"missing end id", []string{"p.csv", people, "d.csv", docs}, []string{"r.csv", ":START_ID(P),:END_ID(D),:TYPE\n1,1,W\n2,7,W\n"}, nil, nil,
			"r.csv", 3, `:END_ID "7" is not a node of ID space D`},
		{"id of another space", []string{"p.csv", people, "d.csv", docs}, []string{"r.csv", ":START_ID(P),:END_ID(D),:TYPE\n1,2,W\n"}, nil, nil,
			"r.csv", 2, `:END_ID "2" is not a node of ID space D (it is one of ID space P)`},
		{"unknown space", []string{"p.csv", people}, []string{"r.csv", ":START_ID(P),:END_ID(X),:TYPE\n1,2,W\n"}, nil, nil,
			"r.csv", 2, `no node file has the ID space X`},
		{"duplicate id", []string{"p.csv", people + "1,Cy,,Person\n"}, nil, nil, nil,
			"p.csv", 4, `id "1" is already a node of ID space P`},
		{"duplicate id across files", []string{"p.csv", people, "q.csv", "q:ID(P)\n2\n"}, nil, nil, nil,
			"q.csv", 2, `id "2" is already a node of ID space P`},
		{"empty id", []string{"p.csv", people + ",Cy,,Person\n"}, nil, nil, nil, "p.csv", 4, "the :ID column (p:ID(P)) is empty"},
		{"empty start id", []string{"p.csv", people}, []string{"r.csv", ":START_ID(P),:END_ID(P),:TYPE\n,2,W\n"}, nil, nil,
			"r.csv", 2, "the :START_ID column is empty"},
		{"empty type", []string{"p.csv", people}, []string{"r.csv", ":START_ID(P),:END_ID(P),:TYPE\n1,2,\n"}, nil, nil,
			"r.csv", 2, "the :TYPE column is empty"},
		{"too few columns", []string{"p.csv", people + "3,Cy\n"}, nil, nil, nil, "p.csv", 4, "the header has 4 columns"},
		{"too many columns", []string{"p.csv", people}, []string{"r.csv", ":START_ID(P),:END_ID(P),:TYPE\n1,2,W,x\n"}, nil, nil,
			"r.csv", 2, "the header has 3 columns"},
		{"not a number", []string{"p.csv", people + "3,Cy,nineteen,Person\n"}, nil, []string{"year"}, nil,
			"p.csv", 4, `year: "nineteen" is not a whole number (column year:int)`},
		{"not a date", []string{"p.csv", "p:ID,born:date\n1,soon\n"}, nil, []string{"born"}, nil,
			"p.csv", 2, `born: "soon" is not a date`},
		{"bare quote", []string{"p.csv", people + "3,C\"y,,Person\n"}, nil, nil, nil, "p.csv", 4, "a quote inside a field"},
		{"open quote", []string{"p.csv", people + "3,\"Cy,,Person\n"}, nil, nil, nil, "p.csv", 4, "quoted field is not closed"},
		{"empty file", []string{"p.csv", ""}, nil, nil, nil, "p.csv", 1, "empty file"},
		{"unknown type", []string{"p.csv", "p:ID,year:integer\n"}, nil, nil, nil, "p.csv", 1, `unknown type "integer"`},
		{"no id column", []string{"p.csv", "name,:LABEL\nAnn,P\n"}, nil, nil, nil, "p.csv", 1, "needs an :ID column"},
		{"two id columns", []string{"p.csv", "a:ID,b:ID\n1,2\n"}, nil, nil, nil, "p.csv", 1, "two :ID columns"},
		{"same property twice", []string{"p.csv", "a:ID,n,n:int\n1,2,3\n"}, nil, nil, nil, "p.csv", 1, `property "n" in two columns`},
		{"unnamed column", []string{"p.csv", "a:ID,,n\n1,2,3\n"}, nil, nil, nil, "p.csv", 1, `has no property name`},
		{"relationship file as nodes", []string{"p.csv", ":START_ID,:END_ID,:TYPE\n1,2,W\n"}, nil, nil, nil, "p.csv", 1, "give it with --relationships"},
		{"node file as relationships", []string{"p.csv", people}, []string{"r.csv", people}, nil, nil, "r.csv", 1, "give it with --nodes"},
		{"no type column", []string{"p.csv", people}, []string{"r.csv", ":START_ID(P),:END_ID(P)\n1,2\n"}, nil, nil, "r.csv", 1, "needs a :TYPE column"},
		{"space on a label", []string{"p.csv", "a:ID,:LABEL(X)\n1,P\n"}, nil, nil, nil, "p.csv", 1, "only :ID, :START_ID and :END_ID take an ID space"},
		{"evidence nowhere", []string{"p.csv", people, "d.csv", docs}, nil, []string{"year", "venue"}, nil,
			"--evidence-properties", 0, `no node file has a property "venue" (node files: `},
		{"score label nowhere", []string{"p.csv", people}, nil, nil, []string{"Author"},
			"--score-labels", 0, `no node has the label "Author" (labels in the node files: Person)`},
		{"a space's name taken by an id", []string{"p.csv", ":ID(P)\nx\n", "d.csv", ":ID(D)\nx\n", "e.csv", ":ID\nx (D)\n"}, nil, nil, nil,
			"e.csv", 2, `id "x (D)" is the name given to id "x" of ID space D`},
		{"an id taken by a space's name", []string{"e.csv", ":ID\nx (D)\n", "p.csv", ":ID(P)\nx\n", "d.csv", ":ID(D)\nx\n"}, nil, nil, nil,
			"d.csv", 2, `id "x" of ID space D is named "x (D)", which is the id of another node`},
		{"missing file", []string{"p.csv", people}, []string{"nope.csv", ""}, nil, nil, "nope.csv", 0, "cannot be read: no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			o := Options{Nodes: files(t, dir, c.nodes...), Relationships: files(t, dir, c.rels...), EvidenceProperties: c.ev, ScoreLabels: c.score}
			if c.name == "missing file" {
				os.Remove(o.Relationships[0])
			}
			_, err := Read(context.Background(), o)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			if filepath.Base(pe.File) != c.file || pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) {
				t.Fatalf("got %q (file %s line %d), want %s:%d containing %q", err, pe.File, pe.Line, c.file, c.line, c.msg)
			}
			if c.line > 0 && !strings.HasPrefix(err.Error(), pe.File+":"+strconv.Itoa(c.line)+": ") {
				t.Fatalf("message %q is not file:line: what", err)
			}
		})
	}
}

// A cancelled context stops the read.
func TestReadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, kgOptions()); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// NameProperty keeps one property's values per node, "" where a node (or
// its file) has none; naming a property no node file has is a
// *ParseError of the flag.
func TestReadNameProperty(t *testing.T) {
	dir := t.TempDir()
	nodes := files(t, dir,
		"a.csv", "uid:ID(A),name,alias,:LABEL\na1,\"Bilmes, Jeff\",JB,Author\na2,Jeffrey Bilmes,,Author\n",
		"p.csv", "uid:ID(P),title,:LABEL\np1,On graphs,Paper\n")
	for prop, want := range map[string][]string{
		"name":  {"Bilmes, Jeff", "Jeffrey Bilmes", ""},
		"alias": {"JB", "", ""},
		"title": {"", "", "On graphs"},
	} {
		g, err := Read(context.Background(), Options{Nodes: nodes, NameProperty: prop})
		if err != nil {
			t.Fatal(err)
		}
		for k, id := range []string{"a1", "a2", "p1"} {
			i, _ := g.Graph.Index(id)
			if g.NameValues[i] != want[k] {
				t.Errorf("%s of %s = %q, want %q", prop, id, g.NameValues[i], want[k])
			}
		}
	}
	if g, err := Read(context.Background(), Options{Nodes: nodes}); err != nil || g.NameValues != nil {
		t.Errorf("without NameProperty: %v, %q", err, g.NameValues)
	}
	_, err := Read(context.Background(), Options{Nodes: nodes, NameProperty: "fullname"})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != "--name-property" || !strings.Contains(pe.Msg, `no node file has a property "fullname"`) {
		t.Errorf("missing property: %v", err)
	}
}

// The relationships' ends are looked up in batches on all cores: the error
// is still the first bad row's in file order, within a batch, across its
// chunks and across batches, and the graph holds every edge.
func TestReadRelationshipsInBatches(t *testing.T) {
	const nodes = ":ID\n0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	rows := relBatch + relBatch/2
	rels := func(bad map[int]string) string {
		var sb strings.Builder
		sb.WriteString(":START_ID,:END_ID,:TYPE\n")
		for i := range rows {
			if row, ok := bad[i]; ok {
				sb.WriteString(row + "\n")
				continue
			}
			fmt.Fprintf(&sb, "%d,%d,R\n", i%10, (i/10)%10)
		}
		return sb.String()
	}
	dir := t.TempDir()
	g, err := Read(context.Background(), Options{Nodes: files(t, dir, "n.csv", nodes), Relationships: files(t, dir, "r.csv", rels(nil))})
	if err != nil {
		t.Fatal(err)
	}
	if e := g.Graph.NumEdges(); e != 45 { // every pair of 10 nodes, loops apart
		t.Fatalf("%d edges, want 45", e)
	}
	late := relBatch + 3*relChunk + 5 // a later batch, a later chunk
	cases := []struct {
		name string
		bad  map[int]string
		line int
		msg  string
	}{
		{"missing id, second batch", map[int]string{late: "1,x,R"}, late + 2, `:END_ID "x"`},
		{"missing id before an empty type", map[int]string{2*relChunk + 1: "y,1,R", 3 * relChunk: "1,2,"}, 2*relChunk + 3, `:START_ID "y"`},
		{"empty type before a missing id", map[int]string{relChunk - 1: "1,2,", relChunk + 1: "y,1,R"}, relChunk + 1, "the :TYPE column is empty"},
		{"two missing ids, later chunk first", map[int]string{relChunk + 7: "1,b,R", relChunk - 7: "a,1,R"}, relChunk - 5, `:START_ID "a"`},
	}
	for _, c := range cases {
		_, err := Read(context.Background(), Options{Nodes: files(t, dir, "n.csv", nodes), Relationships: files(t, dir, "r.csv", rels(c.bad))})
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) {
			t.Fatalf("%s: got %v, want line %d, %q", c.name, err, c.line, c.msg)
		}
	}
}
