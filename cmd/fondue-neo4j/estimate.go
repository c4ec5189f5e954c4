package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/dedup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/output"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/text/plural"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newEstimateCmd(a *app) *cobra.Command {
	var (
		nodes, edges, rels, maxDegree, compared int64
		stringKeys, duplicates                  bool
	)
	cmd := &cobra.Command{
		Use:   "estimate [FILE | --nodes N --edges M]",
		Short: "Predict the peak memory of scoring a graph of a given size",
		Long: `estimate prints the memory that score and sync would need for a graph, phase
by phase, and whether it fits under max_memory (default: the memory available
to this process). The graph is an edge list FILE (read like "score" reads it,
"-" for standard input), or its counts: --nodes and --edges (--relationships is
the same, Neo4j's word; and --string-keys when the ids are not integers). score
and sync run the same check before they start and refuse to run a graph that
would not fit.

Of the engine's settings, the ones that change the memory are flags here, and
no other: --threads, --dim, --neg-ratio, and --checkpoint (a run that saves
one keeps the optimizer's state, and one that reads it, a night after the
first, holds the saved state; embedding.full: a warm start, not counted).

--duplicates estimates a "duplicates" run instead, --compared N of the nodes
compared (default: all), every candidate pair printed with its reasons.
Some buffers of each worker grow with the graph's largest degree. A FILE gives
it; with counts only the estimate assumes the largest degree they allow
(nodes-1 or edges, the smaller), an upper bound that is loose for graphs
without a hub.

A graph that does not fit exits with code 7 (after printing the estimate),
like score and sync.`,
		Example: `  fondue-neo4j estimate --nodes 1000000 --edges 10000000
  fondue-neo4j estimate --nodes 1000000 --relationships 10000000 --threads 4
  fondue-neo4j estimate testdata/lesmis.edges --output json
  fondue-neo4j estimate --duplicates --nodes 100000 --edges 220000 --compared 50000`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("estimate takes one edge-list file, or --nodes and --edges (see '%s --help')", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			opts, err := a.scoreOptions()
			if err != nil {
				return err
			}
			if fl.Changed("relationships") {
				if fl.Changed("edges") && rels != edges {
					return usageErrorf("--edges %d and --relationships %d disagree: they are the same count, give one", edges, rels)
				}
				edges = rels
			}
			fromFile := len(args) == 1
			if fromFile {
				if fl.Changed("nodes") || fl.Changed("edges") || fl.Changed("relationships") || fl.Changed("string-keys") {
					return usageErrorf("estimate %s: the file gives the counts; drop --nodes, --edges (--relationships) and --string-keys", args[0])
				}
				hm, err := parseHeaderMode(a.cfg.Input.Header)
				if err != nil {
					return err
				}
				g, err := a.readGraph(args[0], hm)
				if err != nil {
					return err
				}
				nodes, edges, stringKeys = int64(g.NumNodes()), int64(g.NumEdges()), !g.IntKeys()
				maxDegree = int64(g.MaxDegree())
			} else if err := checkCounts(fl, nodes, edges); err != nil {
				return err
			}
			if fl.Changed("compared") && !duplicates {
				return usageErrorf("--compared counts the nodes of a duplicates run: add --duplicates")
			}
			if !fl.Changed("compared") {
				compared = nodes
			} else if compared < 0 || compared > nodes {
				return usageErrorf("--compared %d: want between 0 and the %d nodes", compared, nodes)
			}
			limit, err := a.memoryLimit()
			if err != nil {
				return err
			}
			var e memory.Estimate
			if duplicates {
				e = duplicatesMemory(nodes, edges, compared, maxDegree, stringKeys, nil, dedup.Options{Workers: opts.Workers})
			} else {
				// Scoring as score would with this configuration (split with
				// score's --split, the state file), the graph read from a file.
				ck := a.cfg.Engine.Embedding
				mo := syncjob.MemoryOptions(nil, syncjob.Options{Score: opts, Split: a.cfg.Split.Enabled,
					OnlyChanged: ck.Checkpoint != "", Full: ck.Full})
				mo.StringKeys, mo.MaxDegree, mo.FromFile = stringKeys, maxDegree, true
				e = memory.Predict(nodes, edges, mo)
			}
			fitErr := e.CheckMemory(limit)
			fits := fitErr == nil
			if a.cfg.Output.Format == "json" {
				err = json.NewEncoder(a.stdout).Encode(output.EstimateJSON(nodes, edges, e, fits, limit))
			} else {
				err = output.EstimateText(a.stdout, e, fits, limit)
			}
			if err != nil {
				return err
			}
			if !fits {
				return withCode(exitMemory, fmt.Errorf("does not fit: %w", fitErr))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Int64Var(&nodes, "nodes", 0, "number of nodes")
	f.Int64Var(&edges, "edges", 0, "number of (undirected) relationships")
	f.Int64Var(&rels, "relationships", 0, "the same as --edges (Neo4j's word)")
	f.BoolVar(&stringKeys, "string-keys", false, "node ids are strings (e.g. Neo4j element ids) rather than integers")
	f.BoolVar(&duplicates, "duplicates", false, "estimate a duplicates run (see docs/duplicates.md) rather than scoring")
	f.Int64Var(&compared, "compared", 0, "with --duplicates: the nodes compared (default: all)")
	// The settings of estimate: of the engine's, those that change the
	// estimate, and no other.
	cli.AddFlags(cmd, config.CmdEstimate)
	return cmd
}

// checkCounts checks estimate's counts: both given, nodes positive, edges
// non-negative and at most what a simple graph of that many nodes holds
// (n(n-1)/2: the engine merges duplicate edges and drops self-loops).
func checkCounts(fl *pflag.FlagSet, nodes, edges int64) error {
	hasEdges := fl.Changed("edges") || fl.Changed("relationships")
	switch {
	case !fl.Changed("nodes") && !hasEdges:
		return usageErrorf("estimate needs an edge-list file, or --nodes and --edges (--relationships)")
	case !fl.Changed("nodes"):
		return usageErrorf("estimate needs --nodes with --edges (or an edge-list file)")
	case !hasEdges:
		return usageErrorf("estimate needs --edges (or --relationships) with --nodes (or an edge-list file)")
	case nodes <= 0:
		return usageErrorf("--nodes %d: want a positive number of nodes", nodes)
	case edges < 0:
		return usageErrorf("--edges %d: want a non-negative number of edges", edges)
	}
	// From 2^31 nodes on, the bound exceeds 2^61 edges: no check needed.
	if nodes < 1<<31 {
		if most := nodes * (nodes - 1) / 2; edges > most {
			return usageErrorf("--nodes %d --edges %d: a simple graph of %s holds at most %s (duplicates merge, self-loops are dropped)",
				nodes, edges, plural.N(int(nodes), "node"), plural.N(int(most), "edge"))
		}
	}
	return nil
}

// memoryLimit returns max_memory in bytes: the configured size, or the memory
// available to the process when it is empty, 0 when unlimited ("none").
// It also hands the limit to the Go runtime as a soft limit, so that the
// collector works harder before the process outgrows it.
func (a *app) memoryLimit() (int64, error) {
	s := a.cfg.MaxMemory
	var limit int64
	switch s {
	case "none", "0":
		return 0, nil
	case "", "auto":
		limit = sysmem.AvailableMemory()
	default:
		var err error
		if limit, err = sysmem.ParseBytes(s); err != nil {
			return 0, usageErrorf("max_memory: %v", err)
		}
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return limit, nil
}

// memoryGuard is syncjob's guard of max_memory (sync, score, review);
// est receives the estimate, which also sets the runtime's soft limit
// (useEstimate; syncjob refuses a run that does not fit).
func (a *app) memoryGuard(est *memory.Estimate) (syncjob.MemoryGuard, error) {
	limit, err := a.memoryLimit()
	if err != nil {
		return syncjob.MemoryGuard{}, err
	}
	guard := syncjob.MemoryGuard{Limit: limit}
	if limit == 0 {
		guard.Limit = -1 // max_memory none, or the available memory unknown
	}
	guard.Estimated = func(e memory.Estimate, limit int64) {
		*est = e
		_ = a.useEstimate(e, limit)
	}
	return guard, nil
}

// checkMemoryHint refuses a run whose estimate exceeds max_memory, with
// hint, what to do, in its error.
func (a *app) checkMemoryHint(e memory.Estimate, hint string) error {
	limit, err := a.memoryLimit()
	if err != nil {
		return err
	}
	if err := a.useEstimate(e, limit); err != nil {
		return withCode(exitMemory, fmt.Errorf("%w; %s", err, hint))
	}
	return nil
}

// useEstimate logs a run's estimate against limit (0: none) and returns
// CheckMemory's error; a run that fits gets the runtime's soft limit,
// and a warning when it fits only with the collector held to max_memory.
func (a *app) useEstimate(e memory.Estimate, limit int64) error {
	a.log.Debug("memory estimate", "nodes", e.Nodes, "edges", e.Edges, "peak", sysmem.FormatBytes(e.Peak), "least", sysmem.FormatBytes(e.Least), "limit", sysmem.FormatBytes(limit))
	if err := e.CheckMemory(limit); err != nil {
		return err
	}
	if e.HeldToLimit(limit) {
		a.log.Warn("the estimated peak memory exceeds max_memory: running with the garbage collector held to the limit, which costs CPU time",
			"peak", sysmem.FormatBytes(e.Peak), "least", sysmem.FormatBytes(e.Least), "limit", sysmem.FormatBytes(limit))
	}
	debug.SetMemoryLimit(softLimit(e.Peak, limit))
	return nil
}

// binaryResident is what the process holds outside the Go runtime's
// memory: the program's code and data as mapped (about 20 MB here).
const binaryResident = 24 << 20

// softLimit is the Go runtime's soft memory limit for a run of estimated
// peak: the estimate, or max_memory when lower (limit, 0 for none), less
// the program's own pages, so that the collector works harder rather than
// let the process outgrow either (its peak was the collector's headroom
// of the moment: 0.88 to 1.06 times the estimate at a million nodes);
// at least 256 MiB, never above max_memory. A soft limit: the heap passes
// it rather than stall when the live data needs more.
func softLimit(peak, limit int64) int64 {
	if limit <= 0 {
		return max(peak-binaryResident, 256<<20)
	}
	return min(max(min(peak, limit)-binaryResident, 256<<20), limit)
}
