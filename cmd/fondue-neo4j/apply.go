package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/internal/review"
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

// sameSet reports whether two lists hold the same names (in any order).
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

func showList(xs []string) string {
	if len(xs) == 0 {
		return "[] (all)"
	}
	return "[" + strings.Join(xs, ", ") + "]"
}

// approvedPlan turns an approved plan into the connector's plan: only the
// accepted nodes, with their groups as approved, under this run's
// selection, which must be the selection of the dry run that was reviewed.
func (a *app) approvedPlan(s *syncSettings, ap *review.ApprovedPlan, fingerprint string) (*connector.Plan, error) {
	file := s.planFile
	switch ap.Source {
	case review.SourceNeo4j:
		for _, c := range []struct {
			key        string
			plan, this []string
		}{
			{"graph.node_labels", ap.NodeLabels, s.pull.NodeLabels},
			{"graph.relationship_types", ap.RelationshipTypes, s.pull.RelationshipTypes},
		} {
			if !sameSet(c.plan, c.this) {
				return nil, usageErrorf("approved plan %s was reviewed from a dry run with %s = %s; this run has %s: apply it with the dry run's selection",
					file, c.key, showList(c.plan), showList(c.this))
			}
		}
		if ap.IDProperty != s.pull.IDProperty {
			return nil, usageErrorf("approved plan %s was reviewed from a dry run with graph.id_property = %q; this run has %q: apply it with the dry run's selection",
				file, ap.IDProperty, s.pull.IDProperty)
		}
	case review.SourceEdgeList:
		if s.pull.IDProperty == "" {
			return nil, usageErrorf("approved plan %s was reviewed from an edge list (%s): its nodes are found by their ids in a key property: set graph.id_property (--id-property)",
				file, ap.Input)
		}
	}
	runID := a.v.GetString("run_id") // an explicit run id wins
	if runID == "" {
		// Re-running the same approved plan resumes it: its run id is the
		// dry run's, else one derived from its content.
		runID = ap.RunID
		if !runIDRE.MatchString(runID) {
			runID = "approved-" + strings.TrimPrefix(fingerprint, "sha256:")[:12]
		}
	}
	p := &connector.Plan{RunID: runID, CreatedAt: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), Splitter: ap.Splitter,
		IDProperty: s.pull.IDProperty, NodeLabels: slices.Clone(s.pull.NodeLabels), RelationshipTypes: slices.Clone(s.pull.RelationshipTypes),
		DisplayProperty: s.pull.DisplayProperty, MarkerLabel: s.pull.MarkerLabel, ExactNeighbors: true,
		Approved: &connector.ApprovedRef{File: file, ReviewedAt: ap.ReviewedAt, Fingerprint: fingerprint, Source: ap.Source},
		Nodes:    []connector.PlanNode{}}
	if p.MarkerLabel == "" {
		p.MarkerLabel = connector.DefaultMarkerLabel
	}
	for _, prop := range s.skip { // as NewPlan: the write properties too
		if prop != "" && !slices.Contains(p.SkipProperties, prop) {
			p.SkipProperties = append(p.SkipProperties, prop)
		}
	}
	for _, an := range ap.Nodes {
		n := connector.PlanNode{ID: an.ID, Key: an.Key, Name: an.Name, Ambiguity: an.Ambiguity, Score: an.Score}
		if s.pull.IDProperty == "" && n.ID == nil {
			n.ID = n.Key // without a key property, keys are element ids
		}
		for _, g := range an.Groups {
			pg := connector.PlanGroup{Neighbors: slices.Clone(g.Neighbors), NeighborIDs: make([]any, len(g.Neighbors))}
			if len(g.NeighborIDs) == len(g.Neighbors) {
				copy(pg.NeighborIDs, g.NeighborIDs)
			} else if s.pull.IDProperty == "" {
				copy(pg.NeighborIDs, g.Neighbors)
			}
			if len(g.Names) == len(g.Neighbors) {
				pg.Names = slices.Clone(g.Names)
			}
			n.Groups = append(n.Groups, pg)
		}
		p.Nodes = append(p.Nodes, n)
	}
	return p, nil
}

// applyApproved is "sync --split --plan FILE": no pull, no scoring; the
// approved plan's accepted nodes are split with their approved groups,
// under the lock, one transaction per node, after a whole-plan check that
// every node's neighbours are still the ones reviewed (each node's
// transaction checks again). A plan that no longer matches is refused
// before anything is written, naming what changed. Re-running the same
// approved plan resumes it (its run id is the dry run's, or derived from
// the file); "undo --run-id" reverses it.
func (a *app) applyApproved(ctx context.Context, s *syncSettings, dryRun bool) error {
	ap, fingerprint, err := readApproved(s.planFile)
	if err != nil {
		return err
	}
	plan, err := a.approvedPlan(s, ap, fingerprint)
	if err != nil {
		return err
	}
	log := a.log.With("run_id", plan.RunID)
	conn, err := connector.Open(ctx, s.conn)
	if err != nil {
		return exitCode(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	s.runID = plan.RunID
	sum := &syncSummary{RunID: plan.RunID, Configuration: s.configuration(), Neo4jVersion: conn.Version(), DryRun: dryRun, ApprovedPlan: plan.Approved}
	sum.Configuration["approvedPlan"] = s.planFile
	if len(plan.Nodes) == 0 {
		log.Warn("the approved plan accepts no node: nothing to split", "file", s.planFile, "rejected", len(ap.Rejected), "undecided", len(ap.Undecided))
		sum.Split = &connector.SplitStats{Nodes: []connector.NodeOutcome{}}
		return a.report(sum, s)
	}
	if !dryRun {
		s.lock.RunID = plan.RunID
		lockCtx, release, err := holdLock(ctx, conn, s.lock, log)
		if err != nil {
			return exitCode(err)
		}
		defer release()
		ctx = lockCtx
	}
	// A run id that already stored this approved plan resumes it; one that
	// stored another plan is refused.
	stored, err := conn.LoadPlan(ctx, plan.RunID)
	if err != nil {
		return lockedContext(ctx, exitCode(err))
	}
	if stored != nil {
		if err := plan.CheckStored(stored); err != nil {
			return exitCode(err)
		}
		log.Info("resuming this approved plan's split", "phase", "split", "nodes", len(stored.Nodes))
		plan, sum.Resumed = stored, true
	} else if plan.IDProperty != "" {
		if err := conn.ResolveKeys(ctx, plan); err != nil {
			return lockedContext(ctx, exitCode(err))
		}
	}
	changed, err := conn.Check(ctx, plan)
	if err != nil {
		return lockedContext(ctx, exitCode(err))
	}
	if len(changed) > 0 {
		msg := fmt.Sprintf("approved plan %s no longer matches the graph (%d of its %d nodes changed since the review); nothing was split: %s",
			s.planFile, len(changed), len(plan.Nodes), changes(changed))
		if sum.Resumed {
			msg = fmt.Sprintf("approved plan %s no longer matches the graph (%d of its %d nodes changed); nothing more was split (nodes split by the earlier run of run id %s stay split: fondue-neo4j undo --run-id %s): %s",
				s.planFile, len(changed), len(plan.Nodes), plan.RunID, plan.RunID, changes(changed))
		}
		return withCode(exitUsage, errors.New(msg))
	}
	if dryRun {
		sum.Plan = plan
		return a.printJSON(sum)
	}
	if !sum.Resumed {
		if plan, err = conn.StorePlan(ctx, plan); err != nil {
			return lockedContext(ctx, exitCode(err))
		}
	}
	if err := a.runSplit(ctx, conn, plan, sum); err != nil {
		return lockedContext(ctx, err)
	}
	return a.report(sum, s)
}

// changes lists changed nodes for one line: "node 11 (Valjean): added
// neighbour 77; removed 26 (Cosette); node 48 ...", the first few.
func changes(nodes []connector.NodeOutcome) string {
	const most = 5
	var parts []string
	for _, n := range nodes[:min(len(nodes), most)] {
		parts = append(parts, nodeName(n)+": "+n.Reason)
	}
	s := strings.Join(parts, "; ")
	if len(nodes) > most {
		s += fmt.Sprintf("; and %d more nodes", len(nodes)-most)
	}
	return s
}

func nodeName(n connector.NodeOutcome) string {
	k := review.KeyString(n.Key)
	if n.Name != "" && n.Name != k {
		return fmt.Sprintf("node %s (%s)", k, n.Name)
	}
	return "node " + k
}
