package syncjob

import (
	"context"
	"fmt"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// StorePlan stores the plan of its run in the run's record unless one is
// stored already (with its Decisions, which Decisions reads), and returns
// the stored plan: the first one wins, so that a re-run resumes it
// (splitplan.Plan.CheckStored refuses another approved plan). The record
// is unfinished until the split loop completes (Recorder.FinishRecord).
func StorePlan(ctx context.Context, st Store, p *splitplan.Plan) (*splitplan.Plan, error) {
	if err := st.Unique(ctx, RunLabel, "run_id"); err != nil {
		return nil, err
	}
	data, err := p.Marshal()
	if err != nil {
		return nil, err
	}
	ds, err := splitplan.MarshalDecisions(p.Decisions)
	if err != nil {
		return nil, err
	}
	r := Record{RunID: p.RunID, Plan: data, CreatedAt: p.CreatedAt, Decisions: ds, Unfinished: true}
	if p.Approved != nil {
		r.Approved, r.ReviewedAt = p.Approved.Fingerprint, p.Approved.ReviewedAt
	}
	other, err := st.AddRecord(ctx, r)
	if err != nil || other == nil {
		return p, err
	}
	if mergeplan.IsMerge(other.Plan) {
		return nil, Errorf(ErrInvalid, nil, "run id %s already holds a merge run: split under a run id of its own (--run-id)", p.RunID)
	}
	stored, err := splitplan.Unmarshal(other.Plan)
	if err != nil {
		return nil, fmt.Errorf("split plan of run %s is corrupt: %w", p.RunID, err)
	}
	if err := p.CheckStored(stored); err != nil {
		return nil, Errorf(ErrInvalid, err, "%v", err)
	}
	return stored, nil
}

// LoadPlan returns the plan stored by a run, or nil.
func LoadPlan(ctx context.Context, st Store, runID string) (*splitplan.Plan, error) {
	r, err := st.Record(ctx, runID)
	if err != nil || r == nil {
		return nil, err
	}
	if mergeplan.IsMerge(r.Plan) {
		return nil, Errorf(ErrInvalid, nil, "run %s is a merge run, not a split run", runID)
	}
	p, err := splitplan.Unmarshal(r.Plan)
	if err != nil {
		return nil, fmt.Errorf("split plan of run %s is corrupt: %w", runID, err)
	}
	return p, nil
}

// Decisions returns every remembered review decision, by run id then in
// the order stored, each with its RunID.
func Decisions(ctx context.Context, st Store) ([]splitplan.Decision, error) {
	rs, err := st.Records(ctx)
	if err != nil {
		return nil, err
	}
	var out []splitplan.Decision
	for _, r := range rs {
		if r.Decisions == nil {
			continue
		}
		ds, err := splitplan.UnmarshalDecisions(r.Decisions, r.RunID)
		if err != nil {
			return nil, fmt.Errorf("review decisions of run %s are corrupt: %w", r.RunID, err)
		}
		out = append(out, ds...)
	}
	return out, nil
}

// clearDecisions forgets the decisions of run runID ("": of every run),
// keeping the records, and returns how many it forgot.
func clearDecisions(ctx context.Context, st Store, runID string) (int, error) {
	ds, err := Decisions(ctx, st)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range ds {
		if runID == "" || d.RunID == runID {
			n++
		}
	}
	return n, st.ClearDecisions(ctx, runID)
}

// CountSplit returns how many of the plan's nodes carry the split mark
// of its run (splitplan.PropSplitRuns): split by it and not restored.
func CountSplit(ctx context.Context, st Store, p *splitplan.Plan) (int, error) {
	var ids []keys.Key
	for _, n := range p.Nodes {
		if !n.ID.IsZero() {
			ids = append(ids, n.ID)
		}
	}
	n := 0
	err := st.Read(ctx, func(tx Tx) error {
		n = 0
		nodes, err := tx.Nodes(ids)
		for _, nd := range nodes {
			if !nd.ID.IsZero() && splitBy(nd, p.RunID) {
				n++
			}
		}
		return err
	})
	return n, err
}

// splitBy reports whether run split node n (its PropSplitRuns holds it).
func splitBy(n Node, run string) bool {
	return slices.Contains(asList(n.Props[splitplan.PropSplitRuns]), any(run))
}

func asList(v any) []any { l, _ := v.([]any); return l }

// splitRuns lists, sorted, the run ids the store knows split runs by:
// those with a record, and those of the nodes with markerLabel that a
// split made. For messages about a run id that is not there.
func splitRuns(ctx context.Context, st Store, markerLabel string) ([]string, error) {
	rs, err := st.Records(ctx)
	if err != nil {
		return nil, err
	}
	var runs []string
	for _, r := range rs {
		runs = append(runs, r.RunID)
	}
	err = st.Read(ctx, func(tx Tx) error {
		clones, err := tx.Find(Filter{Labels: []string{markerLabel}, Prop: splitplan.PropSplitRun})
		for _, c := range clones {
			if r, ok := c.Props[splitplan.PropSplitRun].(string); ok {
				runs = append(runs, r)
			}
		}
		return err
	})
	slices.Sort(runs)
	return slices.Compact(runs), err
}

// clonesOf returns the clones made by run runID (nodes with markerLabel).
func clonesOf(tx Tx, runID, markerLabel string) ([]Node, error) {
	return tx.Find(Filter{Labels: []string{markerLabel}, Prop: splitplan.PropSplitRun, Values: []any{runID}})
}

// laterSplits lists, sorted, the runs that split again a clone made by
// run runID (a node with markerLabel): they must be undone first.
func laterSplits(ctx context.Context, st Store, runID, markerLabel string) ([]string, error) {
	var runs []string
	err := st.Read(ctx, func(tx Tx) error {
		runs = nil
		clones, err := clonesOf(tx, runID, markerLabel)
		for _, c := range clones {
			for _, r := range asList(c.Props[splitplan.PropSplitRuns]) {
				if r, ok := r.(string); ok {
					runs = append(runs, r)
				}
			}
		}
		return err
	})
	slices.Sort(runs)
	return slices.Compact(runs), err
}
