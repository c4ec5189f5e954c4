package main

import (
	"context"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/neo4jcsv"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/filesource"
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

// readKG reads the import files (filesource), and nameProperty's values
// ("": none); a bad file is a usage error (exit code 2) that says
// file:line: what is wrong.
func (a *app) readKG(ctx context.Context, nameProperty string) (*neo4jcsv.Graph, error) {
	in := a.cfg.Input
	src := &filesource.Source{Nodes: in.Nodes, Relationships: in.Relationships, Log: a.log}
	kg, err := src.ReadKG(ctx, in.ScoreLabels, a.cfg.Graph.EvidenceProperties, nameProperty)
	return kg, exitCode(err)
}

// kgNames are the display names of a knowledge graph's nodes (display[i]:
// node i's name or title property), with a names file's (nm) winning.
func kgNames(g *graph.Graph, display []string, nm names.Names) names.Names {
	out := names.Names{}
	for i, n := range display {
		if n != "" {
			out[g.Key(i)] = n
		}
	}
	for k, v := range nm {
		out[k] = v
	}
	return out
}
