package fondue_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/eval"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/generate"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/testkit"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
)

// topOverlap is the share of a's top 1% (of the nodes scored in both)
// in b's, and spearman the rank correlation of a and b.
func topOverlap(a, b []float64) float64 {
	var ka, kb []float64
	for i := range a {
		if !math.IsNaN(a[i]) && !math.IsNaN(b[i]) {
			ka, kb = append(ka, a[i]), append(kb, b[i])
		}
	}
	top := (len(ka) + 99) / 100
	in := map[int]bool{}
	for _, i := range score.Ranking(kb)[:top] {
		in[i] = true
	}
	n := 0
	for _, i := range score.Ranking(ka)[:top] {
		if in[i] {
			n++
		}
	}
	return float64(n) / float64(top)
}

func spearman(a, b []float64) float64 {
	pa, pb := score.Percentiles(a), score.Percentiles(b)
	var n, ma, mb float64
	for i := range pa {
		if !math.IsNaN(pa[i]) && !math.IsNaN(pb[i]) {
			n++
			ma += pa[i]
			mb += pb[i]
		}
	}
	ma, mb = ma/n, mb/n
	var sab, saa, sbb float64
	for i := range pa {
		if !math.IsNaN(pa[i]) && !math.IsNaN(pb[i]) {
			sab += (pa[i] - ma) * (pb[i] - mb)
			saa += (pa[i] - ma) * (pa[i] - ma)
			sbb += (pb[i] - mb) * (pb[i] - mb)
		}
	}
	return sab / math.Sqrt(saa*sbb)
}

// TestIncrementalCloseToFull: on a block model with 5% of its nodes
// merged in pairs (planted ambiguity), a night after 1% of the links
// changed ranks as a full run on the changed graph does: its AUC of the
// planted merges, and its agreement with a warm-started full run.
func TestIncrementalCloseToFull(t *testing.T) {
	ctx := context.Background()
	base, err := generate.SBM(generate.SBMOptions{Nodes: 4000, AvgDegree: 10, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	c, err := eval.Contract(base, 0.05, 7)
	if err != nil {
		t.Fatal(err)
	}
	g := c.Graph
	opts := fondue.Options{Seed: 3, KeepState: true}
	first, err := fondue.Score(ctx, g, opts)
	if err != nil {
		t.Fatal(err)
	}
	st := first.State(g, opts)
	h := testkit.ChangeEdges(g, 0.01, 5)
	o := opts
	o.Since = st
	inc, err := fondue.Score(ctx, h, o)
	if err != nil {
		t.Fatal(err)
	}
	o = opts
	o.WarmStart = st.Checkpoint
	warm, err := fondue.Score(ctx, h, o)
	if err != nil {
		t.Fatal(err)
	}
	cold, err := fondue.Score(ctx, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	if inc.Incremental.Full || inc.Incremental.Rescored == h.NumNodes() {
		t.Fatalf("not incremental: %+v", inc.Incremental)
	}
	auc := func(s []float64) float64 {
		a, err := eval.AUC(s, c.Ambiguous, eval.TiesAverage)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	t.Logf("%+v", *inc.Incremental)
	var mv []float64
	for i := range h.NumNodes() {
		a, b := inc.Embedding.Row(i), st.Checkpoint.X[i*8:(i+1)*8]
		s := 0.0
		for k := range a {
			s += (a[k] - b[k]) * (a[k] - b[k])
		}
		if s > 0 {
			mv = append(mv, math.Sqrt(s))
		}
	}
	slices.Sort(mv)
	t.Logf("moves: %d, q10 %.4f q25 %.4f q50 %.4f q75 %.4f q90 %.4f", len(mv), mv[len(mv)/10], mv[len(mv)/4], mv[len(mv)/2], mv[len(mv)*3/4], mv[len(mv)*9/10])
	for _, tol := range []float64{-1, 0.01, 0.03, 0.1, 0.3, 1e9} {
		o := opts
		o.Since, o.MoveTolerance = st, tol
		r, err := fondue.Score(ctx, h, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("tol %g: rescored %d, AUC %.4f, inc/cold top %.3f rho %.4f, inc/exact top %.3f rho %.4f", tol, r.Incremental.Rescored, auc(r.Scores),
			topOverlap(r.Scores, cold.Scores), spearman(r.Scores, cold.Scores), topOverlap(r.Scores, inc.Scores), spearman(r.Scores, inc.Scores))
	}
	t.Logf("AUC inc %.4f warm %.4f cold %.4f first %.4f", auc(inc.Scores), auc(warm.Scores), auc(cold.Scores), auc(first.Scores))
	t.Logf("inc/warm top %.3f rho %.4f; inc/cold top %.3f rho %.4f; warm/cold top %.3f rho %.4f; first/cold top %.3f rho %.4f",
		topOverlap(inc.Scores, warm.Scores), spearman(inc.Scores, warm.Scores),
		topOverlap(inc.Scores, cold.Scores), spearman(inc.Scores, cold.Scores),
		topOverlap(warm.Scores, cold.Scores), spearman(warm.Scores, cold.Scores),
		topOverlap(first.Scores, cold.Scores), spearman(first.Scores, cold.Scores))
}
