package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/runid"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
	"github.com/fondue-neo4j/fondue-neo4j/text/plural"
)

// mergeSummary is what "sync --merge" prints (--output json).
type mergeSummary struct {
	mergeplan.MergeStats
	Plan        string `json:"plan"`
	MergeMillis int64  `json:"mergeMillis"`
}

// readMergePlan reads a merge plan (mergeplan.Parse checks it) and its
// fingerprint.
func readMergePlan(path string) (*mergeplan.Plan, string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", usageErrorf("merge plan %s: no such file", path)
	} else if err != nil {
		return nil, "", usageErrorf("merge plan %s: %v", path, errors.Unwrap(err))
	}
	p, err := mergeplan.Parse(data)
	if err != nil {
		return nil, "", usageErrorf("%s: %v", path, err)
	}
	return p, mergeplan.Fingerprint(data), nil
}

// mergeApproved is "sync --merge --plan FILE": syncjob.Merge merges the
// plan's accepted pairs (no pull, no scoring). The run id is --run-id, or
// one derived from the file's content, so that re-running the same file
// resumes it.
func (a *app) mergeApproved(ctx context.Context, s *syncSettings, dryRun bool) error {
	if dryRun {
		return usageErrorf("sync --merge --dry-run: the merge plan is the dry run (sync --duplicates --dry-run); leave out --dry-run to merge it")
	}
	p, fingerprint, err := readMergePlan(s.planFile)
	if err != nil {
		return err
	}
	p.RunID = a.cfg.RunID
	if p.RunID == "" {
		p.RunID = "merge-" + strings.TrimPrefix(fingerprint, "sha256:")[:12]
	} else if !runid.Valid(p.RunID) {
		return usageErrorf("run_id %q: use up to 128 letters, digits and . _ : + -", p.RunID)
	}
	if p.IDProperty == "" {
		p.IDProperty = s.pull.IDProperty
	}
	p.CreatedAt = splitplan.ISOTime(time.Now())
	p.Approved = &splitplan.ApprovedRef{File: s.planFile, ReviewedAt: p.ReviewedAt, Fingerprint: fingerprint}
	if len(p.Accepted()) == 0 {
		a.log.Warn("the merge plan accepts no pair: nothing to merge", "file", s.planFile, "pairs", len(p.Pairs))
	}
	conn, err := connector.Open(ctx, s.conn)
	if err != nil {
		return exitCode(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	t0 := time.Now()
	pr := newProgress(a)
	lock := s.lock
	ms, err := syncjob.Merge(ctx, conn, p, syncjob.MergeOptions{Lock: lock, Log: a.log,
		Progress: func(done, total int) { pr.report(fondue.Progress{Phase: "merge", Done: done, Total: total}) }})
	pr.finish()
	if err != nil {
		return exitCode(err)
	}
	sum := mergeSummary{MergeStats: ms, Plan: s.planFile, MergeMillis: millis(time.Since(t0))}
	switch {
	case s.json:
		if err := a.printJSON(sum); err != nil {
			return err
		}
	case a.tty:
		printf(a.stderr, "merge %s: %s merged into %s, %s moved; %s left alone, %s failed\n", ms.RunID,
			plural.N(ms.NodesMerged, "node"), plural.N(ms.Merged, "survivor"), plural.N(ms.RelationshipsMoved, "relationship"),
			plural.N(ms.Skipped, "group"), plural.N(ms.Failed, "group"))
	default:
		a.log.Info("merge done", "run_id", ms.RunID, "merged", ms.Merged, "already_done", ms.AlreadyDone, "nodes_merged", ms.NodesMerged,
			"relationships_moved", ms.RelationshipsMoved, "skipped", ms.Skipped, "failed", ms.Failed, "mergeMillis", sum.MergeMillis)
	}
	if n := ms.Failed + ms.Skipped; n > 0 {
		o := firstLeft(ms)
		return syncjob.Errorf(syncjob.ErrIncomplete, nil, "%s of %d not merged (%s); first: node %v: %s; the others are merged (undo --run-id %s reverses them)",
			plural.N(n, "merge group"), ms.Groups, o.Outcome, o.Keep, o.Reason, ms.RunID)
	}
	return nil
}

// firstLeft is the first group not merged (changed, missing or failed).
func firstLeft(ms mergeplan.MergeStats) mergeplan.GroupOutcome {
	for _, o := range ms.Outcomes {
		if o.Outcome != mergeplan.OutcomeMerged && o.Outcome != mergeplan.OutcomeDone {
			return o
		}
	}
	return mergeplan.GroupOutcome{}
}
