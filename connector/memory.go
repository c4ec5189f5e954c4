package connector

import (
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// The sizes of a split plan (splitplan.Plan, without the links between
// neighbours that only a dry run's plan lists), in bytes, measured with
// Go's heap statistics and json.Marshal on plans of 1000 nodes with 200
// neighbours each (TestSplitMemoryEstimate checks them on a pulled graph):
// a neighbour in the plan is its key (an interface and the boxed integer)
// and its element id (an interface, the string and its 46 bytes) in two
// slices; a group is a Group (five slices) with its own backing arrays.
const (
	planNodeBytes     = 320 // a Node, its element id, its key, its outcome
	planNeighborBytes = 120
	planGroupBytes    = 160
	jsonNodeBytes     = 300 // "id", "key", "ambiguity", "score", ... of a node
	jsonNeighborBytes = 60  // the key and the quoted element id, with commas
	jsonGroupBytes    = 32  // {"neighbors":[],"neighborIds":[]},
	avgNameBytes      = 16  // a display name, when the pull reads them
	relIDBytes        = 72  // a pulled relationship's element id (Cypher projections)
)

// SplitMemory is what sync --split holds beside the engine from the split
// proposals on, while the scores are written and the splits carried out
// (memory.Options.Sink): the plan, and its JSON text twice while it is
// stored (the statement's parameter and the driver's message). The plan's
// size is bounded from the graph: at most top nodes (top <= 0: every
// node, as with a minimum ambiguity), their neighbours at most the top
// largest degrees, each neighbour in a group of its own (as a hub's
// split mostly makes them):
//
//	plan = 320 nodes + (120 + 160) neighbours [+ key length + 8 for string
//	       keys, + 32 for names, + 72 for relationship ids: per neighbour]
//	text = 2 (300 nodes + (60 + 32) neighbours [+ the same extras])
//
// A dry run's plan also lists the links between each node's neighbours
// (at most splitplan.MaxLinks a node, and at most those its neighbours'
// degrees allow: topLinks; 24 bytes each, 10 as text) and the relationships of each group by type and
// direction (64 bytes a group, 48 as text), and is printed once.
func SplitMemory(g *graph.Graph, o SplitMemoryOptions, pull syncjob.PullOptions) []memory.Part {
	n := g.NumNodes()
	top, avgKeyBytes := o.Top, o.AvgKeyBytes
	if top <= 0 || top > n {
		top = n
	}
	if avgKeyBytes <= 0 {
		avgKeyBytes = 16
	}
	nodes, neighbors := int64(top), topDegreeSum(g, top)
	perNeighbor, perText := int64(planNeighborBytes+planGroupBytes), int64(jsonNeighborBytes+jsonGroupBytes)
	if o.StringKeys {
		perNeighbor += int64(avgKeyBytes) + 8
		perText += int64(avgKeyBytes)
	}
	if len(pull.DisplayProperties) > 0 {
		perNeighbor += 16 + avgNameBytes
		perText += avgNameBytes + 3
	}
	if pull.Custom() {
		perNeighbor += relIDBytes
		perText += relIDBytes - 16
	}
	if !o.DryRun {
		return []memory.Part{
			{Name: "split plan", Bytes: planNodeBytes*nodes + perNeighbor*neighbors},
			{Name: "split plan as text while it is stored (parameter, driver's message)", Bytes: 2 * (jsonNodeBytes*nodes + perText*neighbors)},
		}
	}
	links := topLinks(g, top)
	return []memory.Part{
		{Name: "split plan with the links between neighbours", Bytes: planNodeBytes*nodes + (perNeighbor+64)*neighbors + 24*links},
		{Name: "split plan as text, printed", Bytes: jsonNodeBytes*nodes + (perText+48)*neighbors + 10*links},
	}
}

// SplitMemoryOptions describe the plan of SplitMemory.
type SplitMemoryOptions struct {
	Top         int  // the nodes split: split.top (0: any number, as with split.min_ambiguity)
	StringKeys  bool // the graph's keys are strings
	AvgKeyBytes int  // their average length (default 16)
	DryRun      bool // the plan is a dry run's, printed (with links), not stored
}

// topLinks bounds the links between neighbours that a dry run's plan
// lists for any k nodes: the sum of the k largest of min(MaxLinks,
// D(D-1)/2, (S-D)/2) over the nodes, with D a node's degree and S the sum
// of its neighbours' degrees (each link between two neighbours takes one
// of the other links of both).
func topLinks(g *graph.Graph, k int) int64 {
	count := make([]int, splitplan.MaxLinks+1)
	for i := range g.NumNodes() {
		d, s := int64(g.Degree(i)), int64(0)
		for _, j := range g.Neighbors(i) {
			s += int64(g.Degree(int(j)))
		}
		count[min(int64(splitplan.MaxLinks), d*(d-1)/2, (s-d)/2)]++
	}
	var sum int64
	for b := len(count) - 1; b >= 0 && k > 0; b-- {
		take := min(count[b], k)
		sum += int64(take) * int64(b)
		k -= take
	}
	return sum
}

// topDegreeSum is the sum of the k largest degrees of g, by a count of
// the nodes of each degree.
func topDegreeSum(g *graph.Graph, k int) int64 {
	var sum int64
	forTopDegrees(g, k, func(d, count int) { sum += int64(count) * int64(d) })
	return sum
}

// forTopDegrees calls f with the k largest degrees of g, from the
// largest, each with how many of the k nodes have it.
func forTopDegrees(g *graph.Graph, k int, f func(degree, count int)) {
	count := make([]int, g.MaxDegree()+1)
	for i := range g.NumNodes() {
		count[g.Degree(i)]++
	}
	for d := len(count) - 1; d >= 0 && k > 0; d-- {
		if take := min(count[d], k); take > 0 {
			f(d, take)
			k -= take
		}
	}
}

var _ syncjob.MemorySizer = (*Conn)(nil)

// SyncMemory returns what a sync of sg on c holds besides the engine
// (syncjob.MemorySizer): the pull's load and held parts (PullMemory) and,
// with o.Split, the split's (SplitMemory).
func (c *Conn) SyncMemory(sg *syncjob.Subgraph, o syncjob.Options) (load, held, sink []memory.Part) {
	g := sg.Graph
	load, held = PullMemory(int64(g.NumNodes()), int64(sg.Stats.RelationshipRows), o.Pull, !g.IntKeys(), c.cfg.ReadConcurrency, sg.Stats.EvidenceTextBytes)
	if o.Split {
		top := o.Score.Split.Top
		if o.Score.Split.MinAmbiguity > 0 {
			top = 0 // any number of nodes
		}
		sink = SplitMemory(g, SplitMemoryOptions{Top: top, StringKeys: !g.IntKeys(), DryRun: o.DryRun}, o.Pull)
	}
	return load, held, sink
}
