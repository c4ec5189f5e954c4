package main

import (
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/bench"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagValues lists the values shell completion offers for a flag, per
// command where they differ ("" is every command).
func flagValues(command, flag string) []string {
	switch flag {
	case "method":
		return fondue.Methods
	case "splitter":
		return splitterNames()
	case "output":
		if command == "score" {
			return []string{"text", "tsv", "json"}
		}
		return []string{"text", "json"}
	case "mode":
		return []string{"auto", "exact", "sampled"}
	case "header":
		return []string{"auto", "yes", "no"}
	case "print-header":
		return []string{"auto", "true", "false"}
	case "log-level":
		return []string{"debug", "info", "warn", "error"}
	case "log-format":
		return []string{"text", "json"}
	case "ties":
		return []string{"average", "loss"}
	case "methods":
		return fondue.Methods
	case "splitters":
		return bench.SplitterNames()
	}
	return nil
}

// registerCompletions offers the values of the flags that take one of a
// few names (flagValues) to shell completion, on every command.
func registerCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			vals := slices.Clone(flagValues(c.Name(), f.Name))
			if vals == nil {
				return
			}
			_ = c.RegisterFlagCompletionFunc(f.Name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return vals, cobra.ShellCompDirectiveNoFileComp
			})
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
