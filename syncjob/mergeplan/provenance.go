package mergeplan

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// MergedLabel labels the record of a merged node: a node of fondue-neo4j's
// own (no pull selects it) that holds the merged node's properties as they
// were, and what undo needs to restore it (the Prop* below).
const MergedLabel = splitplan.MergedLabel

// Provenance properties. The survivor carries PropMergeRuns; the record
// of a merged node (MergedLabel) carries the merged node's own properties
// and the others.
const (
	PropMergeRuns = "fondue_merge_runs" // on the survivor: the runs that merged nodes into it

	PropMergedRun    = "fondue_merged_run"     // the run that merged the node
	PropMergedOrder  = "fondue_merged_order"   // its place in the run (undo goes backwards)
	PropMergedID     = "fondue_merged_id"      // the merged node's internal id
	PropMergedLabels = "fondue_merged_labels"  // its labels
	PropMergedInto   = "fondue_merged_into"    // the survivor's key (or internal id)
	PropMergedIntoID = "fondue_merged_into_id" // the survivor's internal id
	PropMergedRels   = "fondue_merged_rels"    // ids of the relationships moved to the survivor
	PropMergedEnds   = "fondue_merged_ends"    // for each: "out", "in" or "loop", the merged node's end(s)
	PropMergedAdded  = "fondue_merged_added"   // properties the merge added to the survivor
	PropMergedAt     = "fondue_merged_at"      // when (ISO-8601, UTC)
)

// Ends of a moved relationship, seen from the merged node (PropMergedEnds).
const (
	EndOut  = "out"
	EndIn   = "in"
	EndLoop = "loop"
)

var provenance = [...]string{PropMergeRuns, PropMergedRun, PropMergedOrder, PropMergedID, PropMergedLabels,
	PropMergedInto, PropMergedIntoID, PropMergedRels, PropMergedEnds, PropMergedAdded, PropMergedAt}

// RecordProps are the properties of a merged node's record that are not
// the merged node's own (all of Provenance but PropMergeRuns), a new slice
// each call.
func RecordProps() []string { return slices.Clone(provenance[1:]) }

// Provenance returns the provenance property names, a new slice each call
// (a split does not copy them to clones; a merge does not add them to the
// survivor).
func Provenance() []string { return slices.Clone(provenance[:]) }

// DecisionNotMerged is the kind of a remembered pair decision
// (splitplan.Decision.Kind), apart from the split kinds: a pair rejected
// in review, not proposed again. (An accepted pair needs no memory: once
// merged, it is one node.)
const DecisionNotMerged = "reject-merge"

// PairFingerprint identifies a pair of nodes (in either order) by their
// keys as text, as "sha256:HEX".
func PairFingerprint(a, b keys.Key) string {
	x, y := a.Text(), b.Text()
	if y < x {
		x, y = y, x
	}
	h := sha256.Sum256([]byte("fondue-neo4j/pair/v1\n" + x + "\n" + y + "\n"))
	return "sha256:" + hex.EncodeToString(h[:])
}

// Decisions are the plan's rejected pairs as later runs remember them:
// DecisionNotMerged, keyed by Keep, with the PairFingerprint. A later
// "sync --duplicates" does not propose a remembered pair (Remembered)
// until the decisions are forgotten ("undo --forget-decisions") or the
// run that stored them is undone.
func (p *Plan) Decisions() []splitplan.Decision {
	var out []splitplan.Decision
	for _, pr := range p.Pairs {
		if pr.Decision == DecisionReject {
			out = append(out, splitplan.Decision{Key: pr.Keep, Kind: DecisionNotMerged, Fingerprint: PairFingerprint(pr.Keep, pr.Merge)})
		}
	}
	return out
}

// IsMergeDecision reports whether a remembered decision is about a pair.
func IsMergeDecision(d splitplan.Decision) bool {
	return d.Kind == DecisionNotMerged
}

// Remembered returns the pair decisions among ds by PairFingerprint (the
// last one of a pair wins).
func Remembered(ds []splitplan.Decision) map[string]splitplan.Decision {
	out := map[string]splitplan.Decision{}
	for _, d := range ds {
		if IsMergeDecision(d) {
			out[d.Fingerprint] = d
		}
	}
	return out
}
