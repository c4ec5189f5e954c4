package connector

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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
		p = &puller{c: c, o: o} // fresh state on every attempt
		return nil, p.nodeChunks(ctx, tx, nodeQ)
	})
	if err != nil {
		return nil, err
	}
	if o.IDProperty == "" {
		// Relationships name their ends by element id.
		p.pos = make(map[string]int32, len(p.ids))
		for k, id := range p.ids {
			p.pos[id.(string)] = int32(k)
		}
	}
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
	for _, pt := range parts {
		p.st.RelationshipRows += pt.rows
		p.st.Dangling += pt.dangling
		for k := 0; k+1 < len(pt.ends); k += 2 {
			p.b.AddIndexEdge(pt.ends[k], pt.ends[k+1])
		}
	}
	if o.Progress != nil {
		o.Progress(p.st.NodeRows, p.st.RelationshipRows)
	}
	return p, nil
}

func isCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || strings.Contains(err.Error(), context.Canceled.Error())
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
	embCol, displayCol, cloneCol := col("embedding"), col("display"), col("clone")
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
		var nodeKeys, clones, embs, displays []any
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
			if _, err := p.addNode(id, at(nodeKeys, k), at(clones, k), at(embs, k), at(displays, k), labels[k], true); err != nil {
				return err
			}
		}
	}
	return res.Err()
}

// part selects the start nodes of one of the reads of the relationships
// that run at once: those whose name (key, else element id, as a string)
// ends with a character of in, or, when in is nil, with none of notIn
// (nil: every node).
type part struct{ in, notIn []string }

// parts splits the nodes read into up to n parts of about as many nodes,
// by the last character of their names: the last digit of integer keys,
// the last character of string keys or element ids. Unlike ranges of keys,
// it spreads nodes evenly whatever order relationships follow (they often
// point from older nodes to newer, or from smaller keys to larger). The
// last part takes every character no other part has, so that every node
// is in exactly one part, whatever the server counts as a character.
func (p *puller) parts(n int) []part {
	if n <= 1 || len(p.ids) < 2*n {
		return []part{{}}
	}
	counts := map[string]int{}
	for k := range p.ids {
		var name string
		switch {
		case p.intKeys != nil:
			name = strconv.FormatInt(p.intKeys[k], 10)
		case p.strKeys != nil:
			name = p.strKeys[k]
		default:
			name = p.ids[k].(string)
		}
		r, _ := utf8.DecodeLastRuneInString(name)
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

// position is the position of the node a relationship's end names: by
// key with IDProperty, else by element id. Ends that name no node read
// (created since, a clone without a key, another type) have none.
func (p *puller) position(v any) (int32, bool) {
	switch k := v.(type) {
	case int64:
		if p.o.IDProperty == "" || p.intKeys == nil {
			return 0, false
		}
		return p.b.IntIndex(k)
	case string:
		if p.o.IDProperty == "" {
			i, ok := p.pos[k]
			return i, ok
		}
		if p.strKeys == nil {
			return 0, false
		}
		return p.b.Index(k)
	}
	return 0, false
}
