package connector

import (
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// TestLocalClusteringMatchesGDS: the coefficients behind the lcc baseline
// (fondue.LocalClustering) equal gds.localClusteringCoefficient's on a real
// graph (netscience: 379 authors, 914 co-authorships), node by node, on
// each server with its own GDS.
func TestLocalClusteringMatchesGDS(t *testing.T) {
	reset(t)
	g := loadEdgeList(t, "testdata/netscience.edges", "Author", "COAUTHOR", "uid")
	ours, err := score.LocalClustering(context.Background(), g, 2)
	if err != nil {
		t.Fatal(err)
	}
	recs := run(t, `CALL gds.graph.project('lcc', 'Author', {COAUTHOR: {orientation: 'UNDIRECTED'}}) YIELD nodeCount
		CALL gds.localClusteringCoefficient.stream('lcc') YIELD nodeId, localClusteringCoefficient
		RETURN gds.util.asNode(nodeId).uid AS uid, localClusteringCoefficient AS c`, nil)
	if len(recs) != g.NumNodes() {
		t.Fatalf("GDS scored %d nodes, the graph has %d", len(recs), g.NumNodes())
	}
	between := 0
	for _, r := range recs {
		uid, _ := r.Values[0].(int64)
		c, _ := r.Values[1].(float64)
		i, ok := g.Index(strconv.FormatInt(uid, 10))
		if !ok {
			t.Fatalf("GDS node uid %d is not in the graph", uid)
		}
		if math.Abs(ours[i]-c) > 1e-12 {
			t.Errorf("uid %d (degree %d): ours %.15f, GDS %.15f", uid, g.Degree(i), ours[i], c)
		}
		if c > 0 && c < 1 {
			between++
		}
	}
	if between < 50 {
		t.Fatalf("only %d coefficients strictly between 0 and 1: not a real test", between)
	}
}
