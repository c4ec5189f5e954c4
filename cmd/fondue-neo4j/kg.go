package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/neo4jcsv"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/spf13/cobra"
)

// usesKG reports whether score or review reads a knowledge graph from
// Neo4j's bulk-import CSV files (--nodes, --relationships) instead of an
// edge list.
func (a *app) usesKG() bool {
	return len(a.cfg.Input.Nodes) > 0 || len(a.cfg.Input.Relationships) > 0
}

// checkInput checks that score or review got one source: an edge list
// (args, what the command wants as its one argument) or the import files.
func (a *app) checkInput(cmd *cobra.Command, args []string, what string) error {
	in := a.cfg.Input
	if !a.usesKG() {
		if len(in.ScoreLabels) > 0 {
			return usageErrorf("--score-labels chooses nodes of --nodes files by label; an edge list has no labels (use --score-prefix or --score-nodes)")
		}
		if len(a.cfg.Graph.EvidenceProperties) > 0 {
			a.log.Warn("an edge list has no node properties: --evidence-properties is ignored (give the graph with --nodes and --relationships)")
		}
		return exactArgs(1, what)(cmd, args)
	}
	switch {
	case len(args) > 0:
		return usageErrorf("give an edge list (%s) or --nodes and --relationships files, not both", args[0])
	case len(in.Nodes) == 0:
		return usageErrorf("--relationships needs the node files too: --nodes FILE (repeat for each file)")
	case in.ScorePrefix != "" || in.ScoreNodes != "":
		return usageErrorf("--score-prefix and --score-nodes choose nodes of an edge list; with --nodes, choose them by label: --score-labels LABEL")
	}
	return nil
}

// readKG reads the import files, and nameProperty's values ("": none); a
// bad file is a usage error (exit code 2) that says file:line: what is
// wrong.
func (a *app) readKG(ctx context.Context, nameProperty string) (*neo4jcsv.Graph, error) {
	in := a.cfg.Input
	t0 := time.Now()
	kg, err := neo4jcsv.Read(ctx, neo4jcsv.Options{Nodes: in.Nodes, Relationships: in.Relationships,
		ScoreLabels: in.ScoreLabels, EvidenceProperties: a.cfg.Graph.EvidenceProperties, NameProperty: nameProperty})
	var pe *neo4jcsv.ParseError
	switch {
	case errors.As(err, &pe):
		return nil, withCode(exitUsage, err)
	case err != nil:
		return nil, err
	}
	g := kg.Graph
	a.log.Debug("read import files", "nodes", g.NumNodes(), "edges", g.NumEdges(), "self_loops", g.SelfLoops(),
		"duplicates", g.Duplicates(), "kinds", strings.Join(kg.Context.Kinds, ","), "seconds", round3(time.Since(t0).Seconds()))
	return kg, nil
}

// kgNames are the display names of a knowledge graph's nodes (their name
// or title property), with a names file's (nm) winning.
func kgNames(kg *neo4jcsv.Graph, nm names.Names) names.Names {
	out := names.Names{}
	for i, n := range kg.Names {
		if n != "" {
			out[kg.Graph.Key(i)] = n
		}
	}
	for k, v := range nm {
		out[k] = v
	}
	return out
}

// scoreKG reads the import files and scores them as scoreFile scores an
// edge list: the nodes with a --score-labels label are the targets, the
// labels and --evidence-properties the context.
func (a *app) scoreKG(ctx context.Context, opts fondue.Options, top int) (*neo4jcsv.Graph, *fondue.Result, error) {
	t0 := time.Now()
	kg, err := a.readKG(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	loadTime := time.Since(t0)
	g := kg.Graph
	files := "the --nodes and --relationships files"
	if g.NumEdges() == 0 {
		return nil, nil, withCode(exitEmpty, fmt.Errorf("nothing to score: %s hold no relationship between two nodes", files))
	}
	if kg.Targets != nil {
		if selected, linked := fondue.CountTargets(g, kg.Targets); linked == 0 {
			return nil, nil, withCode(exitEmpty, fmt.Errorf("nothing to score: none of the %d nodes labelled %s has a relationship",
				selected, strings.Join(a.cfg.Input.ScoreLabels, " or ")))
		}
	}
	opts.Targets, opts.Context = kg.Targets, kg.Context
	res, err := a.scoreGraph(ctx, g, files, opts, top, loadTime)
	if err != nil {
		return nil, nil, err
	}
	return kg, res, nil
}
