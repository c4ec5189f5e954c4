package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/neo4jcsv"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/review"
	"github.com/spf13/cobra"
)

func newReviewCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "review [EDGELIST]",
		Short: "Write a review page: the most ambiguous nodes, their proposed splits, accept / reject / edit",
		Long: `review writes one self-contained HTML file (no server, no network: open it
from disk, attach it to a ticket) showing the K most ambiguous nodes, each with
its neighbours drawn around it, coloured by the group the splitter proposes,
and the links between them. A person accepts, rejects or edits each split
(click a neighbour to move it to the next group, or drag it onto a group) and
exports the decisions as an approved plan (JSON), for "sync --split --plan".

From an edge list, review scores the graph like "score" (same flags and
configuration, --score-prefix and --score-nodes included) and proposes splits
with --splitter; from Neo4j's bulk-import files the same way, with --nodes,
--relationships, --score-labels and --evidence-properties (the page then says
which shared venues, keywords or years made each group one). From Neo4j, give it the
output of "sync --split --split-top K --dry-run --output json" with --plan
FILE: the plan has the links between neighbours, and with
--display-property name the names; an edge list (keys as in the plan) or
--names given here win over them. "sync --split --plan" applies the
exported plan.

--names FILE gives display names: id<TAB>name lines, or JSON
{"id": "name"} / [{"id": ..., "name": ...}], ids as in the edge list (or the
plan's keys).

The page's file is checked before scoring, and written whole or not at all.

Exit codes: 0 ok, 1 error, 2 bad usage, configuration or input (an edge list,
names file or plan that cannot be read, a page whose folder cannot be
written), 5 nothing to score (no edges), 7 not enough memory, 130
interrupted.`,
		Example: `  fondue-neo4j review testdata/lesmis.edges --names testdata/lesmis.names --top 12 --output-file lesmis-review.html
  fondue-neo4j review --nodes authors.csv,papers.csv --relationships wrote.csv --score-labels Author --output-file review.html
  fondue-neo4j sync --split --split-top 20 --dry-run > dry-run.json
  fondue-neo4j review --plan dry-run.json --names names.tsv --output-file review.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			// With a plan (--plan, or review.plan from the environment or
			// file, known once the configuration is read) the edge list is
			// optional: RunE checks that there is one or the other.
			if len(args) <= 1 {
				return nil
			}
			if f := cmd.Flags().Lookup("plan"); f != nil && f.Value.String() != "" {
				return usageErrorf("%s --plan takes at most one edge-list file (see '%s --help')", cmd.CommandPath(), cmd.CommandPath())
			}
			return exactArgs(1, "an edge-list file (or --plan FILE)")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			top := a.cfg.Review.Top
			out := a.cfg.Review.Out
			planFile := a.cfg.Review.Plan
			if planFile == "" {
				if err := a.checkInput(cmd, args, "an edge-list file (or --plan FILE) or --nodes and --relationships files"); err != nil {
					return err
				}
			} else if a.usesKG() && len(args) > 0 {
				return usageErrorf("give an edge list (%s) or --nodes and --relationships files, not both", args[0])
			}
			hm, err := parseHeaderMode(a.cfg.Input.Header)
			if err != nil {
				return err
			}
			if out != "-" {
				if err := checkWritable(out); err != nil {
					return withCode(exitUsage, fmt.Errorf("review page %s: %w (checked before scoring)", out, err))
				}
			}
			nm, err := a.readNames(a.cfg.Input.Names)
			if err != nil {
				return err
			}
			var doc *review.Doc
			if planFile != "" {
				dr, err := readDryRun(planFile)
				if err != nil {
					return err
				}
				if dr.Merge != nil {
					return a.mergeReview(dr, planFile, top, out)
				}
				var g *graph.Graph
				switch {
				case len(args) == 1:
					if g, err = a.readGraph(args[0], hm); err != nil {
						return err
					}
				case a.usesKG(): // the links drawn, the names
					var kg *neo4jcsv.Graph
					if kg, err = a.readKG(cmd.Context(), ""); err != nil {
						return err
					}
					g, nm = kg.Graph, kgNames(kg.Graph, kg.Names, nm)
				}
				doc, err = a.planReview(dr, g, nm, top)
			} else {
				doc, err = a.fileReview(cmd, args, hm, nm, top)
			}
			if err != nil {
				return err
			}
			switch {
			case planFile != "":
				doc.Input = planFile
			case a.usesKG():
				doc.Input = strings.Join(a.cfg.Input.Nodes, ", ")
			default:
				doc.Input = args[0]
			}
			doc.GeneratedAt = time.Now().UTC().Format(time.RFC3339)
			doc.Tool = versionString()
			var buf bytes.Buffer
			if err := review.Write(&buf, doc); err != nil {
				if planFile != "" { // the plan's nodes or groups do not hold together
					return usageErrorf("plan %s: %v", planFile, err)
				}
				return err
			}
			if out == "-" {
				_, err = a.stdout.Write(buf.Bytes())
				return err
			}
			if err := writeFileWhole(out, buf.Bytes()); err != nil {
				return fmt.Errorf("review page %s: %w", out, err)
			}
			a.log.Info("wrote the review page: open it in a browser", "file", out, "nodes", len(doc.Nodes), "bytes", buf.Len())
			return nil
		},
	}
	cli.AddFlags(cmd, config.CmdReview)
	return cmd
}

// writeFileWhole writes data to path through a temporary file in the same
// folder and a rename: the file is written whole or not at all (an
// interrupted run leaves the old file, or none).
func writeFileWhole(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// fileReview scores the files (the edge list args, or the import files)
// as "score --split --top K" does and turns the K proposals, with their
// reasons, into a review.
func (a *app) fileReview(cmd *cobra.Command, args []string, hm edgelist.HeaderMode, nm names.Names, top int) (*review.Doc, error) {
	opts, err := a.reviewOptions(top)
	if err != nil {
		return nil, err
	}
	sc, err := a.scoreFiles(cmd.Context(), args, hm, opts, top)
	if err != nil {
		return nil, err
	}
	g, input := sc.Subgraph.Graph, strings.Join(a.cfg.Input.Nodes, ", ")
	if a.usesKG() {
		nm = kgNames(g, sc.Subgraph.Names, nm)
	} else {
		a.checkNames(nm, g)
		input = args[0]
	}
	return review.FromEdgeList(input, g, sc.Result, nm, opts.Split.Splitter.Name()), nil
}

// reviewOptions are the scoring options of a review of the top nodes.
func (a *app) reviewOptions(top int) (fondue.Options, error) {
	opts, err := a.scoreOptions()
	if err != nil {
		return opts, err
	}
	opts.Split.Top, opts.Split.MinAmbiguity, opts.Split.Nodes = top, 0, nil
	return opts, nil
}

// planReview turns the plan printed by "sync --split --dry-run" into a
// review; g, when given, is the graph whose links are drawn.
func (a *app) planReview(dr *review.DryRun, g *graph.Graph, nm names.Names, top int) (*review.Doc, error) {
	doc, missing := review.FromDryRun(dr, g, nm, top)
	if missing > 0 {
		a.log.Warn("neighbours of the plan are not in the edge list: their links are not drawn", "count", missing)
	}
	return doc, nil
}

// mergeReview writes the review page of the merge plan of "sync
// --duplicates --dry-run" (the top pairs shown) to out ("-": stdout).
func (a *app) mergeReview(dr *review.DryRun, planFile string, top int, out string) error {
	var buf bytes.Buffer
	err := review.WriteMerge(&buf, &review.MergeDoc{Plan: dr.Merge, Input: planFile, Top: top,
		GeneratedAt: time.Now().UTC().Format(time.RFC3339), Tool: versionString()})
	if err != nil {
		return err
	}
	if out == "-" {
		_, err = a.stdout.Write(buf.Bytes())
		return err
	}
	if err := writeFileWhole(out, buf.Bytes()); err != nil {
		return fmt.Errorf("review page %s: %w", out, err)
	}
	a.log.Info("wrote the review page of the merge plan: open it in a browser", "file", out,
		"pairs", len(dr.Merge.Pairs), "shown", min(top, len(dr.Merge.Pairs)), "bytes", buf.Len())
	return nil
}

// readDryRun reads a dry run's plan (review --plan, plan --plan); its
// errors are bad input (exit code 2), naming the file.
func readDryRun(path string) (*review.DryRun, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, usageErrorf("plan %s: no such file", path)
	} else if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("plan %s: %w", path, err))
	}
	dr, err := review.ReadDryRun(path, data)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	return dr, nil
}
