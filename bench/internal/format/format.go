// Package format writes numbers the way both reports of the bench show
// them (three decimals without a leading zero, seconds to about three
// digits) and rounds them for the JSON files.
package format

import (
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
