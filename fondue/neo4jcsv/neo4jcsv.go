// Package neo4jcsv reads a knowledge graph from the CSV files of Neo4j's bulk
// import (`neo4j-admin database import`, Neo4j 5 header format): node files
// with an :ID column, :LABEL and typed property columns, relationship files
// with :START_ID, :END_ID and :TYPE. Relationships become the undirected
// edges of a graph.Graph; labels and the evidence properties become its
// evidence.Context. Errors name the file and line (*ParseError).
//
//	g, err := neo4jcsv.Read(ctx, neo4jcsv.Options{
//		Nodes:              []string{"authors.csv", "papers.csv"},
//		Relationships:      []string{"wrote.csv"},
//		ScoreLabels:        []string{"Author"},
//		EvidenceProperties: []string{"title", "year"},
//	})
//
// NameProperty also keeps one property's values (Graph.NameValues), the
// names that fondue/dedup compares.
package neo4jcsv

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/internal/parallel"
)

// Options says which files to read and what to keep. The zero value reads
// nothing.
type Options struct {
	Nodes, Relationships []string // files, in order
	ScoreLabels          []string // nodes with any of these labels are scored (Targets); empty: every node
	EvidenceProperties   []string // property names kept as evidence (Context.Properties), in this order
	NameProperty         string   // a property read into Graph.NameValues (e.g. name); "" reads none
}

// Graph is a knowledge graph read from import files. Its slices are indexed
// by the node indices of Graph.
type Graph struct {
	Graph  *graph.Graph
	IDs    []string   // node index -> its :ID value (as the file spells it)
	Labels [][]string // node index -> its labels (shared between nodes: do not modify)
	Names  []string   // node index -> a display name (first of name, title, else "")
	// NameValues are the values of Options.NameProperty, per node index
	// ("" where absent); nil without one.
	NameValues []string
	Targets    []bool            // nil when ScoreLabels is empty
	Context    *evidence.Context // kinds = labels sorted and joined by ":"; the evidence properties
}

// ParseError reports a malformed import file, with the place it was found.
type ParseError struct {
	File string
	Line int // 1-based; 0 when the problem is the file (or the file set) as a whole
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// reader holds the state of one Read.
type reader struct {
	o Options

	ids   []string
	space []uint16 // node -> ID space index
	lset  []int32  // node -> label set index
	names []string
	named []string // the NameProperty values

	spaces   []string       // ID space names ("" is the default space)
	spaceIdx map[string]int // name -> index
	// b holds the nodes, each under its id: its index is the only map
	// from ids to nodes. other holds the ids also used in a second ID
	// space (rare), under "id (Space)" in b: space -> id -> node.
	b     *graph.Builder
	other map[uint16]map[string]int32
	where []uint16 // node -> file index, for duplicate messages

	labelSets [][]string
	setIdx    map[string]int32

	props []evidence.Property
}

// Read reads the node files, then the relationship files, of o. Nodes are
// indexed as graph.Builder numbers them (in key order); a node's key in
// Graph is its :ID value, or "value (Space)" when the same value is a node
// of two ID spaces. Repeated relationships and self-loops are collapsed and
// counted as in the edge-list reader.
func Read(ctx context.Context, o Options) (*Graph, error) {
	if len(o.Nodes) == 0 {
		return nil, &ParseError{File: "--nodes", Msg: "no node file given"}
	}
	r := &reader{o: o, spaceIdx: map[string]int{}, setIdx: map[string]int32{}, b: &graph.Builder{}}
	heads := make([]*header, len(o.Nodes))
	for k, f := range o.Nodes {
		h, err := readHeaderOnly(f, false)
		if err != nil {
			return nil, err
		}
		heads[k] = h
	}
	if err := r.planProperties(heads); err != nil {
		return nil, err
	}
	for k, f := range o.Nodes {
		if err := r.readNodes(ctx, k, f); err != nil {
			return nil, err
		}
	}
	n := len(r.ids)
	for _, f := range o.Relationships {
		if err := r.readRelationships(ctx, f, r.b); err != nil {
			return nil, err
		}
	}
	g := r.b.Build()
	r.b = nil
	// Builder numbered the nodes in key order: carry the per-node data along.
	perm := make([]int32, n) // perm[old] = new
	for i, id := range r.ids {
		key := id
		if r.other != nil {
			if j, ok := r.other[r.space[i]][id]; ok && int(j) == i {
				key = qualified(id, r.spaces[r.space[i]])
			}
		}
		j, _ := g.Index(key)
		perm[i] = int32(j)
	}
	if r.other != nil {
		// The first node of a repeated id was added under the bare id:
		// name every node of a repeated id by its ID space.
		var err error
		if g, err = g.WithKeys(permute(r.keys(), perm)); err != nil {
			return nil, &ParseError{File: o.Nodes[0], Msg: "ids repeated across ID spaces cannot all be told apart by their space: " + err.Error()}
		}
	}
	r.other, r.where = nil, nil
	out := &Graph{Graph: g, IDs: permute(r.ids, perm), Names: permute(r.names, perm)}
	if o.NameProperty != "" {
		out.NameValues = permute(r.named, perm)
	}
	lset := permute(r.lset, perm)
	out.Labels = make([][]string, n)
	c := &evidence.Context{Kind: make([]int32, n)}
	kindOf := make([]int32, len(r.labelSets)) // label set -> kind (labels sorted, joined by ":")
	kinds := map[string]int32{}
	for s, ls := range r.labelSets {
		if len(ls) == 0 {
			kindOf[s] = -1
			continue
		}
		k := strings.Join(slices.Sorted(slices.Values(ls)), ":")
		if _, ok := kinds[k]; !ok {
			kinds[k] = int32(len(c.Kinds))
			c.Kinds = append(c.Kinds, k)
		}
		kindOf[s] = kinds[k]
	}
	if len(o.ScoreLabels) > 0 {
		out.Targets = make([]bool, n)
	}
	want := make([]bool, len(r.labelSets))
	for s, ls := range r.labelSets {
		for _, l := range ls {
			want[s] = want[s] || slices.Contains(o.ScoreLabels, l)
		}
	}
	for i, s := range lset {
		out.Labels[i] = r.labelSets[s]
		c.Kind[i] = kindOf[s]
		if out.Targets != nil {
			out.Targets[i] = want[s]
		}
	}
	for _, l := range o.ScoreLabels {
		found := false
		for _, ls := range r.labelSets {
			found = found || slices.Contains(ls, l)
		}
		if !found {
			return nil, &ParseError{File: "--score-labels", Msg: fmt.Sprintf("no node has the label %q (labels in the node files: %s)", l, strings.Join(r.allLabels(), ", "))}
		}
	}
	for _, p := range r.props {
		if p.Numeric {
			p.Number = permute(p.Number, perm)
		} else {
			p.Text = permute(p.Text, perm)
		}
		c.Properties = append(c.Properties, p)
	}
	out.Context = c
	return out, nil
}

func permute[T any](s []T, perm []int32) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[perm[i]] = v
	}
	return out
}

func spaceName(s string) string {
	if s == "" {
		return "(default)"
	}
	return s
}

func (r *reader) allLabels() []string {
	var all []string
	for _, ls := range r.labelSets {
		for _, l := range ls {
			if !slices.Contains(all, l) {
				all = append(all, l)
			}
		}
	}
	slices.Sort(all)
	if len(all) == 0 {
		return []string{"none"}
	}
	return all
}

// planProperties decides from the headers whether each evidence property is
// numeric (a number or a date column in every node file that has it).
func (r *reader) planProperties(heads []*header) error {
	for _, name := range r.o.EvidenceProperties {
		numeric, found := true, false
		for _, h := range heads {
			if i, ok := h.props[name]; ok {
				found = true
				vt := h.cols[i].vt
				numeric = numeric && !h.cols[i].array && h.cols[i].kind == colProperty && (vt == typeInt || vt == typeFloat || vt == typeDate)
			}
		}
		if !found {
			return &ParseError{File: "--evidence-properties", Msg: fmt.Sprintf("no node file has a property %q (node files: %s)", name, strings.Join(r.o.Nodes, ", "))}
		}
		r.props = append(r.props, evidence.Property{Name: name, Numeric: numeric})
	}
	if p := r.o.NameProperty; p != "" && !slices.ContainsFunc(heads, func(h *header) bool { _, ok := h.props[p]; return ok }) {
		return &ParseError{File: "--name-property", Msg: fmt.Sprintf("no node file has a property %q (node files: %s)", p, strings.Join(r.o.Nodes, ", "))}
	}
	return nil
}

// openCSV opens a file for encoding/csv, without a UTF-8 byte-order mark.
func openCSV(path string) (*os.File, *csv.Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &ParseError{File: path, Msg: "cannot be read: " + userError(err)}
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte{0xef, 0xbb, 0xbf}) {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	return f, cr, nil
}

// userError says why a file could not be opened, without Go's wrapping.
func userError(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no such file"
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// csvError turns an encoding/csv error into a ParseError in the user's words.
func csvError(path string, err error, fields int) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return &ParseError{File: path, Msg: "cannot be read: " + userError(err)}
	}
	switch {
	case errors.Is(pe.Err, csv.ErrFieldCount):
		return &ParseError{File: path, Line: pe.StartLine, Msg: fmt.Sprintf("the header has %d columns, this line a different number", fields)}
	case errors.Is(pe.Err, csv.ErrQuote):
		return &ParseError{File: path, Line: pe.Line, Msg: "a quoted field is not closed, or has a quote that is not doubled"}
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return &ParseError{File: path, Line: pe.Line, Msg: fmt.Sprintf("column %d: a quote inside a field that is not quoted (quote the field and double the quote)", pe.Column)}
	}
	return &ParseError{File: path, Line: pe.Line, Msg: "cannot be read as CSV: " + pe.Err.Error()}
}

// readHead reads and parses the header record of an open file.
func readHead(path string, cr *csv.Reader, rel bool) (*header, error) {
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	if err == io.EOF {
		return nil, &ParseError{File: path, Line: 1, Msg: "empty file: the first line must be the header"}
	}
	if err != nil {
		return nil, csvError(path, err, 0)
	}
	h, err := parseHeader(rec, rel)
	if err != nil {
		return nil, &ParseError{File: path, Line: 1, Msg: "header: " + err.Error()}
	}
	cr.FieldsPerRecord = len(rec)
	return h, nil
}

func readHeaderOnly(path string, rel bool) (*header, error) {
	f, cr, err := openCSV(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readHead(path, cr, rel)
}

func (r *reader) spaceOf(s string) uint16 {
	if i, ok := r.spaceIdx[s]; ok {
		return uint16(i)
	}
	r.spaceIdx[s] = len(r.spaces)
	r.spaces = append(r.spaces, s)
	return uint16(len(r.spaces) - 1)
}

// lookup returns the node of id in ID space sp.
func (r *reader) lookup(sp uint16, id string) (int32, bool) {
	if i, ok := r.b.Index(id); ok && r.ids[i] == id && r.space[i] == sp {
		return i, true
	}
	i, ok := r.other[sp][id]
	return i, ok
}

// labelSet interns a node's label field ("A;B").
func (r *reader) labelSet(field string) int32 {
	if i, ok := r.setIdx[field]; ok {
		return i
	}
	var ls []string
	for _, l := range strings.Split(field, ";") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(ls, l) {
			ls = append(ls, l)
		}
	}
	i := int32(len(r.labelSets))
	r.labelSets = append(r.labelSets, ls)
	r.setIdx[strings.Clone(field)] = i
	return i
}

func (r *reader) readNodes(ctx context.Context, fileIdx int, path string) error {
	f, cr, err := openCSV(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h, err := readHead(path, cr, false)
	if err != nil {
		return err
	}
	if len(r.ids) > math.MaxInt32-1 {
		return &ParseError{File: path, Msg: "too many nodes"}
	}
	sp := r.spaceOf(h.idSpace)
	nameCol, titleCol := -1, -1
	if i, ok := h.props["name"]; ok {
		nameCol = i
	}
	if i, ok := h.props["title"]; ok {
		titleCol = i
	}
	namedCol := -1
	if i, ok := h.props[r.o.NameProperty]; ok && r.o.NameProperty != "" {
		namedCol = i
	}
	propCol := make([]int, len(r.props))
	for k, p := range r.props {
		propCol[k] = -1
		if i, ok := h.props[p.Name]; ok {
			propCol[k] = i
		}
	}
	for rows := 0; ; rows++ {
		if rows&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvError(path, err, len(h.cols))
		}
		line, _ := cr.FieldPos(0)
		id := rec[h.id]
		if id == "" {
			return &ParseError{File: path, Line: line, Msg: fmt.Sprintf("the :ID column (%s) is empty", h.cols[h.id].spec)}
		}
		if _, ok := r.lookup(sp, id); ok {
			return &ParseError{File: path, Line: line, Msg: fmt.Sprintf("id %q is already a node of ID space %s: ids must be unique in their ID space", id, spaceName(h.idSpace))}
		}
		if len(r.ids) >= math.MaxInt32 {
			return &ParseError{File: path, Line: line, Msg: "too many nodes"}
		}
		node := int32(len(r.ids))
		id = strings.Clone(id)
		key := id
		if j, ok := r.b.Index(id); ok {
			if r.ids[j] != id {
				return &ParseError{File: path, Line: line, Msg: fmt.Sprintf("id %q is the name given to id %q of ID space %s, a node of another space with the same id: give the ID spaces distinct ids", id, r.ids[j], spaceName(r.spaces[r.space[j]]))}
			}
			// The id of a node of another space: this one is "id (Space)".
			if r.other == nil {
				r.other = map[uint16]map[string]int32{}
			}
			if r.other[sp] == nil {
				r.other[sp] = map[string]int32{}
			}
			r.other[sp][id] = node
			key = qualified(id, h.idSpace)
		}
		if r.b.AddNode(key) != node {
			return &ParseError{File: path, Line: line, Msg: fmt.Sprintf("id %q of ID space %s is named %q, which is the id of another node: give the ID spaces distinct ids", id, spaceName(h.idSpace), key)}
		}
		r.ids = append(r.ids, id)
		r.space = append(r.space, sp)
		r.where = append(r.where, uint16(min(fileIdx, math.MaxUint16)))
		ls := int32(-1)
		if h.label >= 0 {
			ls = r.labelSet(rec[h.label])
		} else {
			ls = r.labelSet("")
		}
		r.lset = append(r.lset, ls)
		name, from := "", -1
		if nameCol >= 0 {
			name, from = rec[nameCol], nameCol
		}
		if name == "" && titleCol >= 0 {
			name, from = rec[titleCol], titleCol
		}
		name = strings.Clone(name)
		r.names = append(r.names, name)
		if r.o.NameProperty != "" {
			v := ""
			if namedCol == from {
				v = name // one copy of the text for both
			} else if namedCol >= 0 {
				v = strings.Clone(rec[namedCol])
			}
			r.named = append(r.named, v)
		}
		for k := range r.props {
			p := &r.props[k]
			col := propCol[k]
			if !p.Numeric {
				v := ""
				if col == from {
					v = name // one copy of the text for both
				} else if col >= 0 {
					v = strings.Clone(rec[col])
				}
				p.Text = append(p.Text, v)
				continue
			}
			v := evidence.Absent
			if col >= 0 && rec[col] != "" {
				x, ok := parseNumber(rec[col], h.cols[col].vt)
				if !ok {
					return &ParseError{File: path, Line: line, Msg: fmt.Sprintf("%s: %q is not a %s (column %s)", p.Name, rec[col], typeWord(h.cols[col].vt), h.cols[col].spec)}
				}
				v = x
			}
			p.Number = append(p.Number, v)
		}
	}
}

func typeWord(vt valueType) string {
	switch vt {
	case typeInt:
		return "whole number"
	case typeDate:
		return "date"
	}
	return "number"
}

// parseNumber reads an evidence number; a date counts as its year (with
// the month and day as a fraction).
func parseNumber(s string, vt valueType) (float64, bool) {
	s = strings.TrimSpace(s)
	switch vt {
	case typeInt:
		x, err := strconv.ParseInt(s, 10, 64)
		return float64(x), err == nil
	case typeFloat:
		x, err := strconv.ParseFloat(s, 64)
		return x, err == nil && !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	// date, localdatetime, datetime: YYYY-MM-DD...
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	y, err1 := strconv.Atoi(s[:4])
	m, err2 := strconv.Atoi(s[5:7])
	d, err3 := strconv.Atoi(s[8:10])
	if err1 != nil || err2 != nil || err3 != nil || m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, false
	}
	return float64(y) + float64(m-1)/12 + float64(d-1)/365, true
}

func (r *reader) readRelationships(ctx context.Context, path string, b *graph.Builder) error {
	f, cr, err := openCSV(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h, err := readHead(path, cr, true)
	if err != nil {
		return err
	}
	ends := [2]relEnd{{h.start, h.startSpace, ":START_ID"}, {h.end, h.endSpace, ":END_ID"}}
	var sp [2]uint16
	var known [2]bool
	for k, e := range ends {
		i, ok := r.spaceIdx[e.space]
		sp[k], known[k] = uint16(i), ok
	}
	var rows relRows
	flush := func() error {
		err := r.addRows(ctx, path, &rows, sp, known, ends, b)
		rows.ids, rows.lines = rows.ids[:0], rows.lines[:0]
		return err
	}
	for n := 0; ; n++ {
		if n&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rec, err := cr.Read()
		if err == io.EOF {
			return flush()
		}
		if err != nil {
			if ferr := flush(); ferr != nil {
				return ferr
			}
			return csvError(path, err, len(h.cols))
		}
		line, _ := cr.FieldPos(0)
		if rec[h.typ] == "" {
			if ferr := flush(); ferr != nil {
				return ferr
			}
			return &ParseError{File: path, Line: line, Msg: "the :TYPE column is empty"}
		}
		rows.ids = append(rows.ids, [2]string{rec[ends[0].col], rec[ends[1].col]})
		rows.lines = append(rows.lines, line)
		if len(rows.ids) == relBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

// relEnd is a relationship file's column of one end: its index, ID space
// and header name.
type relEnd struct {
	col   int
	space string
	what  string
}

// relBatch is how many relationships are looked up together, and
// relChunk how many of them one goroutine takes at a time.
const (
	relBatch = 1 << 16
	relChunk = 1 << 12
)

// relRows are the ids of the ends of a batch of relationships, with
// their lines, and the nodes found for them.
type relRows struct {
	ids   [][2]string
	lines []int
	nodes [][2]int32
	bad   []int // per chunk: its first end that is no node, 2*row + end
}

// addRows looks the ends of rows up, on all cores (the look-ups are most
// of a relationship file's read), and adds their edges in file order. The
// error is that of the first row with an end that is not a node of its ID
// space; known says which spaces have nodes at all.
func (r *reader) addRows(ctx context.Context, path string, rows *relRows, sp [2]uint16, known [2]bool, ends [2]relEnd, b *graph.Builder) error {
	n := len(rows.ids)
	if n == 0 {
		return nil
	}
	rows.nodes = slices.Grow(rows.nodes[:0], n)[:n]
	chunks := (n + relChunk - 1) / relChunk
	rows.bad = slices.Grow(rows.bad[:0], chunks)[:chunks]
	err := parallel.ForChunks(ctx, 0, chunks, func(_, c int) {
		rows.bad[c] = 2 * n
		for i := c * relChunk; i < min(n, (c+1)*relChunk); i++ {
			for k := range 2 {
				node, ok := int32(0), false
				if known[k] {
					node, ok = r.lookup(sp[k], rows.ids[i][k])
				}
				if !ok {
					rows.bad[c] = 2*i + k
					return
				}
				rows.nodes[i][k] = node
			}
		}
	})
	if err != nil {
		return err
	}
	bad := slices.Min(rows.bad)
	row, k := bad/2, bad%2
	for _, e := range rows.nodes[:row] {
		b.AddIndexEdge(e[0], e[1])
	}
	if row == n {
		return nil
	}
	id := rows.ids[row][k]
	return &ParseError{File: path, Line: rows.lines[row], Msg: r.missing(ends[k].what, id, ends[k].space)}
}

// missing says that id is not a node of an ID space, and where it is.
func (r *reader) missing(what, id, space string) string {
	if id == "" {
		return fmt.Sprintf("the %s column is empty", what)
	}
	msg := fmt.Sprintf("%s %q is not a node of ID space %s", what, id, spaceName(space))
	if _, ok := r.spaceIdx[space]; !ok {
		msg = fmt.Sprintf("%s %q: no node file has the ID space %s", what, id, spaceName(space))
	}
	var in []string
	if i, ok := r.b.Index(id); ok && r.ids[i] == id {
		in = append(in, spaceName(r.spaces[r.space[i]]))
	}
	for s, m := range r.other {
		if _, ok := m[id]; ok {
			in = append(in, spaceName(r.spaces[s]))
		}
	}
	if len(in) > 0 {
		slices.Sort(in)
		msg += fmt.Sprintf(" (it is one of ID space %s)", strings.Join(in, ", "))
	}
	return msg
}

// keys names the nodes in the graph: their id, qualified by the ID space
// when the same id is a node of two spaces.
// Only called when some id is repeated across spaces (r.other).
func (r *reader) keys() []string {
	keys := make([]string, len(r.ids))
	copy(keys, r.ids)
	repeated := map[string]bool{}
	for sp, m := range r.other {
		for id, i := range m {
			keys[i] = qualified(id, r.spaces[sp])
			repeated[id] = true
		}
	}
	for i, id := range r.ids {
		if repeated[id] {
			keys[i] = qualified(id, r.spaces[r.space[i]])
		}
	}
	return keys
}

// qualified is the name of a node whose id is also a node of another ID
// space.
func qualified(id, space string) string { return fmt.Sprintf("%s (%s)", id, spaceName(space)) }
