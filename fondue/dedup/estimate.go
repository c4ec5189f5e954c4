package dedup

import (
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
)

// CandidatesPerTarget is the number of candidate pairs per target that
// Estimate assumes when the count is not known yet (acl-dup: 8 per author
// at the default MaxBlock; the blocking allows at most keys x MaxBlock).
// When every node is a target (an edge list, no names) it assumes
// LinkedBound instead (measured: 0.55 to 0.7 of it on the paper's graphs).
const CandidatesPerTarget = 10

// LinkedBound is the most candidate pairs the linked-neighbour blocking
// gives targets nameless targets with edges links: max(MaxLinked, 2 x
// degree) each.
func LinkedBound(targets, edges int64, o Options) int64 {
	o = o.withDefaults()
	return int64(o.MaxLinked)*targets + 4*edges
}

// Estimate returns the memory Find uses, in bytes, by part, for a graph of
// nodes and edges with targets scored and candidates pairs (0: the
// CandidatesPerTarget guess); o.Top pairs carry reasons (0: all). It is the
// live heap of the largest of the phases (blocking, fitting, scoring),
// returned with their parts; the graph itself is not included. The Go
// heap's peak runs above this live figure by the garbage not yet collected
// (measured: 288 MB against 225 MB on acl-dup with reasons for all 388k
// pairs; 2.0 GB against 1.85 GB for 1M authors with Top 1000), which the
// GC headroom of memory.Predict's Peak covers.
func Estimate(nodes, edges, targets, candidates int64, o Options) (int64, []memory.Phase) {
	o = o.withDefaults()
	allTargets := targets >= nodes // an edge list, a paper graph
	if candidates <= 0 {
		candidates = CandidatesPerTarget * targets
		if allTargets { // nameless: the linked-neighbour blocking's bound
			candidates = max(candidates, LinkedBound(targets, edges, o))
		}
	}
	withReasons := candidates
	if o.Top > 0 {
		withReasons = min(int64(o.Top), candidates)
	}
	names := memory.Part{Name: "names", Bytes: 40*nodes + 160*targets} // folded tokens, compact and lower strings
	// per node: profile header, kind flags, context idf, word lists; per
	// link: neighbour, co-author (seen from each side of a paper), title
	// words and context terms
	profiles := memory.Part{Name: "profiles", Bytes: 200*nodes + 48*edges}
	if allTargets && nodes > 0 {
		// every neighbour is evidence: each node lists the nodes two links
		// away, (2 edges)^2 / nodes in all when degrees are equal (measured
		// below it: email 0.45M for 1.0M, astroph 3.6M for 3.9M), at most nodes^2
		profiles.Bytes += 4 * min(4*edges*edges/nodes, nodes*nodes)
	}
	codes := memory.Part{Name: "candidate pairs", Bytes: 8 * candidates}
	// (key, node) pairs, then pair codes repeated across keys, grown by append
	blocking := memory.Part{Name: "blocking", Bytes: 16*8*targets + 6*8*candidates}
	// graph rows (positives, negatives), name rows (positives, 2 x negatives)
	sm := int64(o.Samples)
	rows := 2*min(sm, targets) + min(sm, candidates) + min(2*sm, candidates)
	training := memory.Part{Name: "training rows", Bytes: 130 * rows}
	scoring := memory.Part{Name: "scores and order", Bytes: 12 * candidates}
	pairs := memory.Part{Name: "pairs with reasons", Bytes: 450 * withReasons}
	phases := []memory.Phase{
		{Phase: "blocking", Parts: []memory.Part{names, profiles, blocking}},
		{Phase: "fitting", Parts: []memory.Part{names, profiles, codes, training}},
		{Phase: "scoring", Parts: []memory.Part{names, profiles, codes, scoring, pairs}},
	}
	if !allTargets {
		// resolved co-authors and chains (collective.go): two lists of
		// likely partners per node, an entry of 16 bytes on each side of a
		// pair, grown by append, and the raised pairs' chains. Assumed: a
		// tenth of the candidates likely or raised (acl-dup: 1.5% and 0.6%).
		likely := memory.Part{Name: "likely duplicates and chains", Bytes: 48*nodes + (2*2*2*16+64)*candidates/10}
		phases[2].Parts = append(phases[2].Parts, likely)
	}
	var peak int64
	for i := range phases {
		for _, p := range phases[i].Parts {
			phases[i].Bytes += p.Bytes
		}
		peak = max(peak, phases[i].Bytes)
	}
	return peak, phases
}

// Predict is the peak memory of a whole duplicates run, the one formula of
// the duplicates command, estimate --duplicates and sync --duplicates:
// memory.Predict of the graph (mo: where it comes from, what the caller
// holds), with no embedding and no split, and Find's largest phase for
// targets compared nodes (Estimate, its guess of the candidates) held
// beside mo.Held through every phase. Its workers are o's.
func Predict(nodes, edges, targets int64, o Options, mo memory.Options) memory.Estimate {
	peak, phases := Estimate(nodes, edges, targets, 0, o)
	for _, ph := range phases {
		if ph.Bytes == peak {
			mo.Held = slices.Concat(mo.Held, ph.Parts)
			break
		}
	}
	mo.Workers, mo.NoEmbedding, mo.Split = o.Workers, true, false
	return memory.Predict(nodes, edges, mo)
}
