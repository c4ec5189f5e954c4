package edgelist_test

import (
	"fmt"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
)

// An edge list with a header line: the header is recognised and skipped,
// duplicate edges count once in the graph.
func ExampleRead() {
	in := "source target\nann bob\nbob cat\nann bob\n"
	g, st, err := edgelist.Read(strings.NewReader(in), "friends.edges", edgelist.HeaderAuto)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("header:", st.HeaderText)
	fmt.Println("edge lines:", st.Edges, "edges:", g.NumEdges())
	for i := range g.NumNodes() {
		fmt.Println(g.Key(i), g.Degree(i))
	}
	// Output:
	// header: source target
	// edge lines: 3 edges: 2
	// ann 1
	// bob 2
	// cat 1
}

// A malformed line is reported with the file and line, in the user's words.
func ExampleRead_error() {
	in := "ann bob\nann\n"
	_, _, err := edgelist.Read(strings.NewReader(in), "friends.edges", edgelist.HeaderNone)
	fmt.Println(err)
	// Output:
	// friends.edges:2: want 2 node ids ("u v"), found 1 field "ann"
}
