// Package evidence holds what a knowledge graph says about its nodes beyond
// their links (each node's kind and its evidence properties) and uses it to
// decide which pieces of a neighbourhood are one entity.
//
// A Context travels beside a graph.Graph: the readers (Neo4j import CSVs,
// the connector's pull) fill it, the engine reads it (fondue.Options.Context).
// A nil *Context says nothing, and the engine then behaves as without it.
package evidence

import (
	"fmt"
	"math"
)

// Context is the knowledge-graph context of the nodes of one graph.
type Context struct {
	// Kinds names the node kinds (a node's labels, sorted and joined by
	// ":"); Kind[i] is node i's index in Kinds, or -1 when unknown.
	Kinds []string
	Kind  []int32
	// Properties are the evidence properties, in the order the user named them.
	Properties []Property
}

// Property is one evidence property of the nodes: text is evidence by its
// words, a number by its closeness.
type Property struct {
	Name    string
	Numeric bool
	Text    []string  // per node when !Numeric; "" when absent
	Number  []float64 // per node when Numeric; NaN when absent
}

// Reason is one piece of evidence that joined pieces of a neighbourhood into
// one group: a context node or a property value that they share.
type Reason struct {
	Kind   string  // the context node's kind, or the property's name
	Node   int     // the shared context node, -1 for a property value
	Value  string  // the property's word or value; "" for a node
	Weight float64 // how much it counted (larger: rarer in the graph)
}

// Check reports a Context that does not fit a graph of n nodes.
func (c *Context) Check(n int) error {
	if c == nil {
		return nil
	}
	if c.Kind != nil && len(c.Kind) != n {
		return fmt.Errorf("evidence: %d node kinds for %d nodes", len(c.Kind), n)
	}
	for i, k := range c.Kind {
		if k < -1 || int(k) >= len(c.Kinds) {
			return fmt.Errorf("evidence: node %d has kind %d of %d", i, k, len(c.Kinds))
		}
	}
	for _, p := range c.Properties {
		if p.Numeric && len(p.Number) != n || !p.Numeric && len(p.Text) != n {
			return fmt.Errorf("evidence: property %q has values for %d nodes, not %d", p.Name, max(len(p.Number), len(p.Text)), n)
		}
	}
	return nil
}

// Absent is the Number of a node without the property.
var Absent = math.NaN()

// Empty reports whether no node has a value of the property (a name
// that no node has, mistyped for instance).
func (p *Property) Empty() bool {
	for _, x := range p.Number {
		if !math.IsNaN(x) {
			return false
		}
	}
	for _, s := range p.Text {
		if s != "" {
			return false
		}
	}
	return true
}
