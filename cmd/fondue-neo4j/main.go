// Command fondue-neo4j finds ambiguous nodes in a graph (nodes that stand for
// several real-world entities) with the FONDUE method, from an edge list or
// from a Neo4j database, and can split them.
package main

import (
	"context"
	"io"
	"os"
	"runtime/debug"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/spf13/cobra"
)

// Exit codes (internal/app/cli). Scheduled jobs branch on them, so they are part
// of the interface.
const (
	exitOK          = cli.ExitOK
	exitError       = cli.ExitError
	exitUsage       = cli.ExitUsage
	exitAuth        = cli.ExitAuth
	exitUnreachable = cli.ExitUnreachable
	exitEmpty       = cli.ExitEmpty
	exitLocked      = cli.ExitLocked
	exitMemory      = cli.ExitMemory
	exitInterrupted = cli.ExitInterrupted
)

// exitErr carries an exit code with the one message the user sees.
type exitErr = cli.Error

func withCode(code int, err error) error { return cli.WithCode(code, err) }

func usageErrorf(format string, args ...any) error { return cli.UsageErrorf(format, args...) }

func main() {
	cli.Main(func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr) })
}

// run executes the CLI and returns the process exit code (cli.Run).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A run sets the runtime's soft memory limit from its estimate
	// (softLimit); the next run in the same process (the tests) starts
	// from the one before.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	return cli.Run(ctx, "fondue-neo4j", args, stderr, func() *cobra.Command { return newRootCmd(stdin, stdout, stderr) })
}
