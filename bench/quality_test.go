package bench

// Tests of fondue against the evaluation of package eval (contraction,
// AUC), the bench's: the engine's quality on planted ambiguity.

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// aucOf is eval.AUC with average ties, for scores and labels of one graph.
func aucOf(t *testing.T, scores []float64, labels []bool) float64 {
	t.Helper()
	auc, err := eval.AUC(scores, labels, eval.TiesAverage)
	if err != nil {
		t.Fatal(err)
	}
	return auc
}

// The paper's evaluation on two small real graphs: contract r = 10% of the
// nodes into pairs (fixed seeds), score, and compare AUCs. FONDUE must reach
// floors within 0.02 of the measured AUC (paper: .868 and .897) and beat the
// degree baseline; the combined method must reach its floors and beat the best of the
// four baselines by 0.01 (issue 12's per-cell target). It need not beat
// FONDUE here: on polbooks, where nearly all pairs are within two hops, it
// does not (README, "Which method to pick").
func TestQualityContractedGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("quality check runs CNE 20 times")
	}
	// Measured (10-seed means, fixed seeds, deterministic) with the default
	// smoothed start and stability stop: polbooks FONDUE 0.909, combined
	// 0.895; netscience FONDUE 0.920, combined 0.925 (before issue 11:
	// 0.9080, 0.8945; 0.9204, 0.9262). The floors are 0.02 below (or closer).
	// Reading the scores within degree (issue 32) moved combined to 0.872
	// on polbooks, 0.921 on netscience: bench/RANKING.md says why.
	floors := map[string]float64{"polbooks": 0.890, "netscience": 0.901}
	combinedFloors := map[string]float64{"polbooks": 0.855, "netscience": 0.907}
	for _, name := range []string{"polbooks", "netscience"} {
		t.Run(name, func(t *testing.T) {
			g := readTestGraph(t, name)
			const seeds = 10
			var fondueAUC, combinedAUC float64
			base := map[string]float64{}
			for seed := uint64(0); seed < seeds; seed++ {
				c, err := eval.Contract(g, 0.1, seed)
				if err != nil {
					t.Fatal(err)
				}
				res, err := fondue.Score(context.Background(), c.Graph, fondue.Options{Method: score.MethodFONDUE, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				combined, err := fondue.ScoreEmbedding(context.Background(), c.Graph, res.Embedding, fondue.Options{Method: score.MethodCombined, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				combinedAUC += aucOf(t, combined, c.Ambiguous) / seeds
				fondueAUC += aucOf(t, res.Scores, c.Ambiguous) / seeds
				for _, m := range score.BaselineMethods() {
					b, err := fondue.Score(context.Background(), c.Graph, fondue.Options{Method: m})
					if err != nil {
						t.Fatal(err)
					}
					base[m] += aucOf(t, b.Scores, c.Ambiguous) / seeds
				}
			}
			best, bestName := 0.0, ""
			for m, a := range base {
				if a > best {
					best, bestName = a, m
				}
			}
			t.Logf("%s r=0.1, %d seeds: FONDUE AUC %.3f, combined %.3f, baselines %v", name, seeds, fondueAUC, combinedAUC, base)
			if fondueAUC < floors[name] || fondueAUC <= base["degree"] {
				t.Errorf("got FONDUE AUC %.4f, degree %.4f; want at least the floor %.3f and above degree", fondueAUC, base["degree"], floors[name])
			}
			if combinedAUC < combinedFloors[name] || combinedAUC < best+0.01 {
				t.Errorf("got combined AUC %.4f, best baseline %s %.4f; want at least the floor %.3f and the best baseline + .01", combinedAUC, bestName, best, combinedFloors[name])
			}
		})
	}
}

// A re-run on a graph with 1% of its edges changed, warm-started from the
// previous run's checkpoint, converges in far fewer epochs than a cold run,
// with the same ranking quality.
func TestWarmStartConvergesFaster(t *testing.T) {
	g := readTestGraph(t, "netscience")
	ct, err := eval.Contract(g, 0.1, 3)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sampled := cne.Options{Mode: cne.ModeSampled}
	first, err := fondue.Score(ctx, ct.Graph, fondue.Options{Seed: 1, CNE: sampled, KeepState: true})
	if err != nil {
		t.Fatal(err)
	}
	ck := first.Checkpoint(ct.Graph, fondue.Options{CNE: sampled})
	var buf bytes.Buffer
	if err := ck.Write(&buf); err != nil {
		t.Fatal(err)
	}
	ck, err = cne.ReadCheckpoint(&buf)
	if err != nil {
		t.Fatal(err)
	}
	changed := changeEdges(t, ct.Graph, 0.01, 4)
	cold, err := fondue.Score(ctx, changed, fondue.Options{Seed: 2, CNE: sampled})
	if err != nil {
		t.Fatal(err)
	}
	warm, err := fondue.Score(ctx, changed, fondue.Options{Seed: 2, CNE: sampled, WarmStart: ck})
	if err != nil {
		t.Fatal(err)
	}
	coldAUC := aucOf(t, cold.Scores, ct.Ambiguous)
	warmAUC := aucOf(t, warm.Scores, ct.Ambiguous)
	t.Logf("cold %d epochs AUC %.4f; warm %d epochs AUC %.4f (%+v)", cold.CNE.Epochs, coldAUC, warm.CNE.Epochs, warmAUC, *warm.Warm)
	if warm.Warm.Reused != changed.NumNodes() {
		t.Fatalf("warm start reused %d of %d nodes", warm.Warm.Reused, changed.NumNodes())
	}
	// The benchmark target is 5x on condmat05 (measured about 10x); this
	// small graph needs fewer cold epochs. Measured 12 vs 30 before issue
	// 11; with the smoothed start and the stability stop the cold fit (and
	// the checkpoint's) stops sooner, on a less settled embedding, and the
	// warm run takes 21 epochs against the cold run's 80, so assert 3x.
	if warm.CNE.Epochs*3 > cold.CNE.Epochs {
		t.Errorf("warm start took %d epochs, cold %d: want at least 3x fewer", warm.CNE.Epochs, cold.CNE.Epochs)
	}
	if warmAUC < coldAUC-0.02 {
		t.Errorf("warm AUC %.4f, cold %.4f", warmAUC, coldAUC)
	}
}

// readTestGraph reads testdata/NAME.edges.
func readTestGraph(t testing.TB, name string) *graph.Graph {
	t.Helper()
	g, _, err := edgelist.ReadFile(filepath.Join(testData, name+".edges"), edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// changeEdges returns g (same nodes and keys) with a share frac of its
// edges replaced by random ones.
func changeEdges(t testing.TB, g *graph.Graph, frac float64, seed uint64) *graph.Graph {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 9))
	n := g.NumNodes()
	var e [][2]int
	for i := 0; i < n; i++ {
		for _, j := range g.Neighbors(i) {
			if int(j) > i {
				e = append(e, [2]int{i, int(j)})
			}
		}
	}
	k := int(frac * float64(len(e)) / 2)
	r.Shuffle(len(e), func(a, b int) { e[a], e[b] = e[b], e[a] })
	e = e[k:]
	for range k {
		e = append(e, [2]int{r.IntN(n), r.IntN(n)})
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = g.Key(i)
	}
	h, err := graph.NewGraph(n, e)
	if err == nil {
		h, err = h.WithKeys(keys)
	}
	if err != nil {
		t.Fatal(err)
	}
	return h
}
