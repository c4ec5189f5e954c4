package memory

// ContextOptions describes a scoring with a Context (fondue.Options.Context):
// the graph's kinds and evidence properties, and its structural graph (the
// targets and their neighbours, on which the engine scores).
type ContextOptions struct {
	Nodes                            int64 // the graph's nodes
	StructuralNodes, StructuralEdges int64 // the structural graph's
	Numeric, Text                    int   // evidence properties of each type
	TextBytes                        int64 // the text properties' values, in bytes
}

// Context returns what a Context adds to every phase, to pass as
// Options.Held (Predict counts the graph's own n and m as if the whole
// graph were embedded, a bound for the smaller structural one). With n
// nodes, a structural graph of s nodes and e links, p numeric and q text
// properties of t bytes, in bytes:
//
//	kinds       = 4n
//	properties  = 8pn + 16qn + 5/4 t      (string headers, the allocator's rounding)
//	structural  = 8e + 8(s+1) + 56s + 9n  [only when s < n: the copy, its keys
//	                                       and key index, the node maps and marks]
//	evidence    = 96e                      the pieces of every target (its
//	                                       neighbours, 4 bytes each with
//	                                       slice headers) and their profiles
//	                                       (a token each, key and weight)
//	prints      = 28s                      the targets' evidence fingerprints:
//	                                       a hash per member, the fingerprints;
//	                                       the state's estimates and
//	                                       fingerprints
func Context(o ContextOptions) []Part {
	n, s, e := o.Nodes, o.StructuralNodes, o.StructuralEdges
	parts := ContextHeld(o)
	if s < n {
		parts = append(parts, Part{Name: "context: the structural graph", Bytes: 8*e + 8*(s+1) + 56*s + 9*n})
	}
	return append(parts, Part{Name: "context: pieces and profiles", Bytes: 96 * e},
		Part{Name: "context: evidence fingerprints", Bytes: 28 * s})
}

// ContextHeld is the part of Context that the context itself holds, its
// kinds and evidence values, without what scoring with it allocates (a
// run that reads the context but does not score, such as duplicates).
func ContextHeld(o ContextOptions) []Part {
	n := o.Nodes
	parts := []Part{{Name: "context: the nodes' kinds", Bytes: 4 * n}}
	if o.Numeric+o.Text > 0 {
		parts = append(parts, Part{Name: "context: evidence properties",
			Bytes: 8*int64(o.Numeric)*n + 16*int64(o.Text)*n + o.TextBytes*5/4})
	}
	return parts
}
