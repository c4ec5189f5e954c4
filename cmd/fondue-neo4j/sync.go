package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/fondue-neo4j/fondue-neo4j/internal/cli"
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
at once.

With --split --plan FILE it applies an approved plan (exported by the page of
"review --plan", made from "sync --split --dry-run") instead of scoring: only
the accepted nodes, with the groups as approved, each after checking that its
neighbours are still the ones reviewed; a plan the graph no longer matches is
refused before anything is written, naming what changed (exit code 2).

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
  fondue-neo4j sync --split --plan fondue-approved-plan.json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.sync(cmd.Context(), a.v.GetBool("dry_run"))
		},
	}
	f := cmd.Flags()
	addNeo4jFlags(f)
	cli.NamesFlag(f, "node-labels", "score nodes with any of these labels, comma-separated, each literal (default: all nodes)")
	cli.NamesFlag(f, "relationship-types", "use relationships of these types, comma-separated, each literal (default: all)")
	f.String("node-query", "", "Cypher returning the nodes' internal ids as column id (instead of --node-labels)")
	f.String("relationship-query", "", "Cypher returning pairs of internal ids as columns source, target")
	f.String("id-property", "", "node key property (integers or strings); default: internal ids")
	cli.NamesFlag(f, "display-property", "node properties naming nodes for people, the first a node has, comma-separated, each literal (e.g. name,title): in the dry run's plan, the summary and messages")
	f.String("embedding-property", "", "keep each node's embedding in this property and warm-start the next run from it")
	f.Int("fetch-size", 10000, "records per batch when reading")
	cli.NamesFlag(f, "write-node-labels", "score and write only the pulled nodes with any of these labels, comma-separated, each literal; the others are context (default: every pulled node)")
	f.String("write-property", syncjob.DefaultWriteProperty, "node property receiving the ambiguity (percentile in (0,1])")
	f.String("score-property", syncjob.DefaultScoreProperty, "node property receiving the raw score (empty: not written)")
	f.String("entities-property", syncjob.DefaultEntitiesProperty, "node property receiving the estimated number of entities (empty: not written)")
	f.String("run-property", syncjob.DefaultRunProperty, "node property receiving the run id (empty: not written)")
	f.Int("batch-size", syncjob.DefaultBatchSize, "nodes per write transaction")
	f.Int("write-concurrency", 1, "write transactions at once")
	f.String("run-id", "", "run id (default: the UTC time and a random suffix); re-running a run id resumes its splits")
	addSplitFlags(f, "split the most ambiguous nodes (see --split-top, --split-min-ambiguity)", "split the K most ambiguous nodes")
	cli.NamesFlag(f, "skip-properties", "properties not copied to split nodes (e.g. uniquely constrained ones), comma-separated")
	f.Bool("dry-run", false, "write nothing: print the split plan (or what would be written) as JSON")
	f.String("plan", "", "with --split: apply this approved plan (exported by the review page) instead of scoring")
	addScoreFlags(f)
	addMaxMemoryFlag(f)
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
	s.pull = syncjob.PullOptions{
		NodeLabels:        a.stringList("graph.node_labels"),
		RelationshipTypes: a.stringList("graph.relationship_types"),
		NodeQuery:         strings.TrimSpace(v.GetString("graph.node_query")),
		RelationshipQuery: strings.TrimSpace(v.GetString("graph.relationship_query")),
		IDProperty:        v.GetString("graph.id_property"),
		DisplayProperties: a.stringList("graph.display_property"),
		MarkerLabel:       v.GetString("split.marker_label"),
		WriteNodeLabels:   a.stringList("write.node_labels"),
	}
	s.checkpoint = v.GetString("embedding.checkpoint")
	if score.UsesEmbedding(s.engine.Method) {
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
	s.write = syncjob.WriteOptions{
		Property:          v.GetString("write.property"),
		ScoreProperty:     v.GetString("write.score_property"),
		EntitiesProperty:  v.GetString("write.entities_property"),
		RunProperty:       v.GetString("write.run_property"),
		RunID:             s.runID,
		BatchSize:         bs,
		Concurrency:       wc,
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
	ttl, err := a.duration("lock.ttl")
	if err != nil {
		return nil, err
	}
	s.lock = syncjob.LockOptions{Name: v.GetString("lock.name"), TTL: ttl, RunID: s.runID}
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
		if s.splitter == split.FONDUE && !score.UsesEmbedding(s.engine.Method) {
			return nil, usageErrorf("splitter %q needs method %q", split.FONDUE, score.MethodFONDUE)
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
		"entitiesProperty":   s.write.EntitiesProperty,
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
	if len(s.pull.WriteNodeLabels) > 0 {
		c["writeNodeLabels"] = s.pull.WriteNodeLabels
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
	conn, err := connector.Open(ctx, s.conn)
	if err != nil {
		return exitCode(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	a.log.Debug("connected", "run_id", s.runID, "phase", "connect", "neo4j", conn.Version())
	pr := newProgress(a)
	defer pr.finish()
	pull := s.pull
	pull.Progress = func(nodes, relationships int) {
		pr.report(fondue.Progress{Phase: phasePull, Done: nodes + relationships}) // rows read; the total is unknown
	}
	var est memory.Estimate
	sum, err := syncjob.Sync(ctx, conn, syncjob.Options{
		RunID: s.runID, Pull: pull, Write: s.write, Lock: s.lock, Score: s.engine,
		Split: s.split, SkipProperties: s.skip, DryRun: dryRun,
		Prepare: func(sg *syncjob.Subgraph, opts *fondue.Options) error {
			// The counts are known: refuse a graph that would not fit
			// before the heavy work starts.
			g := sg.Graph
			est = memory.Predict(int64(g.NumNodes()), int64(g.NumEdges()), memory.Options{
				Dim: s.engine.CNE.Dim, Workers: s.engine.Workers, StringKeys: !g.IntKeys(),
				KeepState: s.checkpoint != "", ExactMaxNode: s.engine.CNE.ExactMaxNodes,
				NegRatio: s.engine.CNE.NegRatio, MaxDegree: int64(g.MaxDegree()), Split: s.split})
			if err := a.checkMemory(est); err != nil {
				return err
			}
			// Warm start from the checkpoint file (vectors and optimizer
			// state); without one, syncjob uses the vectors saved in node
			// properties.
			return a.loadCheckpoint(s.checkpoint, opts)
		},
		Scored: func(sg *syncjob.Subgraph, res *fondue.Result, opts fondue.Options, sum *syncjob.Summary) error {
			pr.finish()
			a.logSummary(sg.Graph, res, time.Duration(sum.PreProcessingMillis)*time.Millisecond, est)
			return a.saveCheckpoint(s.checkpoint, sg.Graph, res, opts)
		},
		Progress: pr.report,
		Log:      a.log,
	})
	pr.finish()
	if sum != nil {
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
		if ap := sum.ApprovedPlan; ap != nil {
			printf(a.stderr, "run %s: approved plan %s (reviewed %s)\n", sum.RunID, ap.File, ap.ReviewedAt)
		} else {
			printf(a.stderr, "run %s: %d nodes, %d relationships; %d properties written (pull %s, compute %s, write %s)\n",
				sum.RunID, sum.NodeCount, sum.RelationshipCount, sum.NodePropertiesWritten,
				ms(sum.PreProcessingMillis), ms(sum.ComputeMillis), ms(sum.WriteMillis))
		}
		printScored(a.stderr, sum)
		if sp := sum.Split; sp != nil {
			printf(a.stderr, "split: %d of %d planned nodes split (%d already, %d skipped, %d failed), %d nodes created, %d relationships moved; undo: fondue-neo4j undo --run-id %s\n",
				sp.Split, sp.Planned, sp.AlreadyDone, sp.Skipped, sp.Failed, sp.NodesCreated, sp.RelationshipsMoved, sum.RunID)
		}
	default:
		attrs := []any{"run_id", sum.RunID, "nodeCount", sum.NodeCount, "relationshipCount", sum.RelationshipCount,
			"nodePropertiesWritten", sum.NodePropertiesWritten, "preProcessingMillis", sum.PreProcessingMillis,
			"computeMillis", sum.ComputeMillis, "writeMillis", sum.WriteMillis}
		if sc := sum.Scored; sc != nil {
			attrs = append(attrs, "scoredNodes", sc.Nodes, "unscoredNodes", sum.UnscoredNodes)
			if sc.Labels != nil {
				attrs = append(attrs, "scoredByLabel", scoredByLabel(sc))
			}
			if sc.Context > 0 {
				attrs = append(attrs, "contextNodes", sc.Context, "contextByLabel", contextByLabel(sc))
			}
			var top []string
			for _, n := range sc.Top[:min(len(sc.Top), terminalTop)] {
				top = append(top, syncjob.DescribeNode(n.Key, n.Name))
			}
			attrs = append(attrs, "mostAmbiguous", top)
		}
		if sp := sum.Split; sp != nil {
			attrs = append(attrs, "splitMillis", sum.SplitMillis, "split", sp.Split, "nodesCreated", sp.NodesCreated)
		}
		if ap := sum.ApprovedPlan; ap != nil {
			attrs = append(attrs, "approvedPlan", ap.File, "approvedFingerprint", ap.Fingerprint)
		}
		a.log.Info("sync done", attrs...)
	}
	return nil
}

// terminalTop is how many of the summary's most ambiguous nodes the
// terminal summary and the log record show.
const terminalTop = 5

// scoredByLabel is the number of scored nodes of each label.
func scoredByLabel(sc *syncjob.Scored) map[string]int {
	m := make(map[string]int, len(sc.Labels))
	for l, c := range sc.Labels {
		m[l] = c.Scored
	}
	return m
}

// contextByLabel is the number of context nodes of each label that has
// some.
func contextByLabel(sc *syncjob.Scored) map[string]int {
	m := map[string]int{}
	for l, c := range sc.Labels {
		if c.Context > 0 {
			m[l] = c.Context
		}
	}
	return m
}

// labelParts lists counts per label, most first: "77 Character, 12 Paris"
// (labels counting none left out).
func labelParts(sc *syncjob.Scored, count func(syncjob.LabelCount) int) string {
	labels := slices.Collect(maps.Keys(sc.Labels))
	slices.SortFunc(labels, func(a, b string) int {
		if c := cmp.Compare(count(sc.Labels[b]), count(sc.Labels[a])); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, l := range labels {
		if n := count(sc.Labels[l]); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, l))
		}
	}
	return strings.Join(parts, ", ")
}

// printScored prints what a run scored, for people: the scored nodes per
// label (most first), the context nodes (write.node_labels), then the
// most ambiguous nodes, one a line:
//
//	scored 77 nodes: 77 Character, 12 Paris; 3 isolated nodes not scored; 120 context nodes: 120 Place
//	most ambiguous (ambiguity, score, node, labels):
//	  1.0000  0.974026  11 (Valjean)  :Character
func printScored(w io.Writer, sum *syncSummary) {
	sc := sum.Scored
	if sc == nil {
		return
	}
	line := fmt.Sprintf("scored %d nodes", sc.Nodes)
	if parts := labelParts(sc, func(c syncjob.LabelCount) int { return c.Scored }); parts != "" {
		line += ": " + parts
	}
	if sum.UnscoredNodes > 0 {
		line += fmt.Sprintf("; %d isolated nodes not scored", sum.UnscoredNodes)
	}
	if sc.Context > 0 {
		line += fmt.Sprintf("; %d context nodes", sc.Context)
		if parts := labelParts(sc, func(c syncjob.LabelCount) int { return c.Context }); parts != "" {
			line += ": " + parts
		}
	}
	printf(w, "%s\n", line)
	if len(sc.Top) == 0 {
		return
	}
	printf(w, "most ambiguous (ambiguity, score, node, labels):\n")
	for _, n := range sc.Top[:min(len(sc.Top), terminalTop)] {
		labels := ""
		if len(n.Labels) > 0 {
			labels = "  :" + strings.Join(n.Labels, ":")
		}
		printf(w, "  %.4f  %.6g  %s%s\n", n.Ambiguity, n.Score, syncjob.DescribeNode(n.Key, n.Name), labels)
	}
}

func ms(m int64) string {
	return (time.Duration(m) * time.Millisecond).Round(time.Millisecond).String()
}
