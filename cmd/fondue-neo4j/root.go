package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/internal/config"
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
	pf.String("log-level", "info", "log level: debug, info, warn, error")
	pf.String("log-format", "", "log format: text or json (default: text on a terminal, json otherwise)")
	pf.String("max-memory", "", "refuse runs whose estimated peak memory exceeds this (e.g. 4GiB; default: available memory; none: no limit)")
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.AddCommand(newScoreCmd(a), newReviewCmd(a), newSyncCmd(a), newUndoCmd(a), newEstimateCmd(a))
	benchCmd := newBenchCmd(a)
	benchCmd.AddCommand(newBenchScaleCmd(a))
	root.AddCommand(benchCmd)
	root.SetGlobalNormalizationFunc(normalizeFlag)
	registerCompletions(root)
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
	"checkpoint-force":   "embedding.checkpoint_force",
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
	"dry-run":             "dry_run",

	// score and review
	"top":          "top",
	"header":       "header",
	"print-header": "print_header",
	"names":        "names",
}

// flagAliases are other names accepted for flags (help shows the canonical
// name only): GDS's "concurrency" for --threads, the older --format of
// score, and undo's older --run.
var flagAliases = map[string]string{
	"concurrency": "threads",
	"format":      "output",
	"run":         "run-id",
}

func normalizeFlag(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if canonical, ok := flagAliases[name]; ok {
		name = canonical
	}
	return pflag.NormalizedName(name)
}

// commandFlagKeys overrides flagKeys for one command, where a flag name
// means something else: review's --top (default 20, at least 1) and its
// page's file are review's own settings; sync's --plan is the approved plan
// to apply (split.plan), review's the dry run's plan to review.
var commandFlagKeys = map[string]map[string]string{
	"review": {"top": "review.top", "out": "review.out", "plan": "review.plan"},
	"sync":   {"plan": "split.plan"},
}

// setup loads the configuration: flag > environment (FONDUE_*) > file >
// default. Every value is checked against its setting (internal/config):
// an unknown key or variable, or a value of the wrong kind, stops the run
// with one message naming it and where it came from.
func (a *app) setup(cmd *cobra.Command) error {
	a.cmd = cmd
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
			return nil // help and shell completion read no configuration
		}
	}
	v := a.v
	setDefaults(v)
	flags := map[string]*pflag.Flag{} // setting -> this command's flag for it
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if key, ok := flagKey(cmd.Name(), f.Name); ok {
			flags[key] = f
		}
	})
	path, err := a.configPath(cmd)
	if err != nil {
		return err
	}
	fileVals := map[string]config.Value{}
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return usageErrorf("config file %s: %v", path, errors.Unwrap(err))
		}
		if fileVals, err = config.ReadFile(path, data); err != nil {
			return withCode(exitUsage, err)
		}
		a.configFile = path
	}
	envVals, err := config.ReadEnv(os.Environ())
	if err != nil {
		return withCode(exitUsage, err)
	}
	for i := range config.Settings {
		s := &config.Settings[i]
		raw, src := s.Default, config.Source{Kind: config.FromDefault}
		if f := flags[s.Key]; f != nil && f.Changed {
			raw, src = flagValue(f), config.Source{Kind: config.FromFlag, Name: f.Name}
		} else if ev, ok := envVals[s.Key]; ok {
			raw, src = ev.Value, ev.Source
		} else if fv, ok := fileVals[s.Key]; ok {
			raw, src = fv.Value, fv.Source
		}
		val, err := s.Parse(raw)
		if err != nil {
			return withCode(exitUsage, &config.Error{Source: src, Key: s.Key, Raw: raw, Msg: err.Error()})
		}
		v.Set(s.Key, val)
	}
	if err := a.setupLogger(); err != nil {
		return err
	}
	return a.splitterFromSplit(cmd)
}

// flagKey returns the setting a command's flag sets.
func flagKey(command, flag string) (string, bool) {
	key, ok := commandFlagKeys[command][flag]
	if !ok {
		key, ok = flagKeys[flag]
	}
	return key, ok
}

// flagValue returns a flag's value for config.Setting.Parse: lists as
// lists, anything else as the text pflag holds.
func flagValue(f *pflag.Flag) any {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return f.Value.String()
}

// configPath returns the config file to read: --config (or FONDUE_CONFIG),
// else the first fondue.yaml of ., $XDG_CONFIG_HOME/fondue-neo4j (or
// ~/.config/fondue-neo4j) and /etc/fondue-neo4j; "" when there is none.
func (a *app) configPath(cmd *cobra.Command) (string, error) {
	explicit, _ := cmd.Flags().GetString("config")
	what := "--config"
	if explicit == "" {
		explicit, what = os.Getenv("FONDUE_CONFIG"), "FONDUE_CONFIG"
	}
	if explicit != "" {
		st, err := os.Stat(explicit)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return "", usageErrorf("config file %s not found (%s)", explicit, what)
		case err != nil:
			return "", usageErrorf("config file %s (%s): %v", explicit, what, errors.Unwrap(err))
		case st.IsDir():
			return "", usageErrorf("config file %s (%s) is a directory: give the path of a YAML file such as %s", explicit, what,
				filepath.Join(explicit, "fondue.yaml"))
		}
		return explicit, nil
	}
	dirs := []string{"."}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		dirs = append(dirs, filepath.Join(x, "fondue-neo4j"))
	} else if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(h, ".config", "fondue-neo4j"))
	}
	dirs = append(dirs, "/etc/fondue-neo4j")
	for _, d := range dirs {
		p := filepath.Join(d, "fondue.yaml")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", nil
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
		a.log = slog.New(quietDriver{slog.NewTextHandler(a.stderr, opts)})
	case "json":
		a.log = slog.New(quietDriver{slog.NewJSONHandler(a.stderr, opts)})
	default:
		return usageErrorf("log format %q: want text or json", format)
	}
	return nil
}

// checkCommand returns the usage error of an unknown command in args.
// Cobra makes that error itself, in Command.Find, for a command that has
// subcommands and no Args check; asking Find first, as Execute will, makes
// it a usage error without reading its text. It also gives every Args
// check, cobra's own among them (the completion command's), the usage exit
// code (usageArgs). Unknown flags are usage errors through the root's
// SetFlagErrorFunc. Shell completion requests are left to cobra.
func checkCommand(root *cobra.Command, args []string) error {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return nil
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd(args...)
	usageArgs(root)
	if _, _, err := root.Find(args); err != nil {
		return withCode(exitUsage, fmt.Errorf("%w (see '%s --help')", err, root.CommandPath()))
	}
	return nil
}

// usageArgs makes the errors of c's Args check, and of its subcommands',
// usage errors.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			var ee *exitErr
			if err != nil && !errors.As(err, &ee) {
				err = withCode(exitUsage, err)
			}
			return err
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
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
