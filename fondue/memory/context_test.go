package memory

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/neo4jcsv"
)

// The estimate counts the context (ForContext, for score and sync alike):
// the kinds, the evidence properties, the structural graph, the pieces and
// the evidence fingerprints.
func TestContextMemory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nodes := write("nodes.csv", "uid:ID,year:int,title,:LABEL\na0,,,Author\na1,,,Author\na2,,,Author\n"+
		"p0,2001,graph cuts,Paper\np1,2002,spectral,Paper\np2,2003,ego,Paper\nv0,,,Venue\nv1,,,Venue\n")
	rels := write("rels.csv", ":START_ID,:END_ID,:TYPE\na0,p0,WROTE\na1,p0,WROTE\na1,p1,WROTE\na2,p1,WROTE\na0,p2,WROTE\n"+
		"p0,v0,PUBLISHED_IN\np1,v0,PUBLISHED_IN\np2,v1,PUBLISHED_IN\n")
	kg, err := neo4jcsv.Read(context.Background(), neo4jcsv.Options{Nodes: []string{nodes}, Relationships: []string{rels},
		ScoreLabels: []string{"Author"}, EvidenceProperties: []string{"year", "title"}})
	if err != nil {
		t.Fatal(err)
	}
	got := ForContext(kg.Graph, fondue.Options{Targets: kg.Targets, Context: kg.Context})
	// 8 nodes; authors and papers are structural: 6 nodes, the 5 WROTE.
	want := []Part{
		{Name: "context: the nodes' kinds", Bytes: 4 * 8},
		{Name: "context: evidence properties", Bytes: 8*8 + 16*8 + (10+8+3)*5/4},
		{Name: "context: the structural graph", Bytes: 8*5 + 8*7 + 56*6 + 9*8},
		{Name: "context: pieces and profiles", Bytes: 96 * 5},
		{Name: "context: evidence fingerprints", Bytes: 28 * 6},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("context memory\n%v, want\n%v", got, want)
	}
	// What the context holds itself: the kinds and the values.
	if held := HeldByContext(kg.Graph, fondue.Options{Targets: kg.Targets, Context: kg.Context}); !slices.Equal(held, want[:2]) {
		t.Fatalf("held by the context\n%v, want\n%v", held, want[:2])
	}
	if ForContext(kg.Graph, fondue.Options{}) != nil {
		t.Fatal("memory counted for a Context without one")
	}
}
