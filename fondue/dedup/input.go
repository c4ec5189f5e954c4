package dedup

import (
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// NewInput is the Input of a graph read with its nodes' names, as every
// reader builds it (the duplicates command's files, sync's pull): targets
// (nil: every node) are compared by names[i], the name property's value
// ("" none); a node that is not compared and has no name is named by
// display[i] (nil: none) in reasons ("venue EMNLP"). names is reused.
func NewInput(g *graph.Graph, names, display []string, targets []bool, c *evidence.Context) Input {
	in := Input{Graph: g, Names: names, Context: c}
	if targets != nil {
		in.Targets = []int{}
		for i, t := range targets {
			if t {
				in.Targets = append(in.Targets, i)
			} else if names[i] == "" && display != nil {
				names[i] = display[i]
			}
		}
	}
	return in
}

// Compared returns how many nodes Find compares, and how many of them
// have a name: fewer than two compared, or none named, leaves nothing to
// find (each reader says so in its own words).
func (in Input) Compared() (compared, named int) {
	if in.Targets == nil {
		for _, n := range in.Names {
			if n != "" {
				named++
			}
		}
		return len(in.Names), named
	}
	for _, i := range in.Targets {
		if in.Names[i] != "" {
			named++
		}
	}
	return len(in.Targets), named
}
