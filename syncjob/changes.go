package syncjob

import (
	"fmt"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// changes lists changed nodes for one line: "node 11 (Valjean): added
// neighbour 77; removed 26 (Cosette); node 48 ...", the first five.
func changes(nodes []NodeOutcome) string {
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

// maxListed bounds the neighbours a change names.
const maxListed = 10

// changeText says how a node's neighbours changed: "added neighbour 77;
// removed 26 (Cosette)".
func changeText(added, removed []string) string {
	list := func(xs []string) string {
		s := strings.Join(xs[:min(len(xs), maxListed)], ", ")
		if len(xs) > maxListed {
			s += fmt.Sprintf(" and %d more", len(xs)-maxListed)
		}
		return s
	}
	noun := func(xs []string) string {
		if len(xs) == 1 {
			return "neighbour "
		}
		return "neighbours "
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added "+noun(added)+list(added))
	}
	if len(removed) > 0 {
		if len(added) > 0 {
			parts = append(parts, "removed "+list(removed))
		} else {
			parts = append(parts, "removed "+noun(removed)+list(removed))
		}
	}
	return strings.Join(parts, "; ")
}
