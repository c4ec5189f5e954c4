package edgelist

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/text/plural"
)

// MaxLineBytes is the longest line Read accepts. Longer lines are far
// beyond any edge and almost always mean the file is not an edge list.
const MaxLineBytes = 1 << 20

// HeaderMode says whether the first data line of an edge list is a header.
type HeaderMode int

const (
	// HeaderAuto treats the first data line as a header when it looks like
	// one: a known column name such as "source", or non-numeric fields
	// followed by a numeric line.
	HeaderAuto HeaderMode = iota
	// HeaderNone never skips a line.
	HeaderNone
	// HeaderFirst always skips the first data line.
	HeaderFirst
)

// ErrNoEdges is the cause of the ParseError returned for an edge list with
// no edge line at all (an empty file, or only comments and a header).
var ErrNoEdges = errors.New("no edges")

// ParseError reports a malformed edge list, with the place it was found.
type ParseError struct {
	File string // file name, or "" for a reader without one
	Line int    // 1-based; 0 when the problem is the file as a whole
	Msg  string
	Err  error // the cause, when there is one to test for (ErrNoEdges)
}

func (e *ParseError) Error() string {
	name := e.File
	if name == "" {
		name = "<input>"
	}
	if e.Line == 0 {
		return name + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", name, e.Line, e.Msg)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Stats describes what Read read.
type Stats struct {
	Lines  int  // lines in the file
	Edges  int  // edge lines, self-loops and duplicates included
	Header bool // whether a header line was skipped
	// HeaderLine is the line number of the skipped header (0: none), and
	// HeaderText its fields, separated by single spaces.
	HeaderLine int
	HeaderText string
	Weighted   bool   // whether edges carried a third (weight) column; weights are ignored
	Format     Format // how the fields were separated
}

// ReadFile reads an edge list from a file; see Read.
func ReadFile(path string, header HeaderMode) (*graph.Graph, Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Stats{}, err
	}
	defer f.Close()
	return Read(f, path, header)
}

// utf8BOM is the byte-order mark some editors and spreadsheet tools put at
// the start of UTF-8 files. It is not part of the first node id.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// Read reads an undirected edge list: one edge "u v" per line,
// optionally followed by a numeric weight (accepted and ignored: the method
// is unweighted). Lines whose first non-blank character is '#' or '%' are
// comments, blank lines are skipped, and a UTF-8 byte-order mark at the
// start is ignored. Node ids are integers or strings; surrounding spaces are
// not part of an id.
//
// The fields are separated in one of three ways (Format). A name
// ending in .csv means CSV and .tsv (or .tab) means TSV: RFC 4180, read
// with encoding/csv, so ids may be quoted and then hold commas, tabs,
// quotes (doubled) and newlines. Any other name (and standard input) is
// sniffed from its first 100 data lines: a tab-separated field holding a
// space or a quote means TSV; else, with no tab at all, a comma means CSV
// (tabs and commas inside quotes do not count);
// else fields are separated by runs of spaces, tabs and commas, as in SNAP
// and KONECT files (no quoting: a quoted field there is an error that says
// so).
//
// name is used in error messages, which have the form "name:line: what is
// wrong".
func Read(r io.Reader, name string, header HeaderMode) (*graph.Graph, Stats, error) {
	return read(r, name, header, false)
}

// read is Read; generalLines turns off the fast path for lines of two
// integer keys (intPairLine), which tests compare with the general path.
func read(r io.Reader, name string, header HeaderMode, generalLines bool) (*graph.Graph, Stats, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	format := FormatFromName(name)
	if format == FormatAuto {
		var seen []byte
		var err error
		format, seen, err = sniffFormat(br)
		line := bytes.Count(seen, []byte{'\n'}) + 1
		switch {
		case errors.Is(err, errLineTooLong):
			return nil, Stats{}, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("line longer than %d bytes: not an edge list?", MaxLineBytes)}
		case err != nil:
			return nil, Stats{}, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		// Read again what the sniffing consumed.
		br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(seen), br), 64<<10)
	}
	el := &edgeListReader{name: name, header: header, generalLines: generalLines}
	el.st.Format = format
	var err error
	if format == FormatWhitespace {
		err = el.readWhitespace(br)
	} else {
		err = el.readCSV(br, format)
	}
	if err != nil {
		return nil, el.st, err
	}
	if el.pending != nil {
		if err := el.addEdge(el.pending, el.pendingLine); err != nil {
			return nil, el.st, err
		}
	}
	if el.st.Edges == 0 {
		return nil, el.st, &ParseError{File: name, Msg: fmt.Sprintf("no edges found (%s read)", plural.N(el.st.Lines, "line")), Err: ErrNoEdges}
	}
	if !el.strMode {
		return graph.NewIntKeyGraph(el.ints), el.st, nil
	}
	return el.b.Build(), el.st, nil
}

// edgeListReader holds the state of Read shared by the formats:
// the graph so far and the header decision.
type edgeListReader struct {
	name        string
	header      HeaderMode
	st          Stats
	b           graph.Builder
	strMode     bool      // a key was not a canonical integer: edges go to b
	ints        [][]int64 // until then, the edges' integer keys, two per edge, in blocks
	pending     [][]byte  // first data line, held until we know whether it is a header
	pendingLine int
	// generalLines turns off the fast path of intPairLine in readWhitespace.
	generalLines bool
}

func (el *edgeListReader) fail(line int, format string, args ...any) error {
	return &ParseError{File: el.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// record takes one data line's fields (nf of them, the first min(nf, 3) in
// f) found on line.
func (el *edgeListReader) record(f [][]byte, nf, line int) error {
	switch {
	case nf < 2:
		hint := ""
		if el.st.Format == FormatCSV && bytes.ContainsAny(f[0], "\t ") {
			hint = " (this file is read as CSV: fields are separated by commas)"
		} else if el.st.Format == FormatTSV && bytes.ContainsAny(f[0], ", ") {
			hint = " (this file is read as TSV: fields are separated by tabs)"
		}
		return el.fail(line, "want 2 node ids (\"u v\"), found 1 field %q%s", f[0], hint)
	case nf > 3:
		return el.fail(line, "want \"u v\" or \"u v weight\", found %d fields", nf)
	}
	f = f[:nf]
	for k, x := range f[:2] {
		if len(x) == 0 {
			return el.fail(line, "node id %d is empty", k+1)
		}
		if bytes.HasPrefix(x, utf8BOM) {
			// Only the file's first bytes may be a byte-order mark; one
			// inside the data is a file glued together from several.
			return el.fail(line, "node id %d starts with a byte-order mark (U+FEFF): was the file concatenated from several files?", k+1)
		}
	}
	if el.pending == nil && el.st.Edges == 0 && !el.st.Header && el.header != HeaderNone {
		if el.header == HeaderFirst || looksLikeHeader(f) {
			el.takeHeader(f, line)
			return nil
		}
		if allNonNumeric(f[:2]) {
			// Maybe a header, maybe string ids: decide on the next line.
			el.pending = make([][]byte, len(f))
			for k := range f {
				el.pending[k] = bytes.Clone(f[k])
			}
			el.pendingLine = line
			return nil
		}
	}
	if el.pending != nil {
		p := el.pending
		el.pending = nil
		if !allNonNumeric(f[:2]) && (len(p) == 2 || !isNumber(p[2])) {
			el.takeHeader(p, el.pendingLine)
		} else if err := el.addEdge(p, el.pendingLine); err != nil {
			return err
		}
	}
	return el.addEdge(f, line)
}

// takeHeader skips the data line of fields f, found on line, as the
// header.
func (el *edgeListReader) takeHeader(f [][]byte, line int) {
	el.st.Header, el.st.HeaderLine = true, line
	el.st.HeaderText = string(bytes.Join(f, []byte(" ")))
}

func (el *edgeListReader) addEdge(f [][]byte, line int) error {
	if msg := el.addEdgeFields(f); msg != "" {
		if el.st.Format == FormatWhitespace && len(f) == 3 && !isNumber(f[2]) {
			msg += " (this file is read as whitespace-separated: ids with spaces need a CSV or TSV file, .csv or .tsv)"
		}
		return el.fail(line, "%s", msg)
	}
	return nil
}

// readWhitespace reads lines whose fields are separated by runs of spaces,
// tabs and commas.
func (el *edgeListReader) readWhitespace(br *bufio.Reader) error {
	var fields [3][]byte
	for {
		line, err := readLine(br)
		if err == io.EOF && line == nil {
			return nil
		}
		el.st.Lines++
		if errors.Is(err, errLineTooLong) {
			return el.fail(el.st.Lines, "line longer than %d bytes: not an edge list?", MaxLineBytes)
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %w", el.name, el.st.Lines, err)
		}
		if !el.generalLines && el.st.Edges > 0 && el.pending == nil && !el.strMode {
			// Past the header decision, a line of two integer keys is an
			// edge and nothing else: skip the general checks.
			if u, v, ok := intPairLine(line); ok {
				el.st.Edges++
				el.addInts(u, v)
				continue
			}
		}
		if bad, ok := findBinary(line); ok {
			return el.fail(el.st.Lines, "invalid byte %#02x: not a text edge list?", bad)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' || line[0] == '%' {
			continue
		}
		nf := splitFields(line, &fields)
		for k, f := range fields[:min(nf, 3)] {
			f = bytes.TrimSpace(f) // other Unicode spaces
			fields[k] = f
			if len(f) > 0 && f[0] == '"' {
				return el.fail(el.st.Lines, "quoted id %s in a file read as whitespace-separated (from its first lines): "+
					"quoted ids need a CSV or TSV file (.csv: commas, .tsv: tabs)", quotedSpan(line, f))
			}
		}
		if err := el.record(fields[:], nf, el.st.Lines); err != nil {
			return err
		}
	}
}

func (el *edgeListReader) addEdgeFields(f [][]byte) string {
	if len(f) == 3 {
		if !isNumber(f[2]) {
			return fmt.Sprintf("weight %q is not a number", f[2])
		}
		el.st.Weighted = true
	}
	for _, id := range f[:2] {
		if len(id) > 1024 {
			return fmt.Sprintf("node id of %d bytes is too long", len(id))
		}
	}
	el.st.Edges++
	u, uok := parseIntBytes(f[0])
	v, vok := parseIntBytes(f[1])
	if !el.strMode {
		if uok && vok {
			el.addInts(u, v)
			return ""
		}
		// The first key that is not an integer: from here on the
		// Builder, fed the integer edges so far first, in their order.
		el.strMode = true
		for _, bl := range el.ints {
			for k := 0; k < len(bl); k += 2 {
				el.b.AddIntEdge(bl[k], bl[k+1])
			}
		}
		el.ints = nil
	}
	if uok && vok {
		el.b.AddIntEdge(u, v)
	} else {
		el.b.AddEdge(string(f[0]), string(f[1]))
	}
	return ""
}

// addInts appends an edge between integer keys to el.ints, in blocks that
// grow to 1M keys and are never copied.
func (el *edgeListReader) addInts(u, v int64) {
	if len(el.ints) == 0 || len(el.ints[len(el.ints)-1]) == cap(el.ints[len(el.ints)-1]) {
		c := 1 << 10
		if len(el.ints) > 0 {
			c = min(2*cap(el.ints[len(el.ints)-1]), 1<<20)
		}
		el.ints = append(el.ints, make([]int64, 0, c))
	}
	bl := &el.ints[len(el.ints)-1]
	*bl = append(*bl, u, v)
}

// intPairLine parses a line that is exactly two canonical integer keys
// separated by a run of spaces, tabs and commas, nothing before or after.
// Such a line passes every check of readWhitespace, record and
// addEdgeFields and is split the same way by splitFields, so it can be
// added directly. Any other line gives ok false.
func intPairLine(line []byte) (u, v int64, ok bool) {
	i := 0
	for i < len(line) && (line[i] >= '0' && line[i] <= '9' || line[i] == '-') {
		i++
	}
	j := i
	for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == ',') {
		j++
	}
	if i == 0 || j == i || j == len(line) {
		return 0, 0, false
	}
	for k := j; k < len(line); k++ {
		if !(line[k] >= '0' && line[k] <= '9' || line[k] == '-') {
			return 0, 0, false
		}
	}
	u, uok := parseIntBytes(line[:i])
	v, vok := parseIntBytes(line[j:])
	if !uok || !vok {
		return 0, 0, false
	}
	return u, v, true
}

var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its terminator. A line longer than
// MaxLineBytes is consumed and reported with errLineTooLong.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLineBytes+2 {
			return []byte{}, errLineTooLong
		}
		if err == bufio.ErrBufferFull {
			buf = append(buf, chunk...)
			continue
		}
		if buf != nil {
			buf = append(buf, chunk...)
		} else {
			buf = chunk
		}
		if err == io.EOF && len(buf) == 0 {
			return nil, io.EOF
		}
		buf = bytes.TrimRight(buf, "\r\n")
		if err == io.EOF {
			return buf, nil
		}
		return buf, err
	}
}

// readRawLine returns the next line with its terminator ("\n" or "\r\n";
// none at the end of the input). A line longer than MaxLineBytes is
// consumed and reported with errLineTooLong.
func readRawLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLineBytes+2 {
			return nil, errLineTooLong
		}
		buf = append(buf, chunk...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

// findBinary returns the first byte that cannot occur in a text edge list:
// NUL and other control characters, or invalid UTF-8.
func findBinary(line []byte) (byte, bool) {
	for i := 0; i < len(line); {
		c := line[i]
		if c < 0x20 && c != '\t' && c != '\r' && c != '\n' || c == 0x7f {
			return c, true
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && size <= 1 {
			return c, true
		}
		i += size
	}
	return 0, false
}

func isSeparator(c byte) bool { return c == ' ' || c == '\t' || c == ',' || c == '\r' }

// splitFields splits on runs of whitespace and single commas (so "a, b" and
// "a,b" both give two fields). It stores at most three fields and returns the
// total count.
func splitFields(line []byte, out *[3][]byte) int {
	n := 0
	i := 0
	for i < len(line) {
		for i < len(line) && isSeparator(line[i]) {
			i++
		}
		if i >= len(line) {
			break
		}
		j := i
		for j < len(line) && !isSeparator(line[j]) {
			j++
		}
		if n < 3 {
			out[n] = line[i:j]
		}
		n++
		i = j
	}
	return n
}

// quotedSpan is the quoted id that starts at field f of line (f a
// subslice of line), up to its closing quote, which splitting at spaces
// may have cut off: "3 4", not "3.
func quotedSpan(line, f []byte) string {
	rest := line[cap(line)-cap(f):]
	if end := bytes.IndexByte(rest[1:], '"'); end >= 0 {
		return string(rest[:end+2])
	}
	return string(rest) + " (no closing quote)"
}

var headerWords = map[string]bool{
	"source": true, "target": true, "src": true, "dst": true, "from": true, "to": true,
	"u": true, "v": true, "node1": true, "node2": true, "id1": true, "id2": true,
	"node_1": true, "node_2": true, "weight": true, "w": true, "start": true, "end": true,
}

func looksLikeHeader(f [][]byte) bool {
	for _, x := range f[:2] {
		if !headerWords[strings.ToLower(string(x))] {
			return false
		}
	}
	return true
}

func allNonNumeric(f [][]byte) bool {
	for _, x := range f {
		if isNumber(x) {
			return false
		}
	}
	return true
}

func isNumber(b []byte) bool {
	_, err := strconv.ParseFloat(string(b), 64)
	return err == nil
}

// parseIntBytes parses b as an integer key only if it is written
// canonically, as fondue.Builder does, so that "007" and "7" stay two
// different nodes: an optional '-', then digits without a leading zero
// (or "0" alone), within int64. It is strconv.ParseInt plus the check
// that strconv.FormatInt gives b back, without allocating.
func parseIntBytes(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg = true
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 || b[0] == '0' && (len(b) > 1 || neg) {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0') // 19 digits fit in a uint64
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	case neg && u <= 1<<63:
		return int64(-u), true
	}
	return 0, false
}
