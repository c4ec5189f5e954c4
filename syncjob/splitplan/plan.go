package splitplan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// Provenance properties. A clone carries all but PropSplitRuns; the
// original carries PropSplitRuns, the runs that split it. Undo needs
// nothing else: no local state.
const (
	PropSplitKey    = "fondue_split_key"     // run/key/group: unique (constraint), makes clones idempotent
	PropSplitRun    = "fondue_split_run"     // the run that made the clone
	PropSplitFrom   = "fondue_split_from"    // the original's key (or internal id)
	PropSplitFromID = "fondue_split_from_id" // the original's internal id
	PropSplitGroup  = "fondue_split_group"   // the group of neighbours the clone took (1, 2, ...)
	PropSplitAt     = "fondue_split_at"      // when (ISO-8601, UTC)
	PropSplitRuns   = "fondue_split_runs"    // on the original: list of runs that split it
)

// Labels of fondue-neo4j's own bookkeeping nodes (package syncjob
// re-exports them): a plan never selects them.
const (
	LockLabel = "FondueLock" // the lock of a running sync
	RunLabel  = "FondueRun"  // the split plan of a run (StorePlan)
	// MergedLabel is the record of a node a merge took out of the graph
	// (package mergeplan).
	MergedLabel = "FondueMerged"
)

// OwnLabels are the labels of fondue-neo4j's bookkeeping nodes, a new
// slice each call: no pull of all nodes selects them.
func OwnLabels() []string { return []string{LockLabel, RunLabel, MergedLabel} }

// provenance lists the provenance properties (an array: copied, never
// shared).
var provenance = [...]string{PropSplitKey, PropSplitRun, PropSplitFrom, PropSplitFromID, PropSplitGroup, PropSplitAt, PropSplitRuns}

// Provenance returns the provenance properties, a new slice each call.
func Provenance() []string { return slices.Clone(provenance[:]) }

// Plan is what a split run will do: for each chosen node, its groups of
// neighbours (group 0 stays on the node, each further group moves to a new
// node). It is stored in the database before the first split (StorePlan),
// so that re-running the run id resumes exactly this plan.
type Plan struct {
	RunID     string `json:"runId"`
	CreatedAt string `json:"createdAt"`
	Splitter  string `json:"splitter"`
	// IDProperty, NodeLabels and RelationshipTypes are the pull's
	// selection: only relationships of these types (all when empty) to
	// planned neighbours move; with ExactNeighbors, the neighbours of a
	// node are those the pull would find (other ends with one of the
	// labels, or any but fondue-neo4j's own, and a key).
	IDProperty        string   `json:"idProperty,omitempty"`
	NodeLabels        []string `json:"nodeLabels,omitempty"`
	RelationshipTypes []string `json:"relationshipTypes,omitempty"`
	// ExcludeTypes, without RelationshipTypes, are the types the pull
	// left out (the relationships of sync --duplicates): never a
	// neighbour's, they stay with the node.
	ExcludeTypes []string `json:"excludeTypes,omitempty"`
	// DisplayProperties are the node properties that the plan's names come
	// from (graph.display_property: the first that a node has), none for
	// no names.
	DisplayProperties PropertyList `json:"displayProperty,omitempty"`
	MarkerLabel       string       `json:"markerLabel"`
	// SkipProperties are not copied to clones (besides the key property
	// and the provenance properties).
	SkipProperties []string `json:"skipProperties,omitempty"`
	// PulledOnly (a Cypher projection): only the relationships listed in
	// the groups' RelationshipIDs move; every other one stays.
	PulledOnly bool `json:"pulledOnly,omitempty"`
	// ExactNeighbors: a node is split only if its neighbours in the
	// subgraph are exactly the planned ones, none removed and none added
	// (without it, added ones stay with the node). An approved plan is
	// applied so: what a person approved, or nothing.
	ExactNeighbors bool `json:"exactNeighbors,omitempty"`
	// Approved points to the approved plan (review) this plan applies.
	Approved *ApprovedRef `json:"approved,omitempty"`
	// NeighborLinks: each node lists the links between its neighbours
	// (Node.Links), for a review page.
	NeighborLinks bool `json:"neighborLinks,omitempty"`
	// CloneKey is the scheme the clones' keys follow (split.clone_key, or
	// "integer"); empty: clones get no key (AssignCloneKeys).
	CloneKey string `json:"cloneKey,omitempty"`
	Nodes    []Node `json:"nodes"`
	// Decisions are the review decisions this run applies, for later runs
	// to remember (kept apart from the plan by StorePlan).
	Decisions []Decision `json:"-"`
}

// PropertyList is a list of property names, in JSON a string when it
// holds one (as plans of earlier versions, with one display property, have
// it) and a list of strings otherwise; a string or a list is read.
type PropertyList []string

// MarshalJSON writes one name as a string, other lists as lists.
func (l PropertyList) MarshalJSON() ([]byte, error) {
	if len(l) == 1 {
		return json.Marshal(l[0])
	}
	return json.Marshal([]string(l))
}

// UnmarshalJSON reads a string ("" is none), a list of strings or null.
func (l *PropertyList) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*l = nil
		if one != "" {
			*l = PropertyList{one}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return fmt.Errorf("want a property name or a list of them, found %s", data)
	}
	*l = many
	return nil
}

// ApprovedRef identifies the approved plan that a plan applies: its file,
// when it was reviewed, and a fingerprint of its content. StorePlan keeps
// it in the run's (:FondueRun) node (approved_plan, reviewed_at).
type ApprovedRef struct {
	File        string `json:"file,omitempty"`
	ReviewedAt  string `json:"reviewedAt"`
	Fingerprint string `json:"fingerprint"` // "sha256:" and the hex SHA-256 of the file
	Source      string `json:"source,omitempty"`
}

// MaxLinks bounds the links between neighbours that a plan lists per
// node (Node.LinksOmitted counts the rest).
const MaxLinks = 4000

// Node is the split of one node.
type Node struct {
	ID        keys.Key `json:"id"`             // element id (none: not found, see Resolve)
	Key       keys.Key `json:"key"`            // key property value, or the element id
	Name      string   `json:"name,omitempty"` // its Plan.DisplayProperties value
	Labels    []string `json:"labels,omitempty"`
	Ambiguity float64  `json:"ambiguity"`
	Score     float64  `json:"score"`
	// Entities is the estimated number of real entities behind the node
	// (fondue.Result.Entities); 0 when unknown (an approved plan of an
	// earlier version).
	Entities int     `json:"entities,omitempty"`
	Groups   []Group `json:"groups"`
	// Edited: a person chose these groups (review), so later runs leave
	// the parts alone while their neighbours stay (EditDecisions).
	Edited bool `json:"edited,omitempty"`
	// Staying counts the relationships that stay with the node whatever
	// the groups: self-loops, other types, ends outside the subgraph
	// (filled by Describe).
	Staying []RelCount `json:"staying,omitempty"`
	// Links are the links between the node's neighbours (Plan.NeighborLinks),
	// as pairs of positions in its neighbours numbered through the groups in
	// order; at most MaxLinks, LinksOmitted more.
	Links        [][2]int `json:"links,omitempty"`
	LinksOmitted int      `json:"linksOmitted,omitempty"`
}

// Group is one group of neighbours.
type Group struct {
	Neighbors   []keys.Key `json:"neighbors"`   // keys (or element ids)
	NeighborIDs []keys.Key `json:"neighborIds"` // element ids
	// Names are the neighbours' Plan.DisplayProperties values.
	Names []string `json:"names,omitempty"`
	// RelationshipIDs are the element ids of the pulled relationships
	// between the node and the group's neighbours (Plan.PulledOnly).
	RelationshipIDs []string `json:"relationshipIds,omitempty"`
	// Relationships counts the group's relationships by type and direction
	// (filled by Describe).
	Relationships []RelCount `json:"relationships,omitempty"`
	// Reasons are the shared context that made the group's pieces one
	// group (fondue.Proposal.Reasons), strongest first.
	Reasons []Reason `json:"reasons,omitempty"`
	// CloneKey is the key (Plan.IDProperty) of the group's clone (groups
	// after the first); zero: the clone gets no key.
	CloneKey keys.Key `json:"cloneKey,omitzero"`
}

// Reason is one shared context node or property value of a group, as a
// person reads it: Kind is the node's labels or the property's name, Value
// its display text (a context node's display property or key, the word or
// the number), Weight how much it counted.
type Reason struct {
	Kind   string  `json:"kind"`
	Value  string  `json:"value"`
	Weight float64 `json:"weight"`
}

// RelCount is a number of relationships of one type and direction (seen
// from the node being split).
type RelCount struct {
	Type      string `json:"type"`
	Direction string `json:"direction"` // "out" or "in"
	Count     int    `json:"count"`
}

// ISOTime is t in UTC as ISO-8601 with milliseconds, as plans and split
// provenance record times.
func ISOTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Marshal encodes the plan as JSON.
func (p *Plan) Marshal() ([]byte, error) { return json.Marshal(p) }

// Unmarshal decodes a plan: integer ids and keys (JSON numbers) are
// integer keys, strings string keys (keys.Key).
func Unmarshal(data []byte) (*Plan, error) {
	var p Plan
	if err := unmarshalNumbers(data, &p); err != nil {
		return nil, err
	}
	for k := range p.Nodes {
		n := &p.Nodes[k]
		for g, grp := range n.Groups {
			// A group pairs each neighbour's key with its element id.
			if len(grp.NeighborIDs) != len(grp.Neighbors) {
				return nil, fmt.Errorf("node %v: group %d has %d neighbors and %d neighborIds", n.Key, g, len(grp.Neighbors), len(grp.NeighborIDs))
			}
			if grp.Names != nil && len(grp.Names) != len(grp.Neighbors) {
				return nil, fmt.Errorf("node %v: group %d has %d neighbors and %d names", n.Key, g, len(grp.Neighbors), len(grp.Names))
			}
		}
	}
	return &p, nil
}

// unmarshalNumbers decodes JSON with numbers kept exact (keys.Key reads
// integers as integer keys).
func unmarshalNumbers(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// SkipOnClone lists the properties a clone does not copy: SkipProperties,
// the key property and the provenance properties.
func (p *Plan) SkipOnClone() []string {
	skip := slices.Clone(p.SkipProperties)
	if p.IDProperty != "" {
		skip = append(skip, p.IDProperty)
	}
	for _, s := range provenance {
		if !slices.Contains(skip, s) {
			skip = append(skip, s)
		}
	}
	return skip
}

// CheckStored says whether re-running plan p may resume stored, the plan
// its run id already stored: a plan that applies an approved plan resumes
// only the same approved plan (same fingerprint); anything else is refused
// (an error), since resuming would carry out another plan than the one
// given. A plan of a scheduled sync resumes whatever its run stored.
func (p *Plan) CheckStored(stored *Plan) error {
	if p.Approved == nil || stored == nil {
		return nil
	}
	if stored.Approved != nil && stored.Approved.Fingerprint == p.Approved.Fingerprint {
		return nil
	}
	what := fmt.Sprintf("the plan of a sync --split of %s", stored.CreatedAt)
	if a := stored.Approved; a != nil {
		what = fmt.Sprintf("approved plan %s reviewed at %s", shortFingerprint(a.Fingerprint), a.ReviewedAt)
		if a.File != "" {
			what += " (" + a.File + ")"
		}
	}
	return fmt.Errorf("run id %s already holds another split plan (%s), not approved plan %s: apply it under a run id of its own (--run-id)",
		p.RunID, what, shortFingerprint(p.Approved.Fingerprint))
}

func shortFingerprint(fp string) string {
	if i := strings.IndexByte(fp, ':'); i >= 0 && len(fp) > i+13 {
		return fp[:i+13]
	}
	return fp
}

// Rel is one relationship of a node being split, as a Store reads it.
type Rel struct {
	ID          string // the relationship's element id
	Type        string
	Outgoing    bool
	Other       keys.Key // element id of the other end
	Origin      keys.Key // when the other end is a clone of this run: its original's element id
	OtherLabels []string
	// OtherKeyValue is the value of the other end's key property
	// (Plan.IDProperty), if read: a property value as read, nil when it
	// has none (keys.FromValue makes it a key).
	OtherKeyValue any
	OtherName     string // the other end's name (Plan.DisplayProperties), if read
}

// Assignment is where each relationship of a node goes.
type Assignment struct {
	Groups  [][]Rel    // by group; group 0 stays
	Staying []Rel      // self-loops, other types, ends outside the plan
	Missing []keys.Key // planned neighbours (keys) no longer connected
}

// Assign says where each relationship of planned node n goes: to the
// group of its other end (a clone of this run stands for its original)
// if the relationship is eligible (of the plan's types, or pulled), else
// it stays.
func (p *Plan) Assign(n Node, rels []Rel) Assignment {
	groupOf := map[keys.Key]int{}
	for g, grp := range n.Groups {
		for _, id := range grp.NeighborIDs {
			groupOf[id] = g
		}
	}
	var pulled map[string]bool
	if p.PulledOnly {
		pulled = map[string]bool{}
		for _, grp := range n.Groups {
			for _, rid := range grp.RelationshipIDs {
				pulled[rid] = true
			}
		}
	}
	a := Assignment{Groups: make([][]Rel, len(n.Groups))}
	connected := map[keys.Key]bool{}
	for _, r := range rels {
		other := r.Other
		if !r.Origin.IsZero() {
			other = r.Origin // a clone of this run stands for its original
		}
		g, planned := groupOf[other]
		eligible := p.selectsType(r.Type)
		if pulled != nil {
			eligible = pulled[r.ID]
		}
		if other == n.ID || !planned || !eligible {
			a.Staying = append(a.Staying, r)
			continue
		}
		a.Groups[g] = append(a.Groups[g], r)
		connected[other] = true
	}
	for _, grp := range n.Groups {
		for k, id := range grp.NeighborIDs {
			if !connected[id] {
				a.Missing = append(a.Missing, grp.Neighbors[k])
			}
		}
	}
	return a
}

// CountRels counts relationships by type and direction.
func CountRels(rels []Rel) []RelCount {
	m := map[RelCount]int{}
	for _, r := range rels {
		d := "in"
		if r.Outgoing {
			d = "out"
		}
		m[RelCount{Type: r.Type, Direction: d}]++
	}
	out := make([]RelCount, 0, len(m))
	for k, v := range m {
		k.Count = v
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b RelCount) int {
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return strings.Compare(b.Direction, a.Direction)
	})
	return out
}

// NodeState is a planned node as a split transaction sees it.
type NodeState struct {
	Exists bool
	Labels []string
	// KeyValue is the value of its key property (Plan.IDProperty), if
	// read: a property value as read, nil when it has none; Examine
	// compares it with the planned key (keys.Key.Matches).
	KeyValue any
	Split    bool // already split by this run
}

// Outcomes of splitting one node.
const (
	OutcomeSplit   = "split"   // done now
	OutcomeDone    = "done"    // already split by this run (a re-run)
	OutcomeChanged = "changed" // its relationships changed since the plan: skipped
	OutcomeMissing = "missing" // the node is gone or its key changed: skipped
	OutcomeFailed  = "failed"  // the transaction failed (e.g. a constraint): rolled back
)

// NodeOutcome is what happened to one planned node.
type NodeOutcome struct {
	Key     keys.Key `json:"key"`
	Name    string   `json:"name,omitempty"` // Node.Name
	Outcome string   `json:"outcome"`
	Reason  string   `json:"reason,omitempty"`
	Clones  int      `json:"clones,omitempty"`
	Moved   int      `json:"moved,omitempty"`
}

// SplitStats summarize a Store's Split.
type SplitStats struct {
	Planned            int           `json:"planned"`
	Split              int           `json:"split"`
	AlreadyDone        int           `json:"alreadyDone"`
	Skipped            int           `json:"skipped"` // changed or missing
	Failed             int           `json:"failed"`
	NodesCreated       int           `json:"nodesCreated"`
	RelationshipsMoved int           `json:"relationshipsMoved"`
	Nodes              []NodeOutcome `json:"nodes"`
	Duration           time.Duration `json:"-"`
}

// Count adds one node's outcome to the counts of its kind (Split,
// AlreadyDone, Skipped, Failed).
func (s *SplitStats) Count(o NodeOutcome) {
	switch o.Outcome {
	case OutcomeSplit:
		s.Split++
	case OutcomeDone:
		s.AlreadyDone++
	case OutcomeChanged, OutcomeMissing:
		s.Skipped++
	case OutcomeFailed:
		s.Failed++
	}
}

// KeyedNode is a node found by its key (Plan.IDProperty): the key's value
// in the graph and the node's element id.
type KeyedNode struct{ Key, ID keys.Key }

// Resolve sets the element ids of the plan's nodes and neighbours, and
// their keys to the graph's values (the 11 of an edge list may be the
// string "11" in the graph), from the nodes a Store found by key
// (Splitter.ResolveKeys). A key that no found node has gets no id:
// Check and Split report that node as missing, that neighbour as removed.
// Two found nodes with the same key are an error (a Store wraps it as
// syncjob.ErrInvalid, naming the key property).
func (p *Plan) Resolve(found []KeyedNode) error {
	byText := make(map[string]KeyedNode, len(found))
	for _, nd := range found {
		t := nd.Key.Text()
		if prev, dup := byText[t]; dup {
			return fmt.Errorf("nodes elementId(n) = %q and %q have the same %s = %s",
				prev.ID.Text(), nd.ID.Text(), p.IDProperty, nd.Key.Describe())
		}
		byText[t] = nd
	}
	resolve := func(k keys.Key) (keys.Key, keys.Key) {
		if nd, ok := byText[k.Text()]; ok {
			return nd.Key, nd.ID
		}
		return k, keys.Key{}
	}
	for i := range p.Nodes {
		n := &p.Nodes[i]
		n.Key, n.ID = resolve(n.Key)
		for _, g := range n.Groups {
			for j, k := range g.Neighbors {
				g.Neighbors[j], g.NeighborIDs[j] = resolve(k)
			}
		}
	}
	return nil
}

// selectsType reports whether the plan's pull selects relationships of
// type t.
func (p *Plan) selectsType(t string) bool {
	if len(p.RelationshipTypes) > 0 {
		return slices.Contains(p.RelationshipTypes, t)
	}
	return !slices.Contains(p.ExcludeTypes, t)
}
