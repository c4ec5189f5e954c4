package dup

import (
	"slices"
	"strings"
	"unicode"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"golang.org/x/text/unicode/norm"
)

// Baseline names, in report order (the table).
const (
	BaselineFold    = "fold"
	BaselineJW      = "jaro-winkler"
	BaselineJaccard = "co-author-jaccard"
	BaselineMean    = "mean"
)

// BaselineNames lists the baselines in report order.
var BaselineNames = []string{BaselineFold, BaselineJW, BaselineJaccard, BaselineMean}

// BaselineText describes each baseline in a table's words.
var BaselineText = map[string]string{
	BaselineFold:    "names equal after folding case, accents, punctuation",
	BaselineJW:      "name similarity (Jaro-Winkler, blocked on last name + initial)",
	BaselineJaccard: "Jaccard of co-authors on the same candidates (GDS nodeSimilarity)",
	BaselineMean:    "mean of the two",
}

// letters folds the letters that NFKD does not split into base + mark.
var letters = strings.NewReplacer("ø", "o", "ł", "l", "đ", "d", "ð", "d", "þ", "th", "ß", "ss", "æ", "ae", "œ", "oe", "ı", "i")

// Tokens folds a name (NFKD, marks dropped, lower case, a few letters
// without a decomposition spelt out) and splits it on every rune that is
// not a letter or digit.
func Tokens(name string) []string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(strings.ToLower(name)) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return strings.FieldsFunc(letters.Replace(b.String()), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Fold is a name's key up to case, accents, punctuation and spacing.
func Fold(name string) string { return strings.Join(Tokens(name), "") }

// BlockKey is the Jaro-Winkler baseline's block: the folded last token and
// the first letter of the first ("" for a name with no letter).
func BlockKey(name string) string {
	t := Tokens(name)
	if len(t) == 0 {
		return ""
	}
	return t[len(t)-1] + " " + string([]rune(t[0])[:1])
}

// JaroWinkler is the Jaro-Winkler similarity of a and b over runes
// (prefix scale 0.1, prefix up to 4).
func JaroWinkler(a, b string) float64 {
	s, t := []rune(a), []rune(b)
	if len(s) == 0 && len(t) == 0 {
		return 1
	}
	if len(s) == 0 || len(t) == 0 {
		return 0
	}
	window := max(len(s), len(t))/2 - 1
	window = max(window, 0)
	ms, mt := make([]bool, len(s)), make([]bool, len(t))
	m := 0
	for i := range s {
		for j := max(0, i-window); j < min(len(t), i+window+1); j++ {
			if !mt[j] && s[i] == t[j] {
				ms[i], mt[j] = true, true
				m++
				break
			}
		}
	}
	if m == 0 {
		return 0
	}
	half, j := 0, 0
	for i := range s {
		if !ms[i] {
			continue
		}
		for !mt[j] {
			j++
		}
		if s[i] != t[j] {
			half++
		}
		j++
	}
	mf := float64(m)
	jaro := (mf/float64(len(s)) + mf/float64(len(t)) + (mf-float64(half/2))/mf) / 3
	prefix := 0
	for prefix < min(4, len(s), len(t)) && s[prefix] == t[prefix] {
		prefix++
	}
	return jaro + float64(prefix)*0.1*(1-jaro)
}

// Baselines scores the four baselines on the nodes targets (node
// indices) with names (per node index) and the graph g, whose co-authors
// of a node are the other nodes of targets two steps away. fold ranks the
// pairs with equal Fold (score 1); the others rank the pairs of one
// BlockKey: Jaro-Winkler of the folded names (Tokens joined by a space),
// Jaccard of the co-author sets (only the pairs above 0, as GDS
// nodeSimilarity writes them), and the mean of the two (every pair of a
// block). The pairs come in a fixed order.
func Baselines(g *graph.Graph, names []string, targets []int) map[string][]Pair {
	out := map[string][]Pair{}
	for _, p := range groupPairs(names, targets, Fold) {
		out[BaselineFold] = append(out[BaselineFold], Pair{A: p[0], B: p[1], Score: 1})
	}
	isTarget := make([]bool, g.NumNodes())
	for _, t := range targets {
		isTarget[t] = true
	}
	coauthors := func(i int) []int32 {
		var c []int32
		for _, p := range g.Neighbors(i) {
			for _, a := range g.Neighbors(int(p)) {
				if isTarget[a] && int(a) != i {
					c = append(c, a)
				}
			}
		}
		slices.Sort(c)
		return slices.Compact(c)
	}
	for _, p := range groupPairs(names, targets, BlockKey) {
		jw := JaroWinkler(strings.Join(Tokens(names[p[0]]), " "), strings.Join(Tokens(names[p[1]]), " "))
		jac := jaccard(coauthors(p[0]), coauthors(p[1]))
		out[BaselineJW] = append(out[BaselineJW], Pair{A: p[0], B: p[1], Score: jw})
		if jac > 0 { // GDS nodeSimilarity writes no pair of similarity 0
			out[BaselineJaccard] = append(out[BaselineJaccard], Pair{A: p[0], B: p[1], Score: jac})
		}
		out[BaselineMean] = append(out[BaselineMean], Pair{A: p[0], B: p[1], Score: (jw + jac) / 2})
	}
	return out
}

// groupPairs returns every pair (a < b) of targets with one non-empty key.
func groupPairs(names []string, targets []int, key func(string) string) [][2]int {
	groups := map[string][]int{}
	var keys []string
	for _, t := range targets {
		k := key(names[t])
		if k == "" {
			continue
		}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], t)
	}
	slices.Sort(keys)
	var out [][2]int
	for _, k := range keys {
		g := groups[k]
		for i := range g {
			for j := i + 1; j < len(g); j++ {
				out = append(out, [2]int{min(g[i], g[j]), max(g[i], g[j])})
			}
		}
	}
	return out
}

// jaccard is |a ∩ b| / |a ∪ b| of two sorted sets, 0 when both are empty.
func jaccard(a, b []int32) float64 {
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
