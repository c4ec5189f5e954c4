package main

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/metrics"
	"github.com/spf13/cobra"
)

// app is the state one invocation shares between commands.
type app struct {
	// cfg is the configuration of the command being run (set by setup).
	cfg    *config.Config
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
	// tty is whether stderr is a terminal: progress bars and text logs then.
	tty bool
	// outTTY is whether stdout is a terminal: score prints its column names then.
	outTTY bool
	// ran is the run sync or undo reports (metrics.*, withMetrics).
	ran metrics.Run
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return newApp(stdin, stdout, stderr).rootCmd()
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr, tty: cli.IsTerminal(stderr), outTTY: cli.IsTerminal(stdout)}
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "fondue-neo4j",
		Short: "Find and split ambiguous nodes in a graph with FONDUE",
		Long: `fondue-neo4j finds ambiguous nodes (nodes that stand for two or more real-world
entities) with the FONDUE method on a Conditional Network Embedding, from an
edge list ("score") or a Neo4j database ("sync"), and can split them ("sync
--split", "undo").`,
		Version: versionString(),
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.setup(cmd)
		},
	}
	cli.SetupRoot(root, a.stdout, a.stderr)
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newScoreCmd(a), newReviewCmd(a), newSyncCmd(a), newUndoCmd(a), newPlanCmd(a), newEstimateCmd(a), newDuplicatesCmd(a), newBenchMovedCmd())
	return root
}

// setup loads the configuration (cli.Load) and sets up the logger.
func (a *app) setup(cmd *cobra.Command) error {
	if !cli.ReadsConfig(cmd) {
		return nil
	}
	var err error
	if a.cfg, err = cli.Load(cmd); err != nil {
		return err
	}
	if a.log, err = cli.NewLogger(a.cfg.Log, a.stderr, a.tty); err != nil {
		return err
	}
	cli.WarnDeprecated(cmd, a.log)
	if err := a.splitterFromSplit(cmd); err != nil {
		return err
	}
	return a.checkSplitFlags(cmd)
}

// exactArgs is cobra.ExactArgs with the usage exit code.
var exactArgs = cli.ExactArgs

func printf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format, args...)
}

// table is what score and duplicates print: their rows as JSON, or as
// TSV with or without the column names.
type table interface {
	WriteJSON(w io.Writer) error
	WriteTSV(w io.Writer, header bool) error
}

// printTable prints t on stdout as output.format says, the TSV's column
// names first as output.print_header says (auto: when stdout is a
// terminal).
func (a *app) printTable(t table) error {
	w := bufio.NewWriter(a.stdout)
	var err error
	if a.cfg.Output.Format == "json" {
		err = t.WriteJSON(w)
	} else {
		header := a.outTTY
		if ph := a.cfg.Output.PrintHeader; ph != "auto" {
			header = ph == "true"
		}
		err = t.WriteTSV(w, header)
	}
	if err == nil {
		err = w.Flush()
	}
	return err
}
