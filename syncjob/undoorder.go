package syncjob

import (
	"context"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Undo goes in reverse order: a run whose nodes a later run split,
// merged away or merged into must wait for that run's undo. Which of two
// runs is later: the order of their records (CreatedAt).

// runTimes returns when each run with a record was made.
func runTimes(ctx context.Context, st Store) (map[string]string, error) {
	rs, err := st.Records(ctx)
	out := map[string]string{}
	for _, r := range rs {
		out[r.RunID] = r.CreatedAt
	}
	return out, err
}

// after reports whether run a is later than run b (both with records).
func after(times map[string]string, a, b string) bool {
	ta, oka := times[a]
	tb, okb := times[b]
	return a != b && oka && okb && ta > tb
}

// strs are the strings of a stored list.
func strs(v any) []string {
	var out []string
	for _, x := range asList(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// mergedAway returns the runs that merged the nodes ids away (their
// records name them).
func mergedAway(tx Tx, ids []keys.Key) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	recs, err := tx.Find(Filter{Labels: []string{MergedLabel}, Prop: mergeplan.PropMergedID, Values: values(ids)})
	var runs []string
	for _, r := range recs {
		runs = append(runs, strs([]any{r.Props[mergeplan.PropMergedRun]})...)
	}
	return runs, err
}

// laterRuns lists, sorted, the runs that must be undone before run, read
// in one transaction: the runs find gives, and of the nodes ids that find
// names, for one that is gone the runs that merged it away, for one that
// is there the runs of has (later keeps those of runs later than run).
func laterRuns(ctx context.Context, st Store, run string, find func(tx Tx) (runs []string, ids []keys.Key, err error),
	has func(n Node, later func(runs []string) []string) []string) ([]string, error) {
	times, err := runTimes(ctx, st)
	if err != nil {
		return nil, err
	}
	later := func(rs []string) []string {
		var out []string
		for _, r := range rs {
			if after(times, r, run) {
				out = append(out, r)
			}
		}
		return out
	}
	var runs []string
	err = st.Read(ctx, func(tx Tx) error {
		var ids []keys.Key
		var err error
		if runs, ids, err = find(tx); err != nil || len(ids) == 0 {
			return err
		}
		nodes, err := tx.Nodes(ids)
		if err != nil {
			return err
		}
		var missing []keys.Key
		for k, n := range nodes {
			if n.ID.IsZero() {
				missing = append(missing, ids[k])
				continue
			}
			runs = append(runs, has(n, later)...)
		}
		away, err := mergedAway(tx, missing)
		runs = append(runs, away...)
		return err
	})
	slices.Sort(runs)
	return slices.Compact(runs), err
}

// laterMerges lists, sorted, the merge runs that must be undone before
// split run run: they merged away a clone or an original of it, merged
// nodes into a clone of it, or (later than it) into an original.
func laterMerges(ctx context.Context, st Store, rec *splitplan.Plan, run, marker string) ([]string, error) {
	find := func(tx Tx) ([]string, []keys.Key, error) {
		var runs []string
		gone, err := tx.Find(Filter{Labels: []string{MergedLabel}, Prop: splitplan.PropSplitRun, Values: []any{run}})
		if err != nil {
			return nil, nil, err
		}
		for _, g := range gone {
			runs = append(runs, strs([]any{g.Props[mergeplan.PropMergedRun]})...)
		}
		clones, err := clonesOf(tx, run, marker)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range clones {
			runs = append(runs, strs(c.Props[mergeplan.PropMergeRuns])...)
		}
		if rec == nil {
			return runs, nil, nil
		}
		var ids []keys.Key
		for _, n := range rec.Nodes {
			if !n.ID.IsZero() {
				ids = append(ids, n.ID)
			}
		}
		return runs, ids, nil
	}
	return laterRuns(ctx, st, run, find, func(n Node, later func([]string) []string) []string {
		return later(strs(n.Props[mergeplan.PropMergeRuns]))
	})
}

// laterThanMerge lists, sorted, the runs that must be undone before merge
// run run: they merged its survivors away, merged more into them, or
// split them after it.
func laterThanMerge(ctx context.Context, st Store, run string) ([]string, error) {
	find := func(tx Tx) ([]string, []keys.Key, error) {
		ids, err := survivorsOf(tx, run)
		return nil, ids, err
	}
	return laterRuns(ctx, st, run, find, func(n Node, later func([]string) []string) []string {
		var runs []string
		mr := strs(n.Props[mergeplan.PropMergeRuns])
		if i := slices.Index(mr, run); i >= 0 {
			runs = append(runs, mr[i+1:]...)
		}
		return append(runs, later(strs(n.Props[splitplan.PropSplitRuns]))...)
	})
}
