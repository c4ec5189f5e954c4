// Package bench reproduces the evaluation of the FONDUE paper (Mel et al.,
// arXiv 2002.10127; docs/method.md section 5) on the datasets we have:
// planted ambiguous nodes by contraction (bench/eval), identification AUC
// and NDCG of FONDUE and the baselines, splitting ARI of the splitters
// (EvaluateSplits), runtimes. Run runs it, resumable from a journal of
// finished seeds; Report writes a markdown table with the paper's numbers
// beside ours, a JSON file with every raw number, and plots. The paper's
// datasets and tables are paper.json (Paper). It is "fondue-bench" as a
// library.
//
// The packages below it: bench/real evaluates the engine on real ambiguity
// ("fondue-bench real"), bench/scale measures score at growing graph sizes
// ("fondue-bench scale"); bench/setup (where the datasets are, the
// splitters, the engine's and the machine's records) and bench/metrics (a
// statistic over seeds, the metrics of real ambiguity) are what the
// evaluations share.
package bench
