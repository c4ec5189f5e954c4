package config

import (
	"slices"
	"strings"
)

// Setting is one configuration key and everything about it: its kind,
// default and allowed values, its help, its flags (on which commands, and
// their older spellings), its other names and its field in a Config. The
// YAML key is Key, the environment variable EnvName(Key); the flags, the
// shell completion and the tables of docs/configuration.md are made from it.
type Setting struct {
	Key     string // dotted, lower case: "embedding.dim"
	Kind    Kind
	Default any
	Values  []string // Enum's values
	// Want, when set, replaces the kind's description in error messages.
	Want string
	// NotInFile, when set, makes the key an error in a config file; it is
	// the message saying where the value belongs instead.
	NotInFile string
	// Check, when set, checks a String, Size or Duration value, or each
	// name of a List, further; its error says what is expected.
	Check func(string) error
	// Path marks a String that names a file: relative in a config file,
	// it is relative to the file's folder (ReadFile); "-" is left alone.
	Path bool

	// Help says what the setting does, in one line: the help of its
	// flags (but those with their own) and the docs'.
	Help string
	// Doc, when set, is what the docs say instead of Help (Markdown),
	// and DocDefault the default as it says it.
	Doc, DocDefault string
	// Aliases are other names of the setting, each a YAML key, an
	// environment variable and, with dashes for dots and underscores, a
	// flag name: GDS calls the number of threads "concurrency".
	Aliases []string
	// Flags are the command-line flags that set it, each on some commands
	// (none: the setting has no flag).
	Flags []Flag
	// Complete, when set, are the values shell completion offers for its
	// flags; else an Enum's Values but "", and auto, true and false for an
	// AutoBool.
	Complete []string
	// Field is the setting's field in a Config (a pointer to it).
	Field func(*Config) any
}

// Flag is a command-line flag of a setting.
type Flag struct {
	Name string   // without dashes: "sigma2"
	On   Commands // the commands that offer it
	// Help and Complete, when set, replace the setting's on these commands.
	Help     string
	Complete []string
	// Old is an older spelling of the flag (OldShorthand its one-letter
	// form), still accepted: hidden from help, it warns when used.
	Old, OldShorthand string
}

// Commands is a set of commands of fondue-neo4j.
type Commands uint16

const (
	CmdScore      Commands = 1 << iota // fondue-neo4j score
	CmdReview                          // fondue-neo4j review
	CmdSync                            // fondue-neo4j sync
	CmdUndo                            // fondue-neo4j undo
	CmdEstimate                        // fondue-neo4j estimate
	CmdDuplicates                      // fondue-neo4j duplicates
	CmdPlan                            // fondue-neo4j plan list|accept|reject
	CmdEvery                           // every command: a flag of the root, inherited
)

var commandNames = []string{"score", "review", "sync", "undo", "estimate", "duplicates", "plan", "every command"}

// String lists the commands: "score, review, sync".
func (c Commands) String() string {
	var names []string
	for i, n := range commandNames {
		if c&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// FlagOn returns the setting's flag on the commands on (the first that any
// of them offers), with its help and completion values resolved; false when
// none of them offers one.
func (s *Setting) FlagOn(on Commands) (Flag, bool) {
	for _, f := range s.Flags {
		if f.On&on != 0 {
			if f.Help == "" {
				f.Help = s.Help
			}
			if f.Complete == nil {
				f.Complete = s.completeValues()
			}
			f.Complete = slices.Clone(f.Complete)
			return f, true
		}
	}
	return Flag{}, false
}

// completeValues are the values completion offers by default.
func (s *Setting) completeValues() []string {
	switch {
	case s.Complete != nil:
		return s.Complete
	case s.Kind == Enum:
		return slices.DeleteFunc(slices.Clone(s.Values), func(v string) bool { return v == "" })
	case s.Kind == AutoBool:
		return []string{"auto", "true", "false"}
	}
	return nil
}

// FlagName is the flag name of an alias: "concurrency" for "concurrency".
func FlagName(alias string) string {
	return strings.NewReplacer(".", "-", "_", "-").Replace(alias)
}

// clone returns a copy of s that shares no slice with it.
func (s Setting) clone() Setting {
	s.Values = slices.Clone(s.Values)
	s.Aliases = slices.Clone(s.Aliases)
	s.Complete = slices.Clone(s.Complete)
	s.Flags = slices.Clone(s.Flags)
	for i := range s.Flags {
		s.Flags[i].Complete = slices.Clone(s.Flags[i].Complete)
	}
	if l, ok := s.Default.([]string); ok {
		s.Default = slices.Clone(l)
	}
	return s
}
