package connector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// StorePlan stores the plan of its run in a (:FondueRun {run_id}) node,
// unless one is stored already, and returns the stored plan (the existing
// one wins, so that a re-run resumes the first plan).
func (c *Conn) StorePlan(ctx context.Context, p *splitplan.Plan) (*splitplan.Plan, error) {
	if err := c.EnsureConstraint(ctx, syncjob.RunLabel, "run_id"); err != nil {
		return nil, err
	}
	data, err := p.Marshal()
	if err != nil {
		return nil, err
	}
	q, err := c.render("plan_store", cypher.Vars{Label: syncjob.RunLabel})
	if err != nil {
		return nil, err
	}
	params := map[string]any{"run": p.RunID, "plan": string(data), "at": p.CreatedAt, "approved": nil, "reviewedAt": nil, "decisions": nil}
	if ds, err := splitplan.MarshalDecisions(p.Decisions); err != nil {
		return nil, err
	} else if ds != nil {
		params["decisions"] = string(ds)
	}
	if p.Approved != nil {
		params["approved"], params["reviewedAt"] = p.Approved.Fingerprint, p.Approved.ReviewedAt
	}
	res, err := c.query(ctx, q, params, true)
	if err != nil {
		return nil, c.classify(err, "store the split plan")
	}
	// Null: the stored plan is p (just stored, or stored by an earlier
	// attempt with the same text).
	text, isNull, err := neo4j.GetRecordValue[string](res.Records[0], "plan")
	if err != nil {
		return nil, fmt.Errorf("store the split plan: %w", err)
	}
	if isNull {
		return p, nil
	}
	stored, err := splitplan.Unmarshal([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("split plan of run %s is corrupt: %w", p.RunID, err)
	}
	if err := p.CheckStored(stored); err != nil {
		return nil, errorf(syncjob.ErrInvalid, err, "%v", err)
	}
	return stored, nil
}

// LoadPlan returns the plan stored by a run, or nil if there is none.
func (c *Conn) LoadPlan(ctx context.Context, runID string) (*splitplan.Plan, error) {
	q, err := c.render("plan_load", cypher.Vars{Label: syncjob.RunLabel})
	if err != nil {
		return nil, err
	}
	res, err := c.query(ctx, q, map[string]any{"run": runID}, false)
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
	p, err := splitplan.Unmarshal([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("split plan of run %s is corrupt: %w", runID, err)
	}
	return p, nil
}

// ForgetPlan deletes the record of a run, (:FondueRun {run_id}), with its
// plan, in a write transaction that checks the lock first.
func (c *Conn) ForgetPlan(ctx context.Context, runID string) error {
	q, err := c.render("plan_delete", cypher.Vars{Label: syncjob.RunLabel})
	if err != nil {
		return err
	}
	s := c.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.WithoutCancel(ctx))
	_, err = c.writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
		if err := c.checkFence(ctx, tx, "forgetting the record of run "+runID); err != nil {
			return nil, err
		}
		res, err := tx.Run(ctx, q, map[string]any{"run": runID})
		if err != nil {
			return nil, err
		}
		return res.Consume(ctx)
	})
	if err != nil {
		return c.classify(err, "delete the record of run "+runID)
	}
	return nil
}

// Decisions returns the review decisions kept in the runs' records.
func (c *Conn) Decisions(ctx context.Context) ([]splitplan.Decision, error) {
	q, err := c.render("decisions_load", cypher.Vars{Label: syncjob.RunLabel})
	if err != nil {
		return nil, err
	}
	res, err := c.query(ctx, q, nil, false)
	if err != nil {
		return nil, c.classify(err, "read the review decisions")
	}
	var out []splitplan.Decision
	for _, r := range res.Records {
		run, _ := r.Values[0].(string)
		text, _ := r.Values[1].(string)
		ds, err := splitplan.UnmarshalDecisions([]byte(text), run)
		if err != nil {
			return nil, fmt.Errorf("review decisions of run %s are corrupt: %w", run, err)
		}
		out = append(out, ds...)
	}
	return out, nil
}

// ForgetDecisions removes the review decisions of run runID ("": of every
// run) from the records, in a write transaction that checks the lock
// first, and returns how many it forgot.
func (c *Conn) ForgetDecisions(ctx context.Context, runID string) (int, error) {
	q, err := c.render("decisions_forget", cypher.Vars{Label: syncjob.RunLabel})
	if err != nil {
		return 0, err
	}
	var run any
	if runID != "" {
		run = runID
	}
	s := c.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.WithoutCancel(ctx))
	out, err := c.writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
		if err := c.checkFence(ctx, tx, "forgetting review decisions"); err != nil {
			return nil, err
		}
		res, err := tx.Run(ctx, q, map[string]any{"run": run})
		if err != nil {
			return nil, err
		}
		recs, err := res.Collect(ctx)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, r := range recs {
			text, _ := r.Values[0].(string)
			ds, _ := splitplan.UnmarshalDecisions([]byte(text), "")
			n += len(ds)
		}
		return n, nil
	})
	if err != nil {
		return 0, c.classify(err, "forget the review decisions")
	}
	return out.(int), nil
}

// CountSplit returns how many of the plan's nodes carry the split mark of
// its run (fondue_split_runs): split by it and not restored.
func (c *Conn) CountSplit(ctx context.Context, p *splitplan.Plan) (int, error) {
	ids := make([]any, 0, len(p.Nodes))
	for _, n := range p.Nodes {
		if !n.ID.IsZero() {
			ids = append(ids, n.ID.Value())
		}
	}
	q, err := c.render("split_count", cypher.Vars{})
	if err != nil {
		return 0, err
	}
	res, err := c.query(ctx, q, map[string]any{"ids": ids, "run": p.RunID}, false)
	if err != nil {
		return 0, c.classify(err, "count the nodes split by run "+p.RunID)
	}
	n, _, err := neo4j.GetRecordValue[int64](res.Records[0], "split")
	return int(n), err
}

// CheckName refuses the names Neo4j would not use literally
// (cypher.CheckName).
func (c *Conn) CheckName(name string) error { return cypher.CheckName(name) }

var _ syncjob.NameChecker = (*Conn)(nil)

func (c *Conn) readState(ctx context.Context, tx neo4j.ManagedTransaction, id keys.Key, idProp, run string) (splitplan.NodeState, error) {
	q, err := c.render("node_state", cypher.Vars{IDProperty: idProp})
	if err != nil {
		return splitplan.NodeState{}, err
	}
	res, err := tx.Run(ctx, q, map[string]any{"id": id.Value(), "run": run})
	if err != nil {
		return splitplan.NodeState{}, err
	}
	recs, err := res.Collect(ctx)
	if err != nil || len(recs) == 0 {
		return splitplan.NodeState{}, err
	}
	r := recs[0]
	st := splitplan.NodeState{Exists: true}
	labels, _, _ := neo4j.GetRecordValue[[]any](r, "labels")
	for _, l := range labels {
		s, _ := l.(string)
		st.Labels = append(st.Labels, s)
	}
	if idProp != "" {
		st.KeyValue, _ = r.Get("key")
	}
	st.Split, _, _ = neo4j.GetRecordValue[bool](r, "split")
	return st, nil
}

// relVars are the names readRels needs: the marker label and run of
// clones, and the key and display properties of the other ends (optional).
type relVars struct {
	marker, run string
	idProp      string
	display     []string
}

func relVarsOf(p *splitplan.Plan) relVars {
	return relVars{marker: p.MarkerLabel, run: p.RunID, idProp: p.IDProperty, display: p.DisplayProperties}
}

func (c *Conn) readRels(ctx context.Context, tx neo4j.ManagedTransaction, id keys.Key, rv relVars) ([]splitplan.Rel, error) {
	m, err := c.readRelsOf(ctx, tx, []keys.Key{id}, rv)
	return m[id], err
}

// readRelsOf reads the relationships of several nodes in one statement,
// by node.
func (c *Conn) readRelsOf(ctx context.Context, tx neo4j.ManagedTransaction, ids []keys.Key, rv relVars) (map[keys.Key][]splitplan.Rel, error) {
	q, err := c.render("node_relationships", cypher.Vars{Label: rv.marker, IDProperty: rv.idProp, DisplayProperties: rv.display})
	if err != nil {
		return nil, err
	}
	res, err := tx.Run(ctx, q, map[string]any{"ids": values(ids), "run": rv.run})
	if err != nil {
		return nil, err
	}
	rels := map[keys.Key][]splitplan.Rel{}
	type seenRel struct {
		node keys.Key
		rid  string
	}
	seen := map[seenRel]bool{}
	for res.Next(ctx) {
		v := res.Record().Values // node, rid, type, outgoing, other, origin, otherLabels
		node := idOf(v[0])
		rid, _ := v[1].(string)
		if seen[seenRel{node, rid}] {
			continue // a self-loop may be listed twice
		}
		seen[seenRel{node, rid}] = true
		typ, _ := v[2].(string)
		out, _ := v[3].(bool)
		r := splitplan.Rel{ID: rid, Type: typ, Outgoing: out, Other: idOf(v[4]), Origin: idOf(v[5])}
		labels, _ := v[6].([]any)
		for _, l := range labels {
			ls, _ := l.(string)
			r.OtherLabels = append(r.OtherLabels, ls)
		}
		if rv.idProp != "" {
			r.OtherKeyValue, _ = res.Record().Get("otherKey")
		}
		if len(rv.display) > 0 {
			name, _ := res.Record().Get("otherName")
			r.OtherName = keys.DisplayText(name)
		}
		rels[node] = append(rels[node], r)
	}
	return rels, res.Err()
}

// Describe fills in the labels and relationship counts of every planned
// node from the database, in read transactions, without writing anything
// (the dry run).
func (c *Conn) Describe(ctx context.Context, p *splitplan.Plan) error {
	s := c.session(ctx, neo4j.AccessModeRead)
	defer s.Close(ctx)
	for k := range p.Nodes {
		n := &p.Nodes[k]
		_, err := c.readTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
			st, err := c.readState(ctx, tx, n.ID, p.IDProperty, p.RunID)
			if err != nil || !st.Exists {
				return nil, err
			}
			rels, err := c.readRels(ctx, tx, n.ID, relVarsOf(p))
			if err != nil {
				return nil, err
			}
			a := p.Assign(*n, rels)
			n.Labels = st.Labels
			for g := range n.Groups {
				n.Groups[g].Relationships = splitplan.CountRels(a.Groups[g])
			}
			n.Staying = splitplan.CountRels(a.Staying)
			return nil, nil
		})
		if err != nil {
			return c.classify(err, fmt.Sprintf("read node %v for the dry run", n.Key))
		}
	}
	return nil
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
func (c *Conn) Split(ctx context.Context, p *splitplan.Plan, now time.Time, progress func(done, total int)) (splitplan.SplitStats, error) {
	t0 := time.Now()
	st := splitplan.SplitStats{Planned: len(p.Nodes), Nodes: []splitplan.NodeOutcome{}}
	if len(p.Nodes) == 0 {
		return st, nil
	}
	if err := c.EnsureConstraint(ctx, p.MarkerLabel, splitplan.PropSplitKey); err != nil {
		return st, err
	}
	unique, err := c.uniqueProperties(ctx)
	if err != nil {
		return st, err
	}
	at := splitplan.ISOTime(now)
	s := c.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.WithoutCancel(ctx))
	for k, n := range p.Nodes {
		out, err := c.writeTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
			if err := c.checkFence(ctx, tx, fmt.Sprintf("splitting node %v (%d of %d)", n.Key, k+1, len(p.Nodes))); err != nil {
				return nil, err
			}
			return c.splitNode(ctx, tx, p, n, at, unique)
		}, neo4j.WithTxMetadata(map[string]any{"app": "fondue-neo4j", "run": p.RunID}))
		var o splitplan.NodeOutcome
		switch {
		case err == nil:
			o = out.(splitplan.NodeOutcome)
		case errors.Is(err, errChanged):
			o = splitplan.NodeOutcome{Key: n.Key, Name: n.Name, Outcome: splitplan.OutcomeChanged, Reason: "its relationships changed during the split"}
		case ctx.Err() != nil:
			return st, ctx.Err()
		case neo4j.IsConnectivityError(err) || neo4j.IsTransactionExecutionLimit(err):
			st.Duration = time.Since(t0)
			return st, c.classify(err, fmt.Sprintf("split node %v (%d of %d; re-run with the same run id to resume)", n.Key, k+1, len(p.Nodes)))
		default:
			var cerr *syncjob.Error
			if errors.As(err, &cerr) {
				return st, err
			}
			o = splitplan.NodeOutcome{Key: n.Key, Name: n.Name, Outcome: splitplan.OutcomeFailed, Reason: oneLine(err.Error())}
		}
		st.Count(o)
		if o.Outcome != splitplan.OutcomeSplit && o.Outcome != splitplan.OutcomeDone {
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
	res, err := c.query(ctx, q, nil, false)
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

// Check compares every node of the plan with the graph, as Split will in
// each node's transaction, in one read transaction and writing nothing
// (the whole-plan check of an approved plan before any split). It returns
// the nodes that Split would not split as planned (OutcomeChanged or
// OutcomeMissing, with the reason); nodes this run already split are fine.
func (c *Conn) Check(ctx context.Context, p *splitplan.Plan) ([]splitplan.NodeOutcome, error) {
	s := c.session(ctx, neo4j.AccessModeRead)
	defer s.Close(ctx)
	out, err := c.readTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
		bad := []splitplan.NodeOutcome{}
		for _, n := range p.Nodes {
			o, _, _, err := c.examine(ctx, tx, p, n)
			if err != nil {
				return nil, err
			}
			if o.Outcome == splitplan.OutcomeChanged || o.Outcome == splitplan.OutcomeMissing {
				bad = append(bad, o)
			}
		}
		return bad, nil
	})
	if err != nil {
		return nil, c.classify(err, "check the split plan against the graph")
	}
	return out.([]splitplan.NodeOutcome), nil
}

// ResolveKeys sets the element ids of the plan's nodes and neighbours from
// their keys (Plan.IDProperty), among the nodes that the plan's selection
// selects, and their keys to the graph's values (the 11 of an edge list
// may be the string "11" in the graph). An approved plan reviewed from an
// edge list names nodes by key only; one reviewed from a dry run gets the
// element ids of today's nodes. A key that no selected node has gets a nil
// id: Check and Split report that node as missing, that neighbour as
// removed. Two nodes with the same key are an error (ErrInvalid).
func (c *Conn) ResolveKeys(ctx context.Context, p *splitplan.Plan) error {
	if p.IDProperty == "" {
		return errorf(syncjob.ErrInvalid, nil, "nodes can be found by key only with a key property (%s)", syncjob.OptPlanIDProperty)
	}
	if p.PulledOnly {
		return errorf(syncjob.ErrInvalid, nil, "the nodes of a Cypher projection cannot be found by key")
	}
	var wanted []any
	seen := map[keys.Key]bool{}
	add := func(k keys.Key) {
		for _, v := range k.Variants() {
			if !seen[v] {
				seen[v] = true
				wanted = append(wanted, v.Value())
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
	q, err := c.render("nodes_by_key", cypher.Vars{NodeLabels: p.NodeLabels, IDProperty: p.IDProperty, ExcludeLabels: []string{syncjob.LockLabel, syncjob.RunLabel}})
	if err != nil {
		return err
	}
	res, err := c.query(ctx, q, map[string]any{"keys": wanted}, false)
	if err != nil {
		return c.classify(err, "find the plan's nodes by "+p.IDProperty)
	}
	found := make([]splitplan.KeyedNode, len(res.Records))
	for k, r := range res.Records {
		id := idOf(r.Values[1])
		key, err := keys.FromValue(r.Values[0])
		if err != nil { // a value equal to a key, of another type (11.0 = 11)
			return errorf(syncjob.ErrInvalid, nil, "property %q (%s) of node elementId(n) = %q is %v", p.IDProperty, syncjob.OptPlanIDProperty, id, err)
		}
		found[k] = splitplan.KeyedNode{Key: key, ID: id}
	}
	if err := p.Resolve(found); err != nil {
		return errorf(syncjob.ErrInvalid, err, "%v (%s): keys must be unique", err, syncjob.OptPlanIDProperty)
	}
	return nil
}

// TakenKeys returns those of ks that a node the plan selects has.
func (c *Conn) TakenKeys(ctx context.Context, p *splitplan.Plan, ks []keys.Key) ([]keys.Key, error) {
	if p.IDProperty == "" || len(ks) == 0 {
		return nil, nil
	}
	q, err := c.render("nodes_by_key", cypher.Vars{NodeLabels: p.NodeLabels, IDProperty: p.IDProperty, ExcludeLabels: []string{syncjob.LockLabel, syncjob.RunLabel}})
	if err != nil {
		return nil, err
	}
	res, err := c.query(ctx, q, map[string]any{"keys": values(ks)}, false)
	if err != nil {
		return nil, c.classify(err, "look for the keys of the clones")
	}
	var out []keys.Key
	for _, r := range res.Records {
		if k, err := keys.FromValue(r.Values[0]); err == nil {
			out = append(out, k)
		}
	}
	return out, nil
}

// examine reads a planned node in tx and decides, by Plan.Examine, whether
// it can be split as planned. It writes nothing: Split runs it first in
// each node's transaction, Check in a read transaction.
func (c *Conn) examine(ctx context.Context, tx neo4j.ManagedTransaction, p *splitplan.Plan, n splitplan.Node) (splitplan.NodeOutcome, splitplan.NodeState, splitplan.Assignment, error) {
	var state splitplan.NodeState
	if !n.ID.IsZero() {
		var err error
		if state, err = c.readState(ctx, tx, n.ID, p.IDProperty, p.RunID); err != nil {
			return splitplan.NodeOutcome{Key: n.Key, Name: n.Name}, state, splitplan.Assignment{}, err
		}
	}
	o, a, err := p.Examine(n, state, func() ([]splitplan.Rel, error) { return c.readRels(ctx, tx, n.ID, relVarsOf(p)) })
	return o, state, a, err
}

func (c *Conn) splitNode(ctx context.Context, tx neo4j.ManagedTransaction, p *splitplan.Plan, n splitplan.Node, at string, unique map[string][]string) (splitplan.NodeOutcome, error) {
	if !n.ID.IsZero() {
		lockQ, err := c.render("node_lock", cypher.Vars{})
		if err != nil {
			return splitplan.NodeOutcome{}, err
		}
		res, err := tx.Run(ctx, lockQ, map[string]any{"id": n.ID.Value()})
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err != nil {
			return splitplan.NodeOutcome{}, err
		}
	}
	o, state, a, err := c.examine(ctx, tx, p, n)
	if err != nil || o.Outcome != "" {
		return o, err
	}
	labels := slices.Clone(state.Labels)
	if !slices.Contains(labels, p.MarkerLabel) {
		labels = append(labels, p.MarkerLabel)
	}
	// A clone cannot carry a copy of a property that must be unique for
	// one of its labels: it gets none (the original keeps it).
	skip := p.SkipOnClone()
	for _, l := range labels {
		for _, prop := range unique[l] {
			if !slices.Contains(skip, prop) {
				skip = append(skip, prop)
				c.log.Debug("not copied to the clone: a uniqueness constraint covers it", "label", l, "property", prop)
			}
		}
	}
	cloneQ, err := c.render("split_clone", cypher.Vars{Labels: labels, SkipProperties: skip, IDProperty: p.IDProperty})
	if err != nil {
		return o, err
	}
	if k, taken, err := c.cloneKeyTaken(ctx, tx, p, n); err != nil || taken {
		if taken {
			o.Outcome, o.Reason = splitplan.OutcomeFailed, fmt.Sprintf("the key %s planned for a clone is taken by another node (%s)", k.Describe(), p.IDProperty)
		}
		return o, err
	}
	// Every clone in one statement, then every move in one statement per
	// type and direction.
	groups := make([]any, 0, len(n.Groups)-1)
	for g := 1; g < len(n.Groups); g++ {
		groups = append(groups, map[string]any{"key": fmt.Sprintf("%s/%v/%d", p.RunID, n.Key, g), "group": int64(g), "cloneKey": n.Groups[g].CloneKey.Value()})
	}
	if len(groups) > 0 {
		res, err := tx.Run(ctx, cloneQ, map[string]any{"id": n.ID.Value(), "groups": groups, "run": p.RunID, "from": n.Key.Value(), "at": at})
		if err != nil {
			return o, err
		}
		recs, err := res.Collect(ctx)
		if err != nil {
			return o, err
		}
		if len(recs) != len(groups) {
			return o, fmt.Errorf("%w: made %d of %d clones", errChanged, len(recs), len(groups))
		}
		clones := make([]keys.Key, len(n.Groups))
		for _, r := range recs {
			g, _ := r.Values[0].(int64)
			if g < 1 || int(g) >= len(clones) {
				return o, fmt.Errorf("split node %v: a clone of group %d", n.Key, g)
			}
			clones[g] = idOf(r.Values[1])
		}
		o.Clones = len(recs)
		var moves []move
		for g := 1; g < len(n.Groups); g++ {
			for _, r := range a.Groups[g] {
				moves = append(moves, move{r, n.ID, clones[g]})
			}
		}
		if o.Moved, err = c.moveRels(ctx, tx, moves); err != nil {
			return o, err
		}
	}
	markQ, err := c.render("split_mark", cypher.Vars{})
	if err != nil {
		return o, err
	}
	if _, err := tx.Run(ctx, markQ, map[string]any{"id": n.ID.Value(), "run": p.RunID}); err != nil {
		return o, err
	}
	o.Outcome = splitplan.OutcomeSplit
	return o, nil
}

// cloneKeyTaken reports a clone key of node n that a node the plan
// selects has already (added since the plan): that node is not split.
func (c *Conn) cloneKeyTaken(ctx context.Context, tx neo4j.ManagedTransaction, p *splitplan.Plan, n splitplan.Node) (keys.Key, bool, error) {
	var want []any
	for _, g := range n.Groups {
		if !g.CloneKey.IsZero() {
			want = append(want, g.CloneKey.Value())
		}
	}
	if p.IDProperty == "" || len(want) == 0 {
		return keys.Key{}, false, nil
	}
	q, err := c.render("nodes_by_key", cypher.Vars{NodeLabels: p.NodeLabels, IDProperty: p.IDProperty, ExcludeLabels: []string{syncjob.LockLabel, syncjob.RunLabel}})
	if err != nil {
		return keys.Key{}, false, err
	}
	res, err := tx.Run(ctx, q, map[string]any{"keys": want})
	if err != nil {
		return keys.Key{}, false, err
	}
	recs, err := res.Collect(ctx)
	if err != nil || len(recs) == 0 {
		return keys.Key{}, false, err
	}
	k, _ := keys.FromValue(recs[0].Values[0])
	return k, true, nil
}

// move is a relationship to move from one node to another.
type move struct {
	rel      splitplan.Rel
	from, to keys.Key
}

// idOf is an element id (a string) or a key (an int64 or a string) that
// a statement returned, as a key; null is none.
func idOf(v any) keys.Key {
	k, _ := keys.FromValue(v)
	return k
}

// values are keys as a Cypher list parameter.
func values(ks []keys.Key) []any {
	out := make([]any, len(ks))
	for k, key := range ks {
		out[k] = key.Value()
	}
	return out
}

// moveRels moves relationships from their node to another, one statement
// per type and direction, and checks that each one was found.
func (c *Conn) moveRels(ctx context.Context, tx neo4j.ManagedTransaction, moves []move) (int, error) {
	type batch struct {
		typ string
		out bool
	}
	batches := map[batch][]map[string]any{}
	var order []batch
	for _, m := range moves {
		b := batch{m.rel.Type, m.rel.Outgoing}
		if _, ok := batches[b]; !ok {
			order = append(order, b)
		}
		batches[b] = append(batches[b], map[string]any{"rid": m.rel.ID, "other": m.rel.Other.Value(), "from": m.from.Value(), "to": m.to.Value()})
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
		res, err := tx.Run(ctx, q, map[string]any{"rels": batches[b]})
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
