package syncjob

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// The merge loop: a merge plan's accepted pairs carried out one group
// (a survivor and the nodes merged into it) per transaction, with the
// primitives of Tx, and its undo. What undo needs stays in the graph: each
// merged node leaves a record (a node with MergedLabel, part of no pull)
// holding its labels, its properties as they were, the relationships that
// moved to the survivor and the properties the merge added to it.

// MergeOptions configure Merge.
type MergeOptions struct {
	// Now is the time the merge records (default: time.Now()).
	Now      time.Time
	Progress func(done, total int)
	// Lock names the lock (held as "merge RUNID").
	Lock LockOptions
	Log  *slog.Logger
}

// Merge merges the accepted pairs of plan p on st, under the lock: the
// plan is stored in the run's record first (so that re-running the run id
// resumes it: groups already merged are left alone, a group interrupted
// mid-way was rolled back and is merged by the re-run), then each group
// (mergeplan.Plan.Groups) in one transaction. A group is left alone,
// reported, when one of its nodes is gone, its key changed, it left the
// selection, or its neighbourhood is not the one in the plan (a
// fingerprint). Merging a node moves each of its relationships to the
// survivor (type, direction and properties), adds to the survivor the
// properties it lacks (the survivor's values win; labels stay the
// survivor's), records the node and deletes it.
func Merge(ctx context.Context, st Store, p *mergeplan.Plan, o MergeOptions) (mergeplan.MergeStats, error) {
	t0 := time.Now()
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	ms := mergeplan.MergeStats{RunID: p.RunID, Outcomes: []mergeplan.GroupOutcome{}}
	lock := o.Lock
	lock.RunID = "merge " + p.RunID
	ctx, release, err := hold(ctx, st, lock, log)
	if err != nil {
		return ms, err
	}
	defer release()
	p, err = StoreMergePlan(ctx, st, p)
	if err != nil {
		return ms, lockError(ctx, err)
	}
	ms.Pairs = len(p.Accepted())
	groups := p.Groups()
	ms.Groups = len(groups)
	if err := resolveGroups(ctx, st, p, groups); err != nil {
		return ms, lockError(ctx, err)
	}
	at := splitplan.ISOTime(o.Now)
	order := 0
	for k, g := range groups {
		var out mergeplan.GroupOutcome
		base := order
		err := st.Write(ctx, fmt.Sprintf("merging into node %v (%d of %d)", g.Keep.Key, k+1, len(groups)), func(tx Tx) error {
			var err error
			out, err = mergeGroup(tx, p, g, base, at)
			return err
		})
		order += len(g.Merge)
		var serr *Error
		switch {
		case err == nil:
		case errors.Is(err, ErrChanged):
			out = groupOutcome(g, mergeplan.OutcomeChanged, "the graph changed during the merge")
		case ctx.Err() != nil:
			return ms, lockError(ctx, ctx.Err())
		case errors.As(err, &serr):
			ms.Duration = time.Since(t0)
			if IsUnreachable(err) {
				err = fmt.Errorf("%w; re-run with the same run id to resume", err)
			}
			return ms, lockError(ctx, err)
		default:
			out = groupOutcome(g, mergeplan.OutcomeFailed, oneLine(err.Error()))
		}
		ms.Count(out)
		if out.Outcome != mergeplan.OutcomeMerged && out.Outcome != mergeplan.OutcomeDone {
			log.Warn("group not merged", "keep", fmt.Sprint(g.Keep.Key), "outcome", out.Outcome, "reason", out.Reason)
		}
		if o.Progress != nil {
			o.Progress(k+1, len(groups))
		}
	}
	ms.Duration = time.Since(t0)
	return ms, nil
}

func groupOutcome(g mergeplan.Group, outcome, reason string) mergeplan.GroupOutcome {
	o := mergeplan.GroupOutcome{Keep: g.Keep.Key, Merged: []keys.Key{}, Outcome: outcome, Reason: reason}
	for _, n := range g.Merge {
		o.Merged = append(o.Merged, n.Key)
	}
	return o
}

// StoreMergePlan stores merge plan p in its run's record (with its
// decisions) unless the run has one, and returns the stored plan: the
// first wins, so that a re-run resumes it. A run id that holds a split
// run, or (for an approved plan) another plan file, is refused.
func StoreMergePlan(ctx context.Context, st Store, p *mergeplan.Plan) (*mergeplan.Plan, error) {
	if err := st.Unique(ctx, RunLabel, "run_id"); err != nil {
		return nil, err
	}
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	ds, err := splitplan.MarshalDecisions(p.Decisions())
	if err != nil {
		return nil, err
	}
	r := Record{RunID: p.RunID, Plan: data, CreatedAt: p.CreatedAt, Decisions: ds}
	if p.Approved != nil {
		r.Approved, r.ReviewedAt = p.Approved.Fingerprint, p.Approved.ReviewedAt
	}
	other, err := st.AddRecord(ctx, r)
	if err != nil || other == nil {
		return p, err
	}
	if !mergeplan.IsMerge(other.Plan) {
		return nil, Errorf(ErrInvalid, nil, "run id %s already holds a split run: merge under a run id of its own (--run-id)", p.RunID)
	}
	stored, err := mergeplan.Parse(other.Plan)
	if err != nil {
		return nil, fmt.Errorf("merge plan of run %s is corrupt: %w", p.RunID, err)
	}
	if p.Approved != nil && (stored.Approved == nil || stored.Approved.Fingerprint != p.Approved.Fingerprint) {
		return nil, Errorf(ErrInvalid, nil, "run id %s already holds another merge plan (created %s): apply this one under a run id of its own (--run-id)",
			p.RunID, stored.CreatedAt)
	}
	return stored, nil
}

// resolveGroups sets the ids of the groups' nodes from their keys among
// the nodes of the plan's selection (without a key property, keys are
// ids). A key no node has gets no id: its group is reported missing.
func resolveGroups(ctx context.Context, st Store, p *mergeplan.Plan, groups []mergeplan.Group) error {
	if p.IDProperty == "" {
		for g := range groups {
			groups[g].Keep.ID = groups[g].Keep.Key
			for k := range groups[g].Merge {
				groups[g].Merge[k].ID = groups[g].Merge[k].Key
			}
		}
		return nil
	}
	var wanted []any
	for _, g := range groups {
		for _, n := range append([]mergeplan.Node{g.Keep}, g.Merge...) {
			for _, v := range n.Key.Variants() {
				wanted = append(wanted, v.Value())
			}
		}
	}
	if len(wanted) == 0 {
		return nil
	}
	byText := map[string]keys.Key{}
	err := st.Read(ctx, func(tx Tx) error {
		nodes, err := tx.Find(Filter{Labels: p.NodeLabels, Exclude: splitplan.OwnLabels(), Prop: p.IDProperty, Values: wanted})
		for _, n := range nodes {
			key, kerr := keys.FromValue(n.Props[p.IDProperty])
			if kerr != nil {
				return Errorf(ErrInvalid, nil, "property %q of node elementId(n) = %q is %v", p.IDProperty, n.ID.Text(), kerr)
			}
			if prev, dup := byText[key.Text()]; dup {
				return Errorf(ErrInvalid, nil, "nodes elementId(n) = %q and %q have the same %s = %s: keys must be unique",
					prev.Text(), n.ID.Text(), p.IDProperty, key.Describe())
			}
			byText[key.Text()] = n.ID
		}
		return err
	})
	if err != nil {
		return err
	}
	for g := range groups {
		groups[g].Keep.ID = byText[groups[g].Keep.Key.Text()]
		for k := range groups[g].Merge {
			groups[g].Merge[k].ID = byText[groups[g].Merge[k].Key.Text()]
		}
	}
	return nil
}

// mergedBy reports whether run merged nodes into n (PropMergeRuns).
func mergedBy(n Node, run string) bool {
	return slices.Contains(asList(n.Props[mergeplan.PropMergeRuns]), any(run))
}

// selects reports whether the plan's selection has a node with labels.
func mergeSelects(p *mergeplan.Plan, labels []string) bool {
	if len(p.NodeLabels) > 0 {
		return slices.ContainsFunc(labels, func(l string) bool { return slices.Contains(p.NodeLabels, l) })
	}
	return !slices.ContainsFunc(labels, func(l string) bool { return slices.Contains(splitplan.OwnLabels(), l) })
}

// neighborFingerprint is node n's neighbourhood as the plan fingerprints
// it (mergeplan.NodeFingerprint).
func neighborFingerprint(tx Tx, p *mergeplan.Plan, n mergeplan.Node) (string, error) {
	var props []string
	if p.IDProperty != "" {
		props = []string{p.IDProperty}
	}
	rels, err := tx.Rels([]keys.Key{n.ID}, props)
	if err != nil {
		return "", err
	}
	seen := map[string]bool{}
	var nbs []keys.Key
	for _, r := range rels {
		if r.Type == p.CandidateType || r.Other == n.ID || !mergeSelects(p, r.OtherLabels) ||
			(len(p.RelationshipTypes) > 0 && !slices.Contains(p.RelationshipTypes, r.Type)) {
			continue
		}
		k := r.Other
		if p.IDProperty != "" {
			v := r.OtherProps[p.IDProperty]
			if v == nil {
				continue
			}
			k = keyOf(v)
		}
		if !seen[k.Text()] {
			seen[k.Text()] = true
			nbs = append(nbs, k)
		}
	}
	return mergeplan.NodeFingerprint(n.Key, nbs), nil
}

// keyOf is a key property value as a key (its text when it cannot be one).
func keyOf(v any) keys.Key {
	if k, err := keys.FromValue(v); err == nil {
		return k
	}
	return keys.String(keys.DisplayText(v))
}

// mergeGroup merges group g in tx; base is the run's count of merged
// nodes before it (the records' order).
func mergeGroup(tx Tx, p *mergeplan.Plan, g mergeplan.Group, base int, at string) (mergeplan.GroupOutcome, error) {
	all := append([]mergeplan.Node{g.Keep}, g.Merge...)
	if !g.Keep.ID.IsZero() { // a re-run: merged already?
		if err := tx.Lock(g.Keep.ID); err != nil {
			return mergeplan.GroupOutcome{}, err
		}
		nodes, err := tx.Nodes([]keys.Key{g.Keep.ID})
		if err != nil {
			return mergeplan.GroupOutcome{}, err
		}
		if !nodes[0].ID.IsZero() && mergedBy(nodes[0], p.RunID) {
			return groupOutcome(g, mergeplan.OutcomeDone, ""), nil
		}
	}
	for _, n := range all {
		if n.ID.IsZero() {
			return groupOutcome(g, mergeplan.OutcomeMissing, fmt.Sprintf("no node of the selection has %s = %s", p.IDProperty, n.Key.Describe())), nil
		}
	}
	ids := make([]keys.Key, len(all))
	for k, n := range all {
		if err := tx.Lock(n.ID); err != nil {
			return mergeplan.GroupOutcome{}, err
		}
		ids[k] = n.ID
	}
	nodes, err := tx.Nodes(ids)
	if err != nil {
		return mergeplan.GroupOutcome{}, err
	}
	for k, n := range all {
		nd := nodes[k]
		switch {
		case nd.ID.IsZero():
			return groupOutcome(g, mergeplan.OutcomeMissing, fmt.Sprintf("node %s no longer exists", n.Key.DescribeNode(n.Name))), nil
		case p.IDProperty != "" && !n.Key.Matches(nd.Props[p.IDProperty]):
			return groupOutcome(g, mergeplan.OutcomeMissing, fmt.Sprintf("the %s of node %s is now %v", p.IDProperty, n.Key.DescribeNode(n.Name), nd.Props[p.IDProperty])), nil
		case !mergeSelects(p, nd.Labels):
			return groupOutcome(g, mergeplan.OutcomeMissing, fmt.Sprintf("node %s is no longer in the selection (labels %s)", n.Key.DescribeNode(n.Name), strings.Join(nd.Labels, ", "))), nil
		}
		if n.Fingerprint == "" {
			continue
		}
		fp, err := neighborFingerprint(tx, p, n)
		if err != nil {
			return mergeplan.GroupOutcome{}, err
		}
		if fp != n.Fingerprint {
			return groupOutcome(g, mergeplan.OutcomeChanged, fmt.Sprintf("the neighbours of node %s changed since the plan", n.Key.DescribeNode(n.Name))), nil
		}
	}
	keep := g.Keep.ID
	keepProps := nodes[0].Props
	skip := append(splitplan.Provenance(), mergeplan.Provenance()...)
	if p.IDProperty != "" {
		skip = append(skip, p.IDProperty)
	}
	out := groupOutcome(g, mergeplan.OutcomeMerged, "")
	for k, m := range g.Merge {
		nd := nodes[k+1]
		rels, err := tx.Rels([]keys.Key{m.ID}, nil)
		if err != nil {
			return out, err
		}
		moves := make([]Move, len(rels))
		ends := make([]any, len(rels))
		for j, r := range rels {
			moves[j] = Move{Rel: r.Rel, From: m.ID, To: keep}
			switch {
			case r.Other == m.ID:
				ends[j] = mergeplan.EndLoop
			case r.Outgoing:
				ends[j] = mergeplan.EndOut
			default:
				ends[j] = mergeplan.EndIn
			}
		}
		moved, err := moveTracked(tx, moves)
		if err != nil {
			return out, err
		}
		out.Moved += len(moved)
		add := map[string]any{}
		added := []any{}
		for _, name := range slices.Sorted(maps.Keys(nd.Props)) {
			if _, has := keepProps[name]; has || slices.Contains(skip, name) {
				continue
			}
			add[name] = nd.Props[name]
			keepProps[name] = nd.Props[name]
			added = append(added, name)
		}
		rec := maps.Clone(nd.Props)
		labels := make([]any, len(nd.Labels))
		for j, l := range nd.Labels {
			labels[j] = l
		}
		relIDs := make([]any, len(moved))
		for j, id := range moved {
			relIDs[j] = id
		}
		maps.Copy(rec, map[string]any{
			mergeplan.PropMergedRun: p.RunID, mergeplan.PropMergedOrder: int64(base + k), mergeplan.PropMergedID: m.ID.Value(),
			mergeplan.PropMergedLabels: labels, mergeplan.PropMergedInto: g.Keep.Key.Value(), mergeplan.PropMergedIntoID: keep.Value(),
			mergeplan.PropMergedRels: relIDs, mergeplan.PropMergedEnds: ends, mergeplan.PropMergedAdded: added, mergeplan.PropMergedAt: at,
		})
		if _, err := tx.Create(keys.Key{}, nil, []string{MergedLabel}, []map[string]any{rec}); err != nil {
			return out, err
		}
		if err := tx.Delete([]keys.Key{m.ID}); err != nil {
			return out, err
		}
		if len(add) > 0 {
			if err := tx.Set(keep, add); err != nil {
				return out, err
			}
		}
	}
	runs := append(slices.Clone(asList(keepProps[mergeplan.PropMergeRuns])), p.RunID)
	if err := tx.Set(keep, map[string]any{mergeplan.PropMergeRuns: runs}); err != nil {
		return out, err
	}
	return out, nil
}

// moveTracked moves relationships (Tx.Move) and, where the store gave a
// moved relationship a new id, renames it in the records of merged nodes
// that list it (those whose survivor is an end of the move), so that
// their undo finds it.
func moveTracked(tx Tx, ms []Move) ([]string, error) {
	if len(ms) == 0 {
		return nil, nil
	}
	got, err := tx.Move(ms)
	if err != nil {
		return got, err
	}
	ren := map[string]string{}
	var ends []any
	seen := map[keys.Key]bool{}
	for k, m := range ms {
		if got[k] == m.Rel.ID {
			continue
		}
		ren[m.Rel.ID] = got[k]
		for _, e := range []keys.Key{m.From, m.To, m.Rel.Other} {
			if !seen[e] {
				seen[e] = true
				ends = append(ends, e.Value())
			}
		}
	}
	if len(ren) == 0 {
		return got, nil
	}
	recs, err := tx.Find(Filter{Labels: []string{MergedLabel}, Prop: mergeplan.PropMergedIntoID, Values: ends})
	if err != nil {
		return got, err
	}
	for _, r := range recs {
		ids := slices.Clone(asList(r.Props[mergeplan.PropMergedRels]))
		changed := false
		for k, id := range ids {
			if s, ok := id.(string); ok && ren[s] != "" {
				ids[k], changed = ren[s], true
			}
		}
		if changed {
			if err := tx.Set(r.ID, map[string]any{mergeplan.PropMergedRels: ids}); err != nil {
				return got, err
			}
		}
	}
	return got, nil
}

// mergeRecordsOf returns the records of the nodes run merged, latest
// first.
func mergeRecordsOf(tx Tx, run string) ([]Node, error) {
	recs, err := tx.Find(Filter{Labels: []string{MergedLabel}, Prop: mergeplan.PropMergedRun, Values: []any{run}})
	slices.SortStableFunc(recs, func(a, b Node) int {
		oa, _ := a.Props[mergeplan.PropMergedOrder].(int64)
		ob, _ := b.Props[mergeplan.PropMergedOrder].(int64)
		return cmp.Compare(ob, oa)
	})
	return recs, err
}

// survivorsOf returns the nodes run merged others into, once each, in the
// order of mergeRecordsOf (the latest merge first).
func survivorsOf(tx Tx, run string) ([]keys.Key, error) {
	recs, err := mergeRecordsOf(tx, run)
	var ids []keys.Key
	seen := map[keys.Key]bool{}
	for _, r := range recs {
		into, _ := keys.FromValue(r.Props[mergeplan.PropMergedIntoID])
		if !seen[into] {
			seen[into] = true
			ids = append(ids, into)
		}
	}
	return ids, err
}

// UndoMerges restores every node that run o.RunID merged, one
// transaction per survivor, latest merges first: the node is created
// again with its labels and properties (its key among them), the
// relationships that moved to the survivor move back (type, direction
// and properties; one between the two nodes, a self-loop of the survivor
// now, gets its end back), the properties the merge added to the
// survivor are removed, and the run leaves the survivor's
// fondue_merge_runs. Internal ids are new. It takes no lock and keeps the
// run's record: see Undo, which does both and refuses while a later run
// touched the same nodes.
func UndoMerges(ctx context.Context, st Store, o UndoOptions) (UndoStats, error) {
	t0 := time.Now()
	var us UndoStats
	var survivors []keys.Key
	err := st.Read(ctx, func(tx Tx) error {
		var err error
		survivors, err = survivorsOf(tx, o.RunID)
		return err
	})
	if err != nil {
		return us, err
	}
	us.Originals = len(survivors)
	err = restoreEach(ctx, st, survivors, &us, o.Progress, func(k int, keep keys.Key) string {
		return fmt.Sprintf("restoring the nodes merged into node %v (%d of %d)", keep, k+1, len(survivors))
	}, func(tx Tx, keep keys.Key) (UndoStats, error) {
		n, moved, err := unmergeInto(tx, o.RunID, keep)
		return UndoStats{Unmerged: n, RelationshipsMoved: moved}, err
	}, func(keep keys.Key, err error) {
		if o.Log != nil {
			o.Log.Warn("could not undo the merge into a node", "node", fmt.Sprint(keep), "error", oneLine(err.Error()))
		}
	})
	us.Duration = time.Since(t0)
	return us, err
}

// unmergeInto restores the nodes run merged into keep, latest first.
func unmergeInto(tx Tx, run string, keep keys.Key) (restored, moved int, err error) {
	nodes, err := tx.Nodes([]keys.Key{keep})
	if err != nil {
		return 0, 0, err
	}
	if nodes[0].ID.IsZero() || !mergedBy(nodes[0], run) {
		return 0, 0, fmt.Errorf("%w: the survivor elementId(n) = %q no longer exists or has no record of run %s in %s; its merged nodes stay recorded",
			errUndo, keep.Text(), run, mergeplan.PropMergeRuns)
	}
	recs, err := mergeRecordsOf(tx, run)
	if err != nil {
		return 0, 0, err
	}
	for _, rec := range recs {
		if into, _ := keys.FromValue(rec.Props[mergeplan.PropMergedIntoID]); into != keep {
			continue
		}
		// Read again: restoring the later ones renamed relationships in it.
		now, err := tx.Nodes([]keys.Key{rec.ID})
		if err != nil {
			return restored, moved, err
		}
		n, err := restoreMerged(tx, keep, now[0])
		if err != nil {
			return restored, moved, err
		}
		restored++
		moved += n
	}
	nodes, err = tx.Nodes([]keys.Key{keep})
	if err != nil {
		return restored, moved, err
	}
	var rest any
	if r := slices.DeleteFunc(slices.Clone(asList(nodes[0].Props[mergeplan.PropMergeRuns])), func(x any) bool { return x == any(run) }); len(r) > 0 {
		rest = r
	}
	return restored, moved, tx.Set(keep, map[string]any{mergeplan.PropMergeRuns: rest})
}

// restoreMerged restores the merged node of record rec from survivor
// keep, and deletes the record.
func restoreMerged(tx Tx, keep keys.Key, rec Node) (int, error) {
	props := maps.Clone(rec.Props)
	for _, p := range mergeplan.RecordProps() {
		delete(props, p)
	}
	var labels []string
	for _, l := range asList(rec.Props[mergeplan.PropMergedLabels]) {
		if s, ok := l.(string); ok {
			labels = append(labels, s)
		}
	}
	ids, err := tx.Create(keys.Key{}, nil, labels, []map[string]any{props})
	if err != nil {
		return 0, err
	}
	back := ids[0]
	rels, err := tx.Rels([]keys.Key{keep}, nil)
	if err != nil {
		return 0, err
	}
	byID := map[string]Rel{}
	for _, r := range rels {
		byID[r.ID] = r
	}
	ends := asList(rec.Props[mergeplan.PropMergedEnds])
	var moves []Move
	for k, id := range asList(rec.Props[mergeplan.PropMergedRels]) {
		s, _ := id.(string)
		r, ok := byID[s]
		if !ok {
			return 0, fmt.Errorf("%w: relationship %s that the merge moved to the survivor elementId(n) = %q is no longer on it", errUndo, s, keep.Text())
		}
		m := Move{Rel: r.Rel, From: keep, To: back}
		if r.Other == keep { // a self-loop of the survivor now
			switch end, _ := ends[k].(string); end {
			case mergeplan.EndOut:
				m.Rel.Outgoing, m.OneEnd = true, true
			case mergeplan.EndIn:
				m.Rel.Outgoing, m.OneEnd = false, true
			}
		}
		moves = append(moves, m)
	}
	if _, err := moveTracked(tx, moves); err != nil {
		return 0, err
	}
	// What pointed to the merged node's old id points to it again: the
	// records of nodes merged into it, the clones split from it.
	old := rec.Props[mergeplan.PropMergedID]
	into, err := tx.Find(Filter{Labels: []string{MergedLabel}, Prop: mergeplan.PropMergedIntoID, Values: []any{old}})
	if err != nil {
		return 0, err
	}
	for _, r := range into {
		if err := tx.Set(r.ID, map[string]any{mergeplan.PropMergedIntoID: back.Value()}); err != nil {
			return 0, err
		}
	}
	clones, err := tx.Find(Filter{Prop: splitplan.PropSplitFromID, Values: []any{old}})
	if err != nil {
		return 0, err
	}
	for _, c := range clones {
		if err := tx.Set(c.ID, map[string]any{splitplan.PropSplitFromID: back.Value()}); err != nil {
			return 0, err
		}
	}
	remove := map[string]any{}
	for _, p := range asList(rec.Props[mergeplan.PropMergedAdded]) {
		if s, ok := p.(string); ok {
			remove[s] = nil
		}
	}
	if len(remove) > 0 {
		if err := tx.Set(keep, remove); err != nil {
			return 0, err
		}
	}
	return len(moves), tx.Delete([]keys.Key{rec.ID})
}
