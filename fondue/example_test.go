package fondue_test

import (
	"context"
	"fmt"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// Two groups of friends who never meet, and "sam", who is in both: two
// people with one name. Score ranks sam first, and ProposeSplits splits sam
// into one node per group.
func Example() {
	var b graph.Builder
	groups := [][]string{{"ann", "bob", "cat", "dan", "eve"}, {"fay", "gus", "hal", "ivy", "jon"}}
	for _, grp := range groups {
		for i, u := range grp {
			for _, v := range grp[i+1:] {
				b.AddEdge(u, v)
			}
			b.AddEdge("sam", u)
		}
	}
	b.AddEdge("eve", "fay") // one acquaintance across
	g := b.Build()

	ctx := context.Background()
	opts := fondue.Options{Seed: 1}
	res, err := fondue.Score(ctx, g, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	top := res.Ranking()[:1]
	props, err := fondue.ProposeSplits(ctx, g, res, top, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range props {
		fmt.Printf("%s (ambiguity %.2f):\n", g.Key(p.Node), p.Ambiguity)
		for _, grp := range p.Groups {
			var keys []string
			for _, j := range grp {
				keys = append(keys, g.Key(int(j)))
			}
			fmt.Println("  ", keys)
		}
	}
	// Output:
	// sam (ambiguity 1.00):
	//    [ann bob cat dan eve]
	//    [fay gus hal ivy jon]
}
