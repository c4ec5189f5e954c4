package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/real"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/spf13/cobra"
)

// Seeds of the real evaluation: by default and with --quick.
const (
	realSeeds      = 3
	realQuickSeeds = 1
)

// realFlags are the real command's own flags.
type realFlags struct {
	sets, methods, splitters []string
	seeds                    int
	out, dataDir             string
	quick                    bool
}

func newRealCmd(a *app) *cobra.Command {
	var rf realFlags
	cmd := &cobra.Command{
		Use:   "real",
		Short: "Detection, splitting and entity estimates on real ambiguity: name-keyed graphs whose true persons are known",
		Long: `real evaluates the engine on real ambiguity: graphs keyed by name (one node per
author name) in which some names stand for several real persons, with a truth file
saying which. Every set X in the real-data folder (--data-dir, else $` + setup.DataDirEnv + `,
else ` + setup.DefaultDataDir + `, and in it the folder "real") with X.edges, X.truth.tsv and
X.neighbours.tsv is run (X.names, when there, gives display names). When the truth's
ids carry a prefix ("a:41"), only the nodes with that prefix are scored and the
rest of the graph is context: (:Author)-[:WROTE]->(:Paper). A set in a folder of
its own (X/X.edges) with Neo4j import files beside it is read from them, with the
node labels and the properties title and year as the engine's context.

  detection   every method's ROC AUC over the labelled names (ambiguous against
              one-person names), AUC within degree bins, AUC on 2-person names,
              precision at 100 (--runs runs, engine seeds --seed, --seed+1, ...;
              deterministic methods once)
  splitting   every splitter's ARI against the persons over each ambiguous
              name's labelled neighbours (all, 2 persons, 3+), and its number
              of groups against the number of persons
  entities    the engine's estimated number of entities against the persons,
              beside the number of ego and two-hop components

each for all labelled names, the development half and the held-out half, into
--output-dir: RESULTS.md, results.json (every seed) and real-*.png. bench/README.md
("Real ambiguity") defines every number.`,
		Example: `  fondue-bench real --quick
  fondue-bench real --output-dir bench/real-results   # the committed results (about a minute on 2 cores)`,
		Args: cli.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runRealCmd(cmd, &rf) },
	}
	f := cmd.Flags()
	f.StringSliceVar(&rf.sets, "sets", nil, "real sets to run, comma-separated (default: every set in the real-data folder)")
	f.IntVar(&rf.seeds, "runs", realSeeds, "engine runs per set, with seeds --seed, --seed+1, ... (the methods that fit no embedding are deterministic and run once)")
	f.BoolVar(&rf.quick, "quick", false, fmt.Sprintf("quick preset: %d run (explicit flags still win)", realQuickSeeds))
	f.StringSliceVar(&rf.methods, "methods", nil, "detection methods (default: "+strings.Join(score.Methods(), ",")+")")
	f.StringSliceVar(&rf.splitters, "splitters", nil, "splitters to evaluate (default: "+strings.Join(setup.SplitterNames(), ",")+")")
	f.StringVar(&rf.out, "output-dir", "bench-real-out", "output directory")
	f.StringVar(&rf.dataDir, "data-dir", "", "datasets directory, holding the folder real (default: $"+setup.DataDirEnv+", else "+setup.DefaultDataDir+")")
	cli.AddSettingFlags(cmd, nil, engineKeys...)
	return cmd
}

// runRealCmd runs fondue-bench real.
func (a *app) runRealCmd(cmd *cobra.Command, rf *realFlags) error {
	if rf.quick && !cmd.Flags().Changed("runs") {
		rf.seeds = realQuickSeeds
	}
	if rf.seeds < 1 {
		return cli.UsageErrorf("--runs %d: need at least one run", rf.seeds)
	}
	if err := checkMethodsSplitters(rf.methods, rf.splitters); err != nil {
		return err
	}
	engine, err := cli.EngineOptions(a.cfg)
	if err != nil {
		return err
	}
	dataDir, err := setup.FindDataDir(rf.dataDir)
	if err != nil {
		return cli.WithCode(cli.ExitUsage, err)
	}
	dir := real.Dir(dataDir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return cli.UsageErrorf("real data folder not found: %s (the folder %q of the datasets folder)", dir, real.DirName)
	}
	cfg := real.Config{Dir: dir, Sets: rf.sets, Seeds: rf.seeds, Methods: rf.methods, Splitters: rf.splitters, Engine: engine}
	return a.runReal(cmd.Context(), cfg, rf.out, commandLine(cmd))
}

// checkMethodsSplitters checks --methods and --splitters.
func checkMethodsSplitters(methods, splitters []string) error {
	for _, m := range methods {
		if !slices.Contains(score.Methods(), m) {
			return cli.UsageErrorf("--methods: unknown method %q (want some of %s)", m, strings.Join(score.Methods(), ","))
		}
	}
	for _, s := range splitters {
		if !slices.Contains(setup.SplitterNames(), s) {
			return cli.UsageErrorf("--splitters: unknown splitter %q (want some of %s)", s, strings.Join(setup.SplitterNames(), ","))
		}
	}
	return nil
}

// runReal runs the real evaluation cfg and writes its reports into out,
// with progress on stderr. The sets are checked first: an unknown one, or
// one that cannot be read, is a usage error.
func (a *app) runReal(ctx context.Context, cfg real.Config, out, command string) error {
	known, err := real.SetNames(cfg.Dir)
	if err != nil {
		return cli.WithCode(cli.ExitUsage, fmt.Errorf("real data folder: %w", err))
	}
	if len(known) == 0 {
		return cli.UsageErrorf("no real set in %s: want X.edges with X.truth.tsv and X.neighbours.tsv beside it", cfg.Dir)
	}
	for _, s := range cfg.Sets {
		if !slices.Contains(known, s) {
			return cli.UsageErrorf("--sets: unknown real set %q (in %s: %s)", s, cfg.Dir, strings.Join(known, ","))
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return cli.WithCode(cli.ExitUsage, fmt.Errorf("--out %s: %w", out, err))
	}
	cfg.Progress = realProgress(a)
	a.log.Debug("real", "dir", cfg.Dir, "sets", cfg.Sets, "seeds", cfg.Seeds, "out", out, "options", cli.DescribeOptions(cfg.Engine))
	res, runErr := real.Run(ctx, cfg)
	if res == nil || real.IsDataError(runErr) {
		if runErr != nil && !errors.Is(runErr, context.Canceled) {
			return cli.WithCode(cli.ExitUsage, runErr)
		}
		return runErr
	}
	rep := &real.Report{Results: res, Machine: setup.ThisMachine(), Command: command}
	if err := writeRealReports(rep, out); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(a.stderr, "real: wrote %s (%d sets, %s, in %s)\n", filepath.Join(out, "RESULTS.md"), len(res.Sets), real.Plural(res.Config.Seeds, "seed"),
		time.Duration(res.Seconds*float64(time.Second)).Round(time.Second))
	return runErr
}

// writeRealReports writes the plots, results.json and RESULTS.md.
func writeRealReports(rep *real.Report, out string) error {
	files, err := rep.WritePlots(out)
	if err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	rep.Plots = files
	if err := writeAtomic(out, "results.json", func(f *os.File) error { return rep.WriteJSON(f) }); err != nil {
		return err
	}
	return writeAtomic(out, "RESULTS.md", func(f *os.File) error { return rep.WriteMarkdown(f) })
}

// realProgress prints one line per set and per seed on stderr.
func realProgress(a *app) func(real.Event) {
	return func(e real.Event) {
		s := e.Set
		switch e.Kind {
		case real.EventLoaded:
			h := s.Halves[real.HalfAll]
			scored := "every node scored"
			if s.Prefix != "" {
				scored = fmt.Sprintf("%d %s… nodes scored", s.Scored, s.Prefix)
			}
			fmt.Fprintf(a.stderr, "real: %s: %d nodes, %d edges, %s; %d positives, %d negatives, %d names to split\n",
				s.Name, s.Nodes, s.Edges, scored, h.Positives, h.Negatives, h.SplitNames)
		case real.EventSeedDone:
			fmt.Fprintf(a.stderr, "real: [%d/%d] %s seed %d: %s\n", e.Done, e.Total, s.Name, e.Seed.Seed, realSeedLine(e.Seed))
		case real.EventSetDone:
			fmt.Fprintf(a.stderr, "real: %s done in %.0f s\n", s.Name, s.Seconds)
		}
	}
}

// realSeedLine summarises a seed: AUC per method, ARI per splitter.
func realSeedLine(s *real.Seed) string {
	var auc, ari []string
	for _, m := range score.Methods() {
		if d, ok := s.Detection[m]; ok {
			auc = append(auc, fmt.Sprintf("%s %.3f", m, float64(d[real.HalfAll][real.MetricAUC])))
		}
	}
	for _, sp := range setup.SplitterNames() {
		if d, ok := s.Splitting[sp]; ok {
			ari = append(ari, fmt.Sprintf("%s %.3f", sp, float64(d[real.HalfAll][real.MetricARI])))
		}
	}
	return "AUC " + strings.Join(auc, ", ") + "; ARI " + strings.Join(ari, ", ")
}
