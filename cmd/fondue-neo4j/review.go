package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/connector"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/internal/names"
	"github.com/fondue-neo4j/fondue-neo4j/internal/review"
	"github.com/spf13/cobra"
)

func newReviewCmd(a *app) *cobra.Command {
	var (
		top       int
		out       string
		namesFile string
		planFile  string
		header    string
	)
	cmd := &cobra.Command{
		Use:   "review [EDGELIST]",
		Short: "Write a review page: the most ambiguous nodes, their proposed splits, accept / reject / edit",
		Long: `review writes one self-contained HTML file (no server, no network: open it
from disk, attach it to a ticket) showing the K most ambiguous nodes, each with
its neighbours drawn around it, coloured by the group the splitter proposes,
and the links between them. A person accepts, rejects or edits each split
(click a neighbour to move it to the next group, or drag it onto a group) and
exports the decisions as an approved plan (JSON), for "sync --split --plan".

From an edge list, review scores the graph like "score" (same flags and
configuration) and proposes splits with --splitter. From Neo4j, give it the
output of "sync --split --split-top K --dry-run" with --plan FILE; add the edge
list (keys as in the plan) to draw the links between neighbours.

--names FILE gives display names: id<TAB>name lines, or JSON
{"id": "name"} / [{"id": ..., "name": ...}], ids as in the edge list (or the
plan's keys).`,
		Example: `  fondue-neo4j review testdata/lesmis.edges --names testdata/lesmis.names --top 12 -o lesmis-review.html
  fondue-neo4j sync --split --split-top 20 --dry-run > dry-run.json
  fondue-neo4j review --plan dry-run.json --names names.tsv -o review.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if planFile == "" {
				return exactArgs(1, "an edge-list file (or --plan FILE)")(cmd, args)
			}
			if len(args) > 1 {
				return usageErrorf("%s --plan takes at most one edge-list file (see '%s --help')", cmd.CommandPath(), cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if top < 1 {
				return usageErrorf("--top %d: must be 1 or more", top)
			}
			if out == "" {
				return usageErrorf("--out must name a file (- for standard output)")
			}
			hm, err := parseHeaderMode(header)
			if err != nil {
				return err
			}
			nm, err := a.readNames(namesFile)
			if err != nil {
				return err
			}
			var doc *review.Doc
			if planFile != "" {
				var g *fondue.Graph
				if len(args) == 1 {
					if g, err = a.readGraph(args[0], hm); err != nil {
						return err
					}
				}
				doc, err = a.planReview(planFile, g, nm, top)
			} else {
				doc, err = a.edgeListReview(cmd, args[0], hm, nm, top)
			}
			if err != nil {
				return err
			}
			doc.Input = planFile
			if doc.Input == "" {
				doc.Input = args[0]
			}
			doc.GeneratedAt = time.Now().UTC().Format(time.RFC3339)
			doc.Tool = versionString()
			var buf bytes.Buffer
			if err := review.Write(&buf, doc); err != nil {
				if planFile != "" { // the plan's nodes or groups do not hold together
					return usageErrorf("plan %s: %v", planFile, err)
				}
				return err
			}
			if out == "-" {
				_, err = a.stdout.Write(buf.Bytes())
				return err
			}
			if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
				return withCode(exitUsage, fmt.Errorf("review page: %w", err))
			}
			a.log.Info("wrote the review page: open it in a browser", "file", out, "nodes", len(doc.Nodes), "bytes", buf.Len())
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&top, "top", 20, "review the K most ambiguous nodes")
	f.StringVarP(&out, "out", "o", "fondue-review.html", "the HTML file to write (- for standard output)")
	f.StringVar(&namesFile, "names", "", "display names: id<TAB>name lines, or JSON {\"id\": \"name\"}")
	f.StringVar(&planFile, "plan", "", "review this split plan: the JSON output of \"sync --split --dry-run\"")
	f.StringVar(&header, "header", "auto", "whether the edge list's first line is a header: auto, yes or no")
	f.String("splitter", "", "splitter proposing the groups (default "+fondue.DefaultSplitter+")")
	addScoreFlags(f)
	return cmd
}

// edgeListReview scores an edge list as "score --split --top K" does and
// turns the K proposals into a review.
func (a *app) edgeListReview(cmd *cobra.Command, path string, hm fondue.HeaderMode, nm names.Names, top int) (*review.Doc, error) {
	opts, err := a.scoreOptions()
	if err != nil {
		return nil, err
	}
	if opts.Split.Method == "" {
		opts.Split.Method = fondue.DefaultSplitter
	}
	opts.Split.Top, opts.Split.MinAmbiguity, opts.Split.Nodes = top, 0, nil
	g, res, err := a.scoreFile(cmd.Context(), path, hm, opts, top)
	if err != nil {
		return nil, err
	}
	a.checkNames(nm, g)
	doc := &review.Doc{Source: review.SourceEdgeList, Plan: review.PlanSettings{Splitter: opts.Split.Method}, LinksKnown: true,
		GraphNodes: g.NumNodes(), GraphEdges: g.NumEdges(), Title: "fondue-neo4j review: " + path}
	doc.Nodes = review.FromResult(g, res, nm)
	return doc, nil
}

// dryRunOutput is what "sync --dry-run" prints, as far as review reads it.
type dryRunOutput struct {
	Plan              json.RawMessage `json:"plan"`
	Nodes             json.RawMessage `json:"nodes"` // a bare plan
	NodeCount         int             `json:"nodeCount"`
	RelationshipCount int             `json:"relationshipCount"`
}

// planReview turns the plan printed by "sync --split --dry-run" into a
// review; g, when given, is the graph whose links are drawn.
func (a *app) planReview(path string, g *fondue.Graph, nm names.Names, top int) (*review.Doc, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, usageErrorf("plan %s: no such file", path)
	} else if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("plan %s: %w", path, err))
	}
	var dr dryRunOutput
	if err := json.Unmarshal(data, &dr); err != nil {
		return nil, usageErrorf("plan %s: not the JSON of \"sync --dry-run\": %v", path, err)
	}
	raw := dr.Plan
	if len(raw) == 0 || string(raw) == "null" {
		if len(dr.Nodes) == 0 {
			return nil, usageErrorf("plan %s has no split plan: make it with \"sync --split --split-top K --dry-run\"", path)
		}
		raw = data
	}
	if err := checkPlanShape(raw); err != nil {
		return nil, usageErrorf("plan %s: %v", path, err)
	}
	plan, err := connector.UnmarshalPlan(raw)
	if err != nil {
		return nil, usageErrorf("plan %s: %v", path, err)
	}
	doc := &review.Doc{Source: review.SourceNeo4j, LinksKnown: g != nil,
		GraphNodes: dr.NodeCount, GraphEdges: dr.RelationshipCount, Title: "fondue-neo4j review: run " + plan.RunID,
		Plan: review.PlanSettings{RunID: plan.RunID, CreatedAt: plan.CreatedAt, Splitter: plan.Splitter, IDProperty: plan.IDProperty,
			RelationshipTypes: plan.RelationshipTypes, MarkerLabel: plan.MarkerLabel, SkipProperties: plan.SkipProperties}}
	name := func(key, id any) string {
		if k := review.KeyString(key); nm.Has(k) {
			return nm.Of(k)
		}
		if i := review.KeyString(id); nm.Has(i) {
			return nm.Of(i)
		}
		return review.KeyString(key)
	}
	missingInGraph := 0
	for k, pn := range plan.Nodes {
		if k == top {
			break
		}
		n := review.Node{Key: pn.Key, ID: pn.ID, Name: name(pn.Key, pn.ID), Labels: pn.Labels, Ambiguity: pn.Ambiguity, Score: pn.Score}
		var idx []int
		for _, grp := range pn.Groups {
			var members []int
			for j, key := range grp.Neighbors {
				members = append(members, len(n.Neighbors))
				n.Neighbors = append(n.Neighbors, review.Neighbor{Key: key, ID: grp.NeighborIDs[j], Name: name(key, grp.NeighborIDs[j])})
				if g != nil {
					x, ok := g.Index(review.KeyString(key))
					if !ok {
						x = -1
						missingInGraph++
					}
					idx = append(idx, x)
				}
			}
			n.Groups = append(n.Groups, members)
		}
		if g != nil {
			n.Links = review.EgoLinks(g, idx)
		}
		doc.Nodes = append(doc.Nodes, n)
	}
	if missingInGraph > 0 {
		a.log.Warn("neighbours of the plan are not in the edge list: their links are not drawn", "count", missingInGraph)
	}
	return doc, nil
}

// checkPlanShape checks that every group lists as many internal ids as
// keys, before the plan reader (which pairs them up) sees it.
func checkPlanShape(raw []byte) error {
	var p struct {
		Nodes []struct {
			Key    any `json:"key"`
			Groups []struct {
				Neighbors   []any `json:"neighbors"`
				NeighborIDs []any `json:"neighborIds"`
			} `json:"groups"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	for _, n := range p.Nodes {
		for g, grp := range n.Groups {
			if len(grp.NeighborIDs) != len(grp.Neighbors) {
				return fmt.Errorf("node %v: group %d has %d neighbors and %d neighborIds", n.Key, g, len(grp.Neighbors), len(grp.NeighborIDs))
			}
		}
	}
	return nil
}
