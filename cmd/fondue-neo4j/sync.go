package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/spf13/cobra"
)

func newSyncCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Score a Neo4j subgraph, write the ambiguity back, optionally split nodes",
		Long: `sync pulls a subgraph from Neo4j (nodes by label, relationships by type, or two
Cypher queries), scores every node with the same engine and flags as "score", and
writes each node's ambiguity (percentile in (0, 1]), raw score and run id back as
properties, in batches. With --split it then splits the most ambiguous nodes: one
new node per extra group of neighbours, relationships moved, all undoable with
"fondue-neo4j undo --run-id ID". A lock in the database keeps two runs from writing
at once.

With --split --plan FILE it applies an approved plan (exported by the page of
"review --plan", made from "sync --split --dry-run") instead of scoring: only
the accepted nodes, with the groups as approved, each after checking that its
neighbours are still the ones reviewed; a plan the graph no longer matches is
refused before anything is written, naming what changed (exit code 2).

Configuration: --config FILE (default ./fondue.yaml), FONDUE_* environment
variables, flags; flag > environment > file > default. The password comes from
FONDUE_NEO4J_PASSWORD or neo4j.password_file, never from a flag.

Exit codes: 0 ok, 1 error, 2 bad configuration, 3 authentication failed,
4 Neo4j unreachable, 5 nothing to score, 6 another run holds the lock,
7 not enough memory, 130 interrupted.`,
		Example: `  FONDUE_NEO4J_PASSWORD=secret fondue-neo4j sync --config config.example.yaml
  fondue-neo4j sync --uri bolt://localhost:7687 --node-labels Author --relationship-types COAUTHOR --output json
  fondue-neo4j sync --split --split-top 10 --dry-run --display-property name --output json > dry-run.json
  fondue-neo4j sync --split --plan fondue-approved-plan.json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.sync(cmd.Context(), a.v.GetBool("dry_run"))
		},
	}
	f := cmd.Flags()
	addNeo4jFlags(f)
	f.StringSlice("node-labels", nil, "score nodes with any of these labels (default: all nodes)")
	f.StringSlice("relationship-types", nil, "use relationships of these types (default: all)")
	f.String("node-query", "", "Cypher returning the nodes' internal ids as column id (instead of --node-labels)")
	f.String("relationship-query", "", "Cypher returning pairs of internal ids as columns source, target")
	f.String("id-property", "", "node key property (integers or strings); default: internal ids")
	f.String("display-property", "", "node property naming nodes for people (e.g. name): in the dry run's plan and its messages")
	f.String("embedding-property", "", "keep each node's embedding in this property and warm-start the next run from it")
	f.Int("fetch-size", 10000, "records per batch when reading")
	f.String("write-property", connector.DefaultWriteProperty, "node property receiving the ambiguity (percentile in (0,1])")
	f.String("score-property", connector.DefaultScoreProperty, "node property receiving the raw score (empty: not written)")
	f.String("run-property", connector.DefaultRunProperty, "node property receiving the run id (empty: not written)")
	f.Int("batch-size", connector.DefaultBatchSize, "nodes per write transaction")
	f.Int("write-concurrency", 1, "write transactions at once")
	f.String("run-id", "", "run id (default: the UTC time and a random suffix); re-running a run id resumes its splits")
	addSplitFlags(f, "split the most ambiguous nodes (see --split-top, --split-min-ambiguity)", "split the K most ambiguous nodes")
	f.StringSlice("skip-properties", nil, "properties not copied to split nodes (e.g. uniquely constrained ones)")
	f.Bool("dry-run", false, "write nothing: print the split plan (or what would be written) as JSON")
	f.String("plan", "", "with --split: apply this approved plan (exported by the review page) instead of scoring")
	addScoreFlags(f)
	return cmd
}

// syncSummary is the result of a sync in GDS write mode's vocabulary, plus
// the run id and the split's counts.
type syncSummary struct {
	RunID                 string                `json:"runId"`
	NodeCount             int                   `json:"nodeCount"`
	RelationshipCount     int                   `json:"relationshipCount"`
	NodePropertiesWritten int                   `json:"nodePropertiesWritten"`
	PreProcessingMillis   int64                 `json:"preProcessingMillis"`
	ComputeMillis         int64                 `json:"computeMillis"`
	WriteMillis           int64                 `json:"writeMillis"`
	SplitMillis           int64                 `json:"splitMillis"`
	UnscoredNodes         int                   `json:"unscoredNodes"`
	Epochs                int                   `json:"epochs"`                   // CNE epochs run
	WarmStartNodes        int                   `json:"warmStartNodes,omitempty"` // nodes that resumed a saved embedding
	NodesNotFound         int                   `json:"nodesNotFound"`
	NodesNotFoundKeys     []any                 `json:"nodesNotFoundKeys,omitempty"` // some of them (at most 100)
	Configuration         map[string]any        `json:"configuration"`
	Split                 *connector.SplitStats `json:"split,omitempty"`
	Resumed               bool                  `json:"resumed,omitempty"`
	DryRun                bool                  `json:"dryRun,omitempty"`
	Plan                  *connector.Plan       `json:"plan,omitempty"`
	// ApprovedPlan is the approved plan applied (sync --split --plan).
	ApprovedPlan *connector.ApprovedRef `json:"approvedPlan,omitempty"`
	Neo4jVersion string                 `json:"neo4jVersion"`
}

// syncSettings is the validated configuration of a sync.
type syncSettings struct {
	conn     connector.Config
	pull     connector.PullOptions
	write    connector.WriteOptions
	engine   fondue.Options
	split    bool
	skip     []string
	lock     connector.LockOptions
	runID    string
	json     bool
	splitter string
	// checkpoint is a warm-start file (embedding.checkpoint); the warm
	// start from node properties is pull.EmbeddingProperty.
	checkpoint string
	// planFile is an approved plan to apply (split.plan).
	planFile string
}

func (a *app) syncSettings() (*syncSettings, error) {
	v := a.v
	s := &syncSettings{}
	var err error
	if s.conn, err = a.neo4jConfig(); err != nil {
		return nil, err
	}
	if s.engine, err = a.scoreOptions(); err != nil {
		return nil, err
	}
	if s.runID, err = a.runID(); err != nil {
		return nil, err
	}
	if s.json, err = a.outputJSON(); err != nil {
		return nil, err
	}
	s.pull = connector.PullOptions{
		NodeLabels:        a.stringList("graph.node_labels"),
		RelationshipTypes: a.stringList("graph.relationship_types"),
		NodeQuery:         strings.TrimSpace(v.GetString("graph.node_query")),
		RelationshipQuery: strings.TrimSpace(v.GetString("graph.relationship_query")),
		IDProperty:        v.GetString("graph.id_property"),
		DisplayProperty:   v.GetString("graph.display_property"),
		MarkerLabel:       v.GetString("split.marker_label"),
	}
	s.checkpoint = v.GetString("embedding.checkpoint")
	if fondue.MethodUsesEmbedding(s.engine.Method) {
		s.pull.EmbeddingProperty = v.GetString("embedding.property")
	}
	bs, err := a.positiveInt("write.batch_size")
	if err != nil {
		return nil, err
	}
	wc, err := a.positiveInt("write.concurrency")
	if err != nil {
		return nil, err
	}
	s.write = connector.WriteOptions{
		Property:          v.GetString("write.property"),
		ScoreProperty:     v.GetString("write.score_property"),
		RunProperty:       v.GetString("write.run_property"),
		RunID:             s.runID,
		BatchSize:         bs,
		Concurrency:       wc,
		EmbeddingProperty: s.pull.EmbeddingProperty,
	}
	if s.write.Property == "" {
		return nil, usageErrorf("write.property must not be empty")
	}
	props := []string{s.write.Property, s.write.ScoreProperty, s.write.RunProperty, s.write.EmbeddingProperty}
	for k, p := range props {
		if p != "" && slices.Contains(props[:k], p) {
			return nil, usageErrorf("write.property, write.score_property, write.run_property and embedding.property must differ (%q twice)", p)
		}
	}
	ttl, err := a.duration("lock.ttl")
	if err != nil {
		return nil, err
	}
	s.lock = connector.LockOptions{Name: v.GetString("lock.name"), TTL: ttl, RunID: s.runID}
	s.split = v.GetBool("split.enabled")
	s.skip = append(a.stringList("split.skip_properties"), props...)
	s.planFile = v.GetString("split.plan")
	switch {
	case s.planFile != "" && !s.split:
		return nil, usageErrorf("split.plan (--plan %s) applies an approved plan: it needs split.enabled (--split)", s.planFile)
	case s.planFile != "" && s.pull.Custom():
		return nil, usageErrorf("split.plan: an approved plan is applied to a subgraph of graph.node_labels and graph.relationship_types, not to a Cypher projection (graph.node_query): its nodes' neighbours cannot be checked inside each split")
	case s.planFile != "":
		return s, nil // the plan chooses the nodes and their groups
	}
	if s.split {
		if s.engine.Split.Splitter == nil {
			s.engine.Split.Splitter = defaultSplitter()
		}
		s.splitter = s.engine.Split.Splitter.Name()
		if s.splitter == fondue.SplitFONDUE && !fondue.MethodUsesEmbedding(s.engine.Method) {
			return nil, usageErrorf("splitter %q needs method %q", fondue.SplitFONDUE, fondue.MethodFONDUE)
		}
		if s.engine.Split.Top == 0 && s.engine.Split.MinAmbiguity == 0 {
			return nil, usageErrorf("split.enabled needs split.top or split.min_ambiguity to choose the nodes to split")
		}
	} else {
		s.engine.Split = fondue.SplitOptions{} // score only
	}
	return s, nil
}

// configuration is the summary's "configuration" map (GDS names where GDS
// has them). It never holds the password.
func (s *syncSettings) configuration() map[string]any {
	star := func(xs []string) []string {
		if len(xs) == 0 && s.pull.NodeQuery == "" {
			return []string{"*"}
		}
		return xs
	}
	c := map[string]any{
		"jobId":              s.runID,
		"neo4jUri":           s.conn.URI,
		"user":               s.conn.User,
		"database":           s.conn.Database,
		"nodeLabels":         star(s.pull.NodeLabels),
		"relationshipTypes":  star(s.pull.RelationshipTypes),
		"idProperty":         s.pull.IDProperty,
		"writeProperty":      s.write.Property,
		"scoreProperty":      s.write.ScoreProperty,
		"runProperty":        s.write.RunProperty,
		"batchSize":          s.write.BatchSize,
		"writeConcurrency":   s.write.Concurrency,
		"concurrency":        s.engine.Workers,
		"method":             s.engine.Method,
		"randomSeed":         s.engine.Seed,
		"embeddingDimension": s.engine.CNE.Dim,
		"maxIterations":      s.engine.CNE.MaxEpochs,
		"split":              s.split,
	}
	if s.pull.NodeQuery != "" {
		c["nodeQuery"], c["relationshipQuery"] = s.pull.NodeQuery, s.pull.RelationshipQuery
	}
	if s.split {
		c["splitter"] = s.splitter
		c["splitTop"] = s.engine.Split.Top
		c["splitMinAmbiguity"] = s.engine.Split.MinAmbiguity
		c["markerLabel"] = s.pull.MarkerLabel
	}
	return c
}

func (a *app) sync(ctx context.Context, dryRun bool) error {
	s, err := a.syncSettings()
	if err != nil {
		return err
	}
	if s.planFile != "" {
		return a.applyApproved(ctx, s, dryRun)
	}
	log := a.log.With("run_id", s.runID)
	t0 := time.Now()
	conn, err := connector.Open(ctx, s.conn)
	if err != nil {
		return exitCode(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	sum := &syncSummary{RunID: s.runID, Configuration: s.configuration(), Neo4jVersion: conn.Version(), DryRun: dryRun}
	log.Debug("connected", "phase", "connect", "neo4j", conn.Version())

	if !dryRun {
		lockCtx, release, err := holdLock(ctx, conn, s.lock, log)
		if err != nil {
			return exitCode(err)
		}
		defer release()
		ctx = lockCtx
		if s.split {
			// A run id that already stored a split plan resumes it: the
			// graph is (partly) split, so it is not scored again.
			plan, err := conn.LoadPlan(ctx, s.runID)
			if err != nil {
				return lockedContext(ctx, exitCode(err))
			}
			if plan != nil {
				log.Info("resuming the split plan of this run id", "phase", "split", "nodes", len(plan.Nodes))
				sum.Resumed = true
				if err := a.runSplit(ctx, conn, plan, sum); err != nil {
					return lockedContext(ctx, err)
				}
				return a.report(sum, s)
			}
		}
	}

	sg, err := conn.Pull(ctx, s.pull)
	if err != nil {
		return lockedContext(ctx, exitCode(err))
	}
	g := sg.Graph
	sum.NodeCount, sum.RelationshipCount = g.NumNodes(), g.NumEdges()
	sum.PreProcessingMillis = millis(time.Since(t0))
	log.Info("pulled the subgraph", "phase", "pull", "nodes", g.NumNodes(), "relationships", g.NumEdges(),
		"rows", sg.Stats.RelationshipRows, "self_loops", sg.Stats.SelfLoops, "parallel", sg.Stats.Parallel,
		"dangling", sg.Stats.Dangling, "keyless_clones", sg.Stats.KeylessClones, "seconds", round3(sg.Stats.Duration.Seconds()))

	// The counts are known: refuse a graph that would not fit before the
	// heavy work starts.
	est := fondue.EstimateMemory(int64(g.NumNodes()), int64(g.NumEdges()), fondue.EstimateOptions{
		Dim: s.engine.CNE.Dim, Workers: s.engine.Workers, StringKeys: !g.IntKeys(),
		KeepState: s.checkpoint != "", ExactMaxNode: s.engine.CNE.ExactMaxNodes})
	if err := a.checkMemory(est); err != nil {
		return lockedContext(ctx, err)
	}

	opts := s.engine
	// Warm start: from the checkpoint file (vectors and optimizer state)
	// when there is one, else from the vectors saved in node properties.
	if err := a.loadCheckpoint(s.checkpoint, &opts); err != nil {
		return lockedContext(ctx, err)
	}
	if opts.WarmStart == nil && sg.Embeddings != nil {
		opts.WarmStart = vectorCheckpoint(g, sg.Embeddings, opts.CNE)
		log.Debug("saved embeddings read from node properties", "property", s.pull.EmbeddingProperty,
			"nodes", sg.Stats.Embeddings, "not_lists_of_numbers", sg.Stats.BadEmbeddings)
	}
	pr := newProgress(a)
	opts.Progress = pr.report
	t1 := time.Now()
	res, err := fondue.Score(ctx, g, opts)
	pr.finish()
	if err != nil {
		return lockedContext(ctx, err)
	}
	sum.ComputeMillis = millis(time.Since(t1))
	sum.UnscoredNodes = len(res.Unscored())
	if res.Warm != nil {
		sum.WarmStartNodes = res.Warm.Reused
	}
	sum.Epochs = res.CNE.Epochs
	a.logSummary(g, res, time.Duration(sum.PreProcessingMillis)*time.Millisecond)
	if err := a.saveCheckpoint(s.checkpoint, g, res, opts); err != nil {
		return lockedContext(ctx, err)
	}

	var plan *connector.Plan
	if s.split {
		var err error
		plan, err = connector.NewPlan(sg, res, connector.PlanOptions{RunID: s.runID, Splitter: s.splitter,
			MarkerLabel: s.pull.MarkerLabel, SkipProperties: s.skip})
		if err != nil {
			return exitCode(err)
		}
	}
	if dryRun {
		if plan != nil {
			if err := conn.Describe(ctx, plan); err != nil {
				return exitCode(err)
			}
			sum.Plan = plan
		}
		return a.printJSON(sum)
	}

	t2 := time.Now()
	wpr := newProgress(a)
	wo := s.write
	wo.Progress = func(done, total int) { wpr.report(fondue.Progress{Phase: "write", Done: done, Total: total}) }
	ws, err := conn.WriteScores(ctx, sg, res, wo)
	wpr.finish()
	if err != nil {
		return lockedContext(ctx, exitCode(err))
	}
	sum.NodePropertiesWritten = ws.PropertiesWritten
	sum.NodesNotFound, sum.NodesNotFoundKeys = ws.Missing, ws.MissingKeys
	sum.WriteMillis = millis(time.Since(t2))
	log.Info("wrote the scores", "phase", "write", "nodes", ws.Nodes, "properties", ws.PropertiesWritten,
		"batches", ws.Batches, "missing", ws.Missing, "seconds", round3(ws.Duration.Seconds()))

	if plan != nil {
		stored, err := conn.StorePlan(ctx, plan)
		if err != nil {
			return lockedContext(ctx, exitCode(err))
		}
		if err := a.runSplit(ctx, conn, stored, sum); err != nil {
			return lockedContext(ctx, err)
		}
	}
	return a.report(sum, s)
}

func (a *app) runSplit(ctx context.Context, conn *connector.Conn, plan *connector.Plan, sum *syncSummary) error {
	t0 := time.Now()
	pr := newProgress(a)
	st, err := conn.Split(ctx, plan, time.Now(), func(done, total int) {
		pr.report(fondue.Progress{Phase: "split", Done: done, Total: total})
	})
	pr.finish()
	sum.SplitMillis = millis(time.Since(t0))
	sum.Split = &st
	if err != nil {
		return exitCode(err)
	}
	a.log.Info("split", "run_id", plan.RunID, "phase", "split", "planned", st.Planned, "split", st.Split,
		"already_done", st.AlreadyDone, "skipped", st.Skipped, "failed", st.Failed,
		"nodes_created", st.NodesCreated, "relationships_moved", st.RelationshipsMoved)
	return nil
}

// report prints the summary: JSON on stdout with --output json, otherwise
// a few lines on a terminal or one log record. Failed splits make the run
// fail after the summary.
func (a *app) report(sum *syncSummary, s *syncSettings) error {
	switch {
	case s.json:
		if err := a.printJSON(sum); err != nil {
			return err
		}
	case a.tty:
		if ap := sum.ApprovedPlan; ap != nil {
			printf(a.stderr, "run %s: approved plan %s (reviewed %s)\n", sum.RunID, ap.File, ap.ReviewedAt)
		} else {
			printf(a.stderr, "run %s: %d nodes, %d relationships; %d properties written (pull %s, compute %s, write %s)\n",
				sum.RunID, sum.NodeCount, sum.RelationshipCount, sum.NodePropertiesWritten,
				ms(sum.PreProcessingMillis), ms(sum.ComputeMillis), ms(sum.WriteMillis))
		}
		if sp := sum.Split; sp != nil {
			printf(a.stderr, "split: %d of %d planned nodes split (%d already, %d skipped, %d failed), %d nodes created, %d relationships moved; undo: fondue-neo4j undo --run-id %s\n",
				sp.Split, sp.Planned, sp.AlreadyDone, sp.Skipped, sp.Failed, sp.NodesCreated, sp.RelationshipsMoved, sum.RunID)
		}
	default:
		attrs := []any{"run_id", sum.RunID, "nodeCount", sum.NodeCount, "relationshipCount", sum.RelationshipCount,
			"nodePropertiesWritten", sum.NodePropertiesWritten, "preProcessingMillis", sum.PreProcessingMillis,
			"computeMillis", sum.ComputeMillis, "writeMillis", sum.WriteMillis}
		if sp := sum.Split; sp != nil {
			attrs = append(attrs, "splitMillis", sum.SplitMillis, "split", sp.Split, "nodesCreated", sp.NodesCreated)
		}
		if ap := sum.ApprovedPlan; ap != nil {
			attrs = append(attrs, "approvedPlan", ap.File, "approvedFingerprint", ap.Fingerprint)
		}
		a.log.Info("sync done", attrs...)
	}
	// An approved plan is carried out whole: a node whose neighbours
	// changed after the whole-plan check was left alone, and the run fails.
	if sp := sum.Split; sp != nil && sum.ApprovedPlan != nil && sp.Skipped > 0 {
		var skipped []connector.NodeOutcome
		for _, n := range sp.Nodes {
			if n.Outcome == connector.OutcomeChanged || n.Outcome == connector.OutcomeMissing {
				skipped = append(skipped, n)
			}
		}
		return fmt.Errorf("%d of %d approved splits were not made: the graph changed after the check (the others were made; re-run to retry, or undo them: fondue-neo4j undo --run-id %s): %s",
			sp.Skipped, sp.Planned, sum.RunID, changes(skipped))
	}
	if sp := sum.Split; sp != nil && sp.Failed > 0 {
		for _, n := range sp.Nodes {
			if n.Outcome == connector.OutcomeFailed {
				return fmt.Errorf("%d of %d splits failed and were rolled back; first: node %v: %s", sp.Failed, sp.Planned, n.Key, n.Reason)
			}
		}
	}
	return nil
}

func ms(m int64) string {
	return (time.Duration(m) * time.Millisecond).Round(time.Millisecond).String()
}

// holdLock takes the run's lock. The returned context is cancelled if the
// lock is lost; release (to defer) gives the lock back, and only warns if
// it cannot: the lock then expires after lock.ttl.
func holdLock(ctx context.Context, conn *connector.Conn, o connector.LockOptions, log *slog.Logger) (context.Context, func(), error) {
	lock, err := conn.AcquireLock(ctx, o)
	if err != nil {
		return ctx, nil, err
	}
	release := func() {
		if err := lock.Release(ctx); err != nil {
			log.Warn("could not release the lock (it expires after lock.ttl)", "error", err.Error())
		}
	}
	return lock.Context(), release, nil
}
