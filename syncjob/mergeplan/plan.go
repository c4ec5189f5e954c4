package mergeplan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Format, Version and Kind identify a merge plan file.
const (
	Format  = "fondue-neo4j-merge-plan"
	Version = 1
	Kind    = "merge"
)

// Decisions on a pair, in the words of the split review
// (internal/app/review): only accepted pairs are merged.
const (
	DecisionAccept    = "accept"
	DecisionReject    = "reject"
	DecisionUndecided = "undecided"
)

// Plan is the merge plan of a run: a dry run proposes pairs (all
// undecided), a person decides them (review page, "plan accept|reject"),
// "sync --merge --plan F" merges the accepted ones. The selection
// (IDProperty, NodeLabels, RelationshipTypes) is the dry run's pull: a
// node's neighbours, for its fingerprint, are the other ends of its
// relationships of these types with one of these labels (any node but
// fondue-neo4j's own when empty) and a key, not counting relationships of
// CandidateType.
type Plan struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	Kind       string `json:"kind"`
	RunID      string `json:"runId"`
	CreatedAt  string `json:"createdAt"`
	ReviewedAt string `json:"reviewedAt,omitempty"`
	// Input is the file the plan was read from (for messages).
	Input             string                 `json:"input,omitempty"`
	IDProperty        string                 `json:"idProperty,omitempty"`
	NodeLabels        []string               `json:"nodeLabels,omitempty"`
	RelationshipTypes []string               `json:"relationshipTypes,omitempty"`
	DisplayProperties splitplan.PropertyList `json:"displayProperty,omitempty"`
	// CandidateType is the type of the candidate relationships that
	// "sync --duplicates" writes (never a neighbour).
	CandidateType string `json:"candidateType,omitempty"`
	// Approved points to the plan file a merge run applies (set by the
	// run, kept in its record).
	Approved *splitplan.ApprovedRef `json:"approved,omitempty"`
	Pairs    []Pair                 `json:"pairs"`
}

// Pair is one candidate pair: Merge is merged into Keep (the survivor).
// Keys are the key property's values (element ids without one); the ids
// are element ids, when the plan came from Neo4j (a merge finds nodes by
// key). A fingerprint (NodeFingerprint) is the node's neighbourhood when
// the pair was proposed: a node whose neighbourhood changed since is not
// merged (reported as changed); an empty fingerprint is not checked.
type Pair struct {
	Keep             keys.Key           `json:"keep"`
	Merge            keys.Key           `json:"merge"`
	KeepID           keys.Key           `json:"keepId,omitzero"`
	MergeID          keys.Key           `json:"mergeId,omitzero"`
	KeepName         string             `json:"keepName,omitempty"`
	MergeName        string             `json:"mergeName,omitempty"`
	Score            float64            `json:"score"`
	Reasons          []splitplan.Reason `json:"reasons,omitempty"`
	Decision         string             `json:"decision"`
	KeepFingerprint  string             `json:"keepFingerprint,omitempty"`
	MergeFingerprint string             `json:"mergeFingerprint,omitempty"`
}

// New is an empty plan of run runID (pairs are added undecided).
func New(runID, createdAt string) *Plan {
	return &Plan{Format: Format, Version: Version, Kind: Kind, RunID: runID, CreatedAt: createdAt, Pairs: []Pair{}}
}

// NodeFingerprint identifies a node's neighbourhood for a merge plan: its
// key and its neighbours' keys as text (splitplan.Fingerprint).
func NodeFingerprint(key keys.Key, neighbors []keys.Key) string {
	texts := make([]string, len(neighbors))
	for k, nb := range neighbors {
		texts[k] = nb.Text()
	}
	return splitplan.Fingerprint(key.Text(), texts)
}

// Marshal encodes the plan as indented JSON.
func (p *Plan) Marshal() ([]byte, error) { return json.MarshalIndent(p, "", "  ") }

// IsMerge reports whether JSON data is a merge plan (its "kind"), so that
// a reader of run records tells merge runs from split runs.
func IsMerge(data []byte) bool {
	var head struct {
		Kind string `json:"kind"`
	}
	return json.Unmarshal(data, &head) == nil && head.Kind == Kind
}

// Parse reads a merge plan and checks it (Validate): JSON numbers are
// integer keys, strings string keys (keys.Key); unknown fields are an
// error.
func Parse(data []byte) (*Plan, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	d.DisallowUnknownFields()
	var p Plan
	if err := d.Decode(&p); err != nil {
		return nil, fmt.Errorf("merge plan: %w", err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks that this version can apply the plan: format, version
// and kind; every pair has two different keys and a known decision; no
// pair appears twice (in either order).
func (p *Plan) Validate() error {
	if p.Format != Format {
		return fmt.Errorf("merge plan: format %q, want %q", p.Format, Format)
	}
	if p.Version != Version {
		return fmt.Errorf("merge plan: version %d, this fondue-neo4j reads version %d", p.Version, Version)
	}
	if p.Kind != Kind {
		return fmt.Errorf("merge plan: kind %q, want %q", p.Kind, Kind)
	}
	seen := map[[2]string]bool{}
	for k, pr := range p.Pairs {
		a, b := pr.Keep.Text(), pr.Merge.Text()
		switch {
		case a == "" || b == "":
			return fmt.Errorf("merge plan: pair %d: keep and merge need keys", k+1)
		case a == b:
			return fmt.Errorf("merge plan: pair %d: node %s is merged into itself", k+1, a)
		case pr.Decision != DecisionAccept && pr.Decision != DecisionReject && pr.Decision != DecisionUndecided:
			return fmt.Errorf("merge plan: pair %d (%s, %s): decision %q, want %s, %s or %s", k+1, a, b, pr.Decision, DecisionAccept, DecisionReject, DecisionUndecided)
		}
		id := [2]string{min(a, b), max(a, b)}
		if seen[id] {
			return fmt.Errorf("merge plan: pair %s, %s appears twice", a, b)
		}
		seen[id] = true
	}
	return nil
}

// Decide sets the decisions of pairs (DecisionAccept, DecisionReject or
// DecisionUndecided by "keep,merge" or "merge,keep" as key text) and
// ReviewedAt; the other pairs keep theirs. A pair not in the plan is an
// error naming it.
func (p *Plan) Decide(decisions map[[2]string]string, reviewedAt string) error {
	at := map[[2]string]int{}
	for k, pr := range p.Pairs {
		a, b := pr.Keep.Text(), pr.Merge.Text()
		at[[2]string{a, b}], at[[2]string{b, a}] = k, k
	}
	var missing []string
	for pair, d := range decisions {
		if d != DecisionAccept && d != DecisionReject && d != DecisionUndecided {
			return fmt.Errorf("decision %q, want %s, %s or %s", d, DecisionAccept, DecisionReject, DecisionUndecided)
		}
		if _, ok := at[pair]; !ok {
			missing = append(missing, pair[0]+","+pair[1])
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("pair %s is not in the merge plan", strings.Join(missing, "; "))
	}
	for pair, d := range decisions {
		p.Pairs[at[pair]].Decision = d
	}
	p.ReviewedAt = reviewedAt
	return nil
}

// Accepted returns the accepted pairs, in plan order.
func (p *Plan) Accepted() []Pair {
	var out []Pair
	for _, pr := range p.Pairs {
		if pr.Decision == DecisionAccept {
			out = append(out, pr)
		}
	}
	return out
}

// Fingerprint is the fingerprint of the plan file's bytes, as approved
// plans are identified ("sha256:" and the hex SHA-256).
func Fingerprint(data []byte) string {
	h := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(h[:])
}
