package score_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// Score with the combined method fits the same embedding as FONDUE and
// ranks by CombineByDegree of SplitDisconnection on it; FONDUE's own scores
// stay those of FondueScores.
func TestScoreCombinedMatchesParts(t *testing.T) {
	g := testkit.ReadGraph(t, "lesmis")
	ctx := context.Background()
	f, err := fondue.Score(ctx, g, fondue.Options{Method: score.MethodFONDUE, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	c, err := fondue.Score(ctx, g, fondue.Options{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != score.MethodCombined || c.Embedding == nil || c.Prior == nil {
		t.Fatalf("default method %q, embedding %v", c.Method, c.Embedding != nil)
	}
	fs, disc, err := score.SplitDisconnection(ctx, g, f.Embedding, score.SignParams{T: 100, Normalize: true, Polish: false, Seed: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	eff, err := score.EffectivePieces(ctx, g, nil, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	ev := score.GraphEvidence(disc, eff)
	want := score.CombineByDegree(g, fs, ev, score.DisconnectionWeight(g, ev))
	for i := range want {
		if c.Scores[i] != want[i] || f.Scores[i] != fs[i] {
			t.Fatalf("node %d: combined %v want %v; fondue %v want %v", i, c.Scores[i], want[i], f.Scores[i], fs[i])
		}
	}
}

// The weight is what it is meant to be on the two kinds of graph, with
// the splits of a CNE fit: 1 on a knit graph (les Misérables, where the
// median split has no disconnected pair across it), near 0 on a sparse
// random graph, where any two neighbours of a node are strangers.
func TestDisconnectionWeightKnitAndTreeLike(t *testing.T) {
	ctx := context.Background()
	weight := func(g *graph.Graph) float64 {
		res, err := fondue.Score(ctx, g, fondue.Options{Method: score.MethodFONDUE, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, disc, err := score.SplitDisconnection(ctx, g, res.Embedding, score.SignParams{T: 100, Normalize: true, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		eff, err := score.EffectivePieces(ctx, g, nil, 1, true)
		if err != nil {
			t.Fatal(err)
		}
		return score.DisconnectionWeight(g, score.GraphEvidence(disc, eff))
	}
	if w := weight(testkit.ReadGraph(t, "lesmis")); w != 1 {
		t.Errorf("lesmis: weight %v, want 1", w)
	}
	// A G(n, p) graph of 3000 nodes and average degree 6: locally a tree.
	w := weight(testkit.RandomGraph(3000, 0.002, 0, 5))
	t.Logf("sparse random graph: weight %v", w)
	if w > 0.1 {
		t.Errorf("sparse random graph: weight %v, want at most 0.1", w)
	}
}

// Score says how sure the combined ranking's top 1% is, the same for any
// number of workers (and its top 100 on graphs of more than 100 nodes);
// FONDUE alone, with no second signal, says nothing.
func TestScoreSure(t *testing.T) {
	g := testkit.ReadGraph(t, "lesmis")
	ctx := context.Background()
	var sure [][]score.Sure
	for _, w := range []int{1, 3} {
		res, err := fondue.Score(ctx, g, fondue.Options{Seed: 2, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		sure = append(sure, res.Sure)
	}
	// 77 nodes: the top 1% is 1 place, and no top 100; chance fills at
	// most all of it (10 shuffles, a whole number of tenths).
	if len(sure[0]) != 1 {
		t.Fatalf("lesmis: %+v, want the top 1%% only", sure[0])
	}
	if s := sure[0][0]; s.Top != 1 || !s.OnePercent || s.Chance < 0 || s.Chance*10 != math.Round(s.Chance*10) {
		t.Errorf("lesmis: %+v, want top 1 and a chance in tenths", s)
	}
	if !slices.Equal(sure[0], sure[1]) {
		t.Errorf("1 worker %+v, 3 workers %+v", sure[0], sure[1])
	}
	res, err := fondue.Score(ctx, g, fondue.Options{Method: score.MethodFONDUE, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sure != nil {
		t.Errorf("fondue: Sure %+v, want nil", res.Sure)
	}
}
