package memstore

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
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
	plans  map[string][]byte
	// decisions are the review decisions of each run's record.
	decisions map[string][]byte
	fence     *lock // the lock this store's writes check (the last one taken)
	// Writes counts the write operations that changed the graph (scores,
	// splits, undos, plans), for tests that check a dry run writes
	// nothing.
	writes int
}

// New returns an empty store.
func New() *Store {
	return &Store{nodes: map[string]*Node{}, rels: map[string]*Rel{}, locks: map[string]*lock{}, plans: map[string][]byte{}, decisions: map[string][]byte{}}
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
	if o.TTL < 3*time.Second {
		return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "%s %s is too short (at least 3s)", syncjob.OptLockTTL, o.TTL)
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
		return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "memstore: Cypher projections (%s) are not supported", syncjob.OptNodeQuery)
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
			return nil, syncjob.Errorf(syncjob.ErrEmpty, nil, "node label %q (%s) does not exist in the database", l, syncjob.OptWriteNodeLabels)
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
				return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "property %q (%s) of node elementId(n) = %q is %v", idProp, syncjob.OptIDProperty, n.ID, err)
			}
			if key.IsZero() {
				return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "node %s has no property %q (%s): every selected node needs a key",
					syncjob.DescribeNode(n.ID, n.Labels), idProp, syncjob.OptIDProperty)
			}
		}
		k := "string"
		if _, isInt := key.Int64(); isInt {
			k = "integer"
		}
		if kind != "" && k != kind {
			return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "property %q (%s) holds both %ss and %ss: use one type", idProp, syncjob.OptIDProperty, kind, k)
		}
		kind = k
		text := key.Text()
		if seen[text] {
			return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "two nodes have the same %s = %v (%s): keys must be unique", idProp, key, syncjob.OptIDProperty)
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
		if len(o.RelationshipTypes) > 0 && !slices.Contains(o.RelationshipTypes, r.Type) {
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
		if len(o.RelationshipTypes) > 0 && !slices.Contains(o.RelationshipTypes, r.Type) {
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
		if slices.Contains(other.Labels, syncjob.LockLabel) || slices.Contains(other.Labels, syncjob.RunLabel) {
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

// ---- write

// WriteScores writes the scores in batches of o.BatchSize, each checking
// the lock first; a node gone since the pull (or whose key or labels
// changed) is counted missing.
func (s *Store) WriteScores(ctx context.Context, sg *syncjob.Subgraph, res *fondue.Result, o syncjob.WriteOptions) (syncjob.WriteStats, error) {
	t0 := time.Now()
	if o.Property == "" {
		o.Property = syncjob.DefaultWriteProperty
	}
	if o.BatchSize <= 0 {
		o.BatchSize = syncjob.DefaultBatchSize
	}
	n := sg.Graph.NumNodes()
	var st syncjob.WriteStats
	if len(res.Ambiguity) != n || len(res.Scores) != n || (o.EntitiesProperty != "" && len(res.Entities) != n) {
		return st, fmt.Errorf("memstore: result for %d nodes, subgraph has %d", len(res.Scores), n)
	}
	var nodes []int // the nodes to write: the targets (context nodes are left alone)
	for i := range n {
		if sg.IsTarget(i) {
			nodes = append(nodes, i)
		}
	}
	n = len(nodes)
	if o.EmbeddingProperty != "" && res.Embedding == nil {
		return st, syncjob.Errorf(syncjob.ErrInvalid, nil, "%s: method %q has no embedding to write", syncjob.OptWriteEmbeddingProperty, res.Method)
	}
	props := 1
	if o.ScoreProperty != "" {
		props++
	}
	if o.EntitiesProperty != "" {
		props++
	}
	nb := (n + o.BatchSize - 1) / o.BatchSize
	for b := range nb {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		lo, hi := b*o.BatchSize, min(n, (b+1)*o.BatchSize)
		if err := s.writeBatch(sg, res, o, nodes[lo:hi], props, &st, fmt.Sprintf("writing batch %d of %d", b+1, nb)); err != nil {
			return st, err
		}
		if o.Progress != nil {
			o.Progress(hi, n)
		}
	}
	st.Duration = time.Since(t0)
	return st, nil
}

func (s *Store) writeBatch(sg *syncjob.Subgraph, res *fondue.Result, o syncjob.WriteOptions, nodes []int, props int, st *syncjob.WriteStats, doing string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence(doing); err != nil {
		return err
	}
	s.writes++
	st.Batches++
	labels := sg.Options.WriteNodeLabels // the node must still carry one
	if len(labels) == 0 {
		labels = sg.Options.NodeLabels
	}
	for _, i := range nodes {
		nd := s.nodes[sg.IDs[i].Text()]
		if nd == nil || (sg.Keys != nil && !sg.Keys[i].Matches(nd.Props[sg.Options.IDProperty])) ||
			(len(labels) > 0 && !hasAnyLabel(nd.Labels, labels)) {
			st.Missing++
			if len(st.MissingKeys) < 100 {
				st.MissingKeys = append(st.MissingKeys, sg.Key(i))
			}
			continue
		}
		st.Nodes++
		scored := !math.IsNaN(res.Ambiguity[i])
		if scored {
			st.PropertiesWritten += props
		}
		setProp(nd.Props, o.Property, nullNaN(res.Ambiguity[i]))
		if o.ScoreProperty != "" {
			setProp(nd.Props, o.ScoreProperty, nullNaN(res.Scores[i]))
		}
		if o.EntitiesProperty != "" {
			var v any
			if scored {
				v = int64(res.Entities[i])
			}
			setProp(nd.Props, o.EntitiesProperty, v)
		}
		if o.RunProperty != "" {
			setProp(nd.Props, o.RunProperty, o.RunID)
		}
		if o.EmbeddingProperty != "" {
			var v any
			if !math.IsNaN(res.Scores[i]) {
				row := res.Embedding.Row(i)
				l := make([]any, len(row))
				for k, x := range row {
					l[k] = x
				}
				v = l
			}
			setProp(nd.Props, o.EmbeddingProperty, v)
		}
	}
	return nil
}

func nullNaN(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return x
}

// ---- plans

// StorePlan stores the plan unless its run stored one already, and
// returns the stored one.
func (s *Store) StorePlan(ctx context.Context, p *splitplan.Plan) (*splitplan.Plan, error) {
	data, err := p.Marshal()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if err := s.checkFence("storing the split plan"); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if _, ok := s.plans[p.RunID]; !ok {
		ds, err := splitplan.MarshalDecisions(p.Decisions)
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		s.plans[p.RunID] = data
		if ds != nil {
			s.decisions[p.RunID] = ds
		}
		s.writes++
	}
	data = s.plans[p.RunID]
	s.mu.Unlock()
	stored, err := splitplan.Unmarshal(data)
	if err != nil {
		return nil, err
	}
	if err := p.CheckStored(stored); err != nil {
		return nil, syncjob.Errorf(syncjob.ErrInvalid, err, "%v", err)
	}
	return stored, nil
}

// LoadPlan returns the plan stored by a run, or nil.
func (s *Store) LoadPlan(ctx context.Context, runID string) (*splitplan.Plan, error) {
	s.mu.Lock()
	data, ok := s.plans[runID]
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	return splitplan.Unmarshal(data)
}

// ForgetPlan deletes the plan stored by a run.
func (s *Store) ForgetPlan(ctx context.Context, runID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence("forgetting the split plan"); err != nil {
		return err
	}
	if _, ok := s.plans[runID]; ok {
		delete(s.plans, runID)
		delete(s.decisions, runID)
		s.writes++
	}
	return nil
}

// Decisions returns the remembered review decisions, by run id.
func (s *Store) Decisions(ctx context.Context) ([]splitplan.Decision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []splitplan.Decision
	for _, run := range slices.Sorted(maps.Keys(s.decisions)) {
		ds, err := splitplan.UnmarshalDecisions(s.decisions[run], run)
		if err != nil {
			return nil, err
		}
		out = append(out, ds...)
	}
	return out, nil
}

// ForgetDecisions forgets the decisions of run runID, or of every run.
func (s *Store) ForgetDecisions(ctx context.Context, runID string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence("forgetting review decisions"); err != nil {
		return 0, err
	}
	n := 0
	for run, data := range s.decisions {
		if runID == "" || run == runID {
			ds, err := splitplan.UnmarshalDecisions(data, run)
			if err != nil {
				return n, err
			}
			n += len(ds)
			delete(s.decisions, run)
			s.writes++
		}
	}
	return n, nil
}

// TakenKeys returns those of ks that a node the plan selects has.
func (s *Store) TakenKeys(ctx context.Context, p *splitplan.Plan, ks []keys.Key) ([]keys.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []keys.Key
	for _, k := range ks {
		for _, n := range s.nodes {
			if k.Matches(n.Props[p.IDProperty]) && p.Selects(n.Labels, true) {
				out = append(out, k)
				break
			}
		}
	}
	return out, nil
}

// CountSplit counts the plan's nodes that carry the split mark of its run.
func (s *Store) CountSplit(ctx context.Context, p *splitplan.Plan) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, pn := range p.Nodes {
		if !pn.ID.IsZero() && s.state(pn.ID, "", p.RunID).Split {
			n++
		}
	}
	return n, nil
}

// CheckName refuses the names the Neo4j store refuses (cypher.CheckName),
// so that both stores accept the same configurations.
func (s *Store) CheckName(name string) error { return cypher.CheckName(name) }

// ---- split

// state is node id as a split sees it. s.mu is held.
func (s *Store) state(id keys.Key, idProp, run string) splitplan.NodeState {
	n := s.nodes[id.Text()]
	if n == nil {
		return splitplan.NodeState{}
	}
	st := splitplan.NodeState{Exists: true, Labels: slices.Clone(n.Labels)}
	if idProp != "" {
		st.KeyValue = n.Props[idProp]
	}
	runs, _ := n.Props[splitplan.PropSplitRuns].([]any)
	st.Split = slices.Contains(runs, any(run))
	return st
}

// relsOf lists the relationships of node id, as node_relationships does.
// s.mu is held.
func (s *Store) relsOf(id keys.Key, p *splitplan.Plan) []splitplan.Rel {
	sid := id.Text()
	var out []splitplan.Rel
	for _, r := range s.sortedRels() {
		if r.From != sid && r.To != sid {
			continue
		}
		other := r.To
		if r.From != sid {
			other = r.From
		}
		o := s.nodes[other]
		rel := splitplan.Rel{ID: r.ID, Type: r.Type, Outgoing: r.From == sid, Other: keys.String(other), OtherLabels: slices.Clone(o.Labels)}
		if slices.Contains(o.Labels, p.MarkerLabel) && o.Props[splitplan.PropSplitRun] == p.RunID {
			rel.Origin, _ = keys.FromValue(o.Props[splitplan.PropSplitFromID]) // an element id: a string
		}
		if p.IDProperty != "" {
			rel.OtherKeyValue = o.Props[p.IDProperty]
		}
		if len(p.DisplayProperties) > 0 {
			rel.OtherName = keys.DisplayText(firstOf(o.Props, p.DisplayProperties))
		}
		out = append(out, rel)
	}
	return out
}

func (s *Store) examine(p *splitplan.Plan, n splitplan.Node) (splitplan.NodeOutcome, splitplan.NodeState, splitplan.Assignment) {
	var st splitplan.NodeState
	if !n.ID.IsZero() {
		st = s.state(n.ID, p.IDProperty, p.RunID)
	}
	o, a, _ := p.Examine(n, st, func() ([]splitplan.Rel, error) { return s.relsOf(n.ID, p), nil })
	return o, st, a
}

// Describe fills in the labels and relationship counts of every planned
// node.
func (s *Store) Describe(ctx context.Context, p *splitplan.Plan) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range p.Nodes {
		n := &p.Nodes[k]
		st := s.state(n.ID, p.IDProperty, p.RunID)
		if !st.Exists {
			continue
		}
		a := p.Assign(*n, s.relsOf(n.ID, p))
		n.Labels = st.Labels
		for g := range n.Groups {
			n.Groups[g].Relationships = splitplan.CountRels(a.Groups[g])
		}
		n.Staying = splitplan.CountRels(a.Staying)
	}
	return nil
}

// Check returns the planned nodes that Split would not split as planned.
func (s *Store) Check(ctx context.Context, p *splitplan.Plan) ([]splitplan.NodeOutcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	bad := []splitplan.NodeOutcome{}
	for _, n := range p.Nodes {
		if o, _, _ := s.examine(p, n); o.Outcome == splitplan.OutcomeChanged || o.Outcome == splitplan.OutcomeMissing {
			bad = append(bad, o)
		}
	}
	return bad, nil
}

// ResolveKeys sets the ids of the plan's nodes and neighbours from their
// keys, among the nodes the plan selects.
func (s *Store) ResolveKeys(ctx context.Context, p *splitplan.Plan) error {
	if p.IDProperty == "" {
		return syncjob.Errorf(syncjob.ErrInvalid, nil, "nodes can be found by key only with a key property (%s)", syncjob.OptPlanIDProperty)
	}
	var wanted []keys.Key // the plan's keys in the forms the connector looks up
	for _, n := range p.Nodes {
		wanted = append(wanted, n.Key.Variants()...)
		for _, g := range n.Groups {
			for _, k := range g.Neighbors {
				wanted = append(wanted, k.Variants()...)
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var found []splitplan.KeyedNode
	for _, n := range s.nodes {
		v := n.Props[p.IDProperty]
		if v == nil || !p.Selects(n.Labels, true) {
			continue
		}
		key, err := keys.FromValue(v)
		switch {
		case err != nil && slices.ContainsFunc(wanted, func(k keys.Key) bool { return k.Matches(v) }):
			// Neo4j finds the float 11.0 by the key 11: refused, as the connector refuses it.
			return syncjob.Errorf(syncjob.ErrInvalid, nil, "property %q (%s) of node elementId(n) = %q is %v", p.IDProperty, syncjob.OptPlanIDProperty, n.ID, err)
		case err != nil:
			continue // no key finds it
		}
		found = append(found, splitplan.KeyedNode{Key: key, ID: keys.String(n.ID)})
	}
	if err := p.Resolve(found); err != nil {
		return syncjob.Errorf(syncjob.ErrInvalid, err, "%v (%s): keys must be unique", err, syncjob.OptPlanIDProperty)
	}
	return nil
}

// Split carries out a plan, one node at a time, each all or nothing.
func (s *Store) Split(ctx context.Context, p *splitplan.Plan, now time.Time, progress func(done, total int)) (splitplan.SplitStats, error) {
	t0 := time.Now()
	st := splitplan.SplitStats{Planned: len(p.Nodes), Nodes: []splitplan.NodeOutcome{}}
	at := splitplan.ISOTime(now)
	for k, n := range p.Nodes {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		o, err := s.splitNode(p, n, at, fmt.Sprintf("splitting node %v (%d of %d)", n.Key, k+1, len(p.Nodes)))
		if err != nil {
			return st, err
		}
		st.Count(o)
		st.NodesCreated += o.Clones
		st.RelationshipsMoved += o.Moved
		st.Nodes = append(st.Nodes, o)
		if progress != nil {
			progress(k+1, len(p.Nodes))
		}
	}
	st.Duration = time.Since(t0)
	return st, nil
}

func (s *Store) splitNode(p *splitplan.Plan, n splitplan.Node, at, doing string) (splitplan.NodeOutcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence(doing); err != nil {
		return splitplan.NodeOutcome{}, err
	}
	o, state, a := s.examine(p, n)
	if o.Outcome != "" {
		return o, nil
	}
	if k, taken := s.cloneKeyTaken(p, n); taken {
		o.Outcome, o.Reason = splitplan.OutcomeFailed, fmt.Sprintf("the key %s planned for a clone is taken by another node (%s)", k.Describe(), p.IDProperty)
		return o, nil
	}
	s.writes++
	orig := s.nodes[n.ID.Text()]
	labels := slices.Clone(state.Labels)
	if !slices.Contains(labels, p.MarkerLabel) {
		labels = append(labels, p.MarkerLabel)
	}
	skip := p.SkipOnClone()
	for g := 1; g < len(n.Groups); g++ {
		props := cloneProps(orig.Props)
		for _, k := range skip {
			delete(props, k)
		}
		props[splitplan.PropSplitKey] = fmt.Sprintf("%s/%v/%d", p.RunID, n.Key, g)
		props[splitplan.PropSplitRun] = p.RunID
		props[splitplan.PropSplitFrom] = n.Key.Value()
		props[splitplan.PropSplitFromID] = orig.ID
		props[splitplan.PropSplitGroup] = int64(g)
		props[splitplan.PropSplitAt] = at
		if k := n.Groups[g].CloneKey; p.IDProperty != "" && !k.IsZero() {
			props[p.IDProperty] = k.Value()
		}
		clone := &Node{ID: s.newID("n:"), Labels: slices.Clone(labels), Props: props}
		s.nodes[clone.ID] = clone
		o.Clones++
		o.Moved += s.move(orig.ID, clone.ID, a.Groups[g])
	}
	runs, _ := orig.Props[splitplan.PropSplitRuns].([]any)
	orig.Props[splitplan.PropSplitRuns] = append(slices.Clone(runs), p.RunID)
	o.Outcome = splitplan.OutcomeSplit
	return o, nil
}

// cloneKeyTaken reports a clone key of node n that a node the plan
// selects has already, as the connector checks it. s.mu is held.
func (s *Store) cloneKeyTaken(p *splitplan.Plan, n splitplan.Node) (keys.Key, bool) {
	if p.IDProperty == "" {
		return keys.Key{}, false
	}
	for _, g := range n.Groups {
		if g.CloneKey.IsZero() {
			continue
		}
		for _, nd := range s.nodes {
			if g.CloneKey.Matches(nd.Props[p.IDProperty]) && p.Selects(nd.Labels, true) {
				return g.CloneKey, true
			}
		}
	}
	return keys.Key{}, false
}

// move moves relationships of node from to node to. s.mu is held.
func (s *Store) move(from, to string, rels []splitplan.Rel) int {
	for _, r := range rels {
		rel := s.rels[r.ID]
		if rel.From == from {
			rel.From = to
		}
		if rel.To == from {
			rel.To = to
		}
	}
	return len(rels)
}

// ---- undo

// Undo reverses every split of run o.RunID, one original at a time.
func (s *Store) Undo(ctx context.Context, o syncjob.UndoOptions) (syncjob.UndoStats, error) {
	t0 := time.Now()
	if o.MarkerLabel == "" {
		o.MarkerLabel = syncjob.DefaultMarkerLabel
	}
	s.mu.Lock()
	byOrigin := map[string][]*Node{}
	var origins []string
	for _, n := range s.nodes {
		if slices.Contains(n.Labels, o.MarkerLabel) && n.Props[splitplan.PropSplitRun] == o.RunID {
			from, _ := n.Props[splitplan.PropSplitFromID].(string)
			if _, ok := byOrigin[from]; !ok {
				origins = append(origins, from)
			}
			byOrigin[from] = append(byOrigin[from], n)
		}
	}
	s.mu.Unlock()
	sort.Slice(origins, func(a, b int) bool { return compareIDs(origins[a], origins[b]) < 0 })
	st := syncjob.UndoStats{Originals: len(origins)}
	for k, origin := range origins {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		clones, moved, err := s.undoNode(o, origin, byOrigin[origin], fmt.Sprintf("restoring node %v (%d of %d)", origin, k+1, len(origins)))
		switch {
		case syncjob.IsLocked(err):
			st.Duration = time.Since(t0)
			return st, err
		case err != nil:
			st.Failed = append(st.Failed, splitplan.NodeOutcome{Key: keys.String(origin), Outcome: splitplan.OutcomeFailed, Reason: err.Error()})
		default:
			st.Restored++
			st.ClonesDeleted += clones
			st.RelationshipsMoved += moved
		}
		if o.Progress != nil {
			o.Progress(k+1, len(origins))
		}
	}
	st.Duration = time.Since(t0)
	return st, nil
}

// SplitRuns lists the run ids with a stored plan or with clones carrying
// markerLabel, sorted.
func (s *Store) SplitRuns(ctx context.Context, markerLabel string) ([]string, error) {
	if markerLabel == "" {
		markerLabel = syncjob.DefaultMarkerLabel
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var runs []string
	for r := range s.plans {
		runs = append(runs, r)
	}
	for _, n := range s.nodes {
		if r, ok := n.Props[splitplan.PropSplitRun].(string); ok && slices.Contains(n.Labels, markerLabel) {
			runs = append(runs, r)
		}
	}
	slices.Sort(runs)
	return slices.Compact(runs), nil
}

// LaterSplits lists the runs that split a clone of run runID again.
func (s *Store) LaterSplits(ctx context.Context, runID, markerLabel string) ([]string, error) {
	if markerLabel == "" {
		markerLabel = syncjob.DefaultMarkerLabel
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var runs []string
	for _, n := range s.nodes {
		if slices.Contains(n.Labels, markerLabel) && n.Props[splitplan.PropSplitRun] == runID {
			for _, r := range asList(n.Props[splitplan.PropSplitRuns]) {
				if r, ok := r.(string); ok {
					runs = append(runs, r)
				}
			}
		}
	}
	slices.Sort(runs)
	return slices.Compact(runs), nil
}

func asList(v any) []any { l, _ := v.([]any); return l }

func (s *Store) undoNode(o syncjob.UndoOptions, origin string, clones []*Node, doing string) (nclones, moved int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence(doing); err != nil {
		return 0, 0, err
	}
	orig := s.nodes[origin]
	if orig == nil {
		return 0, 0, fmt.Errorf("cannot undo: the original node elementId(n) = %q no longer exists; its clones are left as they are", origin)
	}
	runs, _ := orig.Props[splitplan.PropSplitRuns].([]any)
	if !slices.Contains(runs, any(o.RunID)) {
		return 0, 0, fmt.Errorf("cannot undo: the node elementId(n) = %q has no record of run %s in fondue_split_runs, so it is not the node that was split; its clones are left as they are", origin, o.RunID)
	}
	for _, cl := range clones {
		if r, _ := cl.Props[splitplan.PropSplitRuns].([]any); len(r) > 0 {
			return 0, 0, fmt.Errorf("cannot undo: clone elementId(n) = %q was split again by a later run: undo that run first", cl.ID)
		}
	}
	s.writes++
	for _, cl := range clones {
		for _, r := range s.rels {
			if r.From != cl.ID && r.To != cl.ID {
				continue
			}
			if r.From == cl.ID {
				r.From = origin
			}
			if r.To == cl.ID {
				r.To = origin
			}
			moved++
		}
		delete(s.nodes, cl.ID)
		nclones++
	}
	rest := slices.DeleteFunc(slices.Clone(runs), func(x any) bool { return x == any(o.RunID) })
	if len(rest) == 0 {
		delete(orig.Props, splitplan.PropSplitRuns)
	} else {
		orig.Props[splitplan.PropSplitRuns] = rest
	}
	return nclones, moved, nil
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
