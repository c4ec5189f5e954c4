package scale

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/neo4jcsv"
)

// A KG case's files: the planted nodes are authors, venues and keywords
// are context (no author links to one), and the year is a property.
func TestWriteKG(t *testing.T) {
	c, err := ParseCase("kg:400:4")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "kg")
	p := &prepared{labels: base + ".labels", kgNodes: base + ".nodes.csv", kgRels: base + ".rels.csv"}
	if err := writeKG(c, Config{Ratio: 0.02, Seed: 3}, p); err != nil {
		t.Fatal(err)
	}
	kg, err := neo4jcsv.Read(context.Background(), neo4jcsv.Options{Nodes: []string{p.kgNodes}, Relationships: []string{p.kgRels},
		ScoreLabels: []string{"Author"}, EvidenceProperties: []string{"year"}})
	if err != nil {
		t.Fatal(err)
	}
	label := func(i int) string { return kg.Labels[i][0] }
	index := map[string]int{}
	counts := map[string]int{}
	for i, id := range kg.IDs {
		index[id] = i
		counts[label(i)]++
	}
	if counts["Author"] != 392 || counts["Keyword"] != kgHubs || counts["Venue"] == 0 || counts["Paper"] < 600 {
		t.Fatalf("node counts %v", counts)
	}
	lb, err := os.ReadFile(p.labels)
	if err != nil {
		t.Fatal(err)
	}
	planted := strings.Fields(string(lb))
	if len(planted) != 8 {
		t.Fatalf("%d planted nodes, want 8", len(planted))
	}
	for _, k := range planted {
		if i, ok := index[k]; !ok || !kg.Targets[i] {
			t.Fatalf("planted node %s is no author", k)
		}
	}
	g := kg.Graph
	for i := range g.NumNodes() {
		switch label(i) {
		case "Author":
			for _, j := range g.Neighbors(i) {
				if label(int(j)) != "Paper" {
					t.Fatalf("author %s links to %s %s", kg.IDs[i], label(int(j)), kg.IDs[j])
				}
			}
		case "Paper":
			if g.Degree(i) != 4 || kg.Context.Properties[0].Number[i] < 1980 {
				t.Fatalf("paper %s: degree %d, year %v", kg.IDs[i], g.Degree(i), kg.Context.Properties[0].Number[i])
			}
		}
	}
}
