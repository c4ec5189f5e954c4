package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/fondue-neo4j/fondue-neo4j/internal/cli"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// app is the state one invocation shares between commands.
type app struct {
	v      *viper.Viper
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
	// tty is whether stderr is a terminal: progress bars and text logs then.
	tty bool
	// outTTY is whether stdout is a terminal: score prints its column names then.
	outTTY bool
	// configFile is the file the configuration came from, "" if none.
	configFile string
	// cmd is the command being run (set by setup).
	cmd *cobra.Command
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return newApp(stdin, stdout, stderr).rootCmd()
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{v: viper.New(), stdin: stdin, stdout: stdout, stderr: stderr, tty: cli.IsTerminal(stderr), outTTY: cli.IsTerminal(stdout)}
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
	cli.SetupRoot(root, a.stdout, a.stderr, nil)
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newScoreCmd(a), newReviewCmd(a), newSyncCmd(a), newUndoCmd(a), newEstimateCmd(a), newBenchMovedCmd())
	cli.AddDeprecatedFlags(root, deprecatedFlags...)
	cli.RegisterCompletions(root, flagValues)
	return root
}

// flagKeys maps command-line flag names to configuration keys, for every
// flag that has a config-file and environment equivalent, besides the
// engine's and logging flags (cli.FlagKeys).
var flagKeys = map[string]string{
	"embedding-property": "embedding.property",
	"split":              "split.enabled",
	"split-top":          "split.top",
	"max-memory":         "max_memory",

	// sync and undo
	"uri":                 "neo4j.uri",
	"user":                "neo4j.user",
	"password-file":       "neo4j.password_file",
	"database":            "neo4j.database",
	"connect-timeout":     "neo4j.connect_timeout",
	"max-retry-time":      "neo4j.max_retry_time",
	"node-labels":         "graph.node_labels",
	"relationship-types":  "graph.relationship_types",
	"node-query":          "graph.node_query",
	"relationship-query":  "graph.relationship_query",
	"id-property":         "graph.id_property",
	"display-property":    "graph.display_property",
	"fetch-size":          "graph.fetch_size",
	"read-concurrency":    "graph.read_concurrency",
	"write-node-labels":   "write.node_labels",
	"write-property":      "write.property",
	"score-property":      "write.score_property",
	"entities-property":   "write.entities_property",
	"run-property":        "write.run_property",
	"batch-size":          "write.batch_size",
	"write-concurrency":   "write.concurrency",
	"splitter":            "split.method",
	"split-min-ambiguity": "split.min_ambiguity",
	"marker-label":        "split.marker_label",
	"skip-properties":     "split.skip_properties",
	"lock-name":           "lock.name",
	"lock-ttl":            "lock.ttl",
	"run-id":              "run_id",
	"output":              "output",
	"dry-run":             "dry_run",

	// score and review
	"top":          "top",
	"header":       "header",
	"print-header": "print_header",
	"names":        "names",
	"score-prefix": "score_prefix",
	"score-nodes":  "score_nodes",
}

// deprecatedFlags are older spellings of flags, still accepted with a
// warning (cli.AddDeprecatedFlags), so that one word means one thing in
// every command: --output is a format (text or json), a file or folder to
// write is --output-file or --output-dir. score's --format and undo's
// --run came first; review's page was --out (-o).
var deprecatedFlags = []cli.Deprecated{
	{Old: "format", New: "output"},
	{Old: "run", New: "run-id"},
	{Old: "out", Shorthand: "o", New: "output-file"},
}

// addMaxMemoryFlag adds --max-memory, for the commands that check the
// memory estimate (score, review, sync, estimate).
func addMaxMemoryFlag(f flagSet) {
	f.String("max-memory", "", "refuse runs whose estimated peak memory exceeds this (e.g. 4GiB; default: available memory; none: no limit)")
}

// commandFlagKeys overrides flagKeys for one command, where a flag name
// means something else: review's --top (default 20, at least 1) and its
// page's file are review's own settings; sync's --plan is the approved plan
// to apply (split.plan), review's the dry run's plan to review.
var commandFlagKeys = map[string]map[string]string{
	"review": {"top": "review.top", "output-file": "review.out", "plan": "review.plan"},
	"sync":   {"plan": "split.plan"},
}

// setup loads the configuration (cli.Load) and sets up the logger.
func (a *app) setup(cmd *cobra.Command) error {
	a.cmd = cmd
	if !cli.ReadsConfig(cmd) {
		return nil
	}
	var err error
	if a.configFile, err = cli.Load(cmd, a.v, flagKey); err != nil {
		return err
	}
	if a.log, err = cli.NewLogger(a.v, a.stderr, a.tty); err != nil {
		return err
	}
	cli.WarnDeprecated(cmd, a.log)
	if err := a.splitterFromSplit(cmd); err != nil {
		return err
	}
	return a.checkSplitFlags(cmd)
}

// flagKey returns the setting a command's flag sets.
func flagKey(command, flag string) (string, bool) {
	key, ok := commandFlagKeys[command][flag]
	if !ok {
		key, ok = flagKeys[flag]
	}
	if !ok {
		key, ok = cli.FlagKeys[flag]
	}
	return key, ok
}

// exactArgs is cobra.ExactArgs with the usage exit code.
var exactArgs = cli.ExactArgs

func printf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format, args...)
}
