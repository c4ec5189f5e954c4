// Package metrics holds what the bench measures beyond the metrics of
// bench/eval (AUC, ROC, NDCG, ARI): a number summarised over seeds (Stat),
// the embedding of a seed (CNE), and the metrics of real ambiguity as the
// data's README defines them: the AUC within degree bins (AUCWithinBins),
// the precision at k (PrecisionAt), and the errors of estimated counts
// (CountErrors). The metrics take parallel slices over the names
// evaluated; a NaN score leaves its name out.
package metrics
