package fondue

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLineBytes is the longest line ReadEdgeList accepts. Longer lines are far
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

// ParseError reports a malformed edge list, with the place it was found.
type ParseError struct {
	File string // file name, or "" for a reader without one
	Line int    // 1-based; 0 when the problem is the file as a whole
	Msg  string
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

// EdgeListStats describes what ReadEdgeList read.
type EdgeListStats struct {
	Lines    int  // lines in the file
	Edges    int  // edge lines, self-loops and duplicates included
	Header   bool // whether a header line was skipped
	Weighted bool // whether edges carried a third (weight) column; weights are ignored
}

// ReadEdgeListFile reads an edge list from a file; see ReadEdgeList.
func ReadEdgeListFile(path string, header HeaderMode) (*Graph, EdgeListStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, EdgeListStats{}, err
	}
	defer f.Close()
	return ReadEdgeList(f, path, header)
}

// ReadEdgeList reads an undirected edge list: one edge "u v" per line, the two
// node ids separated by whitespace or a comma, optionally followed by a
// numeric weight (accepted and ignored: the method is unweighted). Lines
// starting with '#' or '%' are comments, blank lines are skipped. Node ids are
// integers or arbitrary strings without spaces or commas. name is used in error
// messages, which have the form "name:line: what is wrong".
func ReadEdgeList(r io.Reader, name string, header HeaderMode) (*Graph, EdgeListStats, error) {
	var st EdgeListStats
	fail := func(line int, format string, args ...any) (*Graph, EdgeListStats, error) {
		return nil, st, &ParseError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var b Builder
	var pending [][]byte // first data line, held until we know whether it is a header
	pendingLine := 0
	var fields [3][]byte

	for {
		line, err := readLine(br)
		if err == io.EOF && line == nil {
			break
		}
		st.Lines++
		if errors.Is(err, errLineTooLong) {
			return fail(st.Lines, "line longer than %d bytes: not an edge list?", MaxLineBytes)
		}
		if err != nil && err != io.EOF {
			return nil, st, fmt.Errorf("%s:%d: %w", name, st.Lines, err)
		}
		if bad, ok := findBinary(line); ok {
			return fail(st.Lines, "invalid byte %#02x: not a text edge list?", bad)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' || line[0] == '%' {
			continue
		}
		nf := splitFields(line, &fields)
		switch {
		case nf < 2:
			return fail(st.Lines, "want 2 node ids (\"u v\"), found 1 field %q", fields[0])
		case nf > 3:
			return fail(st.Lines, "want \"u v\" or \"u v weight\", found %d fields", nf)
		}

		if pending == nil && st.Edges == 0 && !st.Header && header != HeaderNone {
			if header == HeaderFirst || looksLikeHeader(fields[:nf]) {
				st.Header = true
				continue
			}
			if allNonNumeric(fields[:2]) {
				// Maybe a header, maybe string ids: decide on the next line.
				pending = [][]byte{bytes.Clone(fields[0]), bytes.Clone(fields[1])}
				if nf == 3 {
					pending = append(pending, bytes.Clone(fields[2]))
				}
				pendingLine = st.Lines
				continue
			}
		}
		if pending != nil {
			if !allNonNumeric(fields[:2]) && (len(pending) == 2 || !isNumber(pending[2])) {
				st.Header = true
			} else if err := addEdgeFields(&b, pending, &st); err != "" {
				return fail(pendingLine, "%s", err)
			}
			pending = nil
		}
		if err := addEdgeFields(&b, fields[:nf], &st); err != "" {
			return fail(st.Lines, "%s", err)
		}
	}
	if pending != nil {
		if err := addEdgeFields(&b, pending, &st); err != "" {
			return fail(pendingLine, "%s", err)
		}
	}
	if st.Edges == 0 {
		return fail(0, "no edges found (%d lines read)", st.Lines)
	}
	return b.Build(), st, nil
}

func addEdgeFields(b *Builder, f [][]byte, st *EdgeListStats) string {
	if len(f) == 3 {
		if !isNumber(f[2]) {
			return fmt.Sprintf("weight %q is not a number", f[2])
		}
		st.Weighted = true
	}
	for _, id := range f[:2] {
		if len(id) > 1024 {
			return fmt.Sprintf("node id of %d bytes is too long", len(id))
		}
	}
	st.Edges++
	u, uok := parseIntKey(string(f[0]))
	v, vok := parseIntKey(string(f[1]))
	if uok && vok {
		b.AddIntEdge(u, v)
	} else {
		b.AddEdge(string(f[0]), string(f[1]))
	}
	return ""
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

// splitFields splits on runs of whitespace and single commas (so "a, b" and
// "a,b" both give two fields). It stores at most three fields and returns the
// total count.
func splitFields(line []byte, out *[3][]byte) int {
	n := 0
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == ',') {
			i++
		}
		if i >= len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' && line[j] != ',' {
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
