package connector

import (
	"context"
	"errors"
	"fmt"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/text/plural"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Pull reads the subgraph, streaming the results (records arrive in
// batches of Config.FetchSize; none is kept). A native projection (labels
// and types) is read in records of PullChunk nodes each: first the nodes
// (one read transaction), then their relationships, the start nodes cut
// into Config.ReadConcurrency ranges of their keys (else of their element
// ids), each range in a read transaction and session of its own, at once;
// the ranges are merged in order. A Cypher projection is read in one read
// transaction, a record per row. The graph is undirected: parallel and
// opposite relationships are collapsed and self-loops dropped. An empty
// selection wraps ErrEmpty; a label or type that does not exist, too
// (naming it); bad names, bad custom queries and bad key properties wrap
// ErrInvalid.
func (c *Conn) Pull(ctx context.Context, o syncjob.PullOptions) (*syncjob.Subgraph, error) {
	t0 := time.Now()
	if o.MarkerLabel == "" {
		o.MarkerLabel = syncjob.DefaultMarkerLabel
	}
	// The display properties name the other ends of a split node's
	// relationships (node_relationships), with a Cypher projection too.
	for _, d := range o.DisplayProperties {
		if err := cypher.CheckName(d); err != nil {
			return nil, errorf(syncjob.ErrInvalid, err, "PullOptions.DisplayProperties: %v", err)
		}
	}
	for _, l := range o.WriteNodeLabels {
		if err := cypher.CheckName(l); err != nil {
			return nil, errorf(syncjob.ErrInvalid, err, "PullOptions.WriteNodeLabels: %v", err)
		}
	}
	for _, r := range o.ReadBack {
		if err := cypher.CheckName(r); err != nil {
			return nil, errorf(syncjob.ErrInvalid, err, "PullOptions.ReadBack: %v", err)
		}
	}
	for k, e := range o.EvidenceProperties {
		if err := cypher.CheckName(e); err != nil {
			return nil, errorf(syncjob.ErrInvalid, err, "PullOptions.EvidenceProperties: %v", err)
		}
		if slices.Contains(o.EvidenceProperties[:k], e) {
			return nil, errorf(syncjob.ErrInvalid, nil, "PullOptions.EvidenceProperties: %q is named twice", e)
		}
	}
	if err := o.CheckWriteLabels(); err != nil {
		return nil, err
	}
	var nodeQ, relQ string
	if o.Custom() {
		switch {
		case o.NodeQuery == "" || o.RelationshipQuery == "":
			return nil, errorf(syncjob.ErrInvalid, nil, "PullOptions.NodeQuery and RelationshipQuery go together: set both or neither")
		case len(o.NodeLabels) > 0 || len(o.RelationshipTypes) > 0:
			return nil, errorf(syncjob.ErrInvalid, nil, "PullOptions.NodeQuery and RelationshipQuery replace NodeLabels and RelationshipTypes: set one or the other")
		}
		nodeQ, relQ = o.NodeQuery, o.RelationshipQuery
		if o.IDProperty != "" {
			if err := cypher.CheckName(o.IDProperty); err != nil {
				return nil, errorf(syncjob.ErrInvalid, err, "PullOptions.IDProperty: %v", err)
			}
		}
		if err := c.checkTokens(ctx, o); err != nil { // the write labels
			return nil, err
		}
	} else {
		if o.EmbeddingProperty != "" {
			if err := cypher.CheckName(o.EmbeddingProperty); err != nil {
				return nil, errorf(syncjob.ErrInvalid, err, "PullOptions.EmbeddingProperty: %v", err)
			}
		}
		v := cypher.Vars{NodeLabels: o.NodeLabels, RelationshipTypes: o.RelationshipTypes, ExcludeTypes: o.ExcludeTypes,
			IDProperty: o.IDProperty, ExcludeLabels: splitplan.OwnLabels(), Label: o.MarkerLabel,
			EmbeddingProperty: o.EmbeddingProperty, DisplayProperties: o.DisplayProperties, EvidenceProperties: o.EvidenceProperties,
			Properties: o.ReadBack}
		var err error
		if nodeQ, err = c.render("pull_nodes", v); err != nil {
			return nil, err
		}
		if relQ, err = c.render("pull_relationships", v); err != nil {
			return nil, err
		}
		if err := c.checkTokens(ctx, o); err != nil {
			return nil, err
		}
	}
	c.log.Debug("pulling the subgraph", "node_query", nodeQ, "relationship_query", relQ)

	var p *puller
	var err error
	if o.Custom() {
		s := c.session(ctx, neo4j.AccessModeRead)
		defer s.Close(ctx)
		_, err = c.readTx(ctx, s, func(tx neo4j.ManagedTransaction) (any, error) {
			p = newPuller(c, o) // fresh state on every attempt
			p.pos = map[string]int32{}
			if err := p.nodes(ctx, tx, nodeQ); err != nil {
				return nil, err
			}
			return nil, p.relationships(ctx, tx, relQ)
		})
	} else {
		p, err = c.pullNative(ctx, o, nodeQ, relQ)
	}
	if err != nil {
		return nil, c.classify(err, "pull the subgraph")
	}
	if p.st.RelationshipRows == 0 && len(p.ids) > 0 && !o.Custom() && len(o.NodeLabels) > 0 {
		// No relationship at all: the error says where they go instead.
		if p.outside, err = c.outsideNote(ctx, o); err != nil {
			return nil, c.classify(err, "count the relationships that leave the subgraph")
		}
	}
	sg, err := p.build(o)
	if err != nil {
		return nil, err
	}
	if sg.Names != nil {
		if err := c.unnamed(ctx, sg, p); err != nil {
			return nil, c.classify(err, "read the properties of nodes without a display name")
		}
	}
	if err := sg.SelectTargets(); err != nil {
		return nil, err
	}
	sg.Stats.Duration = time.Since(t0)
	return sg, nil
}

// checkTokens fails, naming them, for labels (graph.node_labels,
// write.node_labels) and types that do not exist. The check reads the
// database's tokens (cheap); only the error's list of those that exist
// asks which some node or relationship still has (stmt_in_use).
func (c *Conn) checkTokens(ctx context.Context, o syncjob.PullOptions) error {
	tokens := func(stmt, col, what string) (map[string]bool, []string, error) {
		q, err := c.render(stmt, cypher.Vars{})
		if err != nil {
			return nil, nil, err
		}
		res, err := c.query(ctx, q, nil, false)
		if err != nil {
			return nil, nil, c.classify(err, "list the "+what+"s")
		}
		have := map[string]bool{}
		var all []string
		for _, r := range res.Records {
			v, _, _ := neo4j.GetRecordValue[string](r, col)
			have[v] = true
			if !slices.Contains(splitplan.OwnLabels(), v) {
				all = append(all, v)
			}
		}
		slices.Sort(all)
		return have, all, nil
	}
	check := func(stmt, col, what, role string, want []string) error {
		if len(want) == 0 {
			return nil
		}
		have, _, err := tokens(stmt, col, what)
		if err != nil {
			return err
		}
		for _, w := range want {
			if !have[w] {
				inUse, all, err := tokens(stmt+"_in_use", col, what)
				if err != nil {
					return err
				}
				hint := ""
				if t := strings.TrimSpace(w); t != w && inUse[t] {
					hint = fmt.Sprintf(" (%q does: names are taken literally, spaces included)", t)
				}
				return errorf(syncjob.ErrEmpty, nil, "%s%s %q does not exist in the database%s; existing %ss: %s", role, what, w, hint, what, list(all, 20))
			}
		}
		return nil
	}
	if err := check("labels", "label", "node label", "", o.NodeLabels); err != nil {
		return err
	}
	if len(o.NodeLabels) == 0 { // else CheckWriteLabels: each is one of them
		if err := check("labels", "label", "node label", "write ", o.WriteNodeLabels); err != nil {
			return err
		}
	}
	return check("relationship_types", "relationshipType", "relationship type", "", o.RelationshipTypes)
}

// outsideNote says, for a subgraph without relationships, how many of its
// relationships end outside its nodes and at which labels
// (syncjob.OutsideNote).
func (c *Conn) outsideNote(ctx context.Context, o syncjob.PullOptions) (string, error) {
	q, err := c.render("pull_outside", cypher.Vars{NodeLabels: o.NodeLabels, RelationshipTypes: o.RelationshipTypes, ExcludeTypes: o.ExcludeTypes,
		ExcludeLabels: splitplan.OwnLabels()})
	if err != nil {
		return "", err
	}
	res, err := c.query(ctx, q, nil, false)
	if err != nil {
		return "", err
	}
	n, byLabel := 0, map[string]int{}
	for _, r := range res.Records {
		labels, _, _ := neo4j.GetRecordValue[[]any](r, "labels")
		count, _, _ := neo4j.GetRecordValue[int64](r, "relationships")
		n += int(count)
		if len(labels) == 0 {
			byLabel[""] += int(count)
		}
		for _, l := range labels {
			if s, ok := l.(string); ok {
				byLabel[s] += int(count)
			}
		}
	}
	return syncjob.OutsideNote(n, byLabel), nil
}

// unnamed records the nodes of sg without a display name
// (syncjob.NewUnnamed), with the text properties of the first
// syncjob.UnnamedSample of them in the order read.
func (c *Conn) unnamed(ctx context.Context, sg *syncjob.Subgraph, p *puller) error {
	count, labels := 0, map[string]int{}
	var sample []string
	for pos, name := range p.names {
		if name != "" {
			continue
		}
		count++
		if len(p.labelOf) == len(p.names) {
			for _, l := range p.labels.Sets[p.labelOf[pos]] {
				labels[l]++
			}
		}
		if len(sample) < syncjob.UnnamedSample {
			sample = append(sample, p.ids[pos])
		}
	}
	var props [][]string
	if count > 0 {
		q, err := c.render("unnamed_properties", cypher.Vars{})
		if err != nil {
			return err
		}
		res, err := c.query(ctx, q, map[string]any{"ids": sample}, false)
		if err != nil {
			return err
		}
		for _, r := range res.Records {
			list, _, _ := neo4j.GetRecordValue[[]any](r, "properties")
			var ps []string
			for _, x := range list {
				if s, ok := x.(string); ok {
					ps = append(ps, s)
				}
			}
			props = append(props, ps)
		}
	}
	sg.Unnamed = syncjob.NewUnnamed(sg.Options, count, labels, props)
	return nil
}

func list(xs []string, max int) string {
	if len(xs) == 0 {
		return "none"
	}
	q := make([]string, 0, min(len(xs), max))
	for _, x := range xs[:min(len(xs), max)] {
		q = append(q, strconv.Quote(x))
	}
	s := strings.Join(q, ", ")
	if len(xs) > max {
		s += fmt.Sprintf(" and %d more", len(xs)-max)
	}
	return s
}

// puller accumulates one attempt of a pull. A node's position is its index
// in the order the nodes were read, which is also its index in the
// Builder.
type puller struct {
	c     *Conn
	o     syncjob.PullOptions
	pos   map[string]int32 // element id -> position (custom queries)
	index *idIndex         // element id -> position (native pulls)

	ids     []string // element id per position
	intKeys []int64  // key per position when keys are integers
	strKeys []string // key per position when keys are strings
	keyKind string   // "int" or "string", from the first key
	firstID string   // the first node, for error messages
	relIDs  map[[2]string][]string
	vecs    [][]float64 // saved embedding per position (EmbeddingProperty only)
	names   []string    // display name per position (DisplayProperties only)
	labels  syncjob.LabelIndex
	outside string                  // why no relationship was read (syncjob.OutsideNote), when known
	labelOf []int32                 // label set per position (when the query returns labels)
	ev      *syncjob.EvidenceValues // per position (EvidenceProperties only)
	written []float64               // values read back, len(ReadBack) per position (ReadBack only; nil: not returned)
	b       graph.Builder
	st      syncjob.PullStats
}

func newPuller(c *Conn, o syncjob.PullOptions) *puller {
	return &puller{c: c, o: o, ev: syncjob.NewEvidenceValues(o.EvidenceProperties)}
}

const progressEvery = 50000

func (p *puller) nodeName(id string) string { return fmt.Sprintf("elementId(n) = %q", id) }

// describeNode names a node by element id and, when the query returned
// them (a list of strings), its labels.
func describeNode(id string, labels any) string {
	list, ok := labels.([]any)
	if !ok {
		return syncjob.DescribeNode(id, nil)
	}
	ls := make([]string, 0, len(list))
	for _, l := range list {
		if s, ok := l.(string); ok {
			ls = append(ls, s)
		}
	}
	return syncjob.DescribeNode(id, ls)
}

// queryName names the node or relationship query for messages.
func (p *puller) queryName(rel bool) string {
	if rel {
		return "the relationship query"
	}
	return "the node query"
}

// columns returns the positions of the wanted columns, or an error naming
// the missing ones.
func (p *puller) columns(res neo4j.ResultWithContext, rel bool, want ...string) ([]int, error) {
	keys, err := res.Keys()
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(want))
	var missing []string
	for k, w := range want {
		idx[k] = slices.Index(keys, w)
		if idx[k] < 0 {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return nil, errorf(syncjob.ErrInvalid, nil, "%s must return the column(s) %s; it returns %s",
			p.queryName(rel), strings.Join(missing, ", "), strings.Join(keys, ", "))
	}
	return idx, nil
}

// checkID verifies that a value is an element id.
func (p *puller) checkID(v any, rel bool, col string, row int) error {
	if _, ok := v.(string); ok {
		return nil
	}
	return errorf(syncjob.ErrInvalid, nil, "%s: column %s must hold a node's element id, as returned by elementId(n); row %d has %s",
		p.queryName(rel), col, row, describe(v))
}

// describe is a value for messages, in Neo4j's words.
func describe(v any) string { return keys.DescribeValue(v) }

func (p *puller) nodes(ctx context.Context, tx neo4j.ManagedTransaction, q string) error {
	res, err := tx.Run(ctx, q, nil)
	if err != nil {
		return p.queryError(err, false)
	}
	want := []string{"id"}
	if p.o.IDProperty != "" {
		want = append(want, "key")
	}
	cols, err := p.columns(res, false, want...)
	if err != nil {
		return err
	}
	keys, _ := res.Keys()
	embCol := -1
	if p.o.EmbeddingProperty != "" {
		embCol = slices.Index(keys, "embedding")
	}
	displayCol := -1
	if len(p.o.DisplayProperties) > 0 {
		displayCol = slices.Index(keys, "display")
	}
	labelsCol := slices.Index(keys, "labels") // optional in a custom node query
	var evCols []int                          // a column per evidence property, of its name
	if len(p.o.EvidenceProperties) > 0 {
		if evCols, err = p.columns(res, false, p.o.EvidenceProperties...); err != nil {
			return errorf(syncjob.ErrInvalid, err, "%v (evidence properties: a column of each property's name, e.g. n.title AS title)", err)
		}
	}
	writtenCol := -1
	if len(p.o.ReadBack) > 0 {
		writtenCol = slices.Index(keys, "written") // optional in a custom node query
	}
	cloneCol := -1
	if p.o.IDProperty != "" && !p.o.Custom() {
		cloneCol = slices.Index(keys, "clone")
	}
	for res.Next(ctx) {
		vals := res.Record().Values
		p.st.NodeRows++
		id := vals[cols[0]]
		if err := p.checkID(id, false, "id", p.st.NodeRows); err != nil {
			return err
		}
		if _, dup := p.pos[id.(string)]; dup {
			continue
		}
		var key, clone, emb, display, labels any
		if p.o.IDProperty != "" {
			key = vals[cols[1]]
			if cloneCol >= 0 {
				clone = vals[cloneCol]
			}
		}
		if embCol >= 0 {
			emb = vals[embCol]
		}
		if displayCol >= 0 {
			display = vals[displayCol]
		}
		if labelsCol >= 0 {
			labels = vals[labelsCol]
		}
		var ev []any
		if evCols != nil {
			ev = make([]any, len(evCols))
			for k, c := range evCols {
				ev[k] = vals[c]
			}
		}
		added, err := p.addNode(id.(string), key, clone, emb, display, labels, labelsCol >= 0, ev)
		if err != nil {
			return err
		}
		if added && writtenCol >= 0 {
			p.addWritten(vals[writtenCol])
		}
		if added {
			p.pos[id.(string)] = int32(len(p.ids) - 1)
		}
	}
	if err := res.Err(); err != nil {
		return p.queryError(err, false)
	}
	return nil
}

// addNode adds a node read from a row or a chunk: its element id, key
// (nil without IDProperty), whether it carries the split marker, saved
// embedding, display name, labels (when hasLabels) and evidence values
// (one per EvidenceProperties). A split clone without a key is left out
// (added is false).
func (p *puller) addNode(id string, key, clone, emb, display, labels any, hasLabels bool, ev []any) (added bool, err error) {
	if p.o.IDProperty != "" {
		if key == nil && clone == true {
			p.st.KeylessClones++
			return false, nil
		}
		if err := p.addKey(id, key, labels); err != nil {
			return false, err
		}
	} else if err := p.addKey(id, id, labels); err != nil {
		return false, err
	}
	p.ids = append(p.ids, id)
	if p.o.EmbeddingProperty != "" {
		p.vecs = append(p.vecs, p.vector(emb))
	}
	if hasLabels {
		if err := p.addLabels(labels, id); err != nil {
			return false, err
		}
	}
	if len(p.o.DisplayProperties) > 0 {
		p.names = append(p.names, keys.DisplayText(display))
	}
	if p.ev != nil {
		p.ev.Add(ev)
	}
	if p.o.Progress != nil && p.st.NodeRows%progressEvery == 0 {
		p.o.Progress(p.st.NodeRows, 0)
	}
	return true, nil
}

// addWritten records the values read back of the node just added (a list,
// a value per PullOptions.ReadBack; anything else reads as none).
func (p *puller) addWritten(v any) {
	l, _ := v.([]any)
	for k := range p.o.ReadBack {
		var x any
		if k < len(l) {
			x = l[k]
		}
		p.written = append(p.written, syncjob.ReadBackNumber(x))
	}
}

// addLabels records a node's labels: a list of strings (column labels).
func (p *puller) addLabels(v any, id string) error {
	list, ok := v.([]any)
	labels := make([]string, len(list))
	for k, x := range list {
		if labels[k], ok = x.(string); !ok {
			break
		}
	}
	if !ok {
		return errorf(syncjob.ErrInvalid, nil, "%s: column labels must hold a node's labels, as returned by labels(n); node %s has %s",
			p.queryName(false), p.nodeName(id), describe(v))
	}
	p.labelOf = append(p.labelOf, p.labels.Add(labels))
	return nil
}

// addKey checks a node's key (the value of its key property, or its
// element id) and adds it to the builder.
func (p *puller) addKey(id string, v any, labels any) error {
	prop := p.o.IDProperty
	key, err := keys.FromValue(v)
	switch {
	case err != nil:
		return errorf(syncjob.ErrInvalid, nil, "key property %q of node %s is %v", prop, describeNode(id, labels), err)
	case key.IsZero():
		return errorf(syncjob.ErrInvalid, nil, "node %s has no key property %q: every selected node needs a key", describeNode(id, labels), prop)
	}
	kind := "string"
	i64, isInt := key.Int64()
	if isInt {
		kind = "int"
	}
	if p.keyKind == "" {
		p.keyKind, p.firstID = kind, id
	} else if kind != p.keyKind {
		return errorf(syncjob.ErrInvalid, nil, "key property %q holds both %ss (node %s) and %ss (node %s: %s): use one type",
			prop, p.keyKind, p.nodeName(p.firstID), kind, p.nodeName(id), describe(v))
	}
	// The Builder numbers keys in the order they come: a key it has
	// already is a duplicate, the node of that number the other one.
	var i int32
	if isInt {
		i = p.b.AddIntNode(i64)
	} else {
		i = p.b.AddNode(key.Text())
	}
	if int(i) < len(p.ids) {
		return errorf(syncjob.ErrInvalid, nil, "nodes %s and %s have the same %s = %v (the key property): keys must be unique",
			p.nodeName(p.ids[i]), p.nodeName(id), prop, key)
	}
	if isInt {
		p.intKeys = append(p.intKeys, i64)
	} else {
		p.strKeys = append(p.strKeys, key.Text())
	}
	return nil
}

// vector reads a saved embedding: a list of numbers, else nil (counted).
func (p *puller) vector(v any) []float64 {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		p.st.BadEmbeddings++
		return nil
	}
	out := make([]float64, len(list))
	for k, x := range list {
		switch x := x.(type) {
		case float64:
			out[k] = x
		case int64:
			out[k] = float64(x)
		default:
			p.st.BadEmbeddings++
			return nil
		}
	}
	p.st.Embeddings++
	return out
}

func (p *puller) relationships(ctx context.Context, tx neo4j.ManagedTransaction, q string) error {
	res, err := tx.Run(ctx, q, nil)
	if err != nil {
		return p.queryError(err, true)
	}
	// A custom relationship query returns one row per relationship.
	cols, err := p.columns(res, true, "source", "target")
	if err != nil {
		return err
	}
	keys, _ := res.Keys()
	relCol := slices.Index(keys, "relationship")
	if relCol >= 0 {
		p.relIDs = map[[2]string][]string{}
	}
	for res.Next(ctx) {
		vals := res.Record().Values
		p.st.RelationshipRows++
		s, t := vals[cols[0]], vals[cols[1]]
		if relCol >= 0 {
			rid, ok := vals[relCol].(string)
			if !ok {
				return errorf(syncjob.ErrInvalid, nil, "%s: column relationship must hold a relationship's element id, as returned by elementId(r); row %d has %s",
					p.queryName(true), p.st.RelationshipRows, describe(vals[relCol]))
			}
			if ss, ok1 := s.(string); ok1 {
				if ts, ok2 := t.(string); ok2 {
					pair := [2]string{min(ss, ts), max(ss, ts)}
					p.relIDs[pair] = append(p.relIDs[pair], rid)
				}
			}
		}
		if err := p.edge(s, t); err != nil {
			return err
		}
	}
	if err := res.Err(); err != nil {
		return p.queryError(err, true)
	}
	if p.o.Progress != nil {
		p.o.Progress(p.st.NodeRows, p.st.RelationshipRows)
	}
	return nil
}

// edge adds the relationship between element ids s and t (one row read).
func (p *puller) edge(s, t any) error {
	if err := p.checkID(s, true, "source", p.st.RelationshipRows); err != nil {
		return err
	}
	if err := p.checkID(t, true, "target", p.st.RelationshipRows); err != nil {
		return err
	}
	ps, ok1 := p.pos[s.(string)]
	pt, ok2 := p.pos[t.(string)]
	if !ok1 || !ok2 {
		p.st.Dangling++
		return nil
	}
	p.b.AddIndexEdge(ps, pt)
	if p.o.Progress != nil && p.st.RelationshipRows%progressEvery == 0 {
		p.o.Progress(p.st.NodeRows, p.st.RelationshipRows)
	}
	return nil
}

// queryError names the custom query that failed; other errors pass through.
func (p *puller) queryError(err error, rel bool) error {
	var nerr *neo4j.Neo4jError
	if p.o.Custom() && errors.As(err, &nerr) && strings.HasPrefix(nerr.Code, "Neo.ClientError.Statement.") {
		return errorf(syncjob.ErrInvalid, err, "%s failed: %s", p.queryName(rel), oneLine(nerr.Msg))
	}
	return err
}

func (p *puller) build(o syncjob.PullOptions) (*syncjob.Subgraph, error) {
	n := len(p.ids)
	what := "no nodes"
	switch {
	case o.Custom():
		what = "the node query returned no nodes"
	case len(o.NodeLabels) > 0:
		what = fmt.Sprintf("no nodes with label %s", strings.Join(quoteAll(o.NodeLabels), " or "))
	case n == 0:
		what = "the database has no nodes"
	}
	if n == 0 {
		if p.st.KeylessClones > 0 {
			what = fmt.Sprintf("%s (only %d split clones without %q)", what, p.st.KeylessClones, o.IDProperty)
		}
		return nil, errorf(syncjob.ErrEmpty, nil, "the subgraph is empty: %s", what)
	}
	g := p.b.Build()
	p.st.SelfLoops = g.SelfLoops()
	p.st.Parallel = g.Duplicates()
	if g.NumEdges() == 0 {
		types := "any type"
		if len(o.RelationshipTypes) > 0 {
			types = fmt.Sprintf("type %s", strings.Join(quoteAll(o.RelationshipTypes), " or "))
		}
		if o.Custom() {
			types = "the relationship query"
		}
		outside := p.outside
		if outside == "" {
			outside = fmt.Sprintf(", %d with an end outside the nodes", p.st.Dangling)
		}
		return nil, errorf(syncjob.ErrEmpty, nil, "the subgraph has %d nodes but no relationships between two of them (%s; %s read, %s%s): nothing to score",
			n, types, plural.N(p.st.RelationshipRows, "row"), plural.N(p.st.SelfLoops, "self-loop"), outside)
	}
	sg := &syncjob.Subgraph{Graph: g, IDs: make([]keys.Key, n), Options: o, Stats: p.st, RelationshipIDs: p.relIDs}
	if o.IDProperty != "" {
		sg.Keys = make([]keys.Key, n)
	}
	if p.vecs != nil {
		sg.Embeddings = make([][]float64, n)
	}
	if p.names != nil {
		sg.Names = make([]string, n)
	}
	if len(p.labelOf) == n {
		sg.LabelSets, sg.LabelSet = p.labels.Sets, make([]int32, n)
	}
	if r := len(o.ReadBack); r > 0 && len(p.written) == n*r {
		sg.ReadBack = syncjob.NewReadBack(n, o)
	}
	order := make([]int32, n) // position -> graph node
	for pos, id := range p.ids {
		var key string
		var kv keys.Key
		if p.intKeys != nil {
			key, kv = strconv.FormatInt(p.intKeys[pos], 10), keys.Int(p.intKeys[pos])
		} else {
			key, kv = p.strKeys[pos], keys.String(p.strKeys[pos])
		}
		i, ok := g.Index(key)
		if !ok {
			return nil, fmt.Errorf("connector: internal error: key %q not in the graph", key)
		}
		sg.IDs[i] = keys.String(id)
		order[pos] = int32(i)
		if sg.Keys != nil {
			sg.Keys[i] = kv
		}
		if sg.Embeddings != nil {
			sg.Embeddings[i] = p.vecs[pos]
		}
		if sg.Names != nil {
			sg.Names[i] = p.names[pos]
		}
		if sg.LabelSet != nil {
			sg.LabelSet[i] = p.labelOf[pos]
		}
		if sg.ReadBack != nil {
			r := len(o.ReadBack)
			for k := range r {
				sg.ReadBack[k][i] = p.written[pos*r+k]
			}
		}
	}
	if p.ev != nil {
		sg.Stats.EvidenceTextBytes = p.ev.TextBytes
	}
	sg.Context = syncjob.NewContext(n, sg.LabelSets, sg.LabelSet, p.ev, order)
	return sg, nil
}

func quoteAll(xs []string) []string {
	q := make([]string, len(xs))
	for k, x := range xs {
		q[k] = strconv.Quote(x)
	}
	return q
}
