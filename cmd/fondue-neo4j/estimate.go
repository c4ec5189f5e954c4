package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"text/tabwriter"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/spf13/cobra"
)

func newEstimateCmd(a *app) *cobra.Command {
	var (
		nodes, edges int64
		stringKeys   bool
		output       string
	)
	cmd := &cobra.Command{
		Use:   "estimate --nodes N --edges M",
		Short: "Predict the peak memory of scoring a graph of a given size",
		Long: `estimate prints the memory that score and sync would need for a graph with the
given node and relationship counts, phase by phase, and whether it fits under
max_memory (default: the memory available to this process). score and sync run
the same check before they start and refuse to run a graph that would not fit.`,
		Example: "  fondue-neo4j estimate --nodes 1000000 --edges 10000000",
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if nodes <= 0 || edges < 0 {
				return usageErrorf("--nodes must be positive and --edges non-negative")
			}
			opts, err := a.scoreOptions()
			if err != nil {
				return err
			}
			limit, err := a.memoryLimit()
			if err != nil {
				return err
			}
			e := fondue.EstimateMemory(nodes, edges, fondue.EstimateOptions{Dim: opts.CNE.Dim, Workers: opts.Workers,
				StringKeys: stringKeys, KeepState: a.v.GetString("embedding.checkpoint") != "", FromFile: true,
				ExactMaxNode: opts.CNE.ExactMaxNodes})
			fits := e.CheckMemory(limit) == nil
			if output == "json" {
				return json.NewEncoder(a.stdout).Encode(map[string]any{
					"nodeCount": nodes, "relationshipCount": edges, "requiredMemory": fondue.FormatBytes(e.Peak),
					"bytesPeak": e.Peak, "bytesLive": e.Live, "limitBytes": limit, "fits": fits, "phases": e.Phases,
				})
			}
			tw := tabwriter.NewWriter(a.stdout, 2, 8, 3, ' ', 0)
			for _, ph := range e.Phases {
				fmt.Fprintf(tw, "%s\t%s\t\n", ph.Phase, fondue.FormatBytes(ph.Bytes))
				for _, p := range ph.Parts {
					fmt.Fprintf(tw, "  %s\t%s\t\n", p.Name, fondue.FormatBytes(p.Bytes))
				}
			}
			tw.Flush()
			verdict := "fits"
			if !fits {
				verdict = "does NOT fit"
			}
			limitText := "no limit known"
			if limit > 0 {
				limitText = "limit " + fondue.FormatBytes(limit)
			}
			fmt.Fprintf(a.stdout, "\nrequired memory (peak resident, with GC headroom): %s; %s (%s)\n",
				fondue.FormatBytes(e.Peak), verdict, limitText)
			return nil
		},
	}
	f := cmd.Flags()
	f.Int64Var(&nodes, "nodes", 0, "number of nodes")
	f.Int64Var(&edges, "edges", 0, "number of (undirected) relationships")
	f.BoolVar(&stringKeys, "string-keys", false, "node ids are strings (e.g. Neo4j element ids) rather than integers")
	f.StringVar(&output, "output", "text", "text or json")
	addScoreFlags(f)
	return cmd
}

// memoryLimit returns max_memory in bytes: the configured size, or the memory
// available to the process when it is empty, 0 when unlimited ("none").
// It also hands the limit to the Go runtime as a soft limit, so that the
// collector works harder before the process outgrows it.
func (a *app) memoryLimit() (int64, error) {
	s := a.v.GetString("max_memory")
	var limit int64
	switch s {
	case "none", "0":
		return 0, nil
	case "", "auto":
		limit = fondue.AvailableMemory()
	default:
		var err error
		if limit, err = fondue.ParseBytes(s); err != nil {
			return 0, usageErrorf("max_memory: %v", err)
		}
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return limit, nil
}

// checkMemory refuses a run whose estimate exceeds max_memory.
func (a *app) checkMemory(e fondue.MemoryEstimate) error {
	limit, err := a.memoryLimit()
	if err != nil {
		return err
	}
	a.log.Debug("memory estimate", "nodes", e.Nodes, "edges", e.Edges, "peak", fondue.FormatBytes(e.Peak), "limit", fondue.FormatBytes(limit))
	if err := e.CheckMemory(limit); err != nil {
		return withCode(exitMemory, fmt.Errorf("%w; lower embedding.dim, raise max_memory, or use a larger machine", err))
	}
	return nil
}
