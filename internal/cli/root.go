package cli

import (
	"io"
	"os"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// SetupRoot makes root a command that Run can run: errors are returned,
// not printed (Run prints them, on one line), a flag error has the usage
// exit code, output goes to stdout and stderr, and the flags named in
// aliases (besides FlagAliases) are accepted under their other names. It
// adds the persistent flags every command reads its configuration with:
// --config, --log-level and --log-format.
func SetupRoot(root *cobra.Command, stdout, stderr io.Writer, aliases map[string]string) {
	root.SilenceUsage = true
	root.SilenceErrors = true
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return UsageErrorf("%v (see '%s --help')", err, c.CommandPath())
	})
	pf := root.PersistentFlags()
	pf.String("config", "", "config file (default: ./fondue.yaml, then $XDG_CONFIG_HOME/fondue-neo4j/fondue.yaml, /etc/fondue-neo4j/fondue.yaml)")
	pf.String("log-level", "info", "log level: debug, info, warn, error")
	pf.String("log-format", "", "log format: text or json (default: text on a terminal, json otherwise)")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetGlobalNormalizationFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if canonical, ok := FlagAliases[name]; ok {
			name = canonical
		} else if canonical, ok := aliases[name]; ok {
			name = canonical
		}
		return pflag.NormalizedName(name)
	})
}

// IsTerminal is whether w is a terminal.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// FlagValues lists the values shell completion offers for the flags this
// package adds that take one of a few names.
func FlagValues(flag string) []string {
	switch flag {
	case "method":
		return score.Methods()
	case "mode":
		return []string{"auto", "exact", "sampled"}
	case "log-level":
		return []string{"debug", "info", "warn", "error"}
	case "log-format":
		return []string{"text", "json"}
	}
	return nil
}

// RegisterCompletions offers the values of the flags that take one of a
// few names (values, by command and flag) to shell completion, on every
// command below root.
func RegisterCompletions(root *cobra.Command, values func(command, flag string) []string) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			name := f.Name
			if to := DeprecatedFor(f); to != "" {
				name = to // an older spelling completes as the flag it sets
			}
			vals := slices.Clone(values(c.Name(), name))
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
