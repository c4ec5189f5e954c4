package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/review"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// readApproved reads an approved plan (review.ParsePlan checks it) and its
// fingerprint: "sha256:" and the SHA-256 of the file.
func readApproved(path string) (*review.ApprovedPlan, string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", usageErrorf("approved plan %s: no such file", path)
	} else if err != nil {
		return nil, "", usageErrorf("approved plan %s: %v", path, errors.Unwrap(err))
	}
	ap, err := review.ParsePlan(data)
	if err != nil {
		return nil, "", usageErrorf("%s: %v (export it from the review page)", path, err)
	}
	sum := sha256.Sum256(data)
	return ap, "sha256:" + hex.EncodeToString(sum[:]), nil
}

// applyApproved is "sync --split --plan FILE": syncjob.Apply carries out
// the approved plan's accepted nodes with their approved groups (no pull,
// no scoring), after a whole-plan check; a plan that no longer matches is
// refused before anything is written (exit code 2), naming what changed.
func (a *app) applyApproved(ctx context.Context, s *syncSettings, dryRun bool) error {
	ap, fingerprint, err := readApproved(s.planFile)
	if err != nil {
		return err
	}
	// An explicit run id wins; else the dry run's, so that re-running the
	// same approved plan resumes it.
	plan, err := ap.Plan(s.planFile, fingerprint, a.cfg.RunID, s.pull, s.skip, time.Now())
	if err != nil {
		return exitCode(err)
	}
	conn, err := connector.Open(ctx, s.conn)
	if err != nil {
		return exitCode(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	s.runID = plan.RunID
	if len(plan.Nodes) == 0 {
		a.log.Warn("the approved plan accepts no node: nothing to split", "run_id", plan.RunID, "file", s.planFile,
			"rejected", len(ap.Rejected), "undecided", len(ap.Undecided))
	}
	pr := newProgress(a)
	sum, err := syncjob.Apply(ctx, conn, plan, syncjob.ApplyOptions{Lock: s.lock, DryRun: dryRun, Progress: pr.report, Log: a.log, CloneKey: s.cloneKey})
	pr.finish()
	a.ran.Sync = sum
	sum.Configuration, sum.Neo4jVersion = s.configuration(), conn.Version()
	sum.Configuration["approvedPlan"] = s.planFile
	switch {
	case err != nil && !errors.Is(err, syncjob.ErrIncomplete):
		return exitCode(err)
	case dryRun && len(plan.Nodes) > 0:
		return a.printJSON(sum)
	}
	if rerr := a.report(sum, s); rerr != nil {
		return rerr
	}
	return err
}
