package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
	// IDProperty and RelationshipTypes are the pull's: only relationships
	// of these types (all when empty) to planned neighbours move.
	IDProperty        string   `json:"idProperty,omitempty"`
	RelationshipTypes []string `json:"relationshipTypes,omitempty"`
	MarkerLabel       string   `json:"markerLabel"`
	// SkipProperties are not copied to clones (besides the key property
	// and the provenance properties).
	SkipProperties []string `json:"skipProperties,omitempty"`
	// PulledOnly (a Cypher projection): only the relationships listed in
	// the groups' RelationshipIDs move; every other one stays.
	PulledOnly bool       `json:"pulledOnly,omitempty"`
	Nodes      []PlanNode `json:"nodes"`
}

// PlanNode is the split of one node.
type PlanNode struct {
	ID        any         `json:"id"`  // internal id
	Key       any         `json:"key"` // key property value, or the internal id
	Labels    []string    `json:"labels,omitempty"`
	Ambiguity float64     `json:"ambiguity"`
	Score     float64     `json:"score"`
	Groups    []PlanGroup `json:"groups"`
	// Staying counts the relationships that stay with the node whatever
	// the groups: self-loops, other types, ends outside the subgraph
	// (filled by Describe).
	Staying []RelCount `json:"staying,omitempty"`
}

// PlanGroup is one group of neighbours.
type PlanGroup struct {
	Neighbors   []any `json:"neighbors"`   // keys (or element ids)
	NeighborIDs []any `json:"neighborIds"` // element ids
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
		IDProperty: sg.Options.IDProperty, MarkerLabel: o.MarkerLabel, Nodes: []PlanNode{}}
	if !sg.Options.Custom() {
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
		for _, grp := range pr.Groups {
			g := PlanGroup{Neighbors: make([]any, len(grp)), NeighborIDs: make([]any, len(grp))}
			for k, j := range grp {
				g.Neighbors[k] = sg.Key(int(j))
				g.NeighborIDs[k] = sg.IDs[j]
				if p.PulledOnly {
					a, _ := pn.ID.(string)
					b, _ := sg.IDs[j].(string)
					g.RelationshipIDs = append(g.RelationshipIDs, sg.RelationshipIDs[[2]string{min(a, b), max(a, b)}]...)
				}
			}
			pn.Groups = append(pn.Groups, g)
		}
		p.Nodes = append(p.Nodes, pn)
	}
	return p, nil
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
	res, err := neo4j.ExecuteQuery(ctx, c.driver, q, map[string]any{"run": p.RunID, "plan": string(data), "at": p.CreatedAt},
		neo4j.EagerResultTransformer, c.queryOpts(neo4j.ExecuteQueryWithWritersRouting())...)
	if err != nil {
		return nil, c.classify(err, "store the split plan")
	}
	stored, _, err := neo4j.GetRecordValue[string](res.Records[0], "plan")
	if err != nil {
		return nil, fmt.Errorf("store the split plan: %w", err)
	}
	return UnmarshalPlan([]byte(stored))
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
	rid      any
	typ      string
	outgoing bool
	other    any // internal id of the other end
	origin   any // when the other end is a clone of this run: its original
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

func (c *Conn) readRels(ctx context.Context, tx neo4j.ManagedTransaction, id any, marker, run string) ([]rel, error) {
	q, err := c.render("node_relationships", cypher.Vars{Label: marker})
	if err != nil {
		return nil, err
	}
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
		rels = append(rels, rel{rid: v[0], typ: typ, outgoing: out, other: v[3], origin: v[4]})
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
			rels, err := c.readRels(ctx, tx, n.ID, p.MarkerLabel, p.RunID)
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
// other failures of one node are reported in its outcome.
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
			o = NodeOutcome{Key: n.Key, Outcome: OutcomeChanged, Reason: "its relationships changed during the split"}
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
			o = NodeOutcome{Key: n.Key, Outcome: OutcomeFailed, Reason: oneLine(err.Error())}
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

func (c *Conn) splitNode(ctx context.Context, tx neo4j.ManagedTransaction, p *Plan, n PlanNode, at string, unique map[string][]string) (NodeOutcome, error) {
	o := NodeOutcome{Key: n.Key}
	state, err := c.readState(ctx, tx, n.ID, p.IDProperty, p.RunID)
	if err != nil {
		return o, err
	}
	switch {
	case !state.exists:
		o.Outcome, o.Reason = OutcomeMissing, "the node no longer exists"
		return o, nil
	case p.IDProperty != "" && !sameValue(state.key, n.Key):
		o.Outcome, o.Reason = OutcomeMissing, fmt.Sprintf("its %s is now %v", p.IDProperty, state.key)
		return o, nil
	case state.split:
		o.Outcome = OutcomeDone
		return o, nil
	}
	rels, err := c.readRels(ctx, tx, n.ID, p.MarkerLabel, p.RunID)
	if err != nil {
		return o, err
	}
	a := p.assign(n, rels)
	if len(a.missing) > 0 {
		o.Outcome = OutcomeChanged
		o.Reason = fmt.Sprintf("%d planned neighbours are no longer connected to it (e.g. %v)", len(a.missing), a.missing[0])
		return o, nil
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
