package connector

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// DefaultMarkerLabel is the label added to the nodes a split creates.
const DefaultMarkerLabel = "FondueSplit"

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

var provenance = []string{PropSplitKey, PropSplitRun, PropSplitFrom, PropSplitFromID, PropSplitGroup, PropSplitAt, PropSplitRuns}

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
	// DisplayProperty is the node property that the plan's names come
	// from (graph.display_property), "" for none.
	DisplayProperty string `json:"displayProperty,omitempty"`
	MarkerLabel     string `json:"markerLabel"`
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
	// (PlanNode.Links), for a review page.
	NeighborLinks bool       `json:"neighborLinks,omitempty"`
	Nodes         []PlanNode `json:"nodes"`
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

// MaxPlanLinks bounds the links between neighbours that a plan lists per
// node (PlanNode.LinksOmitted counts the rest).
const MaxPlanLinks = 4000

// PlanNode is the split of one node.
type PlanNode struct {
	ID        any         `json:"id"`             // internal id
	Key       any         `json:"key"`            // key property value, or the internal id
	Name      string      `json:"name,omitempty"` // Plan.DisplayProperty's value
	Labels    []string    `json:"labels,omitempty"`
	Ambiguity float64     `json:"ambiguity"`
	Score     float64     `json:"score"`
	Groups    []PlanGroup `json:"groups"`
	// Staying counts the relationships that stay with the node whatever
	// the groups: self-loops, other types, ends outside the subgraph
	// (filled by Describe).
	Staying []RelCount `json:"staying,omitempty"`
	// Links are the links between the node's neighbours (Plan.NeighborLinks),
	// as pairs of positions in its neighbours numbered through the groups in
	// order; at most MaxPlanLinks, LinksOmitted more.
	Links        [][2]int `json:"links,omitempty"`
	LinksOmitted int      `json:"linksOmitted,omitempty"`
}

// PlanGroup is one group of neighbours.
type PlanGroup struct {
	Neighbors   []any `json:"neighbors"`   // keys (or element ids)
	NeighborIDs []any `json:"neighborIds"` // element ids
	// Names are the neighbours' Plan.DisplayProperty values.
	Names []string `json:"names,omitempty"`
	// RelationshipIDs are the element ids of the pulled relationships
	// between the node and the group's neighbours (Plan.PulledOnly).
	RelationshipIDs []string `json:"relationshipIds,omitempty"`
	// Relationships counts the group's relationships by type and direction
	// (filled by Describe).
	Relationships []RelCount `json:"relationships,omitempty"`
}

// RelCount is a number of relationships of one type and direction (seen
// from the node being split).
type RelCount struct {
	Type      string `json:"type"`
	Direction string `json:"direction"` // "out" or "in"
	Count     int    `json:"count"`
}

// PlanOptions configure NewPlan.
type PlanOptions struct {
	RunID       string
	Splitter    string
	MarkerLabel string // default DefaultMarkerLabel
	// SkipProperties are not copied to clones; the write properties should
	// be among them (a clone's score is unknown until the next run).
	SkipProperties []string
	Now            time.Time
}

// NewPlan turns the split proposals of res (computed on sg.Graph) into a
// plan. Proposals with fewer than two groups split nothing and are left out.
// A Cypher projection can be split only if its relationship query returned
// the relationships' element ids (column relationship): only those move.
func NewPlan(sg *Subgraph, res *fondue.Result, o PlanOptions) (*Plan, error) {
	if o.MarkerLabel == "" {
		o.MarkerLabel = DefaultMarkerLabel
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	p := &Plan{RunID: o.RunID, CreatedAt: isoTime(o.Now), Splitter: o.Splitter,
		IDProperty: sg.Options.IDProperty, MarkerLabel: o.MarkerLabel, Nodes: []PlanNode{}, NeighborLinks: true}
	if sg.Names != nil {
		p.DisplayProperty = sg.Options.DisplayProperty
	}
	if !sg.Options.Custom() {
		p.NodeLabels = slices.Clone(sg.Options.NodeLabels)
		p.RelationshipTypes = slices.Clone(sg.Options.RelationshipTypes)
	} else {
		p.PulledOnly = true
		if sg.RelationshipIDs == nil && slices.ContainsFunc(res.Proposals, func(pr fondue.Proposal) bool { return len(pr.Groups) >= 2 }) {
			return nil, errorf(ErrInvalid, nil, "a split of a Cypher projection moves only the relationships that were pulled: graph.relationship_query must also return elementId(r) AS relationship")
		}
	}
	for _, s := range o.SkipProperties {
		if s != "" && !slices.Contains(p.SkipProperties, s) {
			p.SkipProperties = append(p.SkipProperties, s)
		}
	}
	for _, pr := range res.Proposals {
		if len(pr.Groups) < 2 {
			continue
		}
		pn := PlanNode{ID: sg.IDs[pr.Node], Key: sg.Key(pr.Node), Ambiguity: pr.Ambiguity, Score: pr.Score}
		if sg.Names != nil {
			pn.Name = sg.Names[pr.Node]
		}
		pos := map[int32]int{} // neighbour -> position through the groups
		for _, grp := range pr.Groups {
			g := PlanGroup{Neighbors: make([]any, len(grp)), NeighborIDs: make([]any, len(grp))}
			if sg.Names != nil {
				g.Names = make([]string, len(grp))
			}
			for k, j := range grp {
				pos[j] = len(pos)
				g.Neighbors[k] = sg.Key(int(j))
				g.NeighborIDs[k] = sg.IDs[j]
				if g.Names != nil {
					g.Names[k] = sg.Names[j]
				}
				if p.PulledOnly {
					a, _ := pn.ID.(string)
					b, _ := sg.IDs[j].(string)
					g.RelationshipIDs = append(g.RelationshipIDs, sg.RelationshipIDs[[2]string{min(a, b), max(a, b)}]...)
				}
			}
			pn.Groups = append(pn.Groups, g)
		}
		pn.Links, pn.LinksOmitted = neighborLinks(sg.Graph, pr.Groups, pos)
		p.Nodes = append(p.Nodes, pn)
	}
	return p, nil
}

// neighborLinks lists the links of g between the neighbours in groups, as
// pairs of positions (pos), in the order of the groups; at most
// MaxPlanLinks, and how many more.
func neighborLinks(g *fondue.Graph, groups [][]int32, pos map[int32]int) (links [][2]int, omitted int) {
	links = [][2]int{}
	for _, grp := range groups {
		for _, j := range grp {
			a := pos[j]
			for _, x := range g.Neighbors(int(j)) {
				if b, ok := pos[x]; ok && b > a {
					if len(links) == MaxPlanLinks {
						omitted++
						continue
					}
					links = append(links, [2]int{a, b})
				}
			}
		}
	}
	return links, omitted
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Marshal encodes the plan as JSON.
func (p *Plan) Marshal() ([]byte, error) { return json.Marshal(p) }

// UnmarshalPlan decodes a plan, keeping integer ids and keys as int64.
func UnmarshalPlan(data []byte) (*Plan, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var p Plan
	if err := d.Decode(&p); err != nil {
		return nil, err
	}
	for k := range p.Nodes {
		n := &p.Nodes[k]
		n.ID, n.Key = fromJSON(n.ID), fromJSON(n.Key)
		for g, grp := range n.Groups {
			// A group pairs each neighbour's key with its element id.
			if len(grp.NeighborIDs) != len(grp.Neighbors) {
				return nil, fmt.Errorf("node %v: group %d has %d neighbors and %d neighborIds", n.Key, g, len(grp.Neighbors), len(grp.NeighborIDs))
			}
			if grp.Names != nil && len(grp.Names) != len(grp.Neighbors) {
				return nil, fmt.Errorf("node %v: group %d has %d neighbors and %d names", n.Key, g, len(grp.Neighbors), len(grp.Names))
			}
			for i := range grp.Neighbors {
				grp.Neighbors[i], grp.NeighborIDs[i] = fromJSON(grp.Neighbors[i]), fromJSON(grp.NeighborIDs[i])
			}
		}
	}
	return &p, nil
}

func fromJSON(v any) any {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
		f, _ := n.Float64()
		return f
	}
	return v
}

// skipOnClone lists the properties a clone does not copy.
func (p *Plan) skipOnClone() []string {
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

// StorePlan stores the plan of its run in a (:FondueRun {run_id}) node,
// unless one is stored already, and returns the stored plan (the existing
// one wins, so that a re-run resumes the first plan).
func (c *Conn) StorePlan(ctx context.Context, p *Plan) (*Plan, error) {
	if err := c.EnsureConstraint(ctx, RunLabel, "run_id"); err != nil {
		return nil, err
	}
	data, err := p.Marshal()
	if err != nil {
		return nil, err
	}
	q, err := c.render("plan_store", cypher.Vars{Label: RunLabel})
	if err != nil {
		return nil, err
	}
	params := map[string]any{"run": p.RunID, "plan": string(data), "at": p.CreatedAt, "approved": nil, "reviewedAt": nil}
	if p.Approved != nil {
		params["approved"], params["reviewedAt"] = p.Approved.Fingerprint, p.Approved.ReviewedAt
	}
	res, err := neo4j.ExecuteQuery(ctx, c.driver, q, params,
		neo4j.EagerResultTransformer, c.queryOpts(neo4j.ExecuteQueryWithWritersRouting())...)
	if err != nil {
		return nil, c.classify(err, "store the split plan")
	}
	text, _, err := neo4j.GetRecordValue[string](res.Records[0], "plan")
	if err != nil {
		return nil, fmt.Errorf("store the split plan: %w", err)
	}
	stored, err := UnmarshalPlan([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("split plan of run %s is corrupt: %w", p.RunID, err)
	}
	if err := p.CheckStored(stored); err != nil {
		return nil, err
	}
	return stored, nil
}

// CheckStored says whether re-running plan p may resume stored, the plan
// its run id already stored: a plan that applies an approved plan resumes
// only the same approved plan (same fingerprint); anything else is refused
// (ErrInvalid), since resuming would carry out another plan than the one
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
	return errorf(ErrInvalid, nil, "run id %s already holds another split plan (%s), not approved plan %s: apply it under a run id of its own (--run-id)",
		p.RunID, what, shortFingerprint(p.Approved.Fingerprint))
}

func shortFingerprint(fp string) string {
	if i := strings.IndexByte(fp, ':'); i >= 0 && len(fp) > i+13 {
		return fp[:i+13]
	}
	return fp
}

// LoadPlan returns the plan stored by a run, or nil if there is none.
func (c *Conn) LoadPlan(ctx context.Context, runID string) (*Plan, error) {
	q, err := c.render("plan_load", cypher.Vars{Label: RunLabel})
	if err != nil {
		return nil, err
	}
	res, err := neo4j.ExecuteQuery(ctx, c.driver, q, map[string]any{"run": runID},
		neo4j.EagerResultTransformer, c.queryOpts(neo4j.ExecuteQueryWithReadersRouting())...)
	if err != nil {
		return nil, c.classify(err, "read the split plan of run "+runID)
	}
	if len(res.Records) == 0 {
		return nil, nil
	}
	s, _, err := neo4j.GetRecordValue[string](res.Records[0], "plan")
	if err != nil {
		return nil, fmt.Errorf("split plan of run %s: %w", runID, err)
	}
	p, err := UnmarshalPlan([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("split plan of run %s is corrupt: %w", runID, err)
	}
	return p, nil
}

// rel is one relationship of a node being split or restored.
type rel struct {
	rid         any
	typ         string
	outgoing    bool
	other       any // internal id of the other end
	origin      any // when the other end is a clone of this run: its original
	otherLabels []string
	otherKey    any    // the other end's key (Plan.IDProperty), if read
	otherName   string // the other end's name (Plan.DisplayProperty), if read
}

// assignment is where each relationship of a node goes.
type assignment struct {
	groups  [][]rel // by group; group 0 stays
	staying []rel   // self-loops, other types, ends outside the plan
	missing []any   // planned neighbours (keys) no longer connected
}

func (p *Plan) assign(n PlanNode, rels []rel) assignment {
	groupOf := map[any]int{}
	for g, grp := range n.Groups {
		for _, id := range grp.NeighborIDs {
			groupOf[id] = g
		}
	}
	var pulled map[any]bool
	if p.PulledOnly {
		pulled = map[any]bool{}
		for _, grp := range n.Groups {
			for _, rid := range grp.RelationshipIDs {
				pulled[rid] = true
			}
		}
	}
	a := assignment{groups: make([][]rel, len(n.Groups))}
	connected := map[any]bool{}
	for _, r := range rels {
		other := r.other
		if r.origin != nil {
			other = r.origin // a clone of this run stands for its original
		}
		g, planned := groupOf[other]
		eligible := len(p.RelationshipTypes) == 0 || slices.Contains(p.RelationshipTypes, r.typ)
		if pulled != nil {
			eligible = pulled[r.rid]
		}
		if other == n.ID || !planned || !eligible {
			a.staying = append(a.staying, r)
			continue
		}
		a.groups[g] = append(a.groups[g], r)
		connected[other] = true
	}
	for _, grp := range n.Groups {
		for k, id := range grp.NeighborIDs {
			if !connected[id] {
				a.missing = append(a.missing, grp.Neighbors[k])
			}
		}
	}
	return a
}

func countRels(rels []rel) []RelCount {
	m := map[RelCount]int{}
	for _, r := range rels {
		d := "in"
		if r.outgoing {
			d = "out"
		}
		m[RelCount{Type: r.typ, Direction: d}]++
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

// nodeState is a node as a split or undo transaction sees it.
type nodeState struct {
	exists bool
	labels []string
	key    any
	split  bool // already split by this run
}

func (c *Conn) readState(ctx context.Context, tx neo4j.ManagedTransaction, id any, idProp, run string) (nodeState, error) {
	q, err := c.render("node_state", cypher.Vars{IDProperty: idProp})
	if err != nil {
		return nodeState{}, err
	}
	res, err := tx.Run(ctx, q, map[string]any{"id": id, "run": run})
	if err != nil {
		return nodeState{}, err
	}
	recs, err := res.Collect(ctx)
	if err != nil || len(recs) == 0 {
		return nodeState{}, err
	}
	r := recs[0]
	st := nodeState{exists: true}
	labels, _, _ := neo4j.GetRecordValue[[]any](r, "labels")
	for _, l := range labels {
		s, _ := l.(string)
		st.labels = append(st.labels, s)
	}
	if idProp != "" {
		st.key, _ = r.Get("key")
	}
	st.split, _, _ = neo4j.GetRecordValue[bool](r, "split")
	return st, nil
}

// relVars are the names readRels needs: the marker label and run of
// clones, and the key and display properties of the other ends (optional).
type relVars struct {
	marker, run     string
	idProp, display string
}

func (p *Plan) relVars() relVars {
	return relVars{marker: p.MarkerLabel, run: p.RunID, idProp: p.IDProperty, display: p.DisplayProperty}
}

func (c *Conn) readRels(ctx context.Context, tx neo4j.ManagedTransaction, id any, rv relVars) ([]rel, error) {
	q, err := c.render("node_relationships", cypher.Vars{Label: rv.marker, IDProperty: rv.idProp, DisplayProperty: rv.display})
	if err != nil {
		return nil, err
	}
	run := rv.run
	res, err := tx.Run(ctx, q, map[string]any{"id": id, "run": run})
	if err != nil {
		return nil, err
	}
	var rels []rel
	seen := map[any]bool{}
	for res.Next(ctx) {
		v := res.Record().Values // rid, type, outgoing, other, origin
		if seen[v[0]] {
			continue // a self-loop may be listed twice
		}
		seen[v[0]] = true
		typ, _ := v[1].(string)
		out, _ := v[2].(bool)
		r := rel{rid: v[0], typ: typ, outgoing: out, other: v[3], origin: v[4]}
		labels, _ := v[5].([]any)
		for _, l := range labels {
			ls, _ := l.(string)
			r.otherLabels = append(r.otherLabels, ls)
		}
		if rv.idProp != "" {
			r.otherKey, _ = res.Record().Get("otherKey")
		}
		if rv.display != "" {
			name, _ := res.Record().Get("otherName")
			r.otherName = DisplayText(name)
		}
		rels = append(rels, r)
	}
	return rels, res.Err()
}

// Describe fills in the labels and relationship counts of every planned
// node from the database, in read transactions, without writing anything
// (the dry run).
func (c *Conn) Describe(ctx context.Context, p *Plan) error {
	s := c.session(ctx, neo4j.AccessModeRead)
	defer s.Close(ctx)
	for k := range p.Nodes {
		n := &p.Nodes[k]
		_, err := s.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
			st, err := c.readState(ctx, tx, n.ID, p.IDProperty, p.RunID)
			if err != nil || !st.exists {
				return nil, err
			}
			rels, err := c.readRels(ctx, tx, n.ID, p.relVars())
			if err != nil {
				return nil, err
			}
			a := p.assign(*n, rels)
			n.Labels = st.labels
			for g := range n.Groups {
				n.Groups[g].Relationships = countRels(a.groups[g])
			}
			n.Staying = countRels(a.staying)
			return nil, nil
		})
		if err != nil {
			return c.classify(err, fmt.Sprintf("read node %v for the dry run", n.Key))
		}
	}
	return nil
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
	Key     any    `json:"key"`
	Name    string `json:"name,omitempty"` // PlanNode.Name
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	Clones  int    `json:"clones,omitempty"`
	Moved   int    `json:"moved,omitempty"`
}

// SplitStats summarize Split.
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

var errChanged = errors.New("relationships changed during the split")

// Split carries out a plan, one write transaction per node (serially:
// splits of neighbouring nodes would otherwise deadlock): create one clone
// per group after the first, with the node's labels and properties plus
// the marker label and provenance, move each relationship of the group to
// it (same type, direction and properties), and record the run on the
// original. A node already split by this run is left alone, so re-running
// a plan changes nothing; a node interrupted mid-way was rolled back and is
// split by the re-run. A node whose planned neighbours are no longer all
// connected to it is skipped (OutcomeChanged), never half split. Losing the
// connection for longer than the retry time aborts with ErrUnreachable;
// other failures of one node are reported in its outcome. With
// ExactNeighbors a node is split only if its neighbours are exactly the
// planned ones, checked in its transaction (none added either): the
// reason names what changed.
func (c *Conn) Split(ctx context.Context, p *Plan, now time.Time, progress func(done, total int)) (SplitStats, error) {
	t0 := time.Now()
	st := SplitStats{Planned: len(p.Nodes), Nodes: []NodeOutcome{}}
	if len(p.Nodes) == 0 {
		return st, nil
	}
	if err := c.EnsureConstraint(ctx, p.MarkerLabel, PropSplitKey); err != nil {
		return st, err
	}
	unique, err := c.uniqueProperties(ctx)
	if err != nil {
		return st, err
	}
	at := isoTime(now)
	s := c.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.WithoutCancel(ctx))
	for k, n := range p.Nodes {
		out, err := s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
			if err := c.checkFence(ctx, tx, fmt.Sprintf("splitting node %v (%d of %d)", n.Key, k+1, len(p.Nodes))); err != nil {
				return nil, err
			}
			return c.splitNode(ctx, tx, p, n, at, unique)
		}, neo4j.WithTxMetadata(map[string]any{"app": "fondue-neo4j", "run": p.RunID}))
		var o NodeOutcome
		switch {
		case err == nil:
			o = out.(NodeOutcome)
		case errors.Is(err, errChanged):
			o = NodeOutcome{Key: n.Key, Name: n.Name, Outcome: OutcomeChanged, Reason: "its relationships changed during the split"}
		case ctx.Err() != nil:
			return st, ctx.Err()
		case neo4j.IsConnectivityError(err) || neo4j.IsTransactionExecutionLimit(err):
			st.Duration = time.Since(t0)
			return st, c.classify(err, fmt.Sprintf("split node %v (%d of %d; re-run with the same run id to resume)", n.Key, k+1, len(p.Nodes)))
		default:
			var cerr *Error
			if errors.As(err, &cerr) {
				return st, err
			}
			o = NodeOutcome{Key: n.Key, Name: n.Name, Outcome: OutcomeFailed, Reason: oneLine(err.Error())}
		}
		switch o.Outcome {
		case OutcomeSplit:
			st.Split++
		case OutcomeDone:
			st.AlreadyDone++
		case OutcomeChanged, OutcomeMissing:
			st.Skipped++
		case OutcomeFailed:
			st.Failed++
		}
		if o.Outcome != OutcomeSplit && o.Outcome != OutcomeDone {
			c.log.Warn("node not split", "node", fmt.Sprint(n.Key), "outcome", o.Outcome, "reason", o.Reason)
		}
		st.NodesCreated += o.Clones
		st.RelationshipsMoved += o.Moved
		st.Nodes = append(st.Nodes, o)
		if progress != nil {
			progress(k+1, len(p.Nodes))
		}
	}
	st.Duration = time.Since(t0)
	return st, nil
}

// uniqueProperties maps each label to the node properties that a
// uniqueness or node key constraint covers for it.
func (c *Conn) uniqueProperties(ctx context.Context) (map[string][]string, error) {
	q, err := c.render("unique_properties", cypher.Vars{})
	if err != nil {
		return nil, err
	}
	res, err := neo4j.ExecuteQuery(ctx, c.driver, q, nil, neo4j.EagerResultTransformer, c.queryOpts(neo4j.ExecuteQueryWithReadersRouting())...)
	if err != nil {
		return nil, c.classify(err, "list the uniqueness constraints")
	}
	out := map[string][]string{}
	for _, r := range res.Records {
		labels, _, _ := neo4j.GetRecordValue[[]any](r, "labels")
		props, _, _ := neo4j.GetRecordValue[[]any](r, "properties")
		for _, l := range labels {
			for _, p := range props {
				ls, _ := l.(string)
				ps, _ := p.(string)
				if !slices.Contains(out[ls], ps) {
					out[ls] = append(out[ls], ps)
				}
			}
		}
	}
	return out, nil
}

// examine reads a planned node in tx and decides whether it can be split
// as planned: o.Outcome is "" when it can (a says where each relationship
// goes), else OutcomeMissing, OutcomeDone or OutcomeChanged, with the
// reason. It writes nothing: Split runs it first in each node's
// transaction, Check in a read transaction.
func (c *Conn) examine(ctx context.Context, tx neo4j.ManagedTransaction, p *Plan, n PlanNode) (o NodeOutcome, state nodeState, a assignment, err error) {
	o = NodeOutcome{Key: n.Key, Name: n.Name}
	if n.ID == nil { // a key that no selected node has (ResolveKeys)
		o.Outcome, o.Reason = OutcomeMissing, fmt.Sprintf("no node of the subgraph has %s = %s", p.IDProperty, keyDescription(n.Key))
		return o, state, a, nil
	}
	state, err = c.readState(ctx, tx, n.ID, p.IDProperty, p.RunID)
	if err != nil {
		return o, state, a, err
	}
	switch {
	case !state.exists:
		o.Outcome, o.Reason = OutcomeMissing, "the node no longer exists"
		return o, state, a, nil
	case p.IDProperty != "" && !sameValue(state.key, n.Key):
		o.Outcome, o.Reason = OutcomeMissing, fmt.Sprintf("its %s is now %v", p.IDProperty, state.key)
		return o, state, a, nil
	case state.split:
		o.Outcome = OutcomeDone
		return o, state, a, nil
	case p.ExactNeighbors && !p.selects(state.labels, state.key):
		o.Outcome, o.Reason = OutcomeMissing, fmt.Sprintf("it is no longer in the subgraph (its labels are now %s)", strings.Join(quoteAll(state.labels), ", "))
		return o, state, a, nil
	}
	rels, err := c.readRels(ctx, tx, n.ID, p.relVars())
	if err != nil {
		return o, state, a, err
	}
	a = p.assign(n, rels)
	if p.ExactNeighbors {
		if added, removed := p.neighbourChange(n, rels); len(added)+len(removed) > 0 {
			o.Outcome, o.Reason = OutcomeChanged, changeText(added, removed)
		}
	} else if len(a.missing) > 0 {
		o.Outcome = OutcomeChanged
		o.Reason = fmt.Sprintf("%d planned neighbours are no longer connected to it (e.g. %v)", len(a.missing), a.missing[0])
	}
	return o, state, a, nil
}

// selects reports whether the plan's pull selects a node with these labels
// and key: one of NodeLabels (when given; never fondue-neo4j's own lock
// and run nodes), and a key when IDProperty is set (split clones without
// one are left out).
func (p *Plan) selects(labels []string, key any) bool {
	if len(p.NodeLabels) > 0 {
		if !slices.ContainsFunc(labels, func(l string) bool { return slices.Contains(p.NodeLabels, l) }) {
			return false
		}
	} else if slices.Contains(labels, LockLabel) || slices.Contains(labels, RunLabel) {
		return false
	}
	return p.IDProperty == "" || key != nil
}

// neighbourChange compares node n's neighbours in the subgraph (the other
// ends of its relationships that the plan's pull selects; a clone of this
// run counts as its original) with the planned ones: the neighbours added
// since the plan and the planned ones removed, described for people.
func (p *Plan) neighbourChange(n PlanNode, rels []rel) (added, removed []string) {
	planned := map[any]bool{}
	for _, grp := range n.Groups {
		for _, id := range grp.NeighborIDs {
			planned[id] = true
		}
	}
	current := map[any]bool{}
	type nb struct {
		key  any
		desc string
	}
	var extra []nb
	for _, r := range rels {
		other, key, name, labels := r.other, r.otherKey, r.otherName, r.otherLabels
		eligible := len(p.RelationshipTypes) == 0 || slices.Contains(p.RelationshipTypes, r.typ)
		switch {
		case !eligible || other == n.ID:
			continue
		case r.origin != nil:
			other = r.origin // selected: its original was
		case !p.selects(labels, key):
			continue
		}
		if current[other] {
			continue
		}
		current[other] = true
		if !planned[other] {
			if p.IDProperty == "" {
				key = other
			}
			extra = append(extra, nb{key, describeNode(key, name)})
		}
	}
	slices.SortFunc(extra, func(a, b nb) int { return compareKeys(a.key, b.key) })
	for _, e := range extra {
		added = append(added, e.desc)
	}
	for _, grp := range n.Groups {
		for k, id := range grp.NeighborIDs {
			if id == nil || !current[id] {
				name := ""
				if grp.Names != nil {
					name = grp.Names[k]
				}
				removed = append(removed, describeNode(grp.Neighbors[k], name))
			}
		}
	}
	return added, removed
}

// describeNode is a key with its name: "26 (Cosette)".
func describeNode(key any, name string) string {
	k := keyText(key)
	if name != "" && name != k {
		return k + " (" + name + ")"
	}
	return k
}

// keyText is a key as text: integers in decimal, strings as they are.
func keyText(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case nil:
		return ""
	}
	return fmt.Sprint(k)
}

// keyDescription is a key for messages: strings quoted, so that 11 and
// "11" differ.
func keyDescription(k any) string {
	if s, ok := k.(string); ok {
		return strconv.Quote(s)
	}
	return keyText(k)
}

// compareKeys orders keys: integers numerically before strings.
func compareKeys(a, b any) int {
	ai, aInt := a.(int64)
	bi, bInt := b.(int64)
	switch {
	case aInt && bInt:
		return cmp.Compare(ai, bi)
	case aInt:
		return -1
	case bInt:
		return 1
	}
	return strings.Compare(keyText(a), keyText(b))
}

// maxListed bounds the neighbours a change names.
const maxListed = 10

// changeText says how a node's neighbours changed: "added neighbour 77;
// removed 26 (Cosette)".
func changeText(added, removed []string) string {
	list := func(xs []string) string {
		s := strings.Join(xs[:min(len(xs), maxListed)], ", ")
		if len(xs) > maxListed {
			s += fmt.Sprintf(" and %d more", len(xs)-maxListed)
		}
		return s
	}
	noun := func(xs []string) string {
		if len(xs) == 1 {
			return "neighbour "
		}
		return "neighbours "
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added "+noun(added)+list(added))
	}
	if len(removed) > 0 {
		if len(added) > 0 {
			parts = append(parts, "removed "+list(removed))
		} else {
			parts = append(parts, "removed "+noun(removed)+list(removed))
		}
	}
	return strings.Join(parts, "; ")
}

// Check compares every node of the plan with the graph, as Split will in
// each node's transaction, in one read transaction and writing nothing
// (the whole-plan check of an approved plan before any split). It returns
// the nodes that Split would not split as planned (OutcomeChanged or
// OutcomeMissing, with the reason); nodes this run already split are fine.
func (c *Conn) Check(ctx context.Context, p *Plan) ([]NodeOutcome, error) {
	s := c.session(ctx, neo4j.AccessModeRead)
	defer s.Close(ctx)
	out, err := s.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		bad := []NodeOutcome{}
		for _, n := range p.Nodes {
			o, _, _, err := c.examine(ctx, tx, p, n)
			if err != nil {
				return nil, err
			}
			if o.Outcome == OutcomeChanged || o.Outcome == OutcomeMissing {
				bad = append(bad, o)
			}
		}
		return bad, nil
	})
	if err != nil {
		return nil, c.classify(err, "check the split plan against the graph")
	}
	return out.([]NodeOutcome), nil
}

// ResolveKeys sets the element ids of the plan's nodes and neighbours from
// their keys (Plan.IDProperty), among the nodes that the plan's selection
// selects, and their keys to the graph's values (the 11 of an edge list
// may be the string "11" in the graph). An approved plan reviewed from an
// edge list names nodes by key only; one reviewed from a dry run gets the
// element ids of today's nodes. A key that no selected node has gets a nil
// id: Check and Split report that node as missing, that neighbour as
// removed. Two nodes with the same key are an error (ErrInvalid).
func (c *Conn) ResolveKeys(ctx context.Context, p *Plan) error {
	if p.IDProperty == "" {
		return errorf(ErrInvalid, nil, "nodes can be found by key only with a key property (graph.id_property)")
	}
	if p.PulledOnly {
		return errorf(ErrInvalid, nil, "the nodes of a Cypher projection cannot be found by key")
	}
	var keys []any
	seen := map[any]bool{}
	add := func(k any) {
		for _, v := range keyVariants(k) {
			if !seen[v] {
				seen[v] = true
				keys = append(keys, v)
			}
		}
	}
	for _, n := range p.Nodes {
		add(n.Key)
		for _, g := range n.Groups {
			for _, k := range g.Neighbors {
				add(k)
			}
		}
	}
	q, err := c.render("nodes_by_key", cypher.Vars{NodeLabels: p.NodeLabels, IDProperty: p.IDProperty, ExcludeLabels: []string{LockLabel, RunLabel}})
	if err != nil {
		return err
	}
	res, err := neo4j.ExecuteQuery(ctx, c.driver, q, map[string]any{"keys": keys},
		neo4j.EagerResultTransformer, c.queryOpts(neo4j.ExecuteQueryWithReadersRouting())...)
	if err != nil {
		return c.classify(err, "find the plan's nodes by "+p.IDProperty)
	}
	type node struct{ key, id any }
	byText := map[string]node{}
	for _, r := range res.Records {
		key, id := r.Values[0], r.Values[1]
		t := keyText(key)
		if prev, dup := byText[t]; dup {
			return errorf(ErrInvalid, nil, "nodes elementId(n) = %q and %q have the same %s = %s (graph.id_property): keys must be unique",
				keyText(prev.id), keyText(id), p.IDProperty, keyDescription(key))
		}
		byText[t] = node{key, id}
	}
	resolve := func(k any) (any, any) {
		if nd, ok := byText[keyText(k)]; ok {
			return nd.key, nd.id
		}
		return k, nil
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

// keyVariants are the values a key may have in the graph: itself, and the
// integer as text or the text as an integer.
func keyVariants(k any) []any {
	switch x := k.(type) {
	case int64:
		return []any{x, strconv.FormatInt(x, 10)}
	case string:
		if i, err := strconv.ParseInt(x, 10, 64); err == nil && strconv.FormatInt(i, 10) == x {
			return []any{x, i}
		}
		return []any{x}
	}
	return []any{k}
}

func (c *Conn) splitNode(ctx context.Context, tx neo4j.ManagedTransaction, p *Plan, n PlanNode, at string, unique map[string][]string) (NodeOutcome, error) {
	if n.ID != nil {
		lockQ, err := c.render("node_lock", cypher.Vars{})
		if err != nil {
			return NodeOutcome{}, err
		}
		res, err := tx.Run(ctx, lockQ, map[string]any{"id": n.ID})
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err != nil {
			return NodeOutcome{}, err
		}
	}
	o, state, a, err := c.examine(ctx, tx, p, n)
	if err != nil || o.Outcome != "" {
		return o, err
	}
	labels := slices.Clone(state.labels)
	if !slices.Contains(labels, p.MarkerLabel) {
		labels = append(labels, p.MarkerLabel)
	}
	// A clone cannot carry a copy of a property that must be unique for
	// one of its labels: it gets none (the original keeps it).
	skip := p.skipOnClone()
	for _, l := range labels {
		for _, prop := range unique[l] {
			if !slices.Contains(skip, prop) {
				skip = append(skip, prop)
				c.log.Debug("not copied to the clone: a uniqueness constraint covers it", "label", l, "property", prop)
			}
		}
	}
	cloneQ, err := c.render("split_clone", cypher.Vars{Labels: labels, SkipProperties: skip})
	if err != nil {
		return o, err
	}
	for g := 1; g < len(n.Groups); g++ {
		res, err := tx.Run(ctx, cloneQ, map[string]any{
			"id": n.ID, "key": fmt.Sprintf("%s/%v/%d", p.RunID, n.Key, g), "run": p.RunID,
			"from": n.Key, "group": int64(g), "at": at,
		})
		if err != nil {
			return o, err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return o, err
		}
		clone := rec.Values[0]
		o.Clones++
		moved, err := c.moveRels(ctx, tx, n.ID, clone, a.groups[g])
		if err != nil {
			return o, err
		}
		o.Moved += moved
	}
	markQ, err := c.render("split_mark", cypher.Vars{})
	if err != nil {
		return o, err
	}
	if _, err := tx.Run(ctx, markQ, map[string]any{"id": n.ID, "run": p.RunID}); err != nil {
		return o, err
	}
	o.Outcome = OutcomeSplit
	return o, nil
}

// moveRels moves relationships of node from to node to, one statement per
// type and direction, and checks that each one was found.
func (c *Conn) moveRels(ctx context.Context, tx neo4j.ManagedTransaction, from, to any, rels []rel) (int, error) {
	type batch struct {
		typ string
		out bool
	}
	batches := map[batch][]map[string]any{}
	var order []batch
	for _, r := range rels {
		b := batch{r.typ, r.outgoing}
		if _, ok := batches[b]; !ok {
			order = append(order, b)
		}
		batches[b] = append(batches[b], map[string]any{"rid": r.rid, "other": r.other})
	}
	moved := 0
	for _, b := range order {
		stmt := "move_incoming"
		if b.out {
			stmt = "move_outgoing"
		}
		q, err := c.render(stmt, cypher.Vars{Type: b.typ})
		if err != nil {
			return moved, err
		}
		res, err := tx.Run(ctx, q, map[string]any{"from": from, "to": to, "rels": batches[b]})
		if err != nil {
			return moved, err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return moved, err
		}
		got, _ := rec.Values[0].(int64)
		if int(got) != len(batches[b]) {
			return moved, fmt.Errorf("%w: moved %d of %d %s relationships", errChanged, got, len(batches[b]), b.typ)
		}
		moved += int(got)
	}
	return moved, nil
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		}
	case float64:
		if y, ok := b.(int64); ok {
			return x == float64(y)
		}
	}
	return a == b
}
