package review

import (
	"encoding/json"
	"fmt"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// FromEdgeList is the review of an edge list scored here (path names it in
// the title): the proposals of res, on g, split with splitter.
func FromEdgeList(path string, g *graph.Graph, res *fondue.Result, nm names.Names, splitter string) *Doc {
	doc := &Doc{Source: SourceEdgeList, Plan: PlanSettings{Splitter: splitter}, LinksKnown: true,
		GraphNodes: g.NumNodes(), GraphEdges: g.NumEdges(), Title: "fondue-neo4j review: " + path}
	doc.Nodes = FromResult(g, res, nm)
	return doc
}

// DryRun is what "sync --split --dry-run" prints, as far as a review
// reads it: the split plan and the size of the subgraph.
type DryRun struct {
	Plan *splitplan.Plan
	// Merge, instead of Plan, is the merge plan of "sync --duplicates
	// --dry-run": pairs to merge, not nodes to split.
	Merge             *mergeplan.Plan
	NodeCount         int
	RelationshipCount int
}

// ReadDryRun reads the output of "sync --split --dry-run --output json"
// (or a bare plan), or that of "sync --duplicates --dry-run --output
// json" (or a bare merge plan: DryRun.Merge), from file, whose content is
// data. Its errors name the file and are all bad input.
func ReadDryRun(file string, data []byte) (*DryRun, error) {
	var dr struct {
		Plan              json.RawMessage `json:"plan"`
		MergePlan         json.RawMessage `json:"mergePlan"`
		Nodes             json.RawMessage `json:"nodes"` // a bare plan
		NodeCount         int             `json:"nodeCount"`
		RelationshipCount int             `json:"relationshipCount"`
	}
	if err := json.Unmarshal(data, &dr); err != nil {
		return nil, fmt.Errorf("plan %s: not the JSON of \"sync --dry-run\": %w", file, err)
	}
	if merge := dr.MergePlan; len(merge) > 0 && string(merge) != "null" || mergeplan.IsMerge(data) {
		if len(merge) == 0 || string(merge) == "null" {
			merge = data // a bare merge plan
		}
		p, err := mergeplan.Parse(merge)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", file, err)
		}
		return &DryRun{Merge: p, NodeCount: dr.NodeCount, RelationshipCount: dr.RelationshipCount}, nil
	}
	raw := dr.Plan
	if len(raw) == 0 || string(raw) == "null" {
		if len(dr.Nodes) == 0 {
			return nil, fmt.Errorf("plan %s has no split plan: make it with \"sync --split --split-top K --dry-run\"", file)
		}
		raw = data
	}
	plan, err := splitplan.Unmarshal(raw)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", file, err)
	}
	return &DryRun{Plan: plan, NodeCount: dr.NodeCount, RelationshipCount: dr.RelationshipCount}, nil
}

// FromDryRun is the review of the first top nodes of a dry run's plan.
// The links between neighbours come from g when given (the edge list, keys
// as in the plan), else from the plan when it lists them; names from nm,
// else the plan's, else the keys. missing counts the plan's neighbours
// that are not in g (their links are not drawn).
func FromDryRun(dr *DryRun, g *graph.Graph, nm names.Names, top int) (doc *Doc, missing int) {
	plan := dr.Plan
	planLinks := g == nil && plan.NeighborLinks
	doc = &Doc{Source: SourceNeo4j, LinksKnown: g != nil || planLinks,
		GraphNodes: dr.NodeCount, GraphEdges: dr.RelationshipCount, Title: "fondue-neo4j review: run " + plan.RunID,
		Plan: PlanSettings{RunID: plan.RunID, CreatedAt: plan.CreatedAt, Splitter: plan.Splitter, IDProperty: plan.IDProperty,
			NodeLabels: plan.NodeLabels, RelationshipTypes: plan.RelationshipTypes, DisplayProperties: plan.DisplayProperties,
			MarkerLabel: plan.MarkerLabel, SkipProperties: plan.SkipProperties}}
	// A name from the names file, else the plan's (graph.display_property),
	// else the key.
	name := func(key, id keys.Key, planName string) string {
		if k := key.Text(); nm.Has(k) {
			return nm.Of(k)
		}
		if i := id.Text(); nm.Has(i) {
			return nm.Of(i)
		}
		if planName != "" {
			return planName
		}
		return key.Text()
	}
	for k, pn := range plan.Nodes {
		if k == top {
			break
		}
		n := Node{Key: pn.Key, ID: pn.ID, Name: name(pn.Key, pn.ID, pn.Name), Labels: pn.Labels, Ambiguity: pn.Ambiguity, Score: pn.Score, Entities: pn.Entities}
		var idx []int
		for _, grp := range pn.Groups {
			var members []int
			for j, key := range grp.Neighbors {
				members = append(members, len(n.Neighbors))
				planName := ""
				if grp.Names != nil {
					planName = grp.Names[j]
				}
				n.Neighbors = append(n.Neighbors, Neighbor{Key: key, ID: grp.NeighborIDs[j], Name: name(key, grp.NeighborIDs[j], planName)})
				if g != nil {
					x, ok := g.Index(key.Text())
					if !ok {
						x = -1
						missing++
					}
					idx = append(idx, x)
				}
			}
			n.Groups = append(n.Groups, members)
		}
		n.Reasons = planReasons(pn.Groups)
		switch {
		case g != nil:
			n.Links = EgoLinks(g, idx)
		case planLinks:
			n.Links, n.LinksOmitted = pn.Links, pn.LinksOmitted
		}
		doc.Nodes = append(doc.Nodes, n)
	}
	return doc, missing
}

// planReasons are the groups' reasons of a plan's node, nil when no group
// has any.
func planReasons(groups []splitplan.Group) [][]splitplan.Reason {
	var out [][]splitplan.Reason
	for k, grp := range groups {
		if grp.Reasons != nil && out == nil {
			out = make([][]splitplan.Reason, len(groups))
		}
		if out != nil {
			out[k] = grp.Reasons
		}
	}
	return out
}
