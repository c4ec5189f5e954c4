// Package eval is the evaluation of the FONDUE paper: Contract plants
// ambiguous nodes in a real graph by merging random node pairs, which gives
// the ground truth of both tasks (which nodes are ambiguous, and how each
// one's neighbours split), and AUC, ROC, NDCG and ARI measure a ranking or
// a split against it.
//
//	c, err := eval.Contract(g, 0.1, seed) // 10% of the nodes merged into pairs
//	res, err := fondue.Score(ctx, c.Graph, fondue.Options{Seed: seed})
//	auc, err := eval.AUC(res.Scores, c.Ambiguous, eval.TiesAverage)
package eval
