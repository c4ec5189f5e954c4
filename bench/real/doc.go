// Package real evaluates the engine on real ambiguity: a graph keyed by
// name in which some names stand for several real persons, with the truth
// of its labelled names (the data's README.md and bench/README.md, "Real
// ambiguity"). It is "fondue-bench real" as a library.
//
// A real set X is the files X.edges (the graph), X.truth.tsv (the labelled
// names), X.neighbours.tsv (the persons behind the neighbours of the
// ambiguous names) and, optionally, X.names (display names, as for
// --names), in the folder real of the datasets folder (Dir, SetNames);
// LoadSet reads one. Its development half is the committed list X.dev.txt
// of this package's folder, else a hash of the ids.
//
// Run measures, per set, engine seed and half of the labelled names (all,
// development, held out): every method's detection of the ambiguous names
// (ROC AUC, AUC within degree bins, AUC on 2-person names, precision at
// 100; the metrics are bench/metrics'), every splitter's split of them (ARI
// against the persons, groups against persons), and the estimates of the
// number of entities, with their means over the seeds. Report writes
// RESULTS.md, results.json and the plots.
package real
