package graph

import (
	"errors"
	"fmt"
	"math"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/vec"
)

// EgoNet is the subgraph induced on the neighbours of one node, the centre
// itself removed. It is the object every ego-network baseline (CC, NC) and
// the MCL splitting baseline work on [P §3.2]. Nodes are renumbered to local
// indices so that the per-node algorithms can use small dense arrays.
type EgoNet struct {
	// Center is the original index of the ego node.
	Center int
	// Nodes holds the centre's neighbours in ascending order: local index k
	// stands for original node Nodes[k]. It is a copy owned by the EgoNet.
	Nodes []int32
	// Off and Adj are the local CSR: the local neighbours of k are
	// Adj[Off[k]:Off[k+1]], sorted ascending. len(Off) == len(Nodes)+1.
	Off []int32
	Adj []int32

	// egoMark maps an original index to local index+1 for the nodes of the
	// current ego net and is all zero between calls, so that a buffer can be
	// reused without clearing n entries each time.
	egoMark []int32
}

// NumNodes returns the number of nodes of the ego net (the centre's degree).
func (e *EgoNet) NumNodes() int { return len(e.Nodes) }

// NumEdges returns the number of edges among the centre's neighbours.
func (e *EgoNet) NumEdges() int { return len(e.Adj) / 2 }

// Degree returns the degree of local node k inside the ego net.
func (e *EgoNet) Degree(k int) int { return int(e.Off[k+1] - e.Off[k]) }

// Neighbors returns the sorted local neighbours of local node k. The slice
// aliases the EgoNet's storage.
func (e *EgoNet) Neighbors(k int) []int32 { return e.Adj[e.Off[k]:e.Off[k+1]:e.Off[k+1]] }

// Originals maps groups of local indices (of e) to fresh groups of the
// original node indices.
func (e *EgoNet) Originals(groups [][]int32) [][]int32 {
	out := make([][]int32, len(groups))
	for c, grp := range groups {
		orig := make([]int32, len(grp))
		for k, local := range grp {
			orig[k] = e.Nodes[local]
		}
		out[c] = orig
	}
	return out
}

// egoBinaryFactor decides, per neighbour u, between scanning Γ(u) against a
// marker array and binary-searching each member of Γ(i) in Γ(u). Scanning
// costs deg(u); searching costs about deg(i)·log2(deg(u)). A hub neighbour of
// a low-degree centre is then never scanned in full, which matters on
// power-law graphs where Σ_u deg(u)² dominates everything else.
const egoBinaryFactor = 1

// Ego builds the ego network of node i into buf (a new EgoNet when buf is nil)
// and returns it. buf's slices are reused, so calling Ego for every node with
// one buffer allocates only while the largest ego net seen so far grows; the
// first call on a graph allocates an n-entry marker array, kept in buf.
//
// Cost: for every neighbour u of i, the cheaper of scanning Γ(u) (deg(u)) and
// binary-searching Γ(i) in Γ(u) (deg(i)·log deg(u)); so at most
// O(Σ_{u∈Γ(i)} deg(u)) and O(deg(i)² log Δ) for a hub, plus the output size.
// Adj holds twice the edge count of the ego net, at most deg(i)·(deg(i)−1)
// entries; more than the int32 offsets hold (a node of degree above 46,000
// whose neighbours are nearly all linked: far beyond the graphs CNE can
// embed, about 100k nodes) is an error that wraps ErrEgoTooLarge, and buf
// stays usable.
//
// i must be a node of g, as an index of a slice must be in range.
// buf must not be used by two goroutines at once; use one per worker.
func (g *Graph) Ego(i int, buf *EgoNet) (*EgoNet, error) {
	return g.ego(i, buf, math.MaxInt32)
}

// ErrEgoTooLarge is the cause of Ego's error for an ego network with more
// edges than its int32 offsets hold; test for it with errors.Is.
var ErrEgoTooLarge = errors.New("ego network too large")

// ego is Ego with maxAdj, the most entries Adj may hold (tests lower it).
func (g *Graph) ego(i int, buf *EgoNet, maxAdj int) (*EgoNet, error) {
	if buf == nil {
		buf = &EgoNet{}
	}
	e := buf
	nb := g.Neighbors(i)
	d := len(nb)
	e.Center = i
	e.Nodes = append(e.Nodes[:0], nb...)
	if cap(e.Off) < d+1 {
		e.Off = make([]int32, d+1, vec.GrowCap(d+1))
	}
	e.Off = e.Off[:d+1]
	e.Adj = e.Adj[:0]
	if n := g.NumNodes(); len(e.egoMark) < n {
		e.egoMark = make([]int32, n)
	}
	mark := e.egoMark
	for k, v := range nb {
		mark[v] = int32(k) + 1
	}
	e.Off[0] = 0
	for k, u := range nb {
		gu := g.Neighbors(int(u))
		if len(gu) <= egoBinaryFactor*d*egoCeilLog2(len(gu)) {
			for _, v := range gu {
				if l := mark[v]; l != 0 {
					e.Adj = append(e.Adj, l-1)
				}
			}
		} else {
			lo := 0
			for l, v := range nb {
				// Γ(i) is sorted, so the search window only shrinks.
				j := lo + vec.Search(gu[lo:], v)
				lo = j
				if j < len(gu) && gu[j] == v {
					e.Adj = append(e.Adj, int32(l))
					lo++
				}
			}
		}
		if len(e.Adj) > maxAdj {
			for _, v := range nb {
				mark[v] = 0
			}
			return nil, fmt.Errorf("graph: node %d of degree %d: more than %d entries among its neighbours: %w", i, d, maxAdj, ErrEgoTooLarge)
		}
		e.Off[k+1] = int32(len(e.Adj))
	}
	for _, v := range nb {
		mark[v] = 0
	}
	return e, nil
}

// egoCeilLog2 returns ⌈log2 x⌉ for x ≥ 1, and 1 for smaller x (a search always
// costs at least one comparison).
func egoCeilLog2(x int) int {
	c := 1
	for 1<<c < x {
		c++
	}
	return c
}
