package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench"
	"github.com/fondue-neo4j/fondue-neo4j/bench/dup"
	"github.com/fondue-neo4j/fondue-neo4j/bench/real"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/spf13/cobra"
)

// dupFlags are the duplicates command's flags.
type dupFlags struct {
	datasets          []string
	ratio, overlap    float64
	seed              int64
	seeds             int
	threads           int
	out, dataDir      string
	skipACL, skipPlan bool
}

func newDuplicatesCmd(a *app) *cobra.Command {
	var f dupFlags
	cmd := &cobra.Command{
		Use:   "duplicates",
		Short: "Duplicate detection: acl-dup's name variants beside four baselines, and planted duplicates on the paper's graphs",
		Long: `duplicates measures the duplicate engine (fondue/dedup, no labels) where several
nodes are one entity:

  acl-dup   the ACL Anthology's name strings (real/acl-dup in the datasets folder) with
            its curated variants as truth, on the development and the test half:
            P@100, average precision, variant AP, recall at precision .9 and
            cluster F1, beside the issue's four baselines (folded names equal,
            Jaro-Winkler blocked on last name + initial, co-author Jaccard on the same
            candidates, their mean)
  planted   on each of the paper's graphs, --ratio of the nodes each give a random
            half of their links to a new node (--dup-seeds seeds); the AUC of these
            planted pairs among the engine's candidates (no names: graph evidence
            only), beside the Jaccard and Adamic-Adar of neighbours

into --output-dir: RESULTS.md and results.json. bench/README.md ("Duplicates")
defines every number.`,
		Example: `  fondue-bench duplicates --datasets polbooks
  fondue-bench duplicates --output-dir bench/duplicates-results   # the committed results`,
		Args: cli.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runDuplicates(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.datasets, "datasets", nil, "paper graphs for planted duplicates, comma-separated (default: every one available)")
	fl.Float64Var(&f.ratio, "ratio", 0.01, "share of the nodes given a planted duplicate")
	fl.Float64Var(&f.overlap, "overlap", 0, "share of a planted duplicate's links the original keeps too (shared neighbours)")
	fl.Int64Var(&f.seed, "dup-seed", 1, "seed of the engine and of the planting")
	fl.IntVar(&f.seeds, "dup-seeds", 10, "planted duplicates: seeds --dup-seed, --dup-seed+1, ... this many")
	fl.IntVar(&f.threads, "workers", 0, "engine workers (0 = all cores; the output is the same for any number)")
	fl.StringVar(&f.out, "output-dir", "bench-duplicates-out", "output directory")
	fl.StringVar(&f.dataDir, "data-dir", "", "datasets directory (default: $"+setup.DataDirEnv+", else "+setup.DefaultDataDir+")")
	fl.BoolVar(&f.skipACL, "skip-acl", false, "do not run acl-dup")
	fl.BoolVar(&f.skipPlan, "skip-planted", false, "do not run the planted duplicates")
	return cmd
}

// runDuplicates runs fondue-bench duplicates.
func (a *app) runDuplicates(cmd *cobra.Command, f *dupFlags) error {
	if f.seeds < 1 {
		return cli.UsageErrorf("--dup-seeds %d: want 1 or more", f.seeds)
	}
	if f.overlap < 0 || f.overlap > 1 {
		return cli.UsageErrorf("--overlap %v: want a share from 0 to 1", f.overlap)
	}
	if f.ratio <= 0 || f.ratio >= 1 {
		return cli.UsageErrorf("--ratio %v: want a share between 0 and 1", f.ratio)
	}
	dataDir, err := setup.FindDataDir(f.dataDir)
	if err != nil {
		return cli.WithCode(cli.ExitUsage, err)
	}
	c := dup.Config{Ratio: f.ratio, Seed: f.seed, Seeds: f.seeds, Overlap: f.overlap, Workers: f.threads, Graphs: map[string]*graph.Graph{},
		Progress: func(s string) { fmt.Fprintln(a.stderr, "duplicates: "+s) }}
	if !f.skipACL {
		c.ACLDir = filepath.Join(real.Dir(dataDir), dup.ACLName)
		if st, err := os.Stat(c.ACLDir); err != nil || !st.IsDir() {
			return cli.UsageErrorf("acl-dup not found: %s (the folder real/%s of the datasets folder; --skip-acl to run without it)", c.ACLDir, dup.ACLName)
		}
	}
	if !f.skipPlan {
		paper := bench.MustPaper()
		names := f.datasets
		if len(names) == 0 {
			names = paper.AvailableDatasets()
		}
		for _, name := range names {
			d, ok := paper.Dataset(name)
			if !ok || !d.Available() {
				return cli.UsageErrorf("--datasets: unknown or unavailable dataset %q (want some of %s)", name, strings.Join(paper.AvailableDatasets(), ","))
			}
			g, err := bench.LoadDataset(dataDir, d)
			if err != nil {
				return cli.WithCode(cli.ExitUsage, err)
			}
			c.Graphs[name] = g
			c.Order = append(c.Order, name)
		}
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return cli.WithCode(cli.ExitUsage, fmt.Errorf("--output-dir %s: %w", f.out, err))
	}
	start := time.Now()
	res, runErr := dup.RunAll(cmd.Context(), c)
	if res == nil {
		return runErr
	}
	rep := &dup.Report{Results: res, Machine: setup.ThisMachine(), Command: commandLine(cmd), Date: start.UTC().Format("2006-01-02 15:04 UTC"), Seconds: time.Since(start).Seconds(), PeakRSS: dup.PeakRSS()}
	if err := writeAtomic(f.out, "results.json", func(fh *os.File) error { return rep.WriteJSON(fh) }); err != nil {
		return errors.Join(runErr, err)
	}
	if err := writeAtomic(f.out, "RESULTS.md", func(fh *os.File) error { return rep.WriteMarkdown(fh) }); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(a.stderr, "duplicates: wrote %s in %s\n", filepath.Join(f.out, "RESULTS.md"), time.Since(start).Round(time.Second))
	return runErr
}
