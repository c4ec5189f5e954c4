package syncjob

import (
	"context"
	"errors"
	"fmt"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// The split loop: a plan carried out one node per transaction, with the
// primitives of Tx. What a planned node is now (NodeState) and its
// relationships as the plan sees them (splitplan.Rel) are read here, for
// Split, Check and Describe alike.

// readState reads planned node id as a split sees it.
func readState(tx Tx, id keys.Key, idProp, run string) (splitplan.NodeState, error) {
	nodes, err := tx.Nodes([]keys.Key{id})
	if err != nil || len(nodes) == 0 || nodes[0].ID.IsZero() {
		return splitplan.NodeState{}, err
	}
	n := nodes[0]
	st := splitplan.NodeState{Exists: true, Labels: n.Labels, Split: splitBy(n, run)}
	if idProp != "" {
		st.KeyValue = n.Props[idProp]
	}
	return st, nil
}

// relView says how readRels sees relationships: clones of run, with
// marker, stand for their original; the other end's key and name.
type relView struct {
	marker, run string
	idProp      string
	display     []string
}

func viewOf(p *splitplan.Plan) relView {
	return relView{marker: p.MarkerLabel, run: p.RunID, idProp: p.IDProperty, display: p.DisplayProperties}
}

// readRels reads the relationships of nodes ids, by node, as the plan
// sees them.
func readRels(tx Tx, ids []keys.Key, v relView) (map[keys.Key][]splitplan.Rel, error) {
	props := []string{splitplan.PropSplitRun, splitplan.PropSplitFromID}
	if v.idProp != "" {
		props = append(props, v.idProp)
	}
	props = append(props, v.display...)
	rels, err := tx.Rels(ids, props)
	if err != nil {
		return nil, err
	}
	out := map[keys.Key][]splitplan.Rel{}
	for _, r := range rels {
		pr := r.Rel
		if slices.Contains(r.OtherLabels, v.marker) && r.OtherProps[splitplan.PropSplitRun] == v.run {
			pr.Origin, _ = keys.FromValue(r.OtherProps[splitplan.PropSplitFromID])
		}
		if v.idProp != "" {
			pr.OtherKeyValue = r.OtherProps[v.idProp]
		}
		if len(v.display) > 0 {
			pr.OtherName = keys.DisplayText(firstOf(r.OtherProps, v.display))
		}
		out[r.Node] = append(out[r.Node], pr)
	}
	return out, nil
}

// firstOf is the value of the first of these properties that a node has
// (Cypher's coalesce), nil if it has none.
func firstOf(props map[string]any, names []string) any {
	for _, n := range names {
		if v := props[n]; v != nil {
			return v
		}
	}
	return nil
}

// examine reads planned node n in tx and decides, by Plan.Examine,
// whether it can be split as planned. It writes nothing.
func examine(tx Tx, p *splitplan.Plan, n splitplan.Node) (splitplan.NodeOutcome, splitplan.NodeState, splitplan.Assignment, error) {
	var state splitplan.NodeState
	if !n.ID.IsZero() {
		var err error
		if state, err = readState(tx, n.ID, p.IDProperty, p.RunID); err != nil {
			return splitplan.NodeOutcome{Key: n.Key, Name: n.Name}, state, splitplan.Assignment{}, err
		}
	}
	o, a, err := p.Examine(n, state, func() ([]splitplan.Rel, error) {
		m, err := readRels(tx, []keys.Key{n.ID}, viewOf(p))
		return m[n.ID], err
	})
	return o, state, a, err
}

// Describe fills in the labels and relationship counts of every planned
// node, writing nothing (the dry run).
func Describe(ctx context.Context, st Store, p *splitplan.Plan) error {
	for k := range p.Nodes {
		n := &p.Nodes[k]
		err := st.Read(ctx, func(tx Tx) error {
			state, err := readState(tx, n.ID, p.IDProperty, p.RunID)
			if err != nil || !state.Exists {
				return err
			}
			rels, err := readRels(tx, []keys.Key{n.ID}, viewOf(p))
			if err != nil {
				return err
			}
			a := p.Assign(*n, rels[n.ID])
			n.Labels = state.Labels
			for g := range n.Groups {
				n.Groups[g].Relationships = splitplan.CountRels(a.Groups[g])
			}
			n.Staying = splitplan.CountRels(a.Staying)
			return nil
		})
		if err != nil {
			return fmt.Errorf("read node %v for the dry run: %w", n.Key, err)
		}
	}
	return nil
}

// Check compares every node of the plan with the graph, as Split will,
// in one read transaction and writing nothing, and returns those Split
// would not split as planned (splitplan.OutcomeChanged or
// splitplan.OutcomeMissing, with the reason); nodes this run already
// split are fine.
func Check(ctx context.Context, st Store, p *splitplan.Plan) ([]splitplan.NodeOutcome, error) {
	var bad []splitplan.NodeOutcome
	err := st.Read(ctx, func(tx Tx) error {
		bad = []splitplan.NodeOutcome{}
		for _, n := range p.Nodes {
			o, _, _, err := examine(tx, p, n)
			if err != nil {
				return err
			}
			if o.Outcome == splitplan.OutcomeChanged || o.Outcome == splitplan.OutcomeMissing {
				bad = append(bad, o)
			}
		}
		return nil
	})
	return bad, err
}

// keyFilter selects the nodes of the plan's selection whose key is one
// of values.
func keyFilter(p *splitplan.Plan, values []any) Filter {
	return Filter{Labels: p.NodeLabels, Exclude: splitplan.OwnLabels(), Prop: p.IDProperty, Values: values}
}

// ResolveKeys sets the ids of the plan's nodes and neighbours from their
// keys (splitplan.Plan.IDProperty) among the nodes the plan selects, and
// their keys to the graph's values (the 11 of an edge list may be the
// string "11" in the graph). A key that no node has gets no id (the zero
// keys.Key): Check and Split report that node as missing, that neighbour
// as removed. Two nodes with the same key are an error (ErrInvalid).
func ResolveKeys(ctx context.Context, st Store, p *splitplan.Plan) error {
	if p.IDProperty == "" {
		return Errorf(ErrInvalid, nil, "nodes can be found by key only with a key property: the plan has none")
	}
	if p.PulledOnly {
		return Errorf(ErrInvalid, nil, "the nodes of a Cypher projection cannot be found by key")
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
	var found []splitplan.KeyedNode
	err := st.Read(ctx, func(tx Tx) error {
		if len(wanted) == 0 {
			return nil // (a nil Values would find every node with a key)
		}
		nodes, err := tx.Find(keyFilter(p, wanted))
		if err != nil {
			return err
		}
		found = make([]splitplan.KeyedNode, len(nodes))
		for k, n := range nodes {
			key, err := keys.FromValue(n.Props[p.IDProperty])
			if err != nil { // a value equal to a key, of another type (11.0 = 11)
				return Errorf(ErrInvalid, nil, "key property %q of node elementId(n) = %q is %v", p.IDProperty, n.ID.Text(), err)
			}
			found[k] = splitplan.KeyedNode{Key: key, ID: n.ID}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := p.Resolve(found); err != nil {
		return Errorf(ErrInvalid, err, "%v (key property %q): keys must be unique", err, p.IDProperty)
	}
	return nil
}

// TakenKeys returns those of ks (keys of Plan.IDProperty) that a node the
// plan selects has, in any order.
func TakenKeys(ctx context.Context, st Store, p *splitplan.Plan, ks []keys.Key) ([]keys.Key, error) {
	if p.IDProperty == "" || len(ks) == 0 {
		return nil, nil
	}
	var out []keys.Key
	err := st.Read(ctx, func(tx Tx) error {
		out = nil
		nodes, err := tx.Find(keyFilter(p, values(ks)))
		for _, n := range nodes {
			if k, err := keys.FromValue(n.Props[p.IDProperty]); err == nil {
				out = append(out, k)
			}
		}
		return err
	})
	return out, err
}

// values are keys as property values.
func values(ks []keys.Key) []any {
	out := make([]any, len(ks))
	for k, key := range ks {
		out[k] = key.Value()
	}
	return out
}

// Split carries out a plan, one transaction per node (serially: splits of
// neighbouring nodes would otherwise deadlock): one clone per group after
// the first, with the node's labels and properties plus the marker label
// and provenance, each relationship of the group moved to it (same type,
// direction and properties), and the run recorded on the original (see
// splitplan.Plan.Examine for which nodes are left alone). A node already
// split by this run is left alone, so re-running a plan changes nothing
// more; a node interrupted mid-way was rolled back and is split by the
// re-run. A node whose relationships changed under its transaction is
// skipped (OutcomeChanged), never half split. Losing the store or the
// lock stops the loop; other failures of one node are reported in its
// outcome.
func Split(ctx context.Context, st Store, p *splitplan.Plan, now time.Time, progress func(done, total int), log *slog.Logger) (splitplan.SplitStats, error) {
	t0 := time.Now()
	ss := splitplan.SplitStats{Planned: len(p.Nodes), Nodes: []splitplan.NodeOutcome{}}
	if len(p.Nodes) == 0 {
		return ss, nil
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := st.Unique(ctx, p.MarkerLabel, splitplan.PropSplitKey); err != nil {
		return ss, err
	}
	at := splitplan.ISOTime(now)
	for k, n := range p.Nodes {
		var o splitplan.NodeOutcome
		err := st.Write(ctx, fmt.Sprintf("splitting node %v (%d of %d)", n.Key, k+1, len(p.Nodes)), func(tx Tx) error {
			var err error
			o, err = splitNode(tx, p, n, at)
			return err
		})
		var serr *Error
		switch {
		case err == nil:
		case errors.Is(err, ErrChanged):
			o = splitplan.NodeOutcome{Key: n.Key, Name: n.Name, Outcome: splitplan.OutcomeChanged, Reason: "its relationships changed during the split"}
		case ctx.Err() != nil:
			return ss, ctx.Err()
		case errors.As(err, &serr):
			ss.Duration = time.Since(t0)
			if IsUnreachable(err) {
				err = fmt.Errorf("%w; re-run with the same run id to resume (a run given none resumes it too)", err)
			}
			return ss, err
		default:
			o = splitplan.NodeOutcome{Key: n.Key, Name: n.Name, Outcome: splitplan.OutcomeFailed, Reason: oneLine(err.Error())}
		}
		ss.Count(o)
		if o.Outcome != splitplan.OutcomeSplit && o.Outcome != splitplan.OutcomeDone {
			log.Warn("node not split", "node", fmt.Sprint(n.Key), "outcome", o.Outcome, "reason", o.Reason)
		}
		ss.NodesCreated += o.Clones
		ss.RelationshipsMoved += o.Moved
		ss.Nodes = append(ss.Nodes, o)
		if progress != nil {
			progress(k+1, len(p.Nodes))
		}
	}
	ss.Duration = time.Since(t0)
	return ss, nil
}

// oneLine is an error's text on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// splitNode splits planned node n in tx.
func splitNode(tx Tx, p *splitplan.Plan, n splitplan.Node, at string) (splitplan.NodeOutcome, error) {
	if !n.ID.IsZero() {
		if err := tx.Lock(n.ID); err != nil {
			return splitplan.NodeOutcome{}, err
		}
	}
	o, state, a, err := examine(tx, p, n)
	if err != nil || o.Outcome != "" {
		return o, err
	}
	if k, taken, err := cloneKeyTaken(tx, p, n); err != nil || taken {
		if taken {
			o.Outcome, o.Reason = splitplan.OutcomeFailed, fmt.Sprintf("the key %s planned for a clone is taken by another node (%s)", k.Describe(), p.IDProperty)
		}
		return o, err
	}
	if len(n.Groups) > 1 {
		labels := slices.Clone(state.Labels)
		if !slices.Contains(labels, p.MarkerLabel) {
			labels = append(labels, p.MarkerLabel)
		}
		rows := make([]map[string]any, 0, len(n.Groups)-1)
		for g := 1; g < len(n.Groups); g++ {
			row := map[string]any{
				splitplan.PropSplitKey: fmt.Sprintf("%s/%v/%d", p.RunID, n.Key, g), splitplan.PropSplitRun: p.RunID,
				splitplan.PropSplitFrom: n.Key.Value(), splitplan.PropSplitFromID: n.ID.Value(),
				splitplan.PropSplitGroup: int64(g), splitplan.PropSplitAt: at,
			}
			if p.IDProperty != "" {
				row[p.IDProperty] = n.Groups[g].CloneKey.Value()
			}
			rows = append(rows, row)
		}
		clones, err := tx.Create(n.ID, append(p.SkipOnClone(), mergeplan.Provenance()...), labels, rows)
		if err != nil {
			return o, err
		}
		if len(clones) != len(rows) {
			return o, fmt.Errorf("%w: made %d of %d clones", ErrChanged, len(clones), len(rows))
		}
		o.Clones = len(clones)
		var moves []Move
		for g := 1; g < len(n.Groups); g++ {
			for _, r := range a.Groups[g] {
				moves = append(moves, Move{Rel: r, From: n.ID, To: clones[g-1]})
			}
		}
		moved, err := moveTracked(tx, moves)
		if err != nil {
			return o, err
		}
		o.Moved = len(moved)
	}
	nodes, err := tx.Nodes([]keys.Key{n.ID})
	if err != nil {
		return o, err
	}
	runs := append(slices.Clone(asList(nodes[0].Props[splitplan.PropSplitRuns])), p.RunID)
	if err := tx.Set(n.ID, map[string]any{splitplan.PropSplitRuns: runs}); err != nil {
		return o, err
	}
	o.Outcome = splitplan.OutcomeSplit
	return o, nil
}

// cloneKeyTaken reports a clone key of node n that a node the plan
// selects has already (added since the plan): that node is not split.
func cloneKeyTaken(tx Tx, p *splitplan.Plan, n splitplan.Node) (keys.Key, bool, error) {
	var want []any
	for _, g := range n.Groups {
		if !g.CloneKey.IsZero() {
			want = append(want, g.CloneKey.Value())
		}
	}
	if p.IDProperty == "" || len(want) == 0 {
		return keys.Key{}, false, nil
	}
	nodes, err := tx.Find(keyFilter(p, want))
	if err != nil || len(nodes) == 0 {
		return keys.Key{}, false, err
	}
	k, _ := keys.FromValue(nodes[0].Props[p.IDProperty])
	return k, true, nil
}
