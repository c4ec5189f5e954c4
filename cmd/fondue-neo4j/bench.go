package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// newBenchMovedCmd is the old "bench" command, which is now its own
// command (bench/cmd/fondue-bench), so that this binary links no plotting code:
// it says how to run that instead, with the same arguments.
func newBenchMovedCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "bench",
		Short:              "Moved: the paper's evaluation is its own command, fondue-bench (go run ./bench/cmd/fondue-bench)",
		Hidden:             true,
		DisableFlagParsing: true,
		PersistentPreRunE:  func(*cobra.Command, []string) error { return nil }, // reads no configuration
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("bench is its own command now, fondue-bench: run %q (or build it with go build ./bench/cmd/fondue-bench)",
				strings.Join(append([]string{"go", "run", "./bench/cmd/fondue-bench"}, args...), " "))
		},
	}
}
