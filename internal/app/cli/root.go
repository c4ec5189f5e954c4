package cli

import (
	"io"
	"os"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// SetupRoot makes root a command that Run can run: errors are returned,
// not printed (Run prints them, on one line), a flag error has the usage
// exit code, output goes to stdout and stderr, and the settings' flags are
// accepted under their aliases (config.Setting.Aliases: --concurrency for
// --threads). It adds the persistent flags every command reads its
// configuration with: --config, and the settings' flags of every command
// (config.CmdEvery: --log-level and --log-format).
func SetupRoot(root *cobra.Command, stdout, stderr io.Writer) {
	root.SilenceUsage = true
	root.SilenceErrors = true
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return UsageErrorf("%v (see '%s --help')", flagError(c, err), c.CommandPath())
	})
	pf := root.PersistentFlags()
	pf.String("config", "", "config file: YAML, or JSON or TOML by its extension (default: the first fondue.yaml, .yml, .json or .toml of ., $XDG_CONFIG_HOME/fondue-neo4j, /etc/fondue-neo4j)")
	addFlags(root, pf, config.CmdEvery)
	root.SetOut(stdout)
	root.SetErr(stderr)
	aliases := flagAliases()
	root.SetGlobalNormalizationFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if canonical, ok := aliases[name]; ok {
			name = canonical
		}
		return pflag.NormalizedName(name)
	})
}

// flagAliases maps the flag names of the settings' aliases to their flags.
func flagAliases() map[string]string {
	m := map[string]string{}
	for _, s := range config.Settings() {
		for _, a := range s.Aliases {
			for _, f := range s.Flags {
				m[config.FlagName(a)] = f.Name
			}
		}
	}
	return m
}

// IsTerminal is whether w is a terminal.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// RegisterCompletions offers the values of the flags that take one of a
// few names (values, by command and flag) to shell completion, on every
// command below root. (The settings' flags offer theirs already: AddFlags.)
func RegisterCompletions(root *cobra.Command, values func(command, flag string) []string) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if _, ok := KeyOf(f); ok {
				return
			}
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
