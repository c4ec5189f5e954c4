package dedup

import (
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/rng"
)

// nickOf lists, per folded first name, its partners in the nickname table.
var nickOf = func() map[string][]string {
	m := map[string][]string{}
	for p := range nicknames {
		m[p[0]] = append(m[p[0]], p[1])
	}
	for k := range m {
		slices.Sort(m[k])
	}
	return m
}()

// vary returns a variant of a folded name as people write one name in
// several ways: the same string up to case and accents, the first name as an
// initial, a middle name dropped or added as an initial, a second surname dropped,
// a nickname, all given names as initials. Not one letter changed: on the
// development half it lowered AP (.768 -> .754); names one letter apart
// are weighed by the graph instead (fitUnseen). Not the order swapped: measured on the development half,
// swapped positives filled the top with reordered names of two people. Each applicable way is
// equally likely; no frequency is taken from any data set.
func vary(nm name, r *rng.SplitMix) name {
	t := nm.tokens
	if len(t) == 0 {
		return nm
	}
	var ways []func() []string
	ways = append(ways, func() []string { return t })
	if len(t) >= 2 && len(t[0]) > 1 {
		ways = append(ways, func() []string { return append([]string{t[0][:1]}, t[1:]...) })
	}
	if len(t) >= 3 {
		ways = append(ways, func() []string {
			k := 1 + int(r.Intn(uint32(len(t)-2)))
			return append(slices.Clone(t[:k]), t[k+1:]...)
		})
	}
	if len(t) >= 2 {
		ways = append(ways, func() []string {
			mid := string(rune('a' + r.Intn(26)))
			return append(append(slices.Clone(t[:len(t)-1]), mid), t[len(t)-1])
		})
		ways = append(ways, func() []string {
			out := slices.Clone(t)
			for i := 0; i < len(out)-1; i++ {
				out[i] = out[i][:1]
			}
			return out
		})
	}
	if len(t) >= 3 && len(t[len(t)-1]) > 1 {
		// a second surname dropped (Porta Zamorano -> Porta)
		ways = append(ways, func() []string { return slices.Clone(t[:len(t)-1]) })
	}
	if nk := nickOf[t[0]]; len(nk) > 0 && len(t) >= 2 {
		ways = append(ways, func() []string {
			return append([]string{nk[r.Intn(uint32(len(nk)))]}, t[1:]...)
		})
	}
	v := ways[r.Intn(uint32(len(ways)))]()
	return name{tokens: v, compact: strings.Join(v, ""), lower: strings.Join(v, "")}
}
