package fondue

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/errs"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/mcl"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// Score refuses, before any fitting, what cannot give a meaningful result:
// a graph without edges, an embedding with as many dimensions as nodes, and
// a warm start from a checkpoint of another graph.
func TestScoreRefuses(t *testing.T) {
	ctx := context.Background()
	loops := testkit.NewGraph(3, [][2]int{{0, 0}, {1, 1}})
	if _, err := Score(ctx, loops, Options{}); !errors.Is(err, ErrNothingToScore) {
		t.Fatalf("no edges: err = %v, want ErrNothingToScore", err)
	}
	g, err := testkit.ReadEdgesFile("testdata/karate.edges")
	if err != nil {
		t.Fatal(err)
	}
	var oe *errs.OptionsError
	if _, err := Score(ctx, g, Options{CNE: cne.Options{Dim: 1000}}); !errors.As(err, &oe) || !strings.Contains(err.Error(), "not smaller than the graph's 34 nodes") {
		t.Fatalf("dim 1000 on karate: err = %v", err)
	}
	if _, err := Score(ctx, g, Options{Method: score.MethodDegree, CNE: cne.Options{Dim: 1000}}); err != nil {
		t.Fatalf("a baseline has no embedding: %v", err)
	}
	// The default dimension works on any graph, a triangle included;
	// beyond it, the dimension must be below the node count.
	triangle := testkit.NewGraph(3, [][2]int{{0, 1}, {1, 2}, {2, 0}})
	if _, err := Score(ctx, triangle, Options{CNE: cne.Options{MaxEpochs: 10}}); err != nil {
		t.Fatalf("default dimension on a triangle: %v", err)
	}
	if _, err := Score(ctx, g, Options{CNE: cne.Options{Dim: 33, MaxEpochs: 10}}); err != nil {
		t.Fatalf("dimension 33 on 34 nodes: %v", err)
	}
	if _, err := Score(ctx, g, Options{CNE: cne.Options{Dim: 34}}); !errors.As(err, &oe) {
		t.Fatalf("dimension 34 on 34 nodes: %v", err)
	}

	// A checkpoint whose ids are mostly not karate's: another graph's.
	res, err := Score(ctx, g, Options{Seed: 1, CNE: cne.Options{MaxEpochs: 20}})
	if err != nil {
		t.Fatal(err)
	}
	ck := res.Checkpoint(g, Options{})
	ck.File = "other.ck"
	for k := 5; k < ck.Len(); k++ {
		ck.Keys[k] = "other-" + ck.Keys[k]
	}
	var we *WarmStartError
	_, err = Score(ctx, g, Options{WarmStart: ck, WarmStartMinShare: 0.5, CNE: cne.Options{MaxEpochs: 5}})
	if !errors.As(err, &we) || we.Shared != 5 || we.Union != 63 ||
		!strings.Contains(err.Error(), "checkpoint other.ck and the graph share 5 of their 63 nodes (8%), less than 50%") {
		t.Fatalf("warm start from another graph: err = %v", err)
	}
	// Without a minimum share, or at it, the checkpoint is used.
	for _, min := range []float64{0, 5.0 / 63} {
		r, err := Score(ctx, g, Options{WarmStart: ck, WarmStartMinShare: min, CNE: cne.Options{MaxEpochs: 5}})
		if err != nil || r.Warm == nil || r.Warm.Reused != 5 {
			t.Fatalf("min share %g: %v", min, err)
		}
	}
}

// Invalid MCL options are refused with an *OptionsError, by Score before
// the fit and by ProposeSplits, for every splitter that clusters with MCL.
func TestInvalidMCLOptionsRefused(t *testing.T) {
	ctx := context.Background()
	g, err := testkit.ReadEdgesFile("testdata/karate.edges")
	if err != nil {
		t.Fatal(err)
	}
	bad := mcl.Options{Inflation: 0.5}
	var oe *errs.OptionsError
	for _, sp := range []split.Splitter{split.Find(split.Splitters(), split.NCut), split.Find(split.Splitters(), split.MCL)} {
		opts := Options{Method: score.MethodDegree, Split: SplitOptions{Splitter: sp, Top: 3, MCL: bad}}
		if res, err := Score(ctx, g, opts); !errors.As(err, &oe) || res != nil {
			t.Errorf("%s: Score = %v, %v; want an *OptionsError", sp.Name(), res, err)
		}
		res, err := Score(ctx, g, Options{Method: score.MethodDegree})
		if err != nil {
			t.Fatal(err)
		}
		if props, err := ProposeSplits(ctx, g, res, res.Ranking()[:3], opts); !errors.As(err, &oe) || props != nil {
			t.Errorf("%s: ProposeSplits = %v, %v; want an *OptionsError", sp.Name(), props, err)
		}
	}
}
