package graph

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/errs"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
)

// Graph is an undirected simple graph over dense node indices 0..N-1, stored
// in CSR form: the neighbours of i are adj[off[i]:off[i+1]], sorted ascending.
// Every node also has a key (the id it had in the input), which is either an
// integer or a string; Key and Index convert between the two.
type Graph struct {
	off []int64
	adj []int32

	intKeys []int64  // set when every key is an integer
	strKeys []string // set otherwise

	selfLoops  int // self-loops dropped while building
	duplicates int // repeated edges collapsed while building

	indexOnce sync.Once
	intIndex  map[int64]int32
	strIndex  map[string]int32
	// With keys of another graph's nodes (WithKeysOf): Index looks a key
	// up in parent and maps the node by parentIndex (-1: not here).
	parent      *Graph
	parentIndex []int32
}

// NumNodes returns the number of nodes, isolated ones included.
func (g *Graph) NumNodes() int { return len(g.off) - 1 }

// NumEdges returns the number of undirected edges.
func (g *Graph) NumEdges() int { return len(g.adj) / 2 }

// Degree returns the number of neighbours of node i.
func (g *Graph) Degree(i int) int { return int(g.off[i+1] - g.off[i]) }

// Neighbors returns the sorted neighbours of node i. The slice aliases the
// graph's storage and must not be modified.
func (g *Graph) Neighbors(i int) []int32 { return g.adj[g.off[i]:g.off[i+1]:g.off[i+1]] }

// HasEdge reports whether i and j are adjacent.
func (g *Graph) HasEdge(i, j int) bool {
	a, b := i, j
	if g.Degree(a) > g.Degree(b) {
		a, b = b, a
	}
	_, found := slices.BinarySearch(g.Neighbors(a), int32(b))
	return found
}

// SelfLoops returns how many self-loops were dropped when the graph was built.
func (g *Graph) SelfLoops() int { return g.selfLoops }

// Duplicates returns how many repeated edges were collapsed when the graph
// was built (u-v and v-u count as the same edge).
func (g *Graph) Duplicates() int { return g.duplicates }

// Isolated returns the nodes without neighbours, in index order.
func (g *Graph) Isolated() []int {
	var iso []int
	for i := 0; i < g.NumNodes(); i++ {
		if g.Degree(i) == 0 {
			iso = append(iso, i)
		}
	}
	return iso
}

// MaxDegree returns the largest degree in the graph.
func (g *Graph) MaxDegree() int {
	m := 0
	for i := 0; i < g.NumNodes(); i++ {
		m = max(m, g.Degree(i))
	}
	return m
}

// Key returns the input id of node i as a string.
func (g *Graph) Key(i int) string {
	if g.strKeys != nil {
		return g.strKeys[i]
	}
	if g.intKeys != nil {
		return strconv.FormatInt(g.intKeys[i], 10)
	}
	return strconv.Itoa(i)
}

// IntKey returns the input id of node i if the graph's keys are integers.
func (g *Graph) IntKey(i int) (int64, bool) {
	if g.strKeys != nil {
		return 0, false
	}
	if g.intKeys != nil {
		return g.intKeys[i], true
	}
	return int64(i), true
}

// IntKeys reports whether every key is an integer.
func (g *Graph) IntKeys() bool { return g.strKeys == nil }

// Index returns the node index of the given key.
func (g *Graph) Index(key string) (int, bool) {
	if g.parent != nil {
		i, ok := g.parent.Index(key)
		if !ok || g.parentIndex[i] < 0 {
			return 0, false
		}
		return int(g.parentIndex[i]), true
	}
	g.indexOnce.Do(g.buildIndex)
	if g.strKeys != nil {
		i, ok := g.strIndex[key]
		return int(i), ok
	}
	k, ok := parseIntKey(key)
	if !ok {
		return 0, false
	}
	if g.intKeys == nil {
		return int(k), k >= 0 && k < int64(g.NumNodes())
	}
	i, ok := g.intIndex[k]
	return int(i), ok
}

func (g *Graph) buildIndex() {
	switch {
	case g.strIndex != nil || g.intIndex != nil:
		// Built by the Builder already.
	case g.strKeys != nil:
		g.strIndex = make(map[string]int32, len(g.strKeys))
		for i, k := range g.strKeys {
			g.strIndex[k] = int32(i)
		}
	case g.intKeys != nil:
		g.intIndex = make(map[int64]int32, len(g.intKeys))
		for i, k := range g.intKeys {
			g.intIndex[k] = int32(i)
		}
	}
}

// parseIntKey parses s as an integer key only if it is written canonically,
// so that "007" and "7" stay two different nodes.
func parseIntKey(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strconv.FormatInt(v, 10) != s {
		return 0, false
	}
	return v, true
}

// Builder accumulates nodes and edges with arbitrary keys and builds a Graph.
// Keys that are all canonical integers are stored as integers; the first
// non-integer key switches the builder to string keys. The zero value is
// ready to use.
type Builder struct {
	intIdx  map[int64]int32
	strIdx  map[string]int32
	intKeys []int64
	strKeys []string
	strMode bool

	src, dst  []int32
	selfLoops int
}

// NumNodes returns the number of distinct keys seen so far.
func (b *Builder) NumNodes() int {
	if b.strMode {
		return len(b.strKeys)
	}
	return len(b.intKeys)
}

// NumEdges returns the number of edges added so far, before deduplication,
// self-loops excluded.
func (b *Builder) NumEdges() int { return len(b.src) }

// AddNode adds a node with the given key if it is new, and returns its index.
func (b *Builder) AddNode(key string) int32 {
	if !b.strMode {
		if k, ok := parseIntKey(key); ok {
			return b.AddIntNode(k)
		}
		b.toStrings()
	}
	if i, ok := b.strIdx[key]; ok {
		return i
	}
	if b.strIdx == nil {
		b.strIdx = make(map[string]int32)
	}
	i := int32(len(b.strKeys))
	b.strIdx[key] = i
	b.strKeys = append(b.strKeys, key)
	return i
}

// AddIntNode adds a node with an integer key if it is new, and returns its index.
func (b *Builder) AddIntNode(key int64) int32 {
	if b.strMode {
		return b.AddNode(strconv.FormatInt(key, 10))
	}
	if i, ok := b.intIdx[key]; ok {
		return i
	}
	if b.intIdx == nil {
		b.intIdx = make(map[int64]int32)
	}
	i := int32(len(b.intKeys))
	b.intIdx[key] = i
	b.intKeys = append(b.intKeys, key)
	return i
}

func (b *Builder) toStrings() {
	b.strMode = true
	b.strKeys = make([]string, len(b.intKeys))
	b.strIdx = make(map[string]int32, len(b.intKeys))
	for i, k := range b.intKeys {
		s := strconv.FormatInt(k, 10)
		b.strKeys[i] = s
		b.strIdx[s] = int32(i)
	}
	b.intKeys, b.intIdx = nil, nil
}

// AddEdge adds an undirected edge between two keys, adding the nodes as needed.
// A self-loop adds its node and is counted, not stored.
func (b *Builder) AddEdge(u, v string) {
	b.addIndexEdge(b.AddNode(u), b.AddNode(v))
}

// AddIntEdge is AddEdge for integer keys.
func (b *Builder) AddIntEdge(u, v int64) {
	b.addIndexEdge(b.AddIntNode(u), b.AddIntNode(v))
}

// sortKeys renumbers the nodes in key order and rewrites the edges to match.
func (b *Builder) sortKeys() {
	n := b.NumNodes()
	perm := make([]int32, n) // perm[new] = old
	for i := range perm {
		perm[i] = int32(i)
	}
	if b.strMode {
		slices.SortFunc(perm, func(x, y int32) int { return strings.Compare(b.strKeys[x], b.strKeys[y]) })
	} else {
		slices.SortFunc(perm, func(x, y int32) int { return cmp.Compare(b.intKeys[x], b.intKeys[y]) })
	}
	inv := make([]int32, n)
	sorted := true
	for k, old := range perm {
		inv[old] = int32(k)
		sorted = sorted && int(old) == k
	}
	if sorted {
		return
	}
	for k := range b.src {
		b.src[k], b.dst[k] = inv[b.src[k]], inv[b.dst[k]]
	}
	if b.strMode {
		keys := make([]string, n)
		for k, old := range perm {
			keys[k] = b.strKeys[old]
			b.strIdx[keys[k]] = int32(k)
		}
		b.strKeys = keys
	} else {
		keys := make([]int64, n)
		for k, old := range perm {
			keys[k] = b.intKeys[old]
			b.intIdx[keys[k]] = int32(k)
		}
		b.intKeys = keys
	}
}

// IntIndex returns the index of the node with integer key k, if it was
// added. It only reads: safe for concurrent use while nothing is added.
func (b *Builder) IntIndex(key int64) (int32, bool) {
	if b.strMode {
		i, ok := b.strIdx[strconv.FormatInt(key, 10)]
		return i, ok
	}
	i, ok := b.intIdx[key]
	return i, ok
}

// Index returns the index of the node with the given key, if it was added
// (a canonical integer such as "7" is the node of integer key 7, as in
// AddNode). It only reads: safe for concurrent use while nothing is added.
func (b *Builder) Index(key string) (int32, bool) {
	if !b.strMode {
		if k, ok := parseIntKey(key); ok {
			i, ok := b.intIdx[k]
			return i, ok
		}
		return 0, false
	}
	i, ok := b.strIdx[key]
	return i, ok
}

// AddIndexEdge adds an undirected edge between the nodes of indices i and
// j: the indices AddNode and AddIntNode returned, in the order the nodes
// were added. A self-loop is counted, not stored. It panics if an index is
// not that of a node added so far: callers that map keys to nodes
// themselves (the Neo4j connector, which checks every key) use it to add
// each edge without looking its keys up again.
func (b *Builder) AddIndexEdge(i, j int32) {
	if n := int32(b.NumNodes()); i < 0 || j < 0 || i >= n || j >= n {
		panic(fmt.Sprintf("fondue.Builder.AddIndexEdge: index %d or %d not in [0,%d)", i, j, n))
	}
	b.addIndexEdge(i, j)
}

func (b *Builder) addIndexEdge(i, j int32) {
	if i == j {
		b.selfLoops++
		return
	}
	b.src = append(b.src, i)
	b.dst = append(b.dst, j)
}

// Build returns the graph. Nodes are numbered in key order (integers
// numerically, strings lexicographically), not in the order they were added,
// so that the same graph gives the same indices, hence the same scores,
// whether it came from a file or a database. Duplicate edges are collapsed.
// The builder must not be used afterwards.
func (b *Builder) Build() *Graph {
	n := b.NumNodes()
	b.sortKeys()
	g := buildCSR(n, b.src, b.dst)
	g.selfLoops = b.selfLoops
	if b.strMode {
		g.strKeys, g.strIndex = b.strKeys, b.strIdx
	} else {
		g.intKeys, g.intIndex = b.intKeys, b.intIdx
	}
	*b = Builder{}
	return g
}

// NewGraph builds a graph over nodes 0..n-1 whose keys are their indices,
// from edge endpoint pairs. Self-loops are dropped and counted, duplicates
// collapsed. A negative n, more nodes than int32 indices hold, or an
// endpoint out of range is an *OptionsError (errors.As with
// *fondue.OptionsError).
func NewGraph(n int, edges [][2]int) (*Graph, error) {
	if n < 0 || n > math.MaxInt32 {
		return nil, &errs.OptionsError{Msg: fmt.Sprintf("graph: %d nodes (want 0 to %d)", n, math.MaxInt32)}
	}
	src := make([]int32, 0, len(edges))
	dst := make([]int32, 0, len(edges))
	loops := 0
	for k, e := range edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			return nil, &errs.OptionsError{Msg: fmt.Sprintf("graph: edge %d, %v, out of range [0,%d)", k, e, n)}
		}
		if e[0] == e[1] {
			loops++
			continue
		}
		src = append(src, int32(e[0]))
		dst = append(dst, int32(e[1]))
	}
	g := buildCSR(n, src, dst)
	g.selfLoops = loops
	return g, nil
}

// WithKeys returns a copy of g's structure with the given node keys, one per
// node. It is used to carry input ids through derived graphs. Keys that are
// not one per node, or that repeat, are an *OptionsError.
func (g *Graph) WithKeys(keys []string) (*Graph, error) {
	if len(keys) != g.NumNodes() {
		return nil, &errs.OptionsError{Msg: fmt.Sprintf("graph: %d keys for %d nodes", len(keys), g.NumNodes())}
	}
	var b Builder
	for k, key := range keys {
		if b.AddNode(key) != int32(k) {
			return nil, &errs.OptionsError{Msg: fmt.Sprintf("graph: key %q of node %d repeats an earlier node's", key, k)}
		}
	}
	h := &Graph{off: g.off, adj: g.adj, selfLoops: g.selfLoops, duplicates: g.duplicates}
	if b.strMode {
		h.strKeys, h.strIndex = b.strKeys, b.strIdx
	} else {
		h.intKeys, h.intIndex = b.intKeys, b.intIdx
	}
	return h, nil
}

// WithKeysOf returns a copy of g's structure whose node a has the key of
// node nodes[a] of parent, index mapping parent's nodes back (index[i] is
// a, or -1 for a node not in nodes). It is WithKeys with those keys, but
// Index looks keys up in parent's index instead of building one of its
// own (on a subgraph of most of a large graph, the larger part of its
// cost). Lengths that do not fit, or an index that does not invert nodes,
// are an *OptionsError.
func (g *Graph) WithKeysOf(parent *Graph, nodes, index []int32) (*Graph, error) {
	if len(nodes) != g.NumNodes() || len(index) != parent.NumNodes() {
		return nil, &errs.OptionsError{Msg: fmt.Sprintf("graph: %d nodes of a graph of %d (index of %d) for %d nodes",
			len(nodes), parent.NumNodes(), len(index), g.NumNodes())}
	}
	for a, i := range nodes {
		if i < 0 || int(i) >= len(index) || index[i] != int32(a) {
			return nil, &errs.OptionsError{Msg: fmt.Sprintf("graph: node %d, node %d of the other graph, is not where the index maps it", a, i)}
		}
	}
	if parent.strKeys != nil {
		// All integers among string keys: WithKeys stores them as
		// integers, as a graph built from them would.
		ints := true
		for _, i := range nodes {
			if _, ok := parseIntKey(parent.strKeys[i]); !ok {
				ints = false
				break
			}
		}
		if ints {
			keys := make([]string, len(nodes))
			for a, i := range nodes {
				keys[a] = parent.strKeys[i]
			}
			return g.WithKeys(keys)
		}
	}
	h := &Graph{off: g.off, adj: g.adj, selfLoops: g.selfLoops, duplicates: g.duplicates, parent: parent, parentIndex: index}
	switch {
	case parent.strKeys != nil:
		h.strKeys = make([]string, len(nodes))
		for a, i := range nodes {
			h.strKeys[a] = parent.strKeys[i]
		}
	default:
		h.intKeys = make([]int64, len(nodes))
		for a, i := range nodes {
			h.intKeys[a] = int64(i)
			if parent.intKeys != nil {
				h.intKeys[a] = parent.intKeys[i]
			}
		}
	}
	return h, nil
}

// buildCSR builds the adjacency of an undirected graph from (src, dst) pairs
// without self-loops; duplicates (in either orientation) are collapsed.
func buildCSR(n int, src, dst []int32) *Graph {
	deg := make([]int64, n+1)
	for k := range src {
		deg[src[k]+1]++
		deg[dst[k]+1]++
	}
	for i := 0; i < n; i++ {
		deg[i+1] += deg[i]
	}
	off := deg
	adj := make([]int32, off[n])
	pos := make([]int64, n)
	copy(pos, off[:n])
	for k := range src {
		u, v := src[k], dst[k]
		adj[pos[u]] = v
		pos[u]++
		adj[pos[v]] = u
		pos[v]++
	}
	// Sort each row and squeeze out duplicates: chunks of rows in
	// parallel, each compacted to the start of its own stretch of adj;
	// then the stretches are moved together in order.
	bounds := parallel.RowChunks(n, 1<<18, func(i int) float64 { return float64(off[i+1]-off[i]) + 1 })
	chunks := len(bounds) - 1
	kept := make([]int64, chunks) // entries chunk c kept
	chunkDups := make([]int, chunks)
	rowLen := make([]int32, n) // row i's length after dedup
	parallel.ForChunks(context.Background(), 0, chunks, func(_, c int) {
		w, d := off[bounds[c]], 0
		for i := bounds[c]; i < bounds[c+1]; i++ {
			row := adj[off[i]:off[i+1]]
			slices.Sort(row)
			start := w
			for k, v := range row {
				if k > 0 && v == row[k-1] {
					d++
					continue
				}
				adj[w] = v
				w++
			}
			rowLen[i] = int32(w - start)
		}
		kept[c], chunkDups[c] = w-off[bounds[c]], d
	})
	w := int64(0)
	dups := 0
	for c := 0; c < chunks; c++ {
		copy(adj[w:], adj[off[bounds[c]]:off[bounds[c]]+kept[c]])
		w += kept[c]
		dups += chunkDups[c]
	}
	w = 0
	for i := 0; i < n; i++ {
		off[i] = w
		w += int64(rowLen[i])
	}
	off[n] = w
	adj = slices.Clip(adj[:w])
	if int64(len(adj)) < int64(cap(adj))/2 {
		adj = slices.Clone(adj)
	}
	return &Graph{off: off, adj: adj, duplicates: dups / 2}
}

// BFSOrder returns a permutation of the nodes (order[new] = old) in which
// most neighbours are close to each other: breadth-first search from the
// lowest unvisited index, neighbours in index order (Cuthill-McKee without
// the degree sort). Algorithms that touch the vectors of a node's neighbours
// then read nearby memory instead of random memory.
func (g *Graph) BFSOrder() []int32 {
	n := g.NumNodes()
	order := make([]int32, 0, n)
	seen := make([]bool, n)
	for root := 0; root < n; root++ {
		if seen[root] {
			continue
		}
		seen[root] = true
		order = append(order, int32(root))
		for head := len(order) - 1; head < len(order); head++ {
			for _, j := range g.Neighbors(int(order[head])) {
				if !seen[j] {
					seen[j] = true
					order = append(order, j)
				}
			}
		}
	}
	return order
}

// Permute returns the graph with node order[k] renumbered k, without keys.
func (g *Graph) Permute(order []int32) *Graph {
	n := g.NumNodes()
	inv := make([]int32, n)
	for k, old := range order {
		inv[old] = int32(k)
	}
	off := make([]int64, n+1)
	for k, old := range order {
		off[k+1] = off[k] + int64(g.Degree(int(old)))
	}
	adj := make([]int32, len(g.adj))
	for k, old := range order {
		row := adj[off[k]:off[k+1]]
		for t, j := range g.Neighbors(int(old)) {
			row[t] = inv[j]
		}
		slices.Sort(row)
	}
	return &Graph{off: off, adj: adj}
}

// NewIntKeyGraph builds the graph of the undirected edges between integer
// keys listed in blocks: the blocks' concatenation holds the edges' keys two
// by two, (u, v), and every block has an even length. The graph is exactly
// the one a Builder fed the same edges with AddIntEdge would build: nodes
// numbered in key order, self-loops counted and dropped, duplicates
// collapsed. When the keys fill a range not much longer than the edge list
// (as the ids of most edge lists do), it numbers them with a table over the
// range instead of a map; otherwise it uses a Builder. The key index
// (Graph.Index) is built on first use.
func NewIntKeyGraph(blocks [][]int64) *Graph {
	total := 0
	var lo, hi int64
	for _, bl := range blocks {
		for _, k := range bl {
			if total == 0 {
				lo, hi = k, k
			}
			total++
			lo, hi = min(lo, k), max(hi, k)
		}
	}
	if total == 0 {
		return buildCSR(0, nil, nil)
	}
	span := uint64(hi) - uint64(lo) // hi >= lo: no overflow as unsigned
	if span >= uint64(total)+1<<16 {
		var b Builder
		for _, bl := range blocks {
			for k := 0; k+1 < len(bl); k += 2 {
				b.AddIntEdge(bl[k], bl[k+1])
			}
		}
		return b.Build()
	}
	// rank[key-lo]: 1 + the node index of key, 0 while the key is unseen.
	rank := make([]int32, span+1)
	for _, bl := range blocks {
		for _, k := range bl {
			rank[k-lo] = 1
		}
	}
	n := int32(0)
	for r := range rank {
		if rank[r] != 0 {
			n++
			rank[r] = n
		}
	}
	keys := make([]int64, 0, n)
	for r, v := range rank {
		if v != 0 {
			keys = append(keys, lo+int64(r))
		}
	}
	src := make([]int32, 0, total/2)
	dst := make([]int32, 0, total/2)
	loops := 0
	for _, bl := range blocks {
		for k := 0; k+1 < len(bl); k += 2 {
			u, v := rank[bl[k]-lo]-1, rank[bl[k+1]-lo]-1
			if u == v {
				loops++
				continue
			}
			src = append(src, u)
			dst = append(dst, v)
		}
	}
	rank = nil
	g := buildCSR(int(n), src, dst)
	g.selfLoops = loops
	g.intKeys = keys
	return g
}
