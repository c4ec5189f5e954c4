package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// splitFlag is --split, the same switch in every command (config
// split.enabled): score and review propose splits, sync carries them out.
// The splitter is --splitter NAME (split.method). The old score spelling
// --split=NAME still works: it switches splitting on and picks NAME, with a
// deprecation warning.
type splitFlag struct {
	on   bool
	name string // a splitter given the old way, --split=NAME
}

func (s *splitFlag) String() string { return strconv.FormatBool(s.on) }
func (s *splitFlag) Type() string   { return "bool" }

func (s *splitFlag) Set(v string) error {
	if b, err := strconv.ParseBool(v); err == nil {
		s.on, s.name = b, ""
		return nil
	}
	if isSplitterName(v) {
		s.on, s.name = true, v
		return nil
	}
	return fmt.Errorf("--split is a switch; pick the splitter with --splitter NAME (%s)", strings.Join(splitterNames(), ", "))
}

// useSplitFlag makes the --split flag of fs (cli.AddFlags gives it) a
// splitFlag, which takes the old --split=NAME too.
func useSplitFlag(fs *pflag.FlagSet) {
	fs.Lookup("split").Value = &splitFlag{}
}

// splitterFromSplit turns the deprecated --split=NAME into --split
// --splitter NAME, once the configuration is loaded.
func (a *app) splitterFromSplit(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("split")
	if f == nil {
		return nil
	}
	sf, ok := f.Value.(*splitFlag)
	if !ok || sf.name == "" {
		return nil
	}
	if s := cmd.Flags().Lookup("splitter"); s != nil && s.Changed && s.Value.String() != sf.name {
		return usageErrorf("--split=%s and --splitter %s disagree: write --split --splitter NAME", sf.name, s.Value.String())
	}
	a.log.Warn(fmt.Sprintf("--split=%s is deprecated: write --split --splitter %s", sf.name, sf.name))
	a.cfg.Split.Method = sf.name
	return nil
}

// splitValueAsArg explains "--split mcl" ("mcl" is then a stray argument
// since --split is a switch).
func splitValueAsArg(cmd *cobra.Command, args []string) error {
	f := cmd.Flags().Lookup("split")
	if f == nil || !f.Changed {
		return nil
	}
	for _, a := range args {
		if isSplitterName(a) {
			return usageErrorf("--split %s: --split is a switch; write --split --splitter %s", a, a)
		}
	}
	return nil
}

// splitOnlyFlags are the flags that only matter with --split.
var splitOnlyFlags = []string{"splitter", "split-top", "split-min-ambiguity"}

// checkSplitFlags refuses --splitter, --split-top and --split-min-ambiguity
// on the command line of a command that splits only with --split, when
// splitting is off: they would do nothing, silently. (In the configuration
// file or the environment they are left alone: one file serves runs with and
// without --split.)
func (a *app) checkSplitFlags(cmd *cobra.Command) error {
	if cmd.Flags().Lookup("split") == nil || a.cfg.Split.Enabled {
		return nil
	}
	for _, name := range splitOnlyFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			what := "propose splits"
			if cmd.Name() == "sync" {
				what = "split nodes"
			}
			return usageErrorf("--%s %s does nothing without --split: add --split (config split.enabled) to %s, or drop --%s",
				name, f.Value.String(), what, name)
		}
	}
	return nil
}
