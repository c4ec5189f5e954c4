package cli

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// settingOf is the annotation that marks a flag with the setting it sets.
const settingOf = "fondue-setting"

// AddFlags gives cmd the flags of every setting that the commands on offer
// (config.Setting.Flags): of the setting's kind, with its default, help
// and shell completion, and its older spelling, if any, as a hidden flag
// (AddDeprecatedFlags). A list of names is comma-separated and repeatable
// (NamesFlag's value), an AutoBool a switch that is "auto" until given.
func AddFlags(cmd *cobra.Command, on config.Commands) {
	addFlags(cmd, cmd.Flags(), on)
}

// addFlags adds the flags of the settings offered on on to fs, a flag set
// of cmd.
func addFlags(cmd *cobra.Command, fs *pflag.FlagSet, on config.Commands) {
	for _, s := range config.Settings() {
		if fl, ok := s.FlagOn(on); ok {
			addSettingFlag(cmd, fs, &s, fl)
		}
	}
}

// AddSettingFlags gives cmd the flags of the settings keys, made as
// AddFlags makes them, under the names fondue-neo4j gives them: for a
// program beside fondue-neo4j (fondue-bench) that reads some of the same
// settings and says which. help, when it has a key, replaces that
// setting's help. A key that is no setting, or a setting without a flag,
// panics: the caller's list is wrong.
func AddSettingFlags(cmd *cobra.Command, help map[string]string, keys ...string) {
	for _, k := range keys {
		s, ok := config.Lookup(k)
		if !ok {
			panic("cli: no setting " + k)
		}
		fl, ok := s.FlagOn(^config.Commands(0))
		if !ok {
			panic("cli: setting " + k + " has no flag")
		}
		if h, ok := help[k]; ok {
			fl.Help = h
		}
		addSettingFlag(cmd, cmd.Flags(), s, fl)
	}
}

// addSettingFlag adds setting s's flag fl to fs, a flag set of cmd, with
// its completion and older spelling.
func addSettingFlag(cmd *cobra.Command, fs *pflag.FlagSet, s *config.Setting, fl config.Flag) {
	f := addFlag(fs, s, fl.Name, fl.Help)
	f.Annotations = map[string][]string{settingOf: {s.Key}}
	completeWith(cmd, fl.Name, fl.Complete)
	if fl.Old == "" {
		return
	}
	if old := addDeprecated(fs, Deprecated{Old: fl.Old, Shorthand: fl.OldShorthand, New: fl.Name}); old != nil {
		completeWith(cmd, old.Name, fl.Complete) // an older spelling completes as the flag it sets
	}
}

// KeyOf returns the setting a flag sets (AddFlags); false for any other
// flag.
func KeyOf(f *pflag.Flag) (string, bool) {
	if k := f.Annotations[settingOf]; len(k) == 1 {
		return k[0], true
	}
	return "", false
}

// addFlag adds a flag of setting s's kind, with its default, as
// pflag's own functions make it.
func addFlag(fs *pflag.FlagSet, s *config.Setting, name, help string) *pflag.Flag {
	switch s.Kind {
	case config.Bool:
		fs.Bool(name, s.Default.(bool), help)
	case config.Uint:
		fs.Uint64(name, s.Default.(uint64), help)
	case config.NonNegInt, config.PosInt, config.Int:
		fs.Int(name, s.Default.(int), help)
	case config.PosFloat, config.Fraction:
		fs.Float64(name, s.Default.(float64), help)
	case config.List:
		fs.Var(&namesValue{names: slices.Clone(s.Default.([]string))}, name, help)
	case config.AutoBool:
		fs.Var(&autoBool{v: s.Default.(string)}, name, help)
		fs.Lookup(name).NoOptDefVal = "true"
	default: // String, Enum, Duration, Size: the text
		fs.String(name, s.Default.(string), help)
	}
	return fs.Lookup(name)
}

// autoBool is a switch that is "auto" until given: --print-header alone is
// true, --print-header=false false (config.AutoBool).
type autoBool struct{ v string }

func (b *autoBool) String() string { return b.v }
func (b *autoBool) Type() string   { return "bool" }

func (b *autoBool) Set(s string) error {
	if strings.EqualFold(strings.TrimSpace(s), "auto") {
		b.v = "auto"
		return nil
	}
	x, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want auto, true or false")
	}
	b.v = strconv.FormatBool(x)
	return nil
}

// completeWith offers values to shell completion for cmd's flag name.
func completeWith(cmd *cobra.Command, name string, values []string) {
	if values == nil {
		return
	}
	_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return slices.Clone(values), cobra.ShellCompDirectiveNoFileComp
	})
}

// CheckFlags reports how cmd's flags differ from the settings' flags on the
// commands on (the table of internal/app/config): a flag missing, another
// setting's, with other help, or an older spelling missing; and a
// setting's flag that the table does not give cmd. Nil when they agree;
// the tests of both programs call it for every command.
func CheckFlags(cmd *cobra.Command, on config.Commands) error {
	fs := cmd.LocalNonPersistentFlags()
	if on == config.CmdEvery {
		fs = cmd.PersistentFlags()
	}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{cmd.CommandPath()}, args...)...))
	}
	want := map[string]string{} // flag -> setting
	for _, s := range config.Settings() {
		fl, ok := s.FlagOn(on)
		if !ok {
			continue
		}
		want[fl.Name] = s.Key
		f := fs.Lookup(fl.Name)
		switch key, _ := KeyOf(f); {
		case f == nil:
			fail("no --%s (%s)", fl.Name, s.Key)
			continue
		case key != s.Key:
			fail("--%s sets %q, not %s", fl.Name, key, s.Key)
		case f.Usage != fl.Help:
			fail("--%s says %q, not %q", fl.Name, f.Usage, fl.Help)
		}
		if fl.Old != "" {
			if old := fs.Lookup(fl.Old); old == nil || !old.Hidden || DeprecatedFor(old) != fl.Name {
				fail("no hidden --%s for --%s", fl.Old, fl.Name)
			}
		}
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if key, ok := KeyOf(f); ok && want[f.Name] != key {
			fail("--%s sets %s, which the table does not give it", f.Name, key)
		}
	})
	return errors.Join(errs...)
}
