package output

import (
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Reasons gives, per group of p, the shared context that made its pieces
// one group (fondue.Proposal.Reasons) as a person reads it: a context node
// by its display name (nm, else its id), a property by its word or value.
// nil when the proposal has no reasons.
func Reasons(g *graph.Graph, p *fondue.Proposal, nm names.Names) [][]splitplan.Reason {
	if p == nil || p.Reasons == nil {
		return nil
	}
	out := make([][]splitplan.Reason, len(p.Reasons))
	for k, rs := range p.Reasons {
		for _, r := range rs {
			out[k] = append(out[k], Reason(g, r, nm))
		}
	}
	return out
}

// Reason is one evidence.Reason as a person reads it (see Reasons).
func Reason(g *graph.Graph, r evidence.Reason, nm names.Names) splitplan.Reason {
	v := r.Value
	if r.Node >= 0 && r.Node < g.NumNodes() {
		v = nm.Of(g.Key(r.Node))
	}
	return splitplan.Reason{Kind: r.Kind, Value: v, Weight: r.Weight}
}
