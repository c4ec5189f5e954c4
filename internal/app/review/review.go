// Package review writes the review page: one self-contained HTML file (its
// script, style and data inline; no network, no server) that shows the most
// ambiguous nodes of a graph with their ego networks drawn, lets a person
// accept, reject or edit each proposed split, and exports the decisions as
// an approved plan (see ApprovedPlan).
package review

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/output"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Sources of a review.
const (
	SourceEdgeList = "edgelist" // "review FILE": an edge list scored here
	SourceNeo4j    = "neo4j"    // "review --plan": the plan of "sync --dry-run"
)

// MaxLinks is the most links between neighbours drawn for one node; the
// page says how many more there are.
const MaxLinks = 4000

// Doc is what a review page shows.
type Doc struct {
	Title       string
	Source      string // SourceEdgeList or SourceNeo4j
	Input       string // the file reviewed
	GeneratedAt string // ISO-8601
	Tool        string // the version line of fondue-neo4j
	// Plan holds the splitter, and the settings of a dry run's plan
	// (SourceNeo4j); the approved plan copies them.
	Plan PlanSettings
	// Graph size, when known (0: unknown).
	GraphNodes, GraphEdges int
	// LinksKnown is false when the links between neighbours are unknown
	// (a dry-run plan reviewed without its edge list).
	LinksKnown bool

	Nodes []Node
}

// Node is one node to review.
type Node struct {
	Key       keys.Key // an integer or a string
	ID        keys.Key // Neo4j element id; none for an edge list
	Name      string
	Labels    []string
	Ambiguity float64
	Score     float64
	// Entities is the estimated number of real entities behind the node
	// (fondue.Result.Entities); 0 when unknown.
	Entities  int
	Neighbors []Neighbor
	// Groups is the proposed split: indices into Neighbors; group 0 stays
	// on the node. Every neighbour is in exactly one group.
	Groups [][]int
	// Reasons are, per group, the shared context that made its pieces one
	// group (venues, keywords, years ...); nil when unknown.
	Reasons [][]splitplan.Reason
	// Links are the links between neighbours (indices into Neighbors);
	// LinksOmitted more are not listed (a dry run's plan lists at most
	// splitplan.MaxLinks).
	Links        [][2]int
	LinksOmitted int
}

// Neighbor is one neighbour of a reviewed node.
type Neighbor struct {
	Key  keys.Key
	ID   keys.Key
	Name string
}

//go:embed page.js
var pageJS string

// Write writes the page for d to w.
func Write(w io.Writer, d *Doc) error {
	data, err := pageData(d)
	if err != nil {
		return err
	}
	title := d.Title
	if title == "" {
		title = "fondue-neo4j review"
	}
	return render(w, splitPage, title, data, pageJS)
}

// Page data: short field names keep a page of 20 big nodes small.
type jsonDoc struct {
	Title       string       `json:"title"`
	Source      string       `json:"source"`
	Input       string       `json:"input,omitempty"`
	GeneratedAt string       `json:"generatedAt"`
	Tool        string       `json:"tool,omitempty"`
	Splitter    string       `json:"splitter,omitempty"`
	GraphNodes  int          `json:"graphNodes,omitempty"`
	GraphEdges  int          `json:"graphEdges,omitempty"`
	LinksKnown  bool         `json:"linksKnown"`
	Plan        PlanSettings `json:"plan"`
	Nodes       []jsonNode   `json:"nodes"`
}

type jsonNode struct {
	KeyJSON     string   `json:"kj"`           // the key as JSON text (exact, even past 2^53)
	IDJSON      string   `json:"ij,omitempty"` // the internal id as JSON text
	Name        string   `json:"name"`
	Labels      []string `json:"labels,omitempty"`
	Ambiguity   float64  `json:"ambiguity"`
	Score       float64  `json:"score"`
	Entities    int      `json:"entities,omitempty"`
	Fingerprint string   `json:"fp"`
	Neighbors   []jsonNb `json:"nb"`
	Groups      [][]int  `json:"groups"`
	// Reasons per group: kind, value, weight (shown under the proposed groups).
	Reasons      [][]jsonReason `json:"reasons,omitempty"`
	Links        []int          `json:"links"` // pairs, flattened
	LinksOmitted int            `json:"linksOmitted,omitempty"`
	Radius       float64        `json:"r"`
	Labelled     bool           `json:"labelled"` // names drawn beside the neighbours (else on hover)
}

type jsonReason struct {
	Kind   string  `json:"k"`
	Value  string  `json:"v"`
	Weight float64 `json:"w"`
}

type jsonNb struct {
	KeyJSON string  `json:"kj"`
	IDJSON  string  `json:"ij,omitempty"`
	Name    string  `json:"n"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
}

// keyJSON is a key as JSON text, "" for none.
func keyJSON(k keys.Key) (string, error) {
	if k.IsZero() {
		return "", nil
	}
	b, err := json.Marshal(k)
	return string(b), err
}

func pageData(d *Doc) (*jsonDoc, error) {
	out := &jsonDoc{Title: d.Title, Source: d.Source, Input: d.Input, GeneratedAt: d.GeneratedAt, Tool: d.Tool,
		Splitter: d.Plan.Splitter, GraphNodes: d.GraphNodes, GraphEdges: d.GraphEdges, LinksKnown: d.LinksKnown,
		Plan: d.Plan, Nodes: []jsonNode{}}
	if out.Title == "" {
		out.Title = "fondue-neo4j review"
	}
	seen := map[string]bool{}
	for _, n := range d.Nodes {
		key := n.Key.Text()
		if seen[key] {
			return nil, fmt.Errorf("review: node %s twice", key)
		}
		seen[key] = true
		if err := n.check(); err != nil {
			return nil, fmt.Errorf("review: node %s: %w", key, err)
		}
		jn := jsonNode{Name: n.Name, Labels: n.Labels, Ambiguity: n.Ambiguity, Score: n.Score, Entities: n.Entities,
			Groups: n.Groups, Links: []int{}}
		if jn.Name == "" {
			jn.Name = key
		}
		for _, rs := range n.Reasons {
			jr := []jsonReason{}
			for _, r := range rs {
				jr = append(jr, jsonReason{Kind: r.Kind, Value: r.Value, Weight: round3(r.Weight)})
			}
			jn.Reasons = append(jn.Reasons, jr)
		}
		var err error
		if jn.KeyJSON, err = keyJSON(n.Key); err != nil {
			return nil, err
		}
		if jn.IDJSON, err = keyJSON(n.ID); err != nil {
			return nil, err
		}
		texts := make([]string, len(n.Neighbors))
		for k, nb := range n.Neighbors {
			texts[k] = nb.Key.Text()
		}
		jn.Fingerprint = n.fingerprint()
		pos, radius := layout(n)
		jn.Radius = radius
		jn.Labelled = len(n.Neighbors) <= 60
		for k, nb := range n.Neighbors {
			j := jsonNb{Name: nb.Name, X: pos[k][0], Y: pos[k][1]}
			if j.Name == "" {
				j.Name = texts[k]
			}
			if j.KeyJSON, err = keyJSON(nb.Key); err != nil {
				return nil, err
			}
			if j.IDJSON, err = keyJSON(nb.ID); err != nil {
				return nil, err
			}
			jn.Neighbors = append(jn.Neighbors, j)
		}
		links := n.Links
		jn.LinksOmitted = n.LinksOmitted
		if len(links) > MaxLinks {
			jn.LinksOmitted += len(links) - MaxLinks
			links = links[:MaxLinks]
		}
		for _, l := range links {
			jn.Links = append(jn.Links, l[0], l[1])
		}
		out.Nodes = append(out.Nodes, jn)
	}
	return out, nil
}

// check: the groups hold every neighbour once, the links are between neighbours.
func (n *Node) check() error {
	if len(n.Neighbors) == 0 {
		return fmt.Errorf("no neighbours")
	}
	in := make([]bool, len(n.Neighbors))
	count := 0
	for _, g := range n.Groups {
		if len(g) == 0 {
			return fmt.Errorf("an empty group")
		}
		for _, j := range g {
			if j < 0 || j >= len(in) || in[j] {
				return fmt.Errorf("neighbour index %d out of range or in two groups", j)
			}
			in[j] = true
			count++
		}
	}
	if count != len(n.Neighbors) {
		return fmt.Errorf("the groups hold %d of %d neighbours", count, len(n.Neighbors))
	}
	if n.Reasons != nil && len(n.Reasons) != len(n.Groups) {
		return fmt.Errorf("reasons for %d groups, not %d", len(n.Reasons), len(n.Groups))
	}
	for _, l := range n.Links {
		if l[0] < 0 || l[1] < 0 || l[0] >= len(in) || l[1] >= len(in) || l[0] == l[1] {
			return fmt.Errorf("link %v is not between two neighbours", l)
		}
	}
	seen := map[string]bool{}
	for _, nb := range n.Neighbors {
		k := nb.Key.Text()
		if seen[k] {
			return fmt.Errorf("neighbour %s twice", k)
		}
		seen[k] = true
	}
	return nil
}

// layout places the neighbours on a circle around the node (at 0, 0):
// each proposed group on its own arc, arcs apart by a gap, and within a
// group the neighbours in breadth-first order of their links, so that
// linked neighbours sit close together. It depends only on the node's
// data: the same input gives the same picture.
func layout(n Node) (pos [][2]float64, radius float64) {
	deg := len(n.Neighbors)
	radius = 200
	if deg > 100 {
		radius = 200 * math.Sqrt(float64(deg)/100)
	}
	adj := make([][]int, deg)
	for _, l := range n.Links {
		adj[l[0]] = append(adj[l[0]], l[1])
		adj[l[1]] = append(adj[l[1]], l[0])
	}
	for _, a := range adj {
		slices.Sort(a)
	}
	gap := 1.0
	if deg > 20 {
		gap = float64(deg) / 20
	}
	if len(n.Groups) < 2 {
		gap = 0
	}
	total := float64(deg) + gap*float64(len(n.Groups))
	step := 2 * math.Pi / total
	pos = make([][2]float64, deg)
	slot := gap / 2
	for _, g := range n.Groups {
		for _, j := range groupOrder(g, adj, n.Neighbors) {
			a := -math.Pi/2 + (slot+0.5)*step
			pos[j] = [2]float64{round1(radius * math.Cos(a)), round1(radius * math.Sin(a))}
			slot++
		}
		slot += gap
	}
	return pos, radius
}

// groupOrder orders a group's neighbours: breadth-first through links
// inside the group, each component started from its member with the fewest
// links (a peripheral one), components largest first; ties by key.
func groupOrder(g []int, adj [][]int, nbs []Neighbor) []int {
	in := map[int]bool{}
	for _, j := range g {
		in[j] = true
	}
	inner := func(j int) []int {
		var out []int
		for _, x := range adj[j] {
			if in[x] {
				out = append(out, x)
			}
		}
		return out
	}
	byKey := slices.Clone(g)
	slices.SortFunc(byKey, func(a, b int) int { return nbs[a].Key.Compare(nbs[b].Key) })
	seen := map[int]bool{}
	var comps [][]int
	for _, s := range byKey {
		if seen[s] {
			continue
		}
		// The component of s, then its start: fewest inner links, then key.
		var comp []int
		queue := []int{s}
		seen[s] = true
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			comp = append(comp, x)
			for _, y := range inner(x) {
				if !seen[y] {
					seen[y] = true
					queue = append(queue, y)
				}
			}
		}
		start := comp[0]
		for _, x := range comp {
			if lx, ls := len(inner(x)), len(inner(start)); lx < ls || (lx == ls && nbs[x].Key.Compare(nbs[start].Key) < 0) {
				start = x
			}
		}
		order := []int{start}
		done := map[int]bool{start: true}
		for k := 0; k < len(order); k++ {
			for _, y := range inner(order[k]) {
				if !done[y] {
					done[y] = true
					order = append(order, y)
				}
			}
		}
		comps = append(comps, order)
	}
	slices.SortStableFunc(comps, func(a, b []int) int { return len(b) - len(a) })
	var out []int
	for _, c := range comps {
		out = append(out, c...)
	}
	return out
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

func round3(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1000) / 1000
}

// FromResult turns the split proposals of res (computed on g) into nodes to
// review, most ambiguous first; nm gives display names (nil: ids).
func FromResult(g *graph.Graph, res *fondue.Result, nm names.Names) []Node {
	var out []Node
	for _, p := range res.Proposals {
		n := Node{Key: keys.OfGraph(g, p.Node), Name: nm.Of(g.Key(p.Node)), Ambiguity: res.Ambiguity[p.Node], Score: res.Scores[p.Node]}
		if p.Node < len(res.Entities) {
			n.Entities = res.Entities[p.Node]
		}
		var idx []int
		for _, grp := range p.Groups {
			var members []int
			for _, j := range grp {
				members = append(members, len(n.Neighbors))
				idx = append(idx, int(j))
				n.Neighbors = append(n.Neighbors, Neighbor{Key: keys.OfGraph(g, int(j)), Name: nm.Of(g.Key(int(j)))})
			}
			n.Groups = append(n.Groups, members)
		}
		n.Reasons = output.Reasons(g, &p, nm)
		n.Links = EgoLinks(g, idx)
		out = append(out, n)
	}
	return out
}

// EgoLinks returns the links of g between the given nodes, as pairs of
// positions in nodes; negative entries (nodes not in g) have none.
func EgoLinks(g *graph.Graph, nodes []int) [][2]int {
	pos := make(map[int]int, len(nodes))
	for k, j := range nodes {
		if j >= 0 {
			pos[j] = k
		}
	}
	var links [][2]int
	for k, j := range nodes {
		if j < 0 {
			continue
		}
		for _, x := range g.Neighbors(j) {
			if l, ok := pos[int(x)]; ok && l > k {
				links = append(links, [2]int{k, l})
			}
		}
	}
	return links
}
