package neo4jcsv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Any bytes as a node file and a relationship file: a graph whose per-node
// data fits it, or a *ParseError that names the file; never a panic.
func FuzzRead(f *testing.F) {
	f.Add([]byte("p:ID(P),name,year:int,:LABEL\n1,Ann,1999,A;B\n2,\"B,b\",,A\n"), []byte(":START_ID(P),:END_ID(P),:TYPE\n1,2,W\n2,2,W\n"))
	f.Add([]byte("\xef\xbb\xbf:ID,title,tags:string[],x:IGNORE\n\"a\nb\",t,x;y,z\n1,,,\n"), []byte(":START_ID,:END_ID,:TYPE,w:float\n\"a\nb\",1,R,0.5\n"))
	f.Add([]byte("id:ID{id-type:string},year:date\nx,2020-01-02\n"), []byte(":END_ID,:START_ID,:TYPE\nx,x,R\n"))
	f.Fuzz(func(t *testing.T, nodes, rels []byte) {
		dir := t.TempDir()
		np, rp := filepath.Join(dir, "n.csv"), filepath.Join(dir, "r.csv")
		if os.WriteFile(np, nodes, 0o644) != nil || os.WriteFile(rp, rels, 0o644) != nil {
			t.Fatal("cannot write")
		}
		g, err := Read(context.Background(), Options{Nodes: []string{np}, Relationships: []string{rp},
			EvidenceProperties: []string{"year"}, ScoreLabels: nil})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if !strings.HasPrefix(err.Error(), pe.File+":") || pe.File != np && pe.File != rp && pe.File != "--evidence-properties" {
				t.Fatalf("error %q does not name a file", err)
			}
			return
		}
		n := g.Graph.NumNodes()
		if len(g.IDs) != n || len(g.Names) != n || len(g.Labels) != n || g.Context.Check(n) != nil {
			t.Fatalf("%d nodes, %d ids, %d names, %d labels, %v", n, len(g.IDs), len(g.Names), len(g.Labels), g.Context.Check(n))
		}
		for i := range n {
			k := g.Graph.Key(i)
			if j, ok := g.Graph.Index(k); !ok || j != i || g.IDs[i] == "" || !strings.HasPrefix(k, g.IDs[i]) {
				t.Fatalf("node %d: key %q id %q maps back to %d, %v", i, k, g.IDs[i], j, ok)
			}
		}
	})
}
