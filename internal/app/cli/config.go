package cli

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ReadsConfig is whether cmd reads the configuration: help and shell
// completion do not.
func ReadsConfig(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
			return false
		}
	}
	return true
}

// Load reads the configuration of cmd (config.Load): flag > environment
// (FONDUE_*) > file > default, each value checked against its setting. An
// unknown key or variable, or a value of the wrong kind, stops the run
// with one message naming it and where it came from.
func Load(cmd *cobra.Command) (*config.Config, error) {
	src := config.Sources{Flags: map[string]*pflag.Flag{}}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if key, ok := KeyOf(f); ok && f.Changed {
			src.Flags[key] = f
		}
	})
	var err error
	if src.File, err = ConfigPath(cmd); err != nil {
		return nil, err
	}
	if src.File == "" {
		src.Dirs = configDirs()
	}
	c, err := config.Load(src)
	if err != nil {
		return nil, WithCode(ExitUsage, err)
	}
	return c, nil
}

// FlagValue returns a flag's value for config.Setting.Parse: lists as
// lists, anything else as the text pflag holds.
func FlagValue(f *pflag.Flag) any {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return f.Value.String()
}

// ConfigPath returns the config file named by --config (or FONDUE_CONFIG),
// "" when none is.
func ConfigPath(cmd *cobra.Command) (string, error) {
	explicit, _ := cmd.Flags().GetString("config")
	what := "--config"
	if explicit == "" {
		explicit, what = os.Getenv("FONDUE_CONFIG"), "FONDUE_CONFIG"
	}
	if explicit == "" {
		return "", nil
	}
	st, err := os.Stat(explicit)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", UsageErrorf("config file %s not found (%s)", explicit, what)
	case err != nil:
		return "", UsageErrorf("config file %s (%s): %v", explicit, what, errors.Unwrap(err))
	case st.IsDir():
		return "", UsageErrorf("config file %s (%s) is a directory: give the path of a YAML file such as %s", explicit, what,
			filepath.Join(explicit, "fondue.yaml"))
	}
	return explicit, nil
}

// configDirs are the folders searched for fondue.yaml (or .yml, .json,
// .toml) when no file is named: ., $XDG_CONFIG_HOME/fondue-neo4j (or
// ~/.config/fondue-neo4j) and /etc/fondue-neo4j.
func configDirs() []string {
	dirs := []string{"."}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		dirs = append(dirs, filepath.Join(x, "fondue-neo4j"))
	} else if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(h, ".config", "fondue-neo4j"))
	}
	return append(dirs, "/etc/fondue-neo4j")
}

// namesValue is the value of a flag that takes names (labels,
// relationship types, properties: config.List): comma-separated, and
// repeatable (the lists are joined). Each name is literal, like the same
// setting's environment variable: spaces and quotes are part of it
// (pflag's StringSlice would read the text as CSV, trim nothing but fail on
// a quote with a parser's message). A name with a comma can only be given
// in a YAML list. It is a pflag.SliceValue (FlagValue).
type namesValue struct {
	names []string
	set   bool
}

func (v *namesValue) Set(s string) error {
	if !v.set {
		v.names, v.set = nil, true
	}
	return v.Append(s)
}

// Append adds the names of one comma-separated value (empty ones, as of
// a trailing comma, are dropped).
func (v *namesValue) Append(s string) error {
	for _, n := range strings.Split(s, ",") {
		if n != "" {
			v.names = append(v.names, n)
		}
	}
	return nil
}

func (v *namesValue) Replace(names []string) error {
	v.names = slices.Clone(names)
	return nil
}

func (v *namesValue) GetSlice() []string { return slices.Clone(v.names) }
func (v *namesValue) Type() string       { return "names" }
func (v *namesValue) String() string     { return strings.Join(v.names, ",") }
