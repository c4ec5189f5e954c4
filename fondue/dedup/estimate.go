package dedup

import "github.com/fondue-neo4j/fondue-neo4j/fondue/memory"

// CandidatesPerTarget is the number of candidate pairs per target that
// Estimate assumes when the count is not known yet (acl-dup: 8 per author
// at the default MaxBlock; the blocking allows at most keys x MaxBlock).
const CandidatesPerTarget = 10

// Estimate returns the memory Find uses, in bytes, by part, for a graph of
// nodes and edges with targets scored and candidates pairs (0: the
// CandidatesPerTarget guess); o.Top pairs carry reasons (0: all). The sum
// is the live heap at its largest (scoring with reasons); the graph itself
// is not included.
func Estimate(nodes, edges, targets, candidates int64, o Options) (int64, []memory.Part) {
	o = o.withDefaults()
	if candidates <= 0 {
		candidates = CandidatesPerTarget * targets
	}
	withReasons := candidates
	if o.Top > 0 {
		withReasons = min(int64(o.Top), candidates)
	}
	parts := []memory.Part{
		// folded names: tokens, compact and lower strings
		{Name: "names", Bytes: 40*nodes + 160*targets},
		// per node: profile header, kind flags, context idf, word lists;
		// per link: neighbour, co-author (a link seen from each side of a
		// paper), title words and context terms
		{Name: "profiles", Bytes: 200*nodes + 48*edges},
		// blocking: (key, node) pairs, then pair codes before deduplication
		// (the codes repeat across keys and grow by append: 6 per pair at 1M)
		{Name: "blocking", Bytes: 16*8*targets + 6*8*candidates},
		{Name: "training rows", Bytes: 4 * int64(o.Samples) * 160},
		{Name: "scores", Bytes: (8 + 8 + 4) * candidates}, // codes, scores, order
		{Name: "scored pairs", Bytes: 48 * withReasons},
		{Name: "reasons", Bytes: 400 * withReasons},
	}
	var sum int64
	for _, p := range parts {
		sum += p.Bytes
	}
	return sum, parts
}
