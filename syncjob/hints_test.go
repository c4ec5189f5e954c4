package syncjob_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/memstore"
)

// Nodes that none of the display properties names: the run says how many,
// their labels, and which of their properties would name them.
func TestSyncSuggestsDisplayProperties(t *testing.T) {
	s := memstore.New()
	var authors, papers []string
	for k := range 6 {
		authors = append(authors, s.AddNode([]string{"Author"}, map[string]any{"uid": int64(k), "name": "author " + string(rune('A'+k))}))
		papers = append(papers, s.AddNode([]string{"Paper"}, map[string]any{"uid": int64(100 + k), "title": "paper " + string(rune('A'+k))}))
	}
	for k := range 6 {
		for d := range 3 {
			s.AddRel(authors[k], papers[(k+d)%6], "WROTE", nil)
		}
	}
	var buf bytes.Buffer
	o := options("u1")
	o.Pull = syncjob.PullOptions{IDProperty: "uid", DisplayProperties: []string{"name"}}
	o.Split = false
	o.Log = slog.New(slog.NewTextHandler(&buf, nil))
	if _, err := syncjob.Sync(ctx(t), s, o); err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "none of the display properties") {
			line = l
		}
	}
	for _, want := range []string{"level=WARN", "nodes=6", "labels=[Paper]", "properties=[title]", "name,title"} {
		if !strings.Contains(line, want) {
			t.Errorf("no %q in the hint %q; log:\n%s", want, line, buf.String())
		}
	}
}

// With graph.display_property name,title every node of an author graph
// has a name: an author its name, a paper its title, a node with both
// its name (the first listed wins); and the run gives no hint.
func TestSyncDisplayPropertiesFirstWins(t *testing.T) {
	s := memstore.New()
	a := s.AddNode([]string{"Author"}, map[string]any{"uid": int64(1), "name": "J. Smith"})
	p := s.AddNode([]string{"Paper"}, map[string]any{"uid": int64(2), "title": "Graph cuts"})
	b := s.AddNode([]string{"Author"}, map[string]any{"uid": int64(3), "name": "A. Jones", "title": "Dr"})
	s.AddRel(a, p, "WROTE", nil)
	s.AddRel(b, p, "WROTE", nil)
	sg, err := s.Pull(ctx(t), syncjob.PullOptions{IDProperty: "uid", DisplayProperties: []string{"name", "title"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"1": "J. Smith", "2": "Graph cuts", "3": "A. Jones"}
	for i := range sg.Graph.NumNodes() {
		if k := sg.Keys[i].String(); sg.Names[i] != want[k] {
			t.Errorf("node %s named %q, want %q", k, sg.Names[i], want[k])
		}
	}
	if sg.Unnamed != nil {
		t.Errorf("unnamed nodes %+v, want none", sg.Unnamed)
	}
}
