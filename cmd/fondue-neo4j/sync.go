package main

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/dedup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/output"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/spf13/cobra"
)

func newSyncCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Score a Neo4j subgraph, write the ambiguity back, optionally split nodes",
		Long: `sync pulls a subgraph from Neo4j (nodes by label, relationships by type, or two
Cypher queries), scores every node with the same engine and flags as "score", and
writes each node's ambiguity (percentile in (0, 1]), raw score, estimated number of
entities and run id back as properties, in batches. With --split it then splits the most ambiguous nodes: one
new node per extra group of neighbours, relationships moved, all undoable with
"fondue-neo4j undo --run-id ID". A lock in the database keeps two runs from writing
at once. A sync --split given no run id first finishes a run of the same selection
that stopped mid-split (killed, Neo4j lost) under that run's id, and says so
(--unfinished resume; undo undoes it first, fail refuses to run).

With --merge --plan FILE it merges the accepted pairs of a merge plan (made by
"sync --duplicates --dry-run", decided on the review page or with "plan
accept|reject"): each merged node leaves the graph, its relationships move to
the survivor; "undo --run-id ID" restores both (docs/merge.md).

With --split --plan FILE it applies an approved plan (exported by the page of
"review --plan", made from "sync --split --dry-run") instead of scoring: only
the accepted nodes, with the groups as approved, each after checking that its
neighbours are still the ones reviewed; a plan the graph no longer matches is
refused before anything is written, naming what changed (exit code 2).

With --duplicates it finds instead the --write-node-labels nodes that may be
one entity (as "duplicates" does on files: names from --name-property) and
writes each pair at least --min-probability likely as a relationship of type
FONDUE_DUPLICATE (--duplicates-type) with score, probability, reasons and the
run id, replacing the earlier runs' ones (docs/duplicates.md).

Configuration: --config FILE (default ./fondue.yaml), FONDUE_* environment
variables, flags; flag > environment > file > default. The password comes from
FONDUE_NEO4J_PASSWORD or neo4j.password_file, never from a flag.

Knowledge graphs: --write-node-labels Author (with --node-labels Author,Paper)
scores, writes and splits only the authors; the papers are context: pulled,
they shape the embedding and the neighbourhoods, but get nothing written.

Exit codes: 0 ok, 1 error, 2 bad configuration, 3 authentication failed,
4 Neo4j unreachable, 5 nothing to score, 6 another run holds the lock,
7 not enough memory, 130 interrupted.`,
		Example: `  FONDUE_NEO4J_PASSWORD=secret fondue-neo4j sync --config config.example.yaml
  fondue-neo4j sync --uri bolt://localhost:7687 --node-labels Author --relationship-types COAUTHOR --output json
  fondue-neo4j sync --split --split-top 10 --dry-run --display-property name --output json > dry-run.json
  fondue-neo4j sync --split --plan fondue-approved-plan.json
  fondue-neo4j sync --duplicates --node-labels Author,Paper,Venue --write-node-labels Author --name-property name --evidence-properties title,year
  fondue-neo4j sync --merge --plan merge-plan.json --output json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withMetrics(cmd.Context(), "sync", func() error { return a.sync(cmd.Context(), a.cfg.DryRun) })
		},
	}
	cli.AddFlags(cmd, config.CmdSync)
	useSplitFlag(cmd.Flags())
	return cmd
}

// syncSummary is the summary sync prints (--output json).
type syncSummary = syncjob.Summary

// syncSettings is the validated configuration of a sync.
type syncSettings struct {
	conn     connector.Config
	pull     syncjob.PullOptions
	write    syncjob.WriteOptions
	engine   fondue.Options
	split    bool
	skip     []string
	lock     syncjob.LockOptions
	runID    string
	json     bool
	splitter string
	// checkpoint is a warm-start file (embedding.checkpoint); the warm
	// start from node properties is pull.EmbeddingProperty.
	checkpoint string
	// full scores and writes every node (embedding.full): the checkpoint
	// is then a warm start only.
	full bool
	// planFile is an approved plan to apply (split.plan).
	planFile string
	cloneKey string // split.clone_key
	// duplicates finds duplicates instead of scoring (duplicates.enabled).
	duplicates *syncjob.DuplicateOptions
	merge      bool // merge.enabled: planFile is a merge plan
	// unfinished is what a run with no run id does with an unfinished one
	// (split.unfinished).
	unfinished syncjob.Unfinished
}

func (a *app) syncSettings() (*syncSettings, error) {
	c := a.cfg
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
	s.pull = syncjob.PullOptions{
		NodeLabels:         c.Graph.NodeLabels,
		RelationshipTypes:  c.Graph.RelationshipTypes,
		NodeQuery:          strings.TrimSpace(c.Graph.NodeQuery),
		RelationshipQuery:  strings.TrimSpace(c.Graph.RelationshipQuery),
		IDProperty:         c.Graph.IDProperty,
		DisplayProperties:  c.Graph.DisplayProperty,
		EvidenceProperties: c.Graph.EvidenceProperties,
		MarkerLabel:        c.Split.MarkerLabel,
		WriteNodeLabels:    c.Write.NodeLabels,
	}
	if err := checkSelection(s.pull); err != nil {
		return nil, err
	}
	// The relationships sync --duplicates writes are never pulled.
	if strings.TrimSpace(c.Duplicates.RelationshipType) == "" {
		return nil, usageErrorf("duplicates.relationship_type must not be empty")
	}
	s.pull.ExcludeTypes = []string{c.Duplicates.RelationshipType}
	s.checkpoint = c.Engine.Embedding.Checkpoint
	s.full = c.Engine.Embedding.Full
	if score.UsesEmbedding(s.engine.Method) {
		s.pull.EmbeddingProperty = c.Engine.Embedding.Property
	}
	s.write = syncjob.WriteOptions{
		Property:          c.Write.Property,
		ScoreProperty:     c.Write.ScoreProperty,
		EntitiesProperty:  c.Write.EntitiesProperty,
		RunProperty:       c.Write.RunProperty,
		RunID:             s.runID,
		BatchSize:         c.Write.BatchSize,
		Concurrency:       c.Write.Concurrency,
		EmbeddingProperty: s.pull.EmbeddingProperty,
	}
	if s.write.Property == "" {
		return nil, usageErrorf("write.property must not be empty")
	}
	props := []string{s.write.Property, s.write.ScoreProperty, s.write.EntitiesProperty, s.write.RunProperty, s.write.EmbeddingProperty}
	for k, p := range props {
		if p != "" && slices.Contains(props[:k], p) {
			return nil, usageErrorf("write.property, write.score_property, write.entities_property, write.run_property and embedding.property must differ (%q twice)", p)
		}
	}
	s.lock = syncjob.LockOptions{Name: c.Lock.Name, TTL: c.Lock.TTL, RunID: s.runID}
	s.split = c.Split.Enabled
	s.skip = append(slices.Clone(c.Split.SkipProperties), props...)
	s.planFile = c.Split.Plan
	s.cloneKey = c.Split.CloneKey
	s.merge = c.Merge.Enabled
	if c.Duplicates.Enabled {
		if err := s.duplicateOptions(c); err != nil {
			return nil, err
		}
	}
	s.unfinished = syncjob.Unfinished(c.Split.Unfinished)
	if err := s.checkSplit(); err != nil {
		return nil, err
	}
	return s, nil
}

// checkSelection checks the graph.* and write.node_labels settings
// together, as the connector would after connecting (each name alone is
// checked when the configuration is read).
func checkSelection(o syncjob.PullOptions) error {
	switch {
	case o.Custom() && (o.NodeQuery == "" || o.RelationshipQuery == ""):
		return usageErrorf("graph.node_query and graph.relationship_query go together: set both or neither")
	case o.Custom() && (len(o.NodeLabels) > 0 || len(o.RelationshipTypes) > 0):
		return usageErrorf("graph.node_query and graph.relationship_query replace graph.node_labels and graph.relationship_types: set one or the other")
	}
	for k, e := range o.EvidenceProperties {
		if slices.Contains(o.EvidenceProperties[:k], e) {
			return usageErrorf("graph.evidence_properties: %q is named twice", e)
		}
	}
	for _, l := range o.WriteNodeLabels {
		if len(o.NodeLabels) > 0 && !slices.Contains(o.NodeLabels, l) {
			return usageErrorf("write.node_labels: label %q is not one of graph.node_labels (%s): only the nodes pulled can be scored; add it there, or write labels of the subgraph",
				l, strings.Join(o.NodeLabels, ", "))
		}
	}
	return nil
}

// duplicateOptions are sync --duplicates' (duplicates.*): instead of
// scoring, and never with a split.
func (s *syncSettings) duplicateOptions(c *config.Config) error {
	switch {
	case s.split || s.merge || s.planFile != "":
		return usageErrorf("duplicates.enabled (--duplicates) finds duplicates instead of scoring: it cannot split or merge (--split, --merge, --plan) in the same run")
	case strings.TrimSpace(c.Duplicates.NameProperty) == "":
		return usageErrorf("duplicates.name_property (--name-property) is empty: give the node property holding the names (e.g. name)")
	case slices.Contains(c.Graph.RelationshipTypes, c.Duplicates.RelationshipType):
		return usageErrorf("duplicates.relationship_type: %q is one of graph.relationship_types: the relationships a run writes are never pulled", c.Duplicates.RelationshipType)
	}
	minP := c.Duplicates.MinProbability
	if minP == 0 {
		minP = -1 // every pair: syncjob's 0 is its default
	}
	s.duplicates = &syncjob.DuplicateOptions{Type: c.Duplicates.RelationshipType, NameProperty: c.Duplicates.NameProperty,
		MinProbability: minP, Find: dedup.Options{Top: c.Duplicates.Top, Seed: int64(s.engine.Seed), Workers: s.engine.Workers}}
	return nil
}

// checkSplit checks the split settings: an approved plan to apply, or the
// splitter and the nodes to split.
func (s *syncSettings) checkSplit() error {
	switch {
	case s.merge && s.split:
		return usageErrorf("merge.enabled (--merge) and split.enabled (--split): one run merges or splits, not both")
	case s.merge && s.planFile == "":
		return usageErrorf("merge.enabled (--merge) needs the merge plan: --plan FILE (split.plan)")
	case s.merge:
		return nil
	case s.planFile != "" && !s.split:
		return usageErrorf("split.plan (--plan %s) applies an approved plan: it needs split.enabled (--split)", s.planFile)
	case s.planFile != "" && s.pull.Custom():
		return usageErrorf("split.plan: an approved plan is applied to a subgraph of graph.node_labels and graph.relationship_types, not to a Cypher projection (graph.node_query): its nodes' neighbours cannot be checked inside each split")
	case s.planFile != "":
		return nil // the plan chooses the nodes and their groups
	}
	if s.split {
		s.splitter = s.engine.Split.Splitter.Name()
		if s.engine.Split.Top == 0 && s.engine.Split.MinAmbiguity == 0 {
			return usageErrorf("split.enabled needs split.top or split.min_ambiguity to choose the nodes to split")
		}
	} else {
		s.engine.Split = fondue.SplitOptions{} // score only
	}
	return nil
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
		"entitiesProperty":   s.write.EntitiesProperty,
		"runProperty":        s.write.RunProperty,
		"readConcurrency":    s.conn.ReadConcurrency,
		"batchSize":          s.write.BatchSize,
		"writeConcurrency":   s.write.Concurrency,
		"concurrency":        s.engine.Workers,
		"method":             s.engine.Method,
		"randomSeed":         s.engine.Seed,
		"embeddingDimension": s.engine.CNE.Dim,
		"maxIterations":      s.engine.CNE.MaxEpochs,
		"split":              s.split,
		"full":               s.full,
	}
	if s.pull.NodeQuery != "" {
		c["nodeQuery"], c["relationshipQuery"] = s.pull.NodeQuery, s.pull.RelationshipQuery
	}
	if len(s.pull.WriteNodeLabels) > 0 {
		c["writeNodeLabels"] = s.pull.WriteNodeLabels
	}
	if len(s.pull.EvidenceProperties) > 0 {
		c["evidenceProperties"] = s.pull.EvidenceProperties
	}
	if d := s.duplicates; d != nil {
		c["duplicates"] = true
		c["duplicatesRelationshipType"] = d.Type
		c["duplicatesNameProperty"] = d.NameProperty
		c["duplicatesTop"] = d.Find.Top
		c["duplicatesMinProbability"] = max(d.MinProbability, 0)
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
	if s.merge {
		return a.mergeApproved(ctx, s, dryRun)
	}
	if s.planFile != "" {
		return a.applyApproved(ctx, s, dryRun)
	}
	conn, err := connector.Open(ctx, s.conn)
	if err != nil {
		return exitCode(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	a.log.Debug("connected", "phase", "connect", "neo4j", conn.Version())
	pr := newProgress(a)
	defer pr.finish()
	pull := s.pull
	pull.Progress = func(nodes, relationships int) {
		pr.report(fondue.Progress{Phase: phasePull, Done: nodes + relationships}) // rows read; the total is unknown
	}
	var est memory.Estimate
	guard, err := a.memoryGuard(&est)
	if err != nil {
		return err
	}
	var full string // why the run is full, when the engine is not asked
	ahead := readStateAhead(s.checkpoint, s.engine.Method)
	sum, err := syncjob.Sync(ctx, conn, syncjob.Options{
		RunID: s.runID, Pull: pull, Write: s.write, Lock: s.lock, Score: s.engine,
		Split: s.split, SkipProperties: s.skip, DryRun: dryRun, CloneKey: s.cloneKey, Unfinished: s.unfinished, Memory: guard, Duplicates: s.duplicates,
		// With a state file, nights are incremental: only what changed
		// is written (--full: everything).
		OnlyChanged: s.checkpoint != "", Full: s.full,
		Prepare: func(sg *syncjob.Subgraph, opts *fondue.Options) error {
			// The state file: an incremental run, or with --full a warm
			// start; without one, syncjob warm-starts from the vectors
			// saved in node properties.
			var err error
			full, err = a.loadCheckpoint(s.checkpoint, sg.Graph, opts, ahead)
			return err
		},
		Scored: func(sg *syncjob.Subgraph, res *fondue.Result, opts fondue.Options, sum *syncjob.Summary) error {
			pr.finish()
			if sum.Incremental == nil && full != "" {
				sum.Incremental = &syncjob.Incremental{Mode: syncjob.ModeFull, Reason: full}
				a.log.Info("a full run", "phase", "compute", "reason", full)
			}
			a.logSummary(sg.Graph, res, time.Duration(sum.PreProcessingMillis)*time.Millisecond, est)
			return nil
		},
		Written: func(sg *syncjob.Subgraph, res *fondue.Result, opts fondue.Options, sum *syncjob.Summary) error {
			// The state for the next run describes what the database
			// holds: saved once the write succeeded, never in a dry run.
			return a.saveCheckpoint(s.checkpoint, sg.Graph, res, opts)
		},
		Progress: pr.report,
		Log:      a.log,
	})
	pr.finish()
	a.ran.Sync = sum
	if sum != nil {
		s.runID = sum.RunID // a new one, or the unfinished run's it resumed
		sum.Configuration, sum.Neo4jVersion = s.configuration(), conn.Version()
	}
	switch {
	case err != nil && !errors.Is(err, syncjob.ErrIncomplete):
		return exitCode(err)
	case dryRun:
		return a.printJSON(sum)
	}
	if rerr := a.report(sum, s); rerr != nil {
		return rerr
	}
	return err
}

// report prints the summary: JSON on stdout with --output json, otherwise
// a few lines on a terminal or one log record.
func (a *app) report(sum *syncSummary, s *syncSettings) error {
	switch {
	case s.json:
		return a.printJSON(sum)
	case a.tty:
		output.SyncText(a.stderr, sum)
	default:
		a.log.Info("sync done", output.SyncAttrs(sum)...)
	}
	return nil
}
