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

// laterMerges lists, sorted, the merge runs that must be undone before
// split run run: they merged away a clone or an original of it, merged
// nodes into a clone of it, or (later than it) into an original.
func laterMerges(ctx context.Context, st Store, rec *splitplan.Plan, run, marker string) ([]string, error) {
	times, err := runTimes(ctx, st)
	if err != nil {
		return nil, err
	}
	var runs []string
	err = st.Read(ctx, func(tx Tx) error {
		runs = nil
		gone, err := tx.Find(Filter{Labels: []string{MergedLabel}, Prop: splitplan.PropSplitRun, Values: []any{run}})
		if err != nil {
			return err
		}
		for _, g := range gone {
			runs = append(runs, strs([]any{g.Props[mergeplan.PropMergedRun]})...)
		}
		clones, err := clonesOf(tx, run, marker)
		if err != nil {
			return err
		}
		for _, c := range clones {
			runs = append(runs, strs(c.Props[mergeplan.PropMergeRuns])...)
		}
		if rec == nil {
			return nil
		}
		var ids []keys.Key
		for _, n := range rec.Nodes {
			if !n.ID.IsZero() {
				ids = append(ids, n.ID)
			}
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
			for _, r := range strs(n.Props[mergeplan.PropMergeRuns]) {
				if after(times, r, run) {
					runs = append(runs, r)
				}
			}
		}
		away, err := mergedAway(tx, missing)
		runs = append(runs, away...)
		return err
	})
	slices.Sort(runs)
	return slices.Compact(runs), err
}

// laterThanMerge lists, sorted, the runs that must be undone before merge
// run run: they merged its survivors away, merged more into them, or
// split them after it.
func laterThanMerge(ctx context.Context, st Store, run string) ([]string, error) {
	times, err := runTimes(ctx, st)
	if err != nil {
		return nil, err
	}
	var runs []string
	err = st.Read(ctx, func(tx Tx) error {
		runs = nil
		recs, err := mergeRecordsOf(tx, run)
		if err != nil {
			return err
		}
		var ids []keys.Key
		seen := map[keys.Key]bool{}
		for _, r := range recs {
			into, _ := keys.FromValue(r.Props[mergeplan.PropMergedIntoID])
			if !seen[into] {
				seen[into] = true
				ids = append(ids, into)
			}
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
			mr := strs(n.Props[mergeplan.PropMergeRuns])
			if i := slices.Index(mr, run); i >= 0 {
				runs = append(runs, mr[i+1:]...)
			}
			for _, r := range strs(n.Props[splitplan.PropSplitRuns]) {
				if after(times, r, run) {
					runs = append(runs, r)
				}
			}
		}
		away, err := mergedAway(tx, missing)
		runs = append(runs, away...)
		return err
	})
	slices.Sort(runs)
	return slices.Compact(runs), err
}
