// Package format writes numbers the way both reports of the bench show
// them (three decimals without a leading zero, seconds to about three
// digits), and rounds and encodes them for the JSON files.
package format

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// F3 formats a value like the paper's tables: three decimals, no leading
// zero (".868", "-.012"); NaN as "?".
func F3(x float64) string {
	if math.IsNaN(x) {
		return "?"
	}
	s := strconv.FormatFloat(x, 'f', 3, 64)
	s = strings.Replace(s, "0.", ".", 1)
	if s == "-.000" {
		s = ".000"
	}
	return s
}

// Seconds formats seconds with about three significant digits.
func Seconds(x float64) string {
	switch {
	case math.IsNaN(x):
		return "?"
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case x >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// Round6 rounds to six decimals, plenty for metrics in [−1, 1], and halves
// the size of the JSON files.
func Round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// JSON is v as one line of JSON for the results files. Only NaN and the
// infinities can fail, and the records guard against them (metrics.Stat
// and real.Num write NaN as null): a failure is a bug, and panics.
func JSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// JSONLines writes items as the elements of a JSON array, one a line: each
// after a newline and indent, the elements separated by commas. The caller
// writes the brackets.
func JSONLines[T any](w io.Writer, indent string, items []T) {
	for k, x := range items {
		sep := ","
		if k == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s\n%s%s", sep, indent, JSON(x))
	}
}
