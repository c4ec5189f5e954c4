package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"golang.org/x/term"
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
	a := &app{v: viper.New(), stdin: stdin, stdout: stdout, stderr: stderr}
	if f, ok := stderr.(*os.File); ok {
		a.tty = term.IsTerminal(int(f.Fd()))
	}
	if f, ok := stdout.(*os.File); ok {
		a.outTTY = term.IsTerminal(int(f.Fd()))
	}
	return a
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "fondue-neo4j",
		Short: "Find and split ambiguous nodes in a graph with FONDUE",
		Long: `fondue-neo4j finds ambiguous nodes (nodes that stand for two or more real-world
entities) with the FONDUE method on a Conditional Network Embedding, from an
edge list ("score") or a Neo4j database ("sync"), and can split them ("sync
--split", "undo").`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.setup(cmd)
		},
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("%v (see '%s --help')", err, c.CommandPath())
	})
	pf := root.PersistentFlags()
	pf.String("config", "", "config file (default: ./fondue.yaml, then $XDG_CONFIG_HOME/fondue-neo4j/fondue.yaml, /etc/fondue-neo4j/fondue.yaml)")
	pf.String("log-level", "", "log level: debug, info, warn, error")
	pf.String("log-format", "", "log format: text or json (default: text on a terminal, json otherwise)")
	pf.String("max-memory", "", "refuse runs whose estimated peak memory exceeds this (e.g. 4GiB; default: available memory; none: no limit)")
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.AddCommand(newScoreCmd(a), newReviewCmd(a), newSyncCmd(a), newUndoCmd(a), newEstimateCmd(a))
	benchCmd := newBenchCmd(a)
	benchCmd.AddCommand(newBenchScaleCmd(a))
	root.AddCommand(benchCmd)
	return root
}

// flagKeys maps command-line flag names to configuration keys, for every
// flag that has a config-file and environment equivalent.
var flagKeys = map[string]string{
	"log-level":          "log.level",
	"log-format":         "log.format",
	"seed":               "seed",
	"threads":            "threads",
	"method":             "method",
	"random-splits":      "random_splits",
	"unnormalized":       "unnormalized",
	"polish":             "polish",
	"dim":                "embedding.dim",
	"sigma1":             "embedding.sigma1",
	"sigma2":             "embedding.sigma2",
	"epochs":             "embedding.epochs",
	"lr":                 "embedding.learning_rate",
	"neg-ratio":          "embedding.neg_ratio",
	"mode":               "embedding.mode",
	"tol":                "embedding.tol",
	"checkpoint":         "embedding.checkpoint",
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
	"fetch-size":          "graph.fetch_size",
	"write-property":      "write.property",
	"score-property":      "write.score_property",
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
}

// setup loads the configuration: flag > environment (FONDUE_*) > file > default.
func (a *app) setup(cmd *cobra.Command) error {
	a.cmd = cmd
	v := a.v
	setDefaults(v)
	v.SetEnvPrefix("FONDUE")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_", "-", "_"))
	v.AutomaticEnv()
	var bindErr error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if key, ok := flagKeys[f.Name]; ok && bindErr == nil {
			bindErr = v.BindPFlag(key, f)
		}
	})
	if bindErr != nil {
		return bindErr
	}
	explicit, _ := cmd.Flags().GetString("config")
	if explicit == "" {
		explicit = os.Getenv("FONDUE_CONFIG")
	}
	if explicit != "" {
		v.SetConfigFile(explicit)
	} else {
		v.SetConfigName("fondue")
		v.SetConfigType("yaml")
		v.AddConfigPath(".")
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			v.AddConfigPath(filepath.Join(x, "fondue-neo4j"))
		} else if h, err := os.UserHomeDir(); err == nil {
			v.AddConfigPath(filepath.Join(h, ".config", "fondue-neo4j"))
		}
		v.AddConfigPath("/etc/fondue-neo4j")
	}
	if err := v.ReadInConfig(); err != nil {
		var nf viper.ConfigFileNotFoundError
		if !errors.As(err, &nf) || explicit != "" {
			if os.IsNotExist(err) || errors.As(err, &nf) {
				return usageErrorf("config file %s not found", explicit)
			}
			return usageErrorf("config file %s: %v", v.ConfigFileUsed(), err)
		}
	} else {
		a.configFile = v.ConfigFileUsed()
	}
	if err := a.setupLogger(); err != nil {
		return err
	}
	return a.splitterFromSplit(cmd)
}

func (a *app) setupLogger() error {
	var level slog.Level
	switch lv := strings.ToLower(a.v.GetString("log.level")); lv {
	case "", "info":
		level = slog.LevelInfo
	case "debug":
		level = slog.LevelDebug
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		return usageErrorf("log level %q: want debug, info, warn or error", lv)
	}
	opts := &slog.HandlerOptions{Level: level}
	format := strings.ToLower(a.v.GetString("log.format"))
	if format == "" {
		format = "json"
		if a.tty {
			format = "text"
		}
	}
	switch format {
	case "text":
		a.log = slog.New(slog.NewTextHandler(a.stderr, opts))
	case "json":
		a.log = slog.New(slog.NewJSONHandler(a.stderr, opts))
	default:
		return usageErrorf("log format %q: want text or json", format)
	}
	return nil
}

func isUsageError(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") ||
		strings.Contains(msg, "arg(s)")
}

// exactArgs is cobra.ExactArgs with the usage exit code.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s needs %s (see '%s --help')", cmd.CommandPath(), what, cmd.CommandPath())
		}
		return nil
	}
}

func printf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format, args...)
}
