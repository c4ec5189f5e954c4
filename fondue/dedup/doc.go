// Package dedup finds the nodes of a graph that are one entity (several
// nodes for one person, "Jeff A. Bilmes" and "Jeffrey Bilmes") and scores
// each candidate pair with the reasons in plain words.
//
// Candidates (block.go) are the pairs of targets that share a key: each
// name token of 2+ letters with the initial of another token (surname and
// first initial, in either order), the surname alone, the whole name
// folded (case, accents, punctuation, spacing), and a common co-author
// with a common name token. A key held by more than MaxBlock targets gives
// no pairs, so there are at most keys x MaxBlock pairs per target; on
// acl-dup (48,498 authors) 388k candidates hold 99.3% (dev) and 99.7%
// (test) of the truth pairs. Targets without a name (an edge list, the
// paper's graphs; a name of fewer than two letters is an id, not a name)
// are blocked by the graph: each gets the max(MaxLinked, 2 x degree)
// nameless targets whose neighbours are most linked to its neighbours, so
// at most MaxLinked x targets + 4 x links pairs.
//
// When every node is a target (no papers between people), all neighbours
// are the evidence: "co-authors" are then the nodes two links away, and
// the feature "linked neighbours" counts the neighbours of one linked to
// the other's (what a node whose links were split in two keeps).
//
// Score = names + graph, two log-likelihood ratios learned on the graph
// itself, without labels, in two steps so that names cannot confound the
// graph:
//   - graph: a target's neighbours (papers) split in two random pieces of
//     unequal sizes are positives, random candidate pairs negatives;
//     features: shared co-authors (two hops through non-targets), shared
//     neighbours, cosine of the context two hops away (venues, keywords,
//     organisations, by inverse degree), cosine of the neighbours' text
//     words (titles; stop words out, by inverse document frequency), the
//     gap between year ranges;
//   - names: a split target's name against a varied copy (initial, middle
//     name dropped or added, second surname dropped, nickname, all
//     initials) and candidate pairs with the same words after folding are
//     positives, other candidate pairs negatives; features from aligning
//     the tokens (equal, nickname or prefix, one letter apart, initial,
//     unmatched, order), Jaro-Winkler, the rarity of a shared token among
//     the targets' names;
//   - the name features no positive holds (one letter apart, first names
//     differ, the same letters spaced differently) would be weighed by
//     the negatives and the penalty alone: their weights are learned
//     again from the graph (unseen.go), as the mixing weights of
//     duplicates among the candidates holding them, whose graph
//     log-likelihood ratio is known (dev half: AP .779 -> .800, variant
//     AP .515 -> .510, R@P.9 .436 -> .431, cluster F1 .747 -> .757);
//   - co-authors that are themselves likely one entity (score > 0) count
//     as shared, by that probability, and the pairs gaining one are
//     scored again (collective.go): "M. Negri" with "B. Magnini" and
//     "Matteo Negri" with "Bernardo Magnini" (dev half: AP .800 -> .809,
//     variant AP .510 -> .536, R@P.9 .431 -> .469, cluster F1 .757);
//   - a pair whose nodes are both likely one entity with a third is
//     raised to 1 - (1-p)(1-t), t the product of the best such chain's
//     two probabilities (collective.go; nothing learned; dev half: AP
//     .809 -> .821, variant AP .536 -> .593, R@P.9 .469 -> .502,
//     cluster F1 .757 -> .763, P@100 .990 -> .980: "María Teresa Martín
//     Valdivia", one person but a string of no curated person, enters
//     the 100 best twice).
//
// Names add nothing (log-odds 0) when there are none, or no two kinds of
// name pair to learn from. Too little to learn from (no target with two
// neighbours, or no candidate) is ErrTooLittle, not ErrInput.
//
// Both are logistic regressions fitted by Newton's method with a small L2
// penalty on standardised features (logit.go). No constant is fitted to a
// data set; the choices (which variations, which features) were measured
// on the acl-dup development half only.
//
// Determinism: randomness comes from streams keyed by (Seed, purpose,
// node); parallel loops write per index; the result is identical for any
// Workers.
//
// Cost: names and profiles O(nodes + links x co-authors per link);
// blocking O(keys log keys + candidates); fitting O(Samples x features^2)
// per Newton step; the unseen name weights O(candidates x name tokens),
// one pass over the candidates' names; scoring O(candidates x (co-authors
// + context terms)); resolved co-authors and chains O(candidates x
// co-authors x the shorter of their partner lists). Nothing is quadratic
// in the targets. Measured (2 cores): acl-dup 3-5 s, heap peak 0.3 GB
// with reasons for all 388k pairs; a generated graph of 1M authors, 1.1M
// papers, 4.5M links: 54 s (84 cpu-seconds, 59 without resolved
// co-authors and chains), 17M candidates, heap peak 2.9 GB (Estimate:
// 1.85 GB live, 2.95 GB with memory.Predict's headroom) with Top 1000.
// Estimate gives the live heap by phase.
package dedup
