package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/fondue-neo4j/fondue-neo4j/text/textdist"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError rewrites pflag's errors in the user's words: a value of the
// wrong kind as config does for every other source ("flag --top: top =
// abc: want a non-negative integer"), never strconv's message; an unknown
// flag with the closest flag of the command, when one is close.
func flagError(c *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	var ne *pflag.NotExistError
	switch {
	case errors.As(err, &iv):
		f := iv.GetFlag()
		// pflag's own values fail in strconv's words; a value of its own
		// (a switch, a list) says it in the user's.
		msg, want := iv.Unwrap().Error(), ""
		if ne := (*strconv.NumError)(nil); errors.As(iv, &ne) {
			want = wantOfType(f.Value.Type())
			msg = "want " + want
		}
		if key, ok := KeyOf(f); ok {
			if s, ok := config.Lookup(key); ok && want != "" {
				if _, perr := s.Parse(iv.GetValue()); perr != nil {
					msg = perr.Error()
				}
			}
			return &config.Error{Source: config.Source{Kind: config.FromFlag, Name: f.Name}, Key: key, Raw: iv.GetValue(), Msg: msg}
		}
		return fmt.Errorf("flag --%s = %s: %s", f.Name, iv.GetValue(), msg)
	case errors.As(err, &ne) && ne.GetSpecifiedShortnames() == "":
		name := ne.GetSpecifiedName()
		if sug := closestFlag(c, name); sug != "" {
			return fmt.Errorf("%w; did you mean --%s?", err, sug)
		}
	}
	return err
}

// wantOfType says what a flag of pflag's type takes, "" for a type of its
// own (whose Set says it).
func wantOfType(typ string) string {
	switch typ {
	case "int", "int8", "int16", "int32", "int64":
		return "an integer"
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "a non-negative integer"
	case "float32", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration such as 30s, 2m or 1h"
	}
	return ""
}

// closestFlag returns the visible flag of c closest to name by edit
// distance, when it is close enough to be a likely typo; "" otherwise.
func closestFlag(c *cobra.Command, name string) string {
	best, bestD := "", 0
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		d := textdist.OSA(strings.ToLower(name), f.Name)
		if strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name) {
			d = min(d, 1) // --thread for --threads, --node for --nodes
		}
		if best == "" || d < bestD || (d == bestD && f.Name < best) {
			best, bestD = f.Name, d
		}
	})
	if best != "" && bestD <= max(2, len(name)/5) {
		return best
	}
	return ""
}
