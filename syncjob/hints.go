package syncjob

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The hints of a pull, worded alike by every Store: what a node is, what
// lies outside an empty subgraph, what would name unnamed nodes.

// DescribeNode names a node for messages: its element id and, when known,
// its labels: elementId(n) = "4:..:12" (:Paper).
func DescribeNode(id string, labels []string) string {
	s := fmt.Sprintf("elementId(n) = %q", id)
	switch {
	case labels == nil:
	case len(labels) == 0:
		s += " (no label)"
	default:
		s += " (:" + strings.Join(labels, ":") + ")"
	}
	return s
}

// OutsideNote says, for a subgraph without relationships, how many
// relationships of its types join one of its nodes to a node outside, by
// the labels of the outside end (a relationship counts for each label of
// that end; "" for an end without labels): a label of theirs is what
// PullOptions.NodeLabels misses. Empty when there are none.
func OutsideNote(outside int, byLabel map[string]int) string {
	if outside == 0 {
		return ""
	}
	var parts []string
	for _, l := range byCount(byLabel) {
		name := strconv.Quote(l)
		if l == "" {
			name = "no label"
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", name, byLabel[l]))
	}
	return fmt.Sprintf("; %d relationships with an end outside the nodes, at nodes labelled %s: add a label of theirs to the node labels",
		outside, strings.Join(parts, ", "))
}

// UnnamedSample is the number of nodes without a display name whose
// properties a Store looks at to suggest one.
const UnnamedSample = 100

// NewUnnamed describes the nodes without a display name: their number,
// the labels of each (counted), and the text properties of each of a
// sample (props, at most UnnamedSample), counted to rank them. Properties
// named fondue_* (the tool's own) and o.IDProperty (already the node's
// key) are left out. Nil when count is 0.
func NewUnnamed(o PullOptions, count int, labels map[string]int, props [][]string) *Unnamed {
	if count == 0 {
		return nil
	}
	u := &Unnamed{Nodes: count, Labels: byCount(labels)}
	n := map[string]int{}
	for _, ps := range props {
		for _, p := range ps {
			if p != o.IDProperty && !strings.HasPrefix(p, "fondue_") && !slices.Contains(o.DisplayProperties, p) {
				n[p]++
			}
		}
	}
	u.Properties = byCount(n)
	return u
}

// byCount lists the keys of m, most counted first, then by name.
func byCount(m map[string]int) []string {
	ks := slices.Collect(maps.Keys(m))
	slices.SortFunc(ks, func(a, b string) int {
		if c := cmp.Compare(m[b], m[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return ks
}
