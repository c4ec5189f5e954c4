package memstore

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"unicode"

	"slices"

	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Node is a node: its id (like an element id), labels and properties.
type Node struct {
	ID     string
	Labels []string
	Props  map[string]any
}

// Rel is a relationship from From to To.
type Rel struct {
	ID       string
	Type     string
	From, To string
	Props    map[string]any
}

// Store is an in-memory graph. The zero value is not usable: call New.
type Store struct {
	mu     sync.Mutex
	nodes  map[string]*Node
	rels   map[string]*Rel
	nextID int
	locks  map[string]*lock // by name: the holder
	// records are the runs' records, by run id.
	records map[string]*syncjob.Record
	fence   *lock // the lock this store's writes check (the last one taken)
	// Writes counts the write operations that changed the graph (scores,
	// splits, undos, plans), for tests that check a dry run writes
	// nothing.
	writes int
}

// New returns an empty store.
func New() *Store {
	return &Store{nodes: map[string]*Node{}, rels: map[string]*Rel{}, locks: map[string]*lock{}, records: map[string]*syncjob.Record{}}
}

var (
	_ syncjob.Store       = (*Store)(nil)
	_ syncjob.NameChecker = (*Store)(nil)
)

func (s *Store) newID(prefix string) string {
	s.nextID++
	return prefix + strconv.Itoa(s.nextID)
}

// AddNode adds a node and returns its id.
func (s *Store) AddNode(labels []string, props map[string]any) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := &Node{ID: s.newID("n:"), Labels: slices.Clone(labels), Props: cloneProps(props)}
	s.nodes[n.ID] = n
	return n.ID
}

// AddRel adds a relationship from node from to node to and returns its id.
func (s *Store) AddRel(from, to, typ string, props map[string]any) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &Rel{ID: s.newID("r:"), Type: typ, From: from, To: to, Props: cloneProps(props)}
	s.rels[r.ID] = r
	return r.ID
}

// DeleteRel deletes a relationship.
func (s *Store) DeleteRel(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.rels, id)
}

// SetProp sets (or, with nil, removes) a node property.
func (s *Store) SetProp(id, prop string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.nodes[id]; n != nil {
		setProp(n.Props, prop, v)
	}
}

// Nodes returns a copy of every node, by id.
func (s *Store) Nodes() []Node {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Node
	for _, n := range s.nodes {
		out = append(out, Node{ID: n.ID, Labels: slices.Clone(n.Labels), Props: cloneProps(n.Props)})
	}
	slices.SortFunc(out, func(a, b Node) int { return compareIDs(a.ID, b.ID) })
	return out
}

// Rels returns a copy of every relationship, by id.
func (s *Store) Rels() []Rel {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Rel
	for _, r := range s.rels {
		out = append(out, Rel{ID: r.ID, Type: r.Type, From: r.From, To: r.To, Props: cloneProps(r.Props)})
	}
	slices.SortFunc(out, func(a, b Rel) int { return compareIDs(a.ID, b.ID) })
	return out
}

// Writes returns the number of write operations that changed the store.
func (s *Store) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

func compareIDs(a, b string) int {
	ai, _ := strconv.Atoi(a[strings.IndexByte(a, ':')+1:])
	bi, _ := strconv.Atoi(b[strings.IndexByte(b, ':')+1:])
	return ai - bi
}

func cloneProps(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		if l, ok := v.([]any); ok {
			v = slices.Clone(l)
		}
		out[k] = v
	}
	return out
}

func setProp(p map[string]any, k string, v any) {
	if v == nil {
		delete(p, k)
		return
	}
	p[k] = v
}

func hasAnyLabel(labels, want []string) bool {
	return slices.ContainsFunc(labels, func(l string) bool { return slices.Contains(want, l) })
}

// ---- lock

type lock struct {
	s      *Store
	o      syncjob.LockOptions
	owner  string
	ctx    context.Context
	cancel context.CancelCauseFunc
	once   sync.Once
}

func (l *lock) Context() context.Context { return l.ctx }

func (l *lock) Release(ctx context.Context) error {
	l.once.Do(func() {
		l.s.mu.Lock()
		if l.s.locks[l.o.Name] == l {
			delete(l.s.locks, l.o.Name)
		}
		if l.s.fence == l {
			l.s.fence = nil
		}
		l.s.mu.Unlock()
		l.cancel(nil)
	})
	return nil
}

// Lock takes the lock named o.Name, or fails with ErrLocked naming the
// run that holds it. Locks of this store never expire; Steal takes one
// over, as an expired lock is in Neo4j.
func (s *Store) Lock(ctx context.Context, o syncjob.LockOptions) (syncjob.Lock, error) {
	if o.Name == "" {
		o.Name = syncjob.DefaultLockName
	}
	if o.TTL <= 0 {
		o.TTL = syncjob.DefaultLockTTL
	}
	if o.TTL < syncjob.MinLockTTL {
		return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "LockOptions.TTL %s is too short (at least %s)", o.TTL, syncjob.MinLockTTL)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.locks[o.Name]; h != nil {
		return nil, syncjob.Errorf(syncjob.ErrLocked, nil, "another run holds the lock %q: run %q on host %q", o.Name, h.o.RunID, "memstore")
	}
	l := &lock{s: s, o: o, owner: s.newID("lock:")}
	l.ctx, l.cancel = context.WithCancelCause(ctx)
	s.locks[o.Name], s.fence = l, l
	return l, nil
}

// Steal takes the lock named name over for another run (as a run whose
// lock expired loses it): the holder's context is cancelled with
// ErrLockLost, and its further writes fail.
func (s *Store) Steal(name string) {
	s.mu.Lock()
	h := s.locks[name]
	s.locks[name] = &lock{s: s, o: syncjob.LockOptions{Name: name, RunID: "thief"}, owner: "thief"}
	s.mu.Unlock()
	if h != nil {
		h.cancel(syncjob.ErrLockLost)
	}
}

// checkFence fails, as a fenced write transaction does, when this store's
// lock is no longer held. s.mu is held.
func (s *Store) checkFence(doing string) error {
	l := s.fence
	if l == nil || s.locks[l.o.Name] == l {
		return nil
	}
	l.cancel(syncjob.ErrLockLost)
	return syncjob.Errorf(syncjob.ErrLocked, syncjob.ErrLockLost,
		"lost the lock %q (it expired or another run took it over): stopped before %s; nothing more was written", l.o.Name, doing)
}

// ---- pull

// Pull selects the nodes with any of o.NodeLabels (all when empty) and
// the relationships of o.RelationshipTypes between them, as the Neo4j
// store does: keys from o.IDProperty (integers or strings), split clones
// without a key left out, nodes numbered in key order.
func (s *Store) Pull(ctx context.Context, o syncjob.PullOptions) (*syncjob.Subgraph, error) {
	t0 := time.Now()
	if o.Custom() {
		return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "memstore: Cypher projections (node and relationship queries) are not supported")
	}
	if o.MarkerLabel == "" {
		o.MarkerLabel = syncjob.DefaultMarkerLabel
	}
	if err := o.CheckWriteLabels(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, l := range o.WriteNodeLabels {
		if !s.hasLabel(l) {
			return nil, syncjob.Errorf(syncjob.ErrEmpty, nil, "write node label %q does not exist in the database", l)
		}
	}
	var st syncjob.PullStats
	sel := s.selectNodes(o, &st)
	if len(sel) == 0 {
		what := "the database has no nodes"
		if len(o.NodeLabels) > 0 {
			what = "no nodes with label " + strings.Join(quoteAll(o.NodeLabels), " or ")
		}
		return nil, syncjob.Errorf(syncjob.ErrEmpty, nil, "the subgraph is empty: %s", what)
	}
	keys, err := nodeKeys(sel, o.IDProperty)
	if err != nil {
		return nil, err
	}
	var b graph.Builder
	for _, n := range sel {
		b.AddNode(keys[n.ID].text)
	}
	s.addEdges(&b, keys, o, &st)
	g := b.Build()
	st.SelfLoops, st.Parallel = g.SelfLoops(), g.Duplicates()
	if g.NumEdges() == 0 {
		return nil, syncjob.Errorf(syncjob.ErrEmpty, nil, "the subgraph has %d nodes but no relationships between two of them%s: nothing to score",
			len(sel), syncjob.OutsideNote(s.outside(keys, o)))
	}
	sg := subgraph(g, sel, keys, o, &st)
	if sg.Names != nil {
		s.unnamed(sg, sel, keys, o)
	}
	if err := sg.SelectTargets(); err != nil {
		return nil, err
	}
	st.Duration = time.Since(t0)
	sg.Stats = st
	return sg, nil
}

// hasLabel reports whether some node has label l. s.mu is held.
func (s *Store) hasLabel(l string) bool {
	for _, n := range s.nodes {
		if slices.Contains(n.Labels, l) {
			return true
		}
	}
	return false
}

// selectNodes returns the nodes o selects, by id. s.mu is held.
func (s *Store) selectNodes(o syncjob.PullOptions, st *syncjob.PullStats) []*Node {
	var sel []*Node
	for _, n := range s.nodes {
		if len(o.NodeLabels) > 0 && !hasAnyLabel(n.Labels, o.NodeLabels) {
			continue
		}
		if len(o.NodeLabels) == 0 && hasAnyLabel(n.Labels, splitplan.OwnLabels()) {
			continue // fondue-neo4j's own (a merged node's record)
		}
		st.NodeRows++
		if o.IDProperty != "" && n.Props[o.IDProperty] == nil && slices.Contains(n.Labels, o.MarkerLabel) {
			st.KeylessClones++
			continue
		}
		sel = append(sel, n)
	}
	slices.SortFunc(sel, func(a, b *Node) int { return compareIDs(a.ID, b.ID) })
	return sel
}

// nodeKey is a node's key, and its text (the graph's key).
type nodeKey struct {
	key  keys.Key
	text string
}

// nodeKeys checks the nodes' keys (the ids without idProp): integers or
// strings, one type, unique.
func nodeKeys(sel []*Node, idProp string) (map[string]nodeKey, error) {
	byID := map[string]nodeKey{}
	seen := map[string]bool{}
	kind := ""
	for _, n := range sel {
		key := keys.String(n.ID)
		if idProp != "" {
			var err error
			if key, err = keys.FromValue(n.Props[idProp]); err != nil {
				return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "key property %q of node elementId(n) = %q is %v", idProp, n.ID, err)
			}
			if key.IsZero() {
				return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "node %s has no key property %q: every selected node needs a key",
					syncjob.DescribeNode(n.ID, n.Labels), idProp)
			}
		}
		k := "string"
		if _, isInt := key.Int64(); isInt {
			k = "integer"
		}
		if kind != "" && k != kind {
			return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "key property %q holds both %ss and %ss: use one type", idProp, kind, k)
		}
		kind = k
		text := key.Text()
		if seen[text] {
			return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "two nodes have the same %s = %v (the key property): keys must be unique", idProp, key)
		}
		seen[text] = true
		byID[n.ID] = nodeKey{key, text}
	}
	return byID, nil
}

// addEdges adds the selected relationships between selected nodes. s.mu
// is held.
func (s *Store) addEdges(b *graph.Builder, keys map[string]nodeKey, o syncjob.PullOptions, st *syncjob.PullStats) {
	for _, r := range s.sortedRels() {
		if !o.PullsType(r.Type) {
			continue
		}
		a, ok1 := keys[r.From]
		c, ok2 := keys[r.To]
		if !ok1 && !ok2 {
			continue
		}
		st.RelationshipRows++
		if !ok1 || !ok2 {
			st.Dangling++
			continue
		}
		b.AddEdge(a.text, c.text)
	}
}

// outside counts the relationships of o's types with one end among the
// selected nodes (keys) and the other outside, by the other end's labels
// (syncjob.OutsideNote). s.mu is held.
func (s *Store) outside(keys map[string]nodeKey, o syncjob.PullOptions) (int, map[string]int) {
	n, byLabel := 0, map[string]int{}
	for _, r := range s.rels {
		if !o.PullsType(r.Type) {
			continue
		}
		_, in1 := keys[r.From]
		_, in2 := keys[r.To]
		if in1 == in2 {
			continue
		}
		other := s.nodes[r.From]
		if in1 {
			other = s.nodes[r.To]
		}
		if hasAnyLabel(other.Labels, splitplan.OwnLabels()) {
			continue
		}
		n++
		if len(other.Labels) == 0 {
			byLabel[""]++
		}
		for _, l := range other.Labels {
			byLabel[l]++
		}
	}
	return n, byLabel
}

// unnamed records the nodes of sg without a display name
// (syncjob.NewUnnamed): the text properties of the first
// syncjob.UnnamedSample of them in graph order.
func (s *Store) unnamed(sg *syncjob.Subgraph, sel []*Node, byID map[string]nodeKey, o syncjob.PullOptions) {
	count, labels := 0, map[string]int{}
	var props [][]string
	for _, nd := range sel {
		i, _ := sg.Graph.Index(byID[nd.ID].text)
		if sg.Names[i] != "" {
			continue
		}
		count++
		for _, l := range nd.Labels {
			labels[l]++
		}
		if len(props) < syncjob.UnnamedSample {
			var ps []string
			for k, v := range nd.Props {
				if _, ok := v.(string); ok {
					ps = append(ps, k)
				}
			}
			props = append(props, ps)
		}
	}
	sg.Unnamed = syncjob.NewUnnamed(o, count, labels, props)
}

// subgraph pairs graph g with the nodes' ids, keys, embeddings and names.
func subgraph(g *graph.Graph, sel []*Node, byID map[string]nodeKey, o syncjob.PullOptions, st *syncjob.PullStats) *syncjob.Subgraph {
	n := g.NumNodes()
	sg := &syncjob.Subgraph{Graph: g, IDs: make([]keys.Key, n), Options: o}
	if o.IDProperty != "" {
		sg.Keys = make([]keys.Key, n)
	}
	if o.EmbeddingProperty != "" {
		sg.Embeddings = make([][]float64, n)
	}
	if len(o.DisplayProperties) > 0 {
		sg.Names = make([]string, n)
	}
	sg.ReadBack = syncjob.NewReadBack(n, o)
	var labels syncjob.LabelIndex
	sg.LabelSet = make([]int32, n)
	ev := syncjob.NewEvidenceValues(o.EvidenceProperties)
	order := make([]int32, len(sel))
	for pos, nd := range sel {
		i, _ := g.Index(byID[nd.ID].text)
		order[pos] = int32(i)
		if ev != nil {
			vals := make([]any, len(o.EvidenceProperties))
			for k, name := range o.EvidenceProperties {
				vals[k] = nd.Props[name]
			}
			ev.Add(vals)
		}
		sg.IDs[i] = keys.String(nd.ID)
		if sg.Keys != nil {
			sg.Keys[i] = byID[nd.ID].key
		}
		if sg.Embeddings != nil {
			sg.Embeddings[i] = vector(nd.Props[o.EmbeddingProperty], st)
		}
		if sg.Names != nil {
			sg.Names[i] = keys.DisplayText(firstOf(nd.Props, o.DisplayProperties))
		}
		sg.LabelSet[i] = labels.Add(nd.Labels)
		if sg.ReadBack != nil {
			vals := make([]any, len(o.ReadBack))
			for k, name := range o.ReadBack {
				vals[k] = nd.Props[name]
			}
			syncjob.SetReadBack(sg.ReadBack, i, vals)
		}
	}
	sg.LabelSets = labels.Sets
	if ev != nil {
		st.EvidenceTextBytes = ev.TextBytes
	}
	sg.Context = syncjob.NewContext(n, sg.LabelSets, sg.LabelSet, ev, order)
	return sg
}

// firstOf is the value of the first of these properties that a node has
// (Cypher's coalesce), nil if it has none.
func firstOf(props map[string]any, names []string) any {
	for _, n := range names {
		if v := props[n]; v != nil {
			return v
		}
	}
	return nil
}

func (s *Store) sortedRels() []*Rel {
	out := make([]*Rel, 0, len(s.rels))
	for _, r := range s.rels {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *Rel) int { return compareIDs(a.ID, b.ID) })
	return out
}

func vector(v any, st *syncjob.PullStats) []float64 {
	if v == nil {
		return nil
	}
	var out []float64
	switch x := v.(type) {
	case []float64:
		out = slices.Clone(x)
	case []any:
		for _, e := range x {
			f, ok := e.(float64)
			if i, isInt := e.(int64); isInt {
				f, ok = float64(i), true
			}
			if !ok {
				st.BadEmbeddings++
				return nil
			}
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		st.BadEmbeddings++
		return nil
	}
	st.Embeddings++
	return out
}

func quoteAll(xs []string) []string {
	q := make([]string, len(xs))
	for k, x := range xs {
		q[k] = strconv.Quote(x)
	}
	return q
}

// ---- names

// CheckName refuses the names this store cannot show: empty ones, and
// those with a control character (Dump writes a line per node).
func (s *Store) CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("name %q is empty", name)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("name %q contains the control character %U", name, r)
		}
	}
	return nil
}

// ---- write batches

// WriteBatch writes a batch of properties, after the fence.
func (s *Store) WriteBatch(ctx context.Context, b *syncjob.Batch) (syncjob.BatchResult, error) {
	var br syncjob.BatchResult
	if err := ctx.Err(); err != nil {
		return br, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence(b.Doing); err != nil {
		return br, err
	}
	s.writes++
	for i, id := range b.IDs {
		nd := s.nodes[id.Text()]
		if nd == nil || (b.KeyProperty != "" && !b.Keys[i].Matches(nd.Props[b.KeyProperty])) ||
			(len(b.Labels) > 0 && !hasAnyLabel(nd.Labels, b.Labels)) {
			k := id
			if b.KeyProperty != "" {
				k = b.Keys[i]
			}
			br.Missing = append(br.Missing, k)
			continue
		}
		br.Written++
		if len(b.Values) > 0 && b.Values[0][i] != nil {
			br.Set++
		}
		for k, p := range b.Props {
			setProp(nd.Props, p, b.Values[k][i])
		}
	}
	return br, nil
}

// ---- records

// AddRecord stores r unless its run has a record, and returns the stored
// one when it is another.
func (s *Store) AddRecord(ctx context.Context, r syncjob.Record) (*syncjob.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence("storing the split plan"); err != nil {
		return nil, err
	}
	if old, ok := s.records[r.RunID]; ok {
		if bytes.Equal(old.Plan, r.Plan) {
			return nil, nil
		}
		c := *old
		return &c, nil
	}
	s.records[r.RunID] = &r
	s.writes++
	return nil, nil
}

// Record returns the record of a run, or nil.
func (s *Store) Record(ctx context.Context, runID string) (*syncjob.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.records[runID]
	if !ok {
		return nil, nil
	}
	c := *r
	return &c, nil
}

// Records returns every record without its plan, by run id.
func (s *Store) Records(ctx context.Context) ([]syncjob.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []syncjob.Record
	for _, run := range slices.Sorted(maps.Keys(s.records)) {
		r := *s.records[run]
		r.Plan = nil
		out = append(out, r)
	}
	return out, nil
}

// FinishRecord marks the record of a run finished.
func (s *Store) FinishRecord(ctx context.Context, runID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence("marking run " + runID + " finished"); err != nil {
		return err
	}
	if r, ok := s.records[runID]; ok && r.Unfinished {
		r.Unfinished = false
		s.writes++
	}
	return nil
}

// DeleteRecord deletes the record of a run.
func (s *Store) DeleteRecord(ctx context.Context, runID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence("forgetting the record of run " + runID); err != nil {
		return err
	}
	if _, ok := s.records[runID]; ok {
		delete(s.records, runID)
		s.writes++
	}
	return nil
}

// ClearDecisions removes the decisions of run runID, or of every run.
func (s *Store) ClearDecisions(ctx context.Context, runID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence("forgetting review decisions"); err != nil {
		return err
	}
	for run, r := range s.records {
		if (runID == "" || run == runID) && r.Decisions != nil {
			r.Decisions = nil
			s.writes++
		}
	}
	return nil
}

// ---- transactions

// Read runs fn with the store to itself.
func (s *Store) Read(ctx context.Context, fn func(syncjob.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return fn(&tx{s: s})
}

// Write runs fn with the store to itself, after the fence; when fn fails,
// the graph is put back as it was (all or nothing).
func (s *Store) Write(ctx context.Context, doing string, fn func(syncjob.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence(doing); err != nil {
		return err
	}
	nodes, rels, next := s.snapshot()
	t := &tx{s: s}
	if err := fn(t); err != nil {
		s.nodes, s.rels, s.nextID = nodes, rels, next
		return err
	}
	if t.wrote {
		s.writes++
	}
	return nil
}

// snapshot copies the graph, for a rollback. s.mu is held.
func (s *Store) snapshot() (map[string]*Node, map[string]*Rel, int) {
	nodes := make(map[string]*Node, len(s.nodes))
	for id, n := range s.nodes {
		nodes[id] = &Node{ID: n.ID, Labels: slices.Clone(n.Labels), Props: cloneProps(n.Props)}
	}
	rels := make(map[string]*Rel, len(s.rels))
	for id, r := range s.rels {
		c := *r
		rels[id] = &c
	}
	return nodes, rels, s.nextID
}

// Unique does nothing: this store keeps no constraints.
func (s *Store) Unique(ctx context.Context, label, prop string) error { return nil }

// tx is a transaction: s.mu is held.
type tx struct {
	s     *Store
	wrote bool
}

func node(n *Node) syncjob.Node {
	return syncjob.Node{ID: keys.String(n.ID), Labels: slices.Clone(n.Labels), Props: cloneProps(n.Props)}
}

func (t *tx) Nodes(ids []keys.Key) ([]syncjob.Node, error) {
	out := make([]syncjob.Node, len(ids))
	for k, id := range ids {
		if n := t.s.nodes[id.Text()]; n != nil {
			out[k] = node(n)
		}
	}
	return out, nil
}

func (t *tx) Find(f syncjob.Filter) ([]syncjob.Node, error) {
	var out []syncjob.Node
	for _, n := range t.s.sortedNodes() {
		v := n.Props[f.Prop]
		switch {
		case v == nil:
		case len(f.Labels) > 0 && !hasAnyLabel(n.Labels, f.Labels):
		case len(f.Labels) == 0 && hasAnyLabel(n.Labels, f.Exclude):
		case f.Values != nil && !slices.ContainsFunc(f.Values, func(x any) bool { return keys.SameValue(x, v) }):
		default:
			out = append(out, node(n))
		}
	}
	return out, nil
}

func (t *tx) Rels(ids []keys.Key, props []string) ([]syncjob.Rel, error) {
	var out []syncjob.Rel
	for _, id := range ids {
		sid := id.Text()
		for _, r := range t.s.sortedRels() {
			if r.From != sid && r.To != sid {
				continue
			}
			other := r.To
			if r.From != sid {
				other = r.From
			}
			o := t.s.nodes[other]
			rel := syncjob.Rel{Node: id, OtherProps: map[string]any{}}
			rel.ID, rel.Type, rel.Outgoing, rel.Other, rel.OtherLabels = r.ID, r.Type, r.From == sid, keys.String(other), slices.Clone(o.Labels)
			for _, p := range props {
				if v, ok := o.Props[p]; ok {
					rel.OtherProps[p] = v
				}
			}
			out = append(out, rel)
		}
	}
	return out, nil
}

func (t *tx) Lock(id keys.Key) error { return nil }

func (t *tx) Create(from keys.Key, skip, labels []string, rows []map[string]any) ([]keys.Key, error) {
	base := map[string]any{}
	if !from.IsZero() {
		n := t.s.nodes[from.Text()]
		if n == nil {
			return nil, fmt.Errorf("%w: node %s is gone", syncjob.ErrChanged, from.Text())
		}
		base = cloneProps(n.Props)
	}
	for _, k := range skip {
		delete(base, k)
	}
	ids := make([]keys.Key, len(rows))
	for k, row := range rows {
		props := cloneProps(base)
		for p, v := range row {
			setProp(props, p, v)
		}
		n := &Node{ID: t.s.newID("n:"), Labels: slices.Clone(labels), Props: props}
		t.s.nodes[n.ID] = n
		ids[k] = keys.String(n.ID)
	}
	t.wrote = t.wrote || len(rows) > 0
	return ids, nil
}

func (t *tx) Move(ms []syncjob.Move) ([]string, error) {
	for _, m := range ms {
		r := t.s.rels[m.Rel.ID]
		from, to, other := m.From.Text(), m.To.Text(), m.Rel.Other.Text()
		if r == nil || r.Type != m.Rel.Type || (m.Rel.Outgoing && (r.From != from || r.To != other)) || (!m.Rel.Outgoing && (r.To != from || r.From != other)) {
			return nil, fmt.Errorf("%w: relationship %s is not where it was", syncjob.ErrChanged, m.Rel.ID)
		}
		loop := r.From == r.To
		if m.Rel.Outgoing {
			r.From = to
			if loop && !m.OneEnd {
				r.To = to
			}
		} else {
			r.To = to
		}
		t.wrote = true
	}
	ids := make([]string, len(ms))
	for k, m := range ms {
		ids[k] = m.Rel.ID // moved in place
	}
	return ids, nil
}

func (t *tx) Set(id keys.Key, props map[string]any) error {
	n := t.s.nodes[id.Text()]
	if n == nil {
		return fmt.Errorf("%w: node %s is gone", syncjob.ErrChanged, id.Text())
	}
	for p, v := range props {
		setProp(n.Props, p, v)
	}
	t.wrote = true
	return nil
}

func (t *tx) Delete(ids []keys.Key) error {
	for _, id := range ids {
		sid := id.Text()
		if t.s.nodes[sid] == nil {
			return fmt.Errorf("%w: node %s is gone", syncjob.ErrChanged, sid)
		}
		for _, r := range t.s.rels {
			if r.From == sid || r.To == sid {
				return fmt.Errorf("cannot delete node %s: it still has relationships", sid)
			}
		}
		delete(t.s.nodes, sid)
		t.wrote = true
	}
	return nil
}

func (t *tx) Link(typ string, ls []syncjob.Link) (int, error) {
	ends := map[[2]string][]*Rel{}
	for _, r := range t.s.sortedRels() {
		if r.Type == typ {
			ends[[2]string{r.From, r.To}] = append(ends[[2]string{r.From, r.To}], r)
		}
	}
	n := 0
	for _, l := range ls {
		from, to := l.From.Text(), l.To.Text()
		if t.s.nodes[from] == nil || t.s.nodes[to] == nil {
			continue
		}
		found := ends[[2]string{from, to}]
		if len(found) == 0 {
			r := &Rel{ID: t.s.newID("r:"), Type: typ, From: from, To: to, Props: map[string]any{}}
			t.s.rels[r.ID] = r
			found = []*Rel{r}
			ends[[2]string{from, to}] = found
		}
		for _, r := range found {
			if r.Props == nil {
				r.Props = map[string]any{}
			}
			for p, v := range l.Props {
				setProp(r.Props, p, v)
			}
		}
		n++
		t.wrote = true
	}
	return n, nil
}

func (t *tx) Unlink(typ, prop string, value any, limit int) (int, error) {
	n := 0
	for _, r := range t.s.sortedRels() {
		if n >= limit {
			break
		}
		if v, ok := r.Props[prop]; r.Type != typ || ok && keys.SameValue(v, value) {
			continue
		}
		delete(t.s.rels, r.ID)
		n++
		t.wrote = true
	}
	return n, nil
}

// sortedNodes are the nodes by id. s.mu is held.
func (s *Store) sortedNodes() []*Node {
	out := slices.Collect(maps.Values(s.nodes))
	slices.SortFunc(out, func(a, b *Node) int { return compareIDs(a.ID, b.ID) })
	return out
}

// DeleteNode deletes a node and its relationships.
func (s *Store) DeleteNode(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.nodes, id)
	for k, r := range s.rels {
		if r.From == id || r.To == id {
			delete(s.rels, k)
		}
	}
}

// Dump returns the graph as sorted lines, one per node ("N name labels
// props") and relationship ("R from -[type props]-> to"). Nodes are named
// by keyProp's value, or, for split clones, their split key, else by id;
// a clone's fondue_split_from_id is left out (an id): two dumps of the
// same graph are equal.
func (s *Store) Dump(keyProp string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := func(n *Node) string {
		if v, ok := n.Props[keyProp]; ok {
			return keyProp + ":" + fmt.Sprint(v)
		}
		if v, ok := n.Props[splitplan.PropSplitKey]; ok {
			return "split:" + fmt.Sprint(v)
		}
		return n.ID
	}
	props := func(p map[string]any) string {
		keys := make([]string, 0, len(p))
		for k := range p {
			if k != splitplan.PropSplitFromID {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%v", k, p[k])
		}
		return b.String()
	}
	var lines []string
	for _, n := range s.nodes {
		labels := slices.Sorted(slices.Values(n.Labels))
		lines = append(lines, fmt.Sprintf("N %s %v%s", name(n), labels, props(n.Props)))
	}
	for _, r := range s.rels {
		lines = append(lines, fmt.Sprintf("R %s -[%s%s]-> %s", name(s.nodes[r.From]), r.Type, props(r.Props), name(s.nodes[r.To])))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
