// Command fondue-bench reproduces the FONDUE paper's evaluation (AUC, ARI
// and runtime tables with plots), evaluates the engine on real ambiguity
// ("fondue-bench real") and measures score at growing graph sizes
// ("fondue-bench scale"). It is apart from fondue-neo4j so that the
// scheduled job's binary carries no plotting code; it reads the same
// configuration (flags, FONDUE_* environment, fondue.yaml) for the engine's
// options.
//
//	go run ./bench/cmd/fondue-bench --quick
//	go run ./bench/cmd/fondue-bench real --quick
//	go run ./bench/cmd/fondue-bench scale --binary ./fondue-neo4j
package main

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/spf13/cobra"
)

func main() {
	cli.Main(func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr) })
}

// run executes the CLI and returns the process exit code (cli.Run).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cli.Run(ctx, "fondue-bench", args, stderr, func() *cobra.Command { return newApp(stdout, stderr).rootCmd() })
}

// app is the state one invocation shares between commands.
type app struct {
	cfg    *config.Config // the configuration of the command being run (set by setup)
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
	// tty is whether stderr is a terminal: a progress bar and text logs then.
	tty bool
}

func newApp(stdout, stderr io.Writer) *app {
	return &app{stdout: stdout, stderr: stderr, tty: cli.IsTerminal(stderr)}
}

// rootCmd is the bench command, with real and scale below it.
func (a *app) rootCmd() *cobra.Command {
	root := newBenchCmd(a)
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error { return a.setup(cmd) }
	cli.SetupRoot(root, a.stdout, a.stderr)
	root.AddCommand(newRealCmd(a), newScaleCmd(a), newDuplicatesCmd(a))
	cli.AddDeprecatedFlags(root, deprecatedFlags...)
	cli.RegisterCompletions(root, flagValues)
	return root
}

// deprecatedFlags are older spellings of flags, still accepted with a
// warning: the folder of the reports was --out (--output is a format in
// fondue-neo4j), and the number of contractions per cell --seeds and
// --split-seeds (beside --seed, the engine's random seed).
var deprecatedFlags = []cli.Deprecated{
	{Old: "out", New: "output-dir"},
	{Old: "seeds", New: "contractions"},
	{Old: "split-seeds", New: "split-contractions"},
	{Old: "seeds", New: "runs"}, // fondue-bench real
}

// setup loads the configuration (cli.Load): the engine's flags, like
// score's, fall back to the FONDUE_* environment and the config file.
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
	return nil
}

// engineKeys are the settings that fondue-bench and fondue-bench real
// offer as flags, named and explained as score's: the engine's options but
// the method (--methods here) and the warm start (the bench saves no
// embedding).
var engineKeys = []string{"seed", "threads", "random_splits", "unnormalized", "polish",
	"embedding.dim", "embedding.sigma1", "embedding.sigma2", "embedding.epochs", "embedding.learning_rate",
	"embedding.neg_ratio", "embedding.mode", "embedding.tol", "embedding.start", "embedding.stability_stop"}

// scaleKeys are the settings fondue-bench scale offers, with its own help.
var scaleKeys = map[string]string{
	"seed":    "seed of the generated graphs, the contraction and the runs",
	"threads": "worker goroutines of the runs (0: all cores)",
}

// flagValues lists the values shell completion offers for a flag that is
// not a setting's (cli.AddFlags completes those).
func flagValues(_, flag string) []string {
	switch flag {
	case "ties":
		return []string{"average", "loss"}
	case "methods":
		return score.Methods()
	case "splitters":
		return setup.SplitterNames()
	}
	return nil
}
