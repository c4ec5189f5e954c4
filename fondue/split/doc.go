// Package split proposes how to split a node: groups of its neighbours,
// each to become the neighbourhood of one node. A Splitter makes them from
// an Input (the score behind the proposal); Splitters lists this package's
// (ncut, the default, below; mcl; fondue, the sign vector behind the
// score), Propose runs one over many nodes, and Bisector is the
// normalized-cut bisection they share with bench/research. It is the
// splits step of the data flow:
// source -> graph -> embedding -> scores -> splits -> sink.
//
// # The ncut splitter
//
// The ncut splitter (NCut, the default) keeps apart the pieces of a node's
// neighbourhood that nothing but the node ties together, and cuts a piece
// in two only where normalized cut finds two communities in it:
//
//  1. Pieces (score.Pieces, fondue/score/pieces.go): neighbours joined by
//     links, or, in a neighbourhood where links reach fewer than half of
//     the neighbours (score.LinkPoor: an author's papers in
//     (:Author)-[:WROTE]->(:Paper), which are never linked; a node of a
//     graph with few triangles), also by a common neighbour other than the
//     node (a co-author). In such a neighbourhood the pieces are the
//     groups: a piece of papers joined by shared co-authors is one
//     person's as far as the graph can tell, and nothing else is cut.
//  2. Affinity between two neighbours j and k: 1 if they are linked, plus
//     c_jk/sqrt(deg j · deg k) for their c_jk common neighbours other than
//     the node (two-hop structure outside the ego network), plus, when an
//     embedding is given, a Gaussian kernel of the embedding distance
//     between each neighbour and its 5 nearest neighbours (ncutKNN) in
//     embedding space (bandwidth: the median squared distance). The matrix
//     is sparse; the cost is that of the two-hop paths plus O(m²·d) for the
//     nearest neighbours.
//  3. Bisection: the sweep over the relaxed normalized-cut solution (the
//     second eigenvector of the normalized affinity) that minimises
//     cut/vol(A) + cut/vol(B).
//  4. MCL check: two random neighbourhoods are about as densely linked as
//     the whole graph. When MCL's clusters of the ego network, merged into
//     two sides by the same affinity, are linked at most half as densely
//     as the graph, and more sparsely than the bisection's sides, MCL's
//     split wins if it has exactly two clusters of two or more, or if the
//     bisection's boundary is at least four times as dense as the graph
//     (it cuts through one entity's neighbourhood). Normalized cut dislikes
//     very unequal sides; MCL does not.
//  5. Rejoin: a piece (under links) that the sides cut in two parts linked
//     at least half as densely as the parts are inside has no community
//     boundary there; it goes whole to the side holding more of it. A knit
//     neighbourhood of one entity stays one group.
//  6. Hedge: each side is split into its pieces under links. A piece that
//     only the node ties to the rest cannot be placed from the graph; a
//     group of its own is the honest answer (and scores better under the
//     adjusted Rand index than a guess). So the groups are the pieces, with
//     a piece cut where the bisection found two communities in it.
//
// So a node gets as many groups as the graph can tell apart: one for a
// single knit neighbourhood that does not cut (a node that should not be
// split), two for two merged communities, dozens for a name shared by many
// people who work in separate groups. On real homonyms
// (bench/real-results) that is the count of the neighbourhood's
// components, which no signal of the graph merges better; on the paper's
// planted merges of two nodes, the cut of one piece in two
// (bench/SPLITTERS.md).
//
// Common neighbours do not join pieces in a neighbourhood with links: on
// the real name-keyed bibliography, two co-authors of different persons of
// one name share a third person (often another ambiguous name) more often
// than two of one person's separate collaborations do.
//
// For a hub whose neighbours share more than 50 million two-hop paths
// (ncutPairBudget), step 2 leaves out the common neighbours. It works
// without an embedding (step 2 then has no kernel), so it can follow any
// scoring method, but it is better with one.
//
// The steps are in split_ncut.go (the splitter, the MCL check, rejoin and
// hedge), split_ncut_affinity.go (step 2) and split_ncut_bisect.go (step 3).
package split
