package syncjob

import (
	"context"
	"log/slog"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// ApplyOptions configure Apply. The zero value takes the default lock.
type ApplyOptions struct {
	// Lock names the lock (its RunID is the plan's).
	Lock LockOptions
	// DryRun checks the plan against the graph and writes nothing; the
	// summary holds the plan.
	DryRun bool
	// Progress, when set, receives the split's progress ("split").
	Progress func(fondue.Progress)
	// Log receives what the run does (default: nothing).
	Log *slog.Logger
	// CloneKey is the scheme of the clones' keys (Options.CloneKey).
	CloneKey string
}

// Apply carries out an approved plan (see splitplan.Plan.Approved and
// review.ApprovedPlan.Plan): no pull, no scoring; the plan's nodes are
// split with their approved groups, under the lock, one transaction per
// node, after a whole-plan check that every node's neighbours are still
// the ones reviewed (each node's transaction checks again). A plan that
// no longer matches is refused before anything is written, with a
// *StaleError naming what changed. Re-running the same approved plan
// under its run id resumes it; the run id of another plan is refused
// (IsInvalid). Nodes that changed after the check are left alone and give
// an *IncompleteError, with the summary.
func Apply(ctx context.Context, st Store, plan *splitplan.Plan, o ApplyOptions) (*Summary, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	log := o.Log.With("run_id", plan.RunID)
	sum := &Summary{RunID: plan.RunID, DryRun: o.DryRun, ApprovedPlan: plan.Approved}
	if err := checkNames(st, planNames(plan)); err != nil {
		return sum, err
	}
	if len(plan.Nodes) == 0 && (o.DryRun || len(plan.Decisions) == 0) {
		sum.Split = &splitplan.SplitStats{Nodes: []splitplan.NodeOutcome{}}
		return sum, nil
	}
	if !o.DryRun {
		o.Lock.RunID = plan.RunID
		lockCtx, release, err := hold(ctx, st, o.Lock, log)
		if err != nil {
			return sum, err
		}
		defer release()
		ctx = lockCtx
	}
	// A run id that already stored this approved plan resumes it; one that
	// stored another plan is refused.
	stored, err := LoadPlan(ctx, st, plan.RunID)
	if err != nil {
		return sum, lockError(ctx, err)
	}
	if stored != nil {
		if err := plan.CheckStored(stored); err != nil {
			return sum, Errorf(ErrInvalid, err, "%v", err)
		}
		log.Info("resuming this approved plan's split", "phase", "split", "nodes", len(stored.Nodes))
		plan, sum.Resumed = stored, true
	} else if plan.IDProperty != "" {
		if err := ResolveKeys(ctx, st, plan); err != nil {
			return sum, lockError(ctx, err)
		}
	}
	changed, err := Check(ctx, st, plan)
	if err != nil {
		return sum, lockError(ctx, err)
	}
	if len(changed) > 0 {
		file := ""
		if plan.Approved != nil {
			file = plan.Approved.File
		}
		return sum, &StaleError{File: file, RunID: plan.RunID, Planned: len(plan.Nodes), Changed: changed, Resumed: sum.Resumed}
	}
	if o.DryRun {
		sum.Plan = plan
		return sum, nil
	}
	if !sum.Resumed {
		if plan.IDProperty != "" {
			if err := applyCloneKeys(ctx, st, plan, o.CloneKey); err != nil {
				return sum, lockError(ctx, err)
			}
		}
		plan.EditDecisions()
		if plan, err = StorePlan(ctx, st, plan); err != nil {
			return sum, lockError(ctx, err)
		}
	}
	if err := runSplit(ctx, st, plan, sum, Options{Progress: o.Progress}, log); err != nil {
		return sum, lockError(ctx, err)
	}
	return sum, incomplete(sum)
}

// applyCloneKeys gives the clones of an approved plan keys that no node of
// its selection has (no pull: the store is asked, TakenKeys). Integer keys
// start after the largest key of the plan's nodes and neighbours, and
// after the largest taken one found each round.
func applyCloneKeys(ctx context.Context, st Store, p *splitplan.Plan, scheme string) error {
	if err := splitplan.CheckCloneKey(scheme); err != nil {
		return Errorf(ErrInvalid, err, "ApplyOptions.CloneKey %v", err)
	}
	intKeys, maxInt := true, int64(0)
	for _, n := range p.Nodes {
		for _, k := range append([]keys.Key{n.Key}, groupKeys(n)...) {
			v, ok := k.Int64()
			intKeys = intKeys && ok
			maxInt = max(maxInt, v)
		}
	}
	taken := map[keys.Key]bool{}
	for range 1000 {
		if err := p.AssignCloneKeys(scheme, intKeys, maxInt, func(k keys.Key) bool { return taken[k] }); err != nil {
			return Errorf(ErrInvalid, err, "%v", err)
		}
		found, err := TakenKeys(ctx, st, p, p.CloneKeys())
		if err != nil || len(found) == 0 {
			return err
		}
		for _, k := range found {
			taken[k] = true
			if v, ok := k.Int64(); ok {
				maxInt = max(maxInt, v)
			}
		}
	}
	return Errorf(ErrInvalid, nil, "could not find free keys (%s) for the clones of the approved plan: set the clone key", p.IDProperty)
}

func groupKeys(n splitplan.Node) []keys.Key {
	var out []keys.Key
	for _, g := range n.Groups {
		out = append(out, g.Neighbors...)
	}
	return out
}
