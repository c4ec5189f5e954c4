package cli

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/internal/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// KeyFunc returns the configuration key a command's flag sets, if any.
type KeyFunc func(command, flag string) (key string, ok bool)

// SetDefaults gives every configuration key its default (the settings of
// internal/config).
func SetDefaults(v *viper.Viper) {
	for _, s := range config.Settings {
		v.SetDefault(s.Key, s.Default)
	}
}

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

// Load loads the configuration into v: flag > environment (FONDUE_*) >
// file > default; keyOf says which flags of cmd set which key. Every value
// is checked against its setting (internal/config): an unknown key or
// variable, or a value of the wrong kind, stops the run with one message
// naming it and where it came from. It returns the config file read, ""
// if none.
func Load(cmd *cobra.Command, v *viper.Viper, keyOf KeyFunc) (string, error) {
	SetDefaults(v)
	flags := map[string]*pflag.Flag{} // setting -> this command's flag for it
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if key, ok := keyOf(cmd.Name(), f.Name); ok {
			flags[key] = f
		}
	})
	path, err := ConfigPath(cmd)
	if err != nil {
		return "", err
	}
	fileVals := map[string]config.Value{}
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", UsageErrorf("config file %s: %v", path, errors.Unwrap(err))
		}
		if fileVals, err = config.ReadFile(path, data); err != nil {
			return "", WithCode(ExitUsage, err)
		}
	}
	envVals, err := config.ReadEnv(os.Environ())
	if err != nil {
		return "", WithCode(ExitUsage, err)
	}
	for i := range config.Settings {
		s := &config.Settings[i]
		raw, src := s.Default, config.Source{Kind: config.FromDefault}
		if f := flags[s.Key]; f != nil && f.Changed {
			raw, src = FlagValue(f), config.Source{Kind: config.FromFlag, Name: f.Name}
		} else if ev, ok := envVals[s.Key]; ok {
			raw, src = ev.Value, ev.Source
		} else if fv, ok := fileVals[s.Key]; ok {
			raw, src = fv.Value, fv.Source
		}
		val, err := s.Parse(raw)
		if err != nil {
			return "", WithCode(ExitUsage, &config.Error{Source: src, Key: s.Key, Raw: raw, Msg: err.Error()})
		}
		v.Set(s.Key, val)
	}
	return path, nil
}

// FlagValue returns a flag's value for config.Setting.Parse: lists as
// lists, anything else as the text pflag holds.
func FlagValue(f *pflag.Flag) any {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return f.Value.String()
}

// ConfigPath returns the config file to read: --config (or FONDUE_CONFIG),
// else the first fondue.yaml of ., $XDG_CONFIG_HOME/fondue-neo4j (or
// ~/.config/fondue-neo4j) and /etc/fondue-neo4j; "" when there is none.
func ConfigPath(cmd *cobra.Command) (string, error) {
	explicit, _ := cmd.Flags().GetString("config")
	what := "--config"
	if explicit == "" {
		explicit, what = os.Getenv("FONDUE_CONFIG"), "FONDUE_CONFIG"
	}
	if explicit != "" {
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

// NamesFlag adds a flag that takes names (labels, relationship types,
// properties): comma-separated, and repeatable (the lists are joined).
// Each name is literal, like the same setting's environment variable:
// spaces and quotes are part of it (pflag's StringSlice would read the
// text as CSV, trim nothing but fail on a quote with a parser's message).
// A name with a comma can only be given in a YAML list.
func NamesFlag(f *pflag.FlagSet, name, usage string) {
	f.Var(&namesValue{}, name, usage)
}

// namesValue is NamesFlag's value; it is a pflag.SliceValue (FlagValue).
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
