package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/dedup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/output"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/filesource"
	"github.com/fondue-neo4j/fondue-neo4j/text/plural"
	"github.com/spf13/cobra"
)

func newDuplicatesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "duplicates [FILE]",
		Short: "Find the pairs of nodes that are one entity, most likely first (no server needed)",
		Long: `duplicates finds the nodes that are one real entity under several names
("Jeff A. Bilmes" and "Jeffrey Bilmes") and prints one line per candidate pair,
most likely first:

    a <TAB> b <TAB> score <TAB> name_a <TAB> name_b <TAB> reasons

with the column names on a first line when stdout is a terminal (never when
piped, unless --print-header). a and b are node ids as score prints them;
score is higher for pairs more likely one entity (log-odds); reasons say why,
"; "-separated ("3 shared co-authors", "venue EMNLP"). --output json prints
a JSON list of objects with "a", "b", "score", "nameA", "nameB" and "reasons"
(objects with "kind", "text" and "weight"). --top K prints the K best pairs,
0 (the default) every candidate pair scored.

Candidates come from name keys and shared context, never from all pairs; the
weights of the evidence are learned on the graph itself (a node's links split
in two are known positives), no labels needed. See docs/duplicates.md.

The graph: the files of Neo4j's bulk import (--nodes, --relationships), the
nodes compared chosen by --score-labels (the others are context: papers,
venues), their names read from --name-property (default name), and
--evidence-properties (title,year) as evidence; or an edge list FILE with
its names from --names (without it the nodes have no names and are
compared by their links alone) and the nodes compared chosen by
--score-prefix or --score-nodes.

The memory the run needs (see "estimate --duplicates") is checked against
max_memory once the files are read.

Exit codes: 0 ok, 1 error, 2 bad usage, configuration or input (a bad file:
file:line: what is wrong; a --name-property no node has), 5 nothing to
compare, 7 not enough memory, 130 interrupted.`,
		Example: `  fondue-neo4j duplicates --nodes authors.csv --nodes papers.csv --relationships wrote.csv --score-labels Author --top 20
  fondue-neo4j duplicates --nodes authors.csv --nodes papers.csv --relationships wrote.csv --score-labels Author \
      --name-property name --evidence-properties title,year --top 0 --output json
  fondue-neo4j duplicates wrote.edges --names wrote.names --score-prefix a: --top 20`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) <= 1 {
				return nil
			}
			return exactArgs(1, "one edge-list file (or --nodes and --relationships files)")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.checkInput(cmd, args, "one edge-list file (or --nodes and --relationships files)"); err != nil {
				return err
			}
			t0 := time.Now()
			in, err := a.duplicatesInput(cmd.Context(), args)
			if err != nil {
				return err
			}
			loadTime := time.Since(t0)
			o := dedup.Options{Top: a.cfg.Duplicates.Top, Seed: int64(a.cfg.Engine.Seed), Workers: a.cfg.Engine.Threads}
			g := in.Graph
			est := duplicatesMemory(int64(g.NumNodes()), int64(g.NumEdges()), int64(compared(in)), int64(g.MaxDegree()), !g.IntKeys(), inputMemory(in), o)
			if err := a.checkMemoryHint(est, "raise max_memory, or use a larger machine"); err != nil {
				return err
			}
			a.log.Debug("finding duplicates", "nodes", in.Graph.NumNodes(), "edges", in.Graph.NumEdges(), "compared", len(in.Targets))
			t1 := time.Now()
			res, err := dedup.Find(cmd.Context(), in, o)
			switch {
			case errors.Is(err, dedup.ErrTooLittle):
				return withCode(exitEmpty, fmt.Errorf("nothing to compare: %w", err))
			case err != nil:
				return err
			}
			a.logDuplicates(in, res, loadTime, time.Since(t1), est)
			return a.printTable(output.Duplicates{Graph: in.Graph, Pairs: res.Pairs, Names: in.Names})
		},
	}
	cli.AddFlags(cmd, config.CmdDuplicates)
	return cmd
}

// duplicatesInput reads the graph, the names compared and the nodes
// compared: from the import files (names from --name-property) or from an
// edge list (names from --names, else the ids).
func (a *app) duplicatesInput(ctx context.Context, args []string) (dedup.Input, error) {
	if a.usesKG() {
		return a.duplicatesKG(ctx)
	}
	hm, err := parseHeaderMode(a.cfg.Input.Header)
	if err != nil {
		return dedup.Input{}, err
	}
	sel, err := filesource.ReadSelection(a.cfg.Input.ScorePrefix, a.cfg.Input.ScoreNodes)
	if err != nil {
		return dedup.Input{}, exitCode(err)
	}
	nm, err := a.readNames(a.cfg.Input.Names)
	if err != nil {
		return dedup.Input{}, err
	}
	g, err := a.readGraph(args[0], hm)
	if err != nil {
		return dedup.Input{}, err
	}
	t, err := sel.Targets(g)
	if err != nil {
		return dedup.Input{}, exitCode(err)
	}
	// No names file: no names (""), so that dedup finds the candidates
	// from the links alone; ids such as "u_anna" are not names.
	names := make([]string, g.NumNodes())
	if nm != nil {
		for i := range names {
			names[i] = nm[g.Key(i)]
		}
	}
	in := dedup.NewInput(g, names, nil, t, nil)
	from := "names"
	if nm == nil {
		from = ""
	}
	if err := checkComparedNames(in, "--names "+a.cfg.Input.Names, from); err != nil {
		return dedup.Input{}, err
	}
	if nm == nil {
		a.log.Info("no --names file: the nodes are compared by their links alone", "file", args[0])
	}
	return in, nil
}

// duplicatesKG reads the import files: the --score-labels nodes are
// compared by their --name-property; the other nodes are named by it, else
// by their display name (venues in reasons).
func (a *app) duplicatesKG(ctx context.Context) (dedup.Input, error) {
	prop := a.cfg.Duplicates.NameProperty
	if strings.TrimSpace(prop) == "" {
		return dedup.Input{}, usageErrorf("--name-property is empty: give the node property holding the names (e.g. name)")
	}
	if a.cfg.Input.Names != "" {
		a.log.Warn("--names is ignored: with --nodes the names compared are --name-property's", "name_property", prop)
	}
	kg, err := a.readKG(ctx, prop)
	if err != nil {
		return dedup.Input{}, err
	}
	in := dedup.NewInput(kg.Graph, kg.NameValues, kg.Names, kg.Targets, kg.Context)
	if err := checkComparedNames(in, "--name-property "+prop, "has"); err != nil {
		return dedup.Input{}, err
	}
	return in, nil
}

// checkComparedNames refuses input with fewer than two nodes to compare
// (exit code 5), and input none of whose compared nodes has a name: flag
// names where the names come from, from is "has" for a node property,
// "names" for a names file, "" for no names (an edge list alone).
func checkComparedNames(in dedup.Input, flag, from string) error {
	compared, named := in.Compared()
	switch {
	case compared < 2:
		return withCode(exitEmpty, fmt.Errorf("nothing to compare: %s selected, duplicates need two", plural.N(compared, "node")))
	case from == "":
		return nil
	case named == 0 && from == "has":
		return usageErrorf("%s: none of the %d nodes compared has it (or its value is empty)", flag, compared)
	case named == 0:
		return usageErrorf("%s: it names none of the %d nodes compared (ids as the edge list spells them)", flag, compared)
	}
	return nil
}

// logDuplicates logs what a duplicates run did and cost: at info on a
// terminal, else at debug (as score's summary).
func (a *app) logDuplicates(in dedup.Input, res *dedup.Result, load, find time.Duration, est memory.Estimate) {
	attrs := []any{"nodes", in.Graph.NumNodes(), "edges", in.Graph.NumEdges(), "compared", compared(in),
		"candidates", res.Candidates, "printed", len(res.Pairs), "positives", res.Positives, "negatives", res.Negatives,
		"load_s", round3(load.Seconds()), "find_s", round3(find.Seconds()), "estimate_mb", round3(float64(est.Peak) / (1 << 20))}
	if peak := sysmem.PeakRSS(); peak > 0 {
		attrs = append(attrs, "peak_rss_mb", round3(float64(peak)/(1<<20)))
	}
	if a.tty {
		a.log.Info("duplicates", attrs...)
	} else {
		a.log.Debug("duplicates", attrs...)
	}
}

func compared(in dedup.Input) int {
	n, _ := in.Compared()
	return n
}

// duplicatesMemory predicts the peak memory of a duplicates run on files
// (dedup.Predict): held is what the run holds of its input beside the
// graph (the names and evidence properties read).
func duplicatesMemory(nodes, edges, targets, maxDegree int64, stringKeys bool, held []memory.Part, o dedup.Options) memory.Estimate {
	return dedup.Predict(nodes, edges, targets, o, memory.Options{StringKeys: stringKeys, FromFile: true, MaxDegree: maxDegree, Held: held})
}

// inputMemory is what a duplicates run holds of its input beside the
// graph: the names compared (a string header each, their bytes, and the
// target indices), and the context's kinds and evidence values, counted
// by memory.HeldByContext as score and sync count them.
func inputMemory(in dedup.Input) []memory.Part {
	var names int64
	for _, s := range in.Names {
		names += 16 + int64(len(s))
	}
	parts := []memory.Part{{Name: "names compared", Bytes: names + 8*int64(len(in.Targets))}}
	return append(parts, memory.HeldByContext(in.Graph, fondue.Options{Context: in.Context})...)
}
