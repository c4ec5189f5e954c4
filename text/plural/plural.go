// Package plural writes counts of things in English: "1 line", "3 lines".
package plural

import "strconv"

// N writes n and the noun one, plural by an added "s" unless n is 1 or -1:
// "1 node", "0 nodes", "3 nodes".
func N(n int, one string) string { return Of(n, one, one+"s") }

// Of writes n and the noun, one when n is 1 or -1, else many: Of(2,
// "self-loop", "self-loops"), Of(3, "property", "properties").
func Of(n int, one, many string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + many
}
