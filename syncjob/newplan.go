package syncjob

import (
	"slices"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// PlanOptions configure NewPlan.
type PlanOptions struct {
	RunID       string
	Splitter    string
	MarkerLabel string // default DefaultMarkerLabel
	// SkipProperties are not copied to clones; the write properties should
	// be among them (a clone's score is unknown until the next run).
	SkipProperties []string
	Now            time.Time
	// NeighborLinks lists in each node the links between its neighbours
	// (at most splitplan.MaxLinks), which a review page draws: a dry run's
	// plan has them; a stored plan, which only a re-run and undo read,
	// needs none (they are up to 4000 pairs a node).
	NeighborLinks bool
	// CloneKey is the scheme of the clones' keys with a key property
	// (splitplan.DefaultCloneKey when empty; splitplan.NoCloneKey: none).
	CloneKey string
}

// NewPlan turns the split proposals of res (computed on sg.Graph) into a
// plan. Proposals with fewer than two groups split nothing and are left out.
// A Cypher projection can be split only if its relationship query returned
// the relationships' element ids (column relationship): only those move.
func NewPlan(sg *Subgraph, res *fondue.Result, o PlanOptions) (*splitplan.Plan, error) {
	if o.MarkerLabel == "" {
		o.MarkerLabel = DefaultMarkerLabel
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	p := &splitplan.Plan{RunID: o.RunID, CreatedAt: splitplan.ISOTime(o.Now), Splitter: o.Splitter,
		IDProperty: sg.Options.IDProperty, MarkerLabel: o.MarkerLabel, Nodes: []splitplan.Node{}, NeighborLinks: o.NeighborLinks}
	if sg.Names != nil {
		p.DisplayProperties = slices.Clone(sg.Options.DisplayProperties)
	}
	if !sg.Options.Custom() {
		p.NodeLabels = slices.Clone(sg.Options.NodeLabels)
		p.RelationshipTypes = slices.Clone(sg.Options.RelationshipTypes)
		if len(p.RelationshipTypes) == 0 {
			p.ExcludeTypes = slices.Clone(sg.Options.ExcludeTypes)
		}
	} else {
		p.PulledOnly = true
		if sg.RelationshipIDs == nil && slices.ContainsFunc(res.Proposals, func(pr fondue.Proposal) bool { return len(pr.Groups) >= 2 }) {
			return nil, Errorf(ErrInvalid, nil, "a split of a Cypher projection moves only the relationships that were pulled: the relationship query must also return elementId(r) AS relationship")
		}
	}
	for _, s := range o.SkipProperties {
		if s != "" && !slices.Contains(p.SkipProperties, s) {
			p.SkipProperties = append(p.SkipProperties, s)
		}
	}
	for _, pr := range res.Proposals {
		if len(pr.Groups) < 2 {
			continue
		}
		pn := splitplan.Node{ID: sg.IDs[pr.Node], Key: sg.Key(pr.Node), Ambiguity: pr.Ambiguity, Score: pr.Score}
		if pr.Node < len(res.Entities) {
			pn.Entities = res.Entities[pr.Node]
		}
		if sg.Names != nil {
			pn.Name = sg.Names[pr.Node]
		}
		pos := map[int32]int{} // neighbour -> position through the groups
		for gi, grp := range pr.Groups {
			g := splitplan.Group{Neighbors: make([]keys.Key, len(grp)), NeighborIDs: make([]keys.Key, len(grp))}
			if gi < len(pr.Reasons) {
				g.Reasons = planReasons(sg, pr.Reasons[gi])
			}
			if sg.Names != nil {
				g.Names = make([]string, len(grp))
			}
			for k, j := range grp {
				pos[j] = len(pos)
				g.Neighbors[k] = sg.Key(int(j))
				g.NeighborIDs[k] = sg.IDs[j]
				if g.Names != nil {
					g.Names[k] = sg.Names[j]
				}
				if p.PulledOnly {
					a, b := pn.ID.Text(), sg.IDs[j].Text()
					g.RelationshipIDs = append(g.RelationshipIDs, sg.RelationshipIDs[[2]string{min(a, b), max(a, b)}]...)
				}
			}
			pn.Groups = append(pn.Groups, g)
		}
		if o.NeighborLinks {
			pn.Links, pn.LinksOmitted = neighborLinks(sg.Graph, pr.Groups, pos)
		}
		p.Nodes = append(p.Nodes, pn)
	}
	if err := assignCloneKeys(p, sg, o.CloneKey); err != nil {
		return nil, err
	}
	return p, nil
}

// planReasons are the reasons of a group as a person reads them: a
// context node by its display name, else its key; a property by its value.
func planReasons(sg *Subgraph, rs []evidence.Reason) []splitplan.Reason {
	if len(rs) == 0 {
		return nil
	}
	out := make([]splitplan.Reason, len(rs))
	for k, r := range rs {
		out[k] = splitplan.Reason{Kind: r.Kind, Value: r.Value, Weight: r.Weight}
		if r.Node >= 0 && r.Node < sg.Graph.NumNodes() {
			if sg.Names != nil && sg.Names[r.Node] != "" {
				out[k].Value = sg.Names[r.Node]
			} else {
				out[k].Value = sg.Key(r.Node).Text()
			}
		}
	}
	return out
}

// assignCloneKeys gives the plan's clones keys that no pulled node has
// (splitplan.Plan.AssignCloneKeys): integers after the largest pulled
// key when the keys are integers.
func assignCloneKeys(p *splitplan.Plan, sg *Subgraph, scheme string) error {
	if err := splitplan.CheckCloneKey(scheme); err != nil {
		return Errorf(ErrInvalid, err, "Options.CloneKey %v", err)
	}
	if sg.Keys == nil || len(p.Nodes) == 0 {
		return nil
	}
	taken := make(map[string]bool, len(sg.Keys))
	intKeys, maxInt := len(sg.Keys) > 0, int64(0)
	for _, k := range sg.Keys {
		taken[k.Text()] = true
		if v, ok := k.Int64(); ok {
			maxInt = max(maxInt, v)
		} else {
			intKeys = false
		}
	}
	if err := p.AssignCloneKeys(scheme, intKeys, maxInt, func(k keys.Key) bool { return taken[k.Text()] }); err != nil {
		return Errorf(ErrInvalid, err, "%v", err)
	}
	return nil
}

// neighborLinks lists the links of g between the neighbours in groups, as
// pairs of positions (pos), in the order of the groups; at most
// splitplan.MaxLinks, and how many more.
func neighborLinks(g *graph.Graph, groups [][]int32, pos map[int32]int) (links [][2]int, omitted int) {
	links = [][2]int{}
	for _, grp := range groups {
		for _, j := range grp {
			a := pos[j]
			for _, x := range g.Neighbors(int(j)) {
				if b, ok := pos[x]; ok && b > a {
					if len(links) == splitplan.MaxLinks {
						omitted++
						continue
					}
					links = append(links, [2]int{a, b})
				}
			}
		}
	}
	return links, omitted
}
