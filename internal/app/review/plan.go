package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/runid"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// PlanFormat and PlanVersion identify an approved plan file.
const (
	PlanFormat  = "fondue-neo4j-approved-plan"
	PlanVersion = 1
)

// Decisions a reviewer can take on a node.
const (
	DecisionAccept = "accept" // split as proposed
	DecisionEdit   = "edit"   // split with groups the reviewer changed
	DecisionReject = "reject" // do not split
)

// ApprovedPlan is what the review page exports: the nodes a person
// accepted (Nodes: exactly the splits to carry out, each with the groups
// as approved), the ones rejected, and the ones left undecided. Its
// top-level fields and Nodes have the names and shapes of the split plan
// that "sync --dry-run" prints (runId, splitter, idProperty, ...; per node
// id, key, ambiguity, score, entities, groups of neighbors and neighborIds), so the
// connector's plan reader reads it as a plan of the accepted nodes only.
//
// Each node carries a fingerprint of the neighbourhood that was reviewed
// (Fingerprint of its key and all its neighbours' keys), so that a plan
// applied later can be refused when the node's neighbours changed.
type ApprovedPlan struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ReviewedAt string `json:"reviewedAt"`
	// Source is SourceEdgeList or SourceNeo4j; Input the file reviewed.
	Source string `json:"source"`
	Input  string `json:"input,omitempty"`
	PlanSettings

	Nodes     []ApprovedNode `json:"nodes"`
	Rejected  []DecidedNode  `json:"rejected"`
	Undecided []keys.Key     `json:"undecided"` // keys
}

// PlanSettings are the settings of the plan reviewed: the splitter, and
// for a dry run's plan (source neo4j) its run and what its split moves.
type PlanSettings struct {
	RunID             string   `json:"runId,omitempty"`
	CreatedAt         string   `json:"createdAt,omitempty"`
	Splitter          string   `json:"splitter,omitempty"`
	IDProperty        string   `json:"idProperty,omitempty"`
	NodeLabels        []string `json:"nodeLabels,omitempty"`
	RelationshipTypes []string `json:"relationshipTypes,omitempty"`
	// DisplayProperties name the nodes (graph.display_property): one name
	// in JSON as a string, several as a list.
	DisplayProperties splitplan.PropertyList `json:"displayProperty,omitempty"`
	MarkerLabel       string                 `json:"markerLabel,omitempty"`
	SkipProperties    []string               `json:"skipProperties,omitempty"`
}

// ApprovedNode is one accepted split.
type ApprovedNode struct {
	Key         keys.Key `json:"key"`         // edge-list id, or the Neo4j key property (or element id)
	ID          keys.Key `json:"id,omitzero"` // Neo4j element id (source neo4j)
	Name        string   `json:"name,omitempty"`
	Decision    string   `json:"decision"` // accept or edit
	Ambiguity   float64  `json:"ambiguity"`
	Score       float64  `json:"score"`
	Entities    int      `json:"entities,omitempty"` // the estimated number of entities, when the page had it
	Degree      int      `json:"degree"`             // neighbours reviewed: the groups hold each once
	Fingerprint string   `json:"fingerprint"`
	// Groups: group 0 stays on the node, each further group moves to a
	// new node.
	Groups []ApprovedGroup `json:"groups"`
	// Proposed are the splitter's groups (neighbour keys), when edited.
	Proposed [][]keys.Key `json:"proposed,omitempty"`
}

// ApprovedGroup is one group of neighbours.
type ApprovedGroup struct {
	Neighbors   []keys.Key `json:"neighbors"`             // keys
	NeighborIDs []keys.Key `json:"neighborIds,omitempty"` // element ids (source neo4j)
	Names       []string   `json:"names,omitempty"`       // display names, for people reading the file
	// Reasons are the shared context that made the proposed group one
	// (splitplan.Group.Reasons); only on a group accepted as proposed.
	Reasons []splitplan.Reason `json:"reasons,omitempty"`
}

// DecidedNode is a rejected node.
type DecidedNode struct {
	Key         keys.Key `json:"key"`
	ID          keys.Key `json:"id,omitzero"`
	Name        string   `json:"name,omitempty"`
	Fingerprint string   `json:"fingerprint"`
}

// Fingerprint identifies a node's neighbourhood: the node's key and the
// set of its neighbours' keys (in any order), as "sha256:HEX". Keys are
// compared as text (keys.Key.Text): integers in decimal, strings as they
// are (splitplan.Fingerprint, which later runs compare with).
func Fingerprint(node string, neighbors []string) string {
	return splitplan.Fingerprint(node, neighbors)
}

// ParsePlan reads an approved plan and checks it (Validate). Keys and ids
// are keys.Key, as in the connector's plans: JSON numbers integer keys,
// strings string keys.
func ParsePlan(data []byte) (*ApprovedPlan, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	d.DisallowUnknownFields()
	var p ApprovedPlan
	if err := d.Decode(&p); err != nil {
		return nil, fmt.Errorf("approved plan: %w", err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks that the plan is one this version can apply: every
// accepted node has two or more non-empty groups that hold each reviewed
// neighbour once, and its fingerprint matches them; no node is decided twice.
func (p *ApprovedPlan) Validate() error {
	if p.Format != PlanFormat {
		return fmt.Errorf("approved plan: format %q, want %q", p.Format, PlanFormat)
	}
	if p.Version != PlanVersion {
		return fmt.Errorf("approved plan: version %d, this fondue-neo4j reads version %d", p.Version, PlanVersion)
	}
	if p.Source != SourceEdgeList && p.Source != SourceNeo4j {
		return fmt.Errorf("approved plan: source %q, want %s or %s", p.Source, SourceEdgeList, SourceNeo4j)
	}
	for _, d := range p.DisplayProperties {
		// The names of an applied plan's neighbours are read from them.
		if err := cypher.CheckName(d); err != nil {
			return fmt.Errorf("approved plan: displayProperty: %v", err)
		}
	}
	seen := map[string]bool{}
	once := func(k keys.Key) error {
		s := k.Text()
		if s == "" {
			return fmt.Errorf("approved plan: a node without a key")
		}
		if seen[s] {
			return fmt.Errorf("approved plan: node %s is decided twice", s)
		}
		seen[s] = true
		return nil
	}
	for _, n := range p.Nodes {
		if err := once(n.Key); err != nil {
			return err
		}
		key := n.Key.Text()
		if n.Decision != DecisionAccept && n.Decision != DecisionEdit {
			return fmt.Errorf("approved plan: node %s: decision %q, want %s or %s", key, n.Decision, DecisionAccept, DecisionEdit)
		}
		if len(n.Groups) < 2 {
			return fmt.Errorf("approved plan: node %s: %d groups; a split needs two or more", key, len(n.Groups))
		}
		var all []string
		in := map[string]bool{}
		for g, grp := range n.Groups {
			if len(grp.Neighbors) == 0 {
				return fmt.Errorf("approved plan: node %s: group %d is empty", key, g)
			}
			if grp.NeighborIDs != nil && len(grp.NeighborIDs) != len(grp.Neighbors) {
				return fmt.Errorf("approved plan: node %s: group %d has %d neighbors and %d neighborIds", key, g, len(grp.Neighbors), len(grp.NeighborIDs))
			}
			for _, nb := range grp.Neighbors {
				s := nb.Text()
				if in[s] {
					return fmt.Errorf("approved plan: node %s: neighbour %s is in two groups", key, s)
				}
				in[s] = true
				all = append(all, s)
			}
		}
		if len(all) != n.Degree {
			return fmt.Errorf("approved plan: node %s: the groups hold %d neighbours, the node had %d", key, len(all), n.Degree)
		}
		if fp := Fingerprint(key, all); fp != n.Fingerprint {
			return fmt.Errorf("approved plan: node %s: the groups do not hold the neighbours that were reviewed (fingerprint %s, want %s)", key, short(fp), short(n.Fingerprint))
		}
	}
	for _, n := range p.Rejected {
		if err := once(n.Key); err != nil {
			return err
		}
	}
	for _, k := range p.Undecided {
		if err := once(k); err != nil {
			return err
		}
	}
	return nil
}

func short(fp string) string {
	if i := strings.IndexByte(fp, ':'); i >= 0 && len(fp) > i+13 {
		return fp[:i+13]
	}
	return fp
}

// Plan turns the approved plan into the split plan that syncjob.Apply
// carries out: only the accepted nodes, with their groups as approved,
// under sel, the selection of this run, which must be the selection of the
// dry run that was reviewed (else ErrInvalid, naming the difference). A
// plan reviewed from an edge list is found by key: sel needs IDProperty.
//
// The names of the nodes' neighbours (in messages about changed nodes)
// come from sel.DisplayProperties, else from the plan's (the dry run's).
//
// The run id is runID when given; else the dry run's (so that re-running
// the same approved plan resumes it), else one derived from the
// fingerprint. skip are the properties not copied to clones (the write
// properties among them).
func (ap *ApprovedPlan) Plan(file, fingerprint, runID string, sel syncjob.PullOptions, skip []string, now time.Time) (*splitplan.Plan, error) {
	switch ap.Source {
	case SourceNeo4j:
		for _, c := range []struct {
			key        string
			plan, this []string
		}{
			{"graph.node_labels", ap.NodeLabels, sel.NodeLabels},
			{"graph.relationship_types", ap.RelationshipTypes, sel.RelationshipTypes},
		} {
			if !sameSet(c.plan, c.this) {
				return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "approved plan %s was reviewed from a dry run with %s = %s; this run has %s: apply it with the dry run's selection",
					file, c.key, showList(c.plan), showList(c.this))
			}
		}
		if ap.IDProperty != sel.IDProperty {
			return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "approved plan %s was reviewed from a dry run with graph.id_property = %q; this run has %q: apply it with the dry run's selection",
				file, ap.IDProperty, sel.IDProperty)
		}
	case SourceEdgeList:
		if sel.IDProperty == "" {
			return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "approved plan %s was reviewed from an edge list (%s): its nodes are found by their ids in a key property: set graph.id_property (--id-property)",
				file, ap.Input)
		}
	}
	if runID == "" {
		runID = ap.RunID
		if !runid.Valid(runID) {
			runID = "approved-" + strings.TrimPrefix(fingerprint, "sha256:")[:12]
		}
	}
	display := sel.DisplayProperties
	if len(display) == 0 {
		display = ap.DisplayProperties
	}
	p := &splitplan.Plan{RunID: runID, CreatedAt: splitplan.ISOTime(now), Splitter: ap.Splitter,
		IDProperty: sel.IDProperty, NodeLabels: slices.Clone(sel.NodeLabels), RelationshipTypes: slices.Clone(sel.RelationshipTypes),
		ExcludeTypes:      slices.Clone(sel.ExcludeTypes),
		DisplayProperties: slices.Clone(display), MarkerLabel: sel.MarkerLabel, ExactNeighbors: true,
		Approved: &splitplan.ApprovedRef{File: file, ReviewedAt: ap.ReviewedAt, Fingerprint: fingerprint, Source: ap.Source},
		Nodes:    []splitplan.Node{}}
	if p.MarkerLabel == "" {
		p.MarkerLabel = syncjob.DefaultMarkerLabel
	}
	for _, prop := range skip {
		if prop != "" && !slices.Contains(p.SkipProperties, prop) {
			p.SkipProperties = append(p.SkipProperties, prop)
		}
	}
	for _, an := range ap.Nodes {
		n := splitplan.Node{ID: an.ID, Key: an.Key, Name: an.Name, Ambiguity: an.Ambiguity, Score: an.Score, Entities: an.Entities,
			Edited: an.Decision == DecisionEdit}
		if sel.IDProperty == "" && n.ID.IsZero() {
			n.ID = n.Key // without a key property, keys are element ids
		}
		for _, g := range an.Groups {
			pg := splitplan.Group{Neighbors: slices.Clone(g.Neighbors), NeighborIDs: make([]keys.Key, len(g.Neighbors))}
			if len(g.NeighborIDs) == len(g.Neighbors) {
				copy(pg.NeighborIDs, g.NeighborIDs)
			} else if sel.IDProperty == "" {
				copy(pg.NeighborIDs, g.Neighbors)
			}
			if len(g.Names) == len(g.Neighbors) {
				pg.Names = slices.Clone(g.Names)
			}
			pg.Reasons = slices.Clone(g.Reasons)
			n.Groups = append(n.Groups, pg)
		}
		p.Nodes = append(p.Nodes, n)
	}
	// Rejected nodes are remembered with the neighbourhood reviewed.
	for _, rn := range ap.Rejected {
		p.Decisions = append(p.Decisions, splitplan.Decision{Key: rn.Key, Kind: splitplan.DecisionReject, Fingerprint: rn.Fingerprint})
	}
	return p, nil
}

// sameSet reports whether two lists hold the same names (in any order).
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

func showList(xs []string) string {
	if len(xs) == 0 {
		return "[] (all)"
	}
	return "[" + strings.Join(xs, ", ") + "]"
}
