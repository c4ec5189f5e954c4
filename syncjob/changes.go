package syncjob

import (
	"fmt"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// changes lists changed nodes for one line: "node 11 (Valjean): added
// neighbour 77; removed 26 (Cosette); node 48 ...", the first five.
func changes(nodes []splitplan.NodeOutcome) string {
	const most = 5
	var parts []string
	for _, n := range nodes[:min(len(nodes), most)] {
		parts = append(parts, "node "+keys.DescribeNode(n.Key, n.Name)+": "+n.Reason)
	}
	s := strings.Join(parts, "; ")
	if len(nodes) > most {
		s += fmt.Sprintf("; and %d more nodes", len(nodes)-most)
	}
	return s
}
