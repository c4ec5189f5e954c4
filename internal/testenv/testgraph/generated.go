package testgraph

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// Generated returns a generated graph of 20,000 nodes (74 of them
// isolated) and 100,000 edges with power-law degrees and communities: the
// bench's generate.SBM(SBMOptions{Nodes: 20000, AvgDegree: 10, Seed: 3}),
// stored as "u v" lines in testdata/sbm20000.edges.gz because the
// product's tests do not import the bench (the bench's
// TestGeneratedFixture checks that it is that graph). Node i has key i.
func Generated() (*graph.Graph, error) {
	const nodes = 20000
	_, file, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(file), "testdata", "sbm20000.edges.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var edges [][2]int
	sc := bufio.NewScanner(z)
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		var e [2]int
		if _, err := fmt.Sscan(sc.Text(), &e[0], &e[1]); err != nil {
			return nil, fmt.Errorf("testgraph: sbm20000.edges line %d: %w", line, err)
		}
		edges = append(edges, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return graph.NewGraph(nodes, edges)
}
