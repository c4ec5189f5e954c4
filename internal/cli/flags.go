package cli

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/internal/config"
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
		fl, ok := s.FlagOn(on)
		if !ok {
			continue
		}
		f := addFlag(fs, &s, fl.Name, fl.Help)
		f.Annotations = map[string][]string{settingOf: {s.Key}}
		completeWith(cmd, fl.Name, fl.Complete)
		if fl.Old == "" {
			continue
		}
		if old := addDeprecated(fs, Deprecated{Old: fl.Old, Shorthand: fl.OldShorthand, New: fl.Name}); old != nil {
			completeWith(cmd, old.Name, fl.Complete) // an older spelling completes as the flag it sets
		}
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
