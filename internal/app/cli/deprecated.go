package cli

import (
	"fmt"
	"log/slog"
	"sort"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Deprecated is an older spelling of a flag: Old (and Shorthand, if any)
// still sets New, hidden from help and completion's flag list, and a run
// that uses it logs a warning naming New (WarnDeprecated).
type Deprecated struct {
	Old, Shorthand, New string
}

// deprecatedFor is the annotation that marks a deprecated flag with the
// name of the flag it sets.
const deprecatedFor = "fondue-deprecated-for"

// AddDeprecatedFlags gives every command below root (root included) that
// has a local flag New a hidden flag Old, with Shorthand when no other
// flag of the command has it, that sets New. Call it once every command
// has its flags, before RegisterCompletions. (The older spellings of the
// settings' flags come with them: AddFlags.)
//
// (pflag's own deprecation notices would do, but cobra prints them on the
// command's output, stdout here, where they would spoil --output json.)
func AddDeprecatedFlags(root *cobra.Command, ds ...Deprecated) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, d := range ds {
			if c.LocalNonPersistentFlags().Lookup(d.New) != nil {
				addDeprecated(c.Flags(), d)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// addDeprecated gives fs, which has a flag d.New, the hidden flag d.Old
// that sets it (unless fs has a flag d.Old), with d.Shorthand when no other
// flag of fs has it; it returns the new flag, nil if none.
func addDeprecated(fs *pflag.FlagSet, d Deprecated) *pflag.Flag {
	target := fs.Lookup(d.New)
	if target == nil || fs.Lookup(d.Old) != nil {
		return nil
	}
	sh := d.Shorthand
	if sh != "" && fs.ShorthandLookup(sh) != nil {
		sh = ""
	}
	f := fs.VarPF(&forward{fs: fs, target: target}, d.Old, sh, "deprecated: --"+d.New)
	f.NoOptDefVal = target.NoOptDefVal
	f.DefValue = target.DefValue
	f.Hidden = true
	f.Annotations = map[string][]string{deprecatedFor: {d.New}}
	return f
}

// forward is the value of a deprecated flag: it sets its target.
type forward struct {
	fs     *pflag.FlagSet
	target *pflag.Flag
}

func (v *forward) String() string     { return v.target.Value.String() }
func (v *forward) Type() string       { return v.target.Value.Type() }
func (v *forward) Set(s string) error { return v.fs.Set(v.target.Name, s) }

// DeprecatedFor returns the flag a deprecated flag sets ("" for any other
// flag).
func DeprecatedFor(f *pflag.Flag) string {
	if t := f.Annotations[deprecatedFor]; len(t) == 1 {
		return t[0]
	}
	return ""
}

// WarnDeprecated logs a warning for each deprecated flag on cmd's command
// line: "--out is deprecated: write --output-file".
func WarnDeprecated(cmd *cobra.Command, log *slog.Logger) {
	var msgs []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if to := DeprecatedFor(f); to != "" {
			name := "--" + f.Name
			if f.Shorthand != "" {
				name += " (-" + f.Shorthand + ")"
			}
			msgs = append(msgs, fmt.Sprintf("%s is deprecated: write --%s", name, to))
		}
	})
	sort.Strings(msgs)
	for _, m := range msgs {
		log.Warn(m)
	}
}
