package connector

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// PullChunk is the number of nodes per record of a native pull: each
// record holds, per column, a list with a value per node. The driver's
// cost is per record (a record per node cost the client more CPU than the
// server spent); at 1000 nodes a record of a graph of degree 20 is about
// 100 KB.
const PullChunk = 1000

// pullNative reads a native projection: the nodes in one read
// transaction, then the relationships of Config.ReadConcurrency parts of
// the start nodes at once, each in a read transaction and session of its own,
// merged in the order of the parts.
func (c *Conn) pullNative(ctx context.Context, o syncjob.PullOptions, nodeQ, relQ string) (*puller, error) {
	s := c.session(ctx, neo4j.AccessModeRead)
	defer s.Close(ctx)
	var p *puller
	_, err := c.readTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
		p = newPuller(c, o) // fresh state on every attempt
		return nil, p.nodeChunks(ctx, tx, nodeQ)
	})
	if err != nil {
		return nil, err
	}
	// Relationships name their ends by element id.
	p.index = newIDIndex(p.ids)
	if o.Progress != nil {
		o.Progress(p.st.NodeRows, 0)
	}
	ranges := p.parts(c.cfg.ReadConcurrency)
	parts := make([]relPart, len(ranges))
	var progress *rowProgress
	if o.Progress != nil {
		progress = &rowProgress{report: o.Progress, nodes: p.st.NodeRows}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(ranges))
	t0 := time.Now()
	for k, r := range ranges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				c.log.Debug("pulled a part of the start nodes", "part", k+1, "of", len(ranges), "rows", parts[k].rows, "seconds", time.Since(t0).Seconds())
			}()
			s := c.session(ctx, neo4j.AccessModeRead)
			defer s.Close(ctx)
			_, err := c.readTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
				parts[k] = relPart{} // fresh state on every attempt
				return nil, p.relChunks(ctx, tx, relQ, r, &parts[k], progress)
			})
			if err != nil {
				errs[k] = err
				cancel()
			}
		}()
	}
	wg.Wait()
	// The first range that failed of itself is reported, not those it
	// cancelled.
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || isCanceled(first) && !isCanceled(err)) {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	for k := range parts {
		pt := &parts[k]
		p.st.RelationshipRows += pt.rows
		p.st.Dangling += pt.dangling
		for e := 0; e+1 < len(pt.ends); e += 2 {
			p.b.AddIndexEdge(pt.ends[e], pt.ends[e+1])
		}
		pt.ends = nil // merged: the collector may take it
	}
	if o.Progress != nil {
		o.Progress(p.st.NodeRows, p.st.RelationshipRows)
	}
	return p, nil
}

// rowProgress reports the rows read by the ranges read at once.
type rowProgress struct {
	mu     sync.Mutex
	report func(nodes, rows int)
	nodes  int
	rows   int
	next   int
}

func (r *rowProgress) add(rows int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows += rows
	if r.rows >= r.next {
		r.next = r.rows + progressEvery
		r.report(r.nodes, r.rows)
	}
}

// nodeChunks reads the nodes: records of PullChunk nodes, each column a
// list with a value per node.
func (p *puller) nodeChunks(ctx context.Context, tx neo4j.ManagedTransaction, q string) error {
	res, err := tx.Run(ctx, q, map[string]any{"chunk": PullChunk})
	if err != nil {
		return err
	}
	want := []string{"id", "labels"}
	if p.o.IDProperty != "" {
		want = append(want, "key")
	}
	cols, err := p.columns(res, false, want...)
	if err != nil {
		return err
	}
	keys, _ := res.Keys()
	col := func(name string) int { return slices.Index(keys, name) }
	embCol, displayCol, cloneCol, evCol, writtenCol := col("embedding"), col("display"), col("clone"), col("evidence"), col("written")
	if p.ev != nil && evCol < 0 {
		return fmt.Errorf("the node query returned no column evidence")
	}
	list := func(vals []any, c, n int) ([]any, error) {
		if c < 0 {
			return nil, nil
		}
		l, ok := vals[c].([]any)
		if !ok || len(l) != n {
			return nil, fmt.Errorf("the node query returned a malformed chunk (column %s)", keys[c])
		}
		return l, nil
	}
	for res.Next(ctx) {
		vals := res.Record().Values
		ids, ok := vals[cols[0]].([]any)
		if !ok {
			return fmt.Errorf("the node query returned a malformed chunk (column id)")
		}
		n := len(ids)
		labels, err := list(vals, cols[1], n)
		if err != nil {
			return err
		}
		var nodeKeys, clones, embs, displays, evs, written []any
		if p.o.IDProperty != "" {
			if nodeKeys, err = list(vals, cols[2], n); err != nil {
				return err
			}
			if clones, err = list(vals, cloneCol, n); err != nil {
				return err
			}
		}
		if embs, err = list(vals, embCol, n); err != nil {
			return err
		}
		if displays, err = list(vals, displayCol, n); err != nil {
			return err
		}
		if evs, err = list(vals, evCol, n); err != nil {
			return err
		}
		if written, err = list(vals, writtenCol, n); err != nil {
			return err
		}
		at := func(l []any, k int) any {
			if l == nil {
				return nil
			}
			return l[k]
		}
		for k, id := range ids {
			p.st.NodeRows++
			if err := p.checkID(id, false, "id", p.st.NodeRows); err != nil {
				return err
			}
			ev, _ := at(evs, k).([]any)
			added, err := p.addNode(id.(string), at(nodeKeys, k), at(clones, k), at(embs, k), at(displays, k), labels[k], true, ev)
			if err != nil {
				return err
			}
			if added && written != nil {
				p.addWritten(written[k])
			}
		}
	}
	return res.Err()
}

// part selects the start nodes of one of the reads of the relationships
// that run at once: those whose element id ends with a character of in,
// or, when in is nil, with none of notIn (nil: every node).
type part struct{ in, notIn []string }

// parts splits the nodes read into up to n parts of about as many nodes,
// by the last character of their element ids (the last digit of a number,
// in Neo4j 5). Unlike ranges of keys or ids, it spreads nodes evenly
// whatever order relationships follow (they often point from older nodes
// to newer, or from smaller keys to larger). The last part takes every
// character no other part has, so that every node is in exactly one part,
// whatever the element ids look like.
func (p *puller) parts(n int) []part {
	if n <= 1 || len(p.ids) < 2*n {
		return []part{{}}
	}
	counts := map[string]int{}
	for _, id := range p.ids {
		r, _ := utf8.DecodeLastRuneInString(id)
		counts[string(r)]++
	}
	chars := slices.Collect(maps.Keys(counts))
	// Largest first, each to the part with the fewest nodes so far.
	slices.SortFunc(chars, func(a, b string) int {
		if c := cmp.Compare(counts[b], counts[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	n = min(n, len(chars))
	if n <= 1 {
		return []part{{}}
	}
	sets := make([][]string, n)
	sizes := make([]int, n)
	for _, c := range chars {
		k := slices.Index(sizes, slices.Min(sizes))
		sets[k] = append(sets[k], c)
		sizes[k] += counts[c]
	}
	out := make([]part, n)
	var others []string
	for k := 0; k < n-1; k++ {
		slices.Sort(sets[k])
		out[k] = part{in: sets[k]}
		others = append(others, sets[k]...)
	}
	slices.Sort(others)
	out[n-1] = part{notIn: others}
	return out
}

// relPart is what one range's read found: edges as pairs of node
// positions, rows read, ends outside the nodes.
type relPart struct {
	ends           []int32
	rows, dangling int
}

// relChunks reads the relationships of the start nodes of r: records of
// PullChunk start nodes, with per node the list of its ends. It only reads
// the puller's node table (many ranges read it at once).
func (p *puller) relChunks(ctx context.Context, tx neo4j.ManagedTransaction, q string, r part, out *relPart, progress *rowProgress) error {
	params := map[string]any{"chunk": PullChunk, "in": nil, "notIn": nil}
	if r.in != nil {
		params["in"] = r.in
	}
	if r.notIn != nil {
		params["notIn"] = r.notIn
	}
	res, err := tx.Run(ctx, q, params)
	if err != nil {
		return err
	}
	cols, err := p.columns(res, true, "source", "targets")
	if err != nil {
		return err
	}
	for res.Next(ctx) {
		vals := res.Record().Values
		sources, ok1 := vals[cols[0]].([]any)
		targets, ok2 := vals[cols[1]].([]any)
		if !ok1 || !ok2 || len(sources) != len(targets) {
			return fmt.Errorf("the relationship query returned a malformed chunk")
		}
		rows := 0
		for k, s := range sources {
			ends, _ := targets[k].([]any)
			rows += len(ends)
			ps, ok := p.position(s)
			if !ok {
				out.dangling += len(ends)
				continue
			}
			for _, t := range ends {
				pt, ok := p.position(t)
				if !ok {
					out.dangling++
					continue
				}
				out.ends = append(out.ends, ps, pt)
			}
		}
		out.rows += rows
		progress.add(rows)
	}
	return res.Err()
}

// position is the position of the node an element id names, if it is
// one of the nodes read (a relationship's end may be a node created since,
// or a clone without a key).
func (p *puller) position(v any) (int32, bool) {
	id, ok := v.(string)
	if !ok {
		return 0, false
	}
	return p.index.lookup(id)
}

// idIndex finds a node's position from its element id. Neo4j 5's element
// ids are a prefix shared by the nodes of a database and a number that
// runs from 0 to about the number of nodes: when every node read has such
// an id, it is a table indexed by the number (a lookup is a subtraction
// and a load, where a map of a million strings is cache misses); otherwise
// a map. Either way an id is found only if it is one of the nodes'.
type idIndex struct {
	prefix string
	table  []int32 // position + 1 by number; nil: m
	m      map[string]int32
}

func newIDIndex(ids []string) *idIndex {
	x := &idIndex{}
	if len(ids) > 0 {
		first := ids[0]
		x.prefix = first[:strings.LastIndexByte(first, ':')+1]
		limit := int64(4*len(ids) + 1<<20) // a table at most 16 bytes a node, and 4 MB
		nums := make([]int64, len(ids))
		ok := x.prefix != ""
		var top int64
		for k := 0; ok && k < len(ids); k++ {
			nums[k], ok = x.number(ids[k])
			ok = ok && nums[k] < limit
			top = max(top, nums[k])
		}
		if ok {
			x.table = make([]int32, top+1)
			for k, num := range nums {
				x.table[num] = int32(k) + 1
			}
			return x
		}
	}
	x.m = make(map[string]int32, len(ids))
	for k, id := range ids {
		x.m[id] = int32(k)
	}
	return x
}

// number reads the number of an element id with the index's prefix,
// written canonically (so that one id has one number).
func (x *idIndex) number(id string) (int64, bool) {
	rest, ok := strings.CutPrefix(id, x.prefix)
	if !ok || rest == "" || len(rest) > 18 || (rest[0] == '0' && len(rest) > 1) {
		return 0, false
	}
	var v int64
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

func (x *idIndex) lookup(id string) (int32, bool) {
	if x.table == nil {
		i, ok := x.m[id]
		return i, ok
	}
	v, ok := x.number(id)
	if !ok || v >= int64(len(x.table)) || x.table[v] == 0 {
		return 0, false
	}
	return x.table[v] - 1, true
}

// PullMemory is the memory of a native pull of nodes nodes and rels
// relationships beside the engine's (memory.Options): load, the
// pull's own buffers while the graph is built, and held, what the
// subgraph keeps through the run to write the scores back. In bytes:
//
//	held = 64n element ids (a keys.Key, 32 bytes, and the id's text each)
//	       + 32n keys (a keys.Key each; string keys their text besides, 16n)
//	       + 4n label sets [+ names, saved embeddings]
//	       + (c+1) (64 PullChunk (1 + r/n) + 64 KiB) the driver's buffers:
//	         its c+1 connections (c = readConcurrency) each keep one the
//	         size of the largest record read, and their own state
//	       [+ with e evidence properties of t bytes of text (evidenceText,
//	         PullStats.EvidenceTextBytes), the node query's record of
//	         PullChunk nodes' values: PullChunk (64e + 2t/n)]
//	load = 16n the node table (its slice of ids, the keys, the label sets)
//	       + 4n the element-id index (a table by number; a map: 40n)
//	       + 16r the relationships' parts (8 bytes an edge, with append's growth)
//	       + c (64 PullChunk (1 + r/n) + 64 KiB) the chunks being decoded:
//	         each reader's record as Go values, about its buffer's size
//	       [+ 16en the evidence values in the order read]
//
// with n nodes and r relationships (rows read). A Cypher projection's
// load is the node table and a map of element ids (16n + 40n).
//
// The context the pull builds (kinds, evidence values) is not counted
// here: memory.ForContext counts it with what the engine allocates for it.
func PullMemory(nodes, rels int64, o syncjob.PullOptions, stringKeys bool, readConcurrency int, evidenceText int64) (load, held []memory.Part) {
	n, r := nodes, rels
	if readConcurrency <= 0 {
		readConcurrency = DefaultReadConcurrency
	}
	keys := int64(0)
	if o.IDProperty != "" {
		keys = 32 * n
		if stringKeys {
			keys = n * (32 + 16)
		}
	}
	// The driver's connections keep a buffer the size of the largest
	// record they read (a chunk of nodes, each with its ends), and their
	// own state (buffered reader and writer, chunker: about 64 KiB).
	record := int64(PullChunk)*(1+r/max(n, 1))*64 + 64<<10
	if o.Custom() {
		record = 64 << 10
	}
	held = []memory.Part{
		{Name: "pulled nodes' element ids", Bytes: 64 * n},
		{Name: "pulled nodes' keys", Bytes: keys},
		{Name: "pulled nodes' label sets", Bytes: 4 * n},
		{Name: "the driver's read buffers (a record per connection)", Bytes: int64(readConcurrency+1) * record},
	}
	if len(o.DisplayProperties) > 0 {
		held = append(held, memory.Part{Name: "pulled nodes' names", Bytes: n * (16 + 32)})
	}
	if o.EmbeddingProperty != "" {
		held = append(held, memory.Part{Name: "saved embeddings", Bytes: n * (24 + 8*16)})
	}
	if r := int64(len(o.ReadBack)); r > 0 {
		// 8 bytes a value kept; while read, a list of r values a node in
		// the node query's record.
		held = append(held, memory.Part{Name: "values read back (written by the last run)", Bytes: 8*r*n + int64(PullChunk)*(24+16*r)})
	}
	// The context itself (kinds, evidence values) is the engine's to
	// count, for files and Neo4j alike (memory.ForContext); the pull's
	// are the record it reads the values in and their order read.
	e := int64(len(o.EvidenceProperties))
	var evLoad int64
	if e > 0 {
		t := max(evidenceText, 0)
		held = append(held,
			memory.Part{Name: "the node query's record of evidence values", Bytes: int64(PullChunk) * (64*e + 2*t/max(n, 1))})
		evLoad = 16 * e * n
	}
	if o.Custom() {
		// A record per row, straight into the graph, nodes found by a map.
		return []memory.Part{
			{Name: "pull: node table", Bytes: 16 * n},
			{Name: "pull: element-id map", Bytes: 40 * n},
			{Name: "pull: evidence values in the order read", Bytes: evLoad},
		}, held
	}
	load = []memory.Part{
		{Name: "pull: node table", Bytes: 16 * n},
		{Name: "pull: element-id index", Bytes: 4 * n},
		{Name: "pull: relationships read, by part", Bytes: 16 * r},
		{Name: "pull: the chunks being decoded (a record per reader)", Bytes: int64(readConcurrency) * record},
		{Name: "pull: evidence values in the order read", Bytes: evLoad},
	}
	return load, held
}
