package edgelist

// The formats of an edge list: their names, the sniffing that picks one
// for a file whose name does not say, and the reading of CSV and TSV
// (whitespace-separated lines are read in edgelist.go).

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Format says how the fields of an edge list's lines are separated.
type Format int

const (
	// FormatAuto picks the format from the file name, else from the first
	// data lines (see Read).
	FormatAuto Format = iota
	// FormatWhitespace separates fields by runs of spaces, tabs or commas;
	// ids cannot contain any of them, and there is no quoting.
	FormatWhitespace
	// FormatCSV is RFC 4180 CSV: comma-separated, fields optionally quoted
	// with '"' (a quoted field may hold commas, newlines and doubled quotes).
	FormatCSV
	// FormatTSV is FormatCSV with tabs instead of commas.
	FormatTSV
)

func (f Format) String() string {
	switch f {
	case FormatWhitespace:
		return "whitespace"
	case FormatCSV:
		return "csv"
	case FormatTSV:
		return "tsv"
	}
	return "auto"
}

// FormatFromName returns the format a file name implies: ".csv" is CSV,
// ".tsv" and ".tab" are TSV (case-insensitive, after a final ".gz"-free
// extension); anything else is FormatAuto.
func FormatFromName(name string) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return FormatCSV
	case ".tsv", ".tab":
		return FormatTSV
	}
	return FormatAuto
}

// sniffLines is how many data lines Read looks at to pick a format.
const sniffLines = 100

// sniffFormat reads up to sniffLines data lines (and at most MaxLineBytes
// per line) and picks the format they suggest. It returns the bytes it
// consumed, to be read again.
func sniffFormat(br *bufio.Reader) (Format, []byte, error) {
	var seen []byte
	tab, tabAndSpace, comma := false, false, false
	inQuotes := false // inside a quoted field, across lines
	for data := 0; data < sniffLines && len(seen) < 4*MaxLineBytes; {
		line, err := readRawLine(br)
		if errors.Is(err, errLineTooLong) {
			return 0, seen, err
		}
		seen = append(seen, line...)
		if err != nil && err != io.EOF {
			return 0, seen, err
		}
		t := bytes.TrimSpace(line)
		if len(t) > 0 && (inQuotes || t[0] != '#' && t[0] != '%') { // inside a quoted field, never a comment
			data++
			lineTab := false
			for _, c := range t {
				switch {
				case c == '"':
					inQuotes = !inQuotes
				case inQuotes:
				case c == '\t':
					lineTab = true
				case c == ',':
					comma = true
				}
			}
			if lineTab {
				tab = true
				for _, f := range bytes.Split(t, []byte{'\t'}) {
					if bytes.ContainsAny(bytes.TrimSpace(f), " \"") {
						tabAndSpace = true
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	switch {
	case tab && tabAndSpace:
		return FormatTSV, seen, nil
	case !tab && comma:
		return FormatCSV, seen, nil
	}
	return FormatWhitespace, seen, nil
}

// readCSV reads RFC 4180 records (comma- or tab-separated) with
// encoding/csv. A filter in front of it drops comment and blank lines
// between records and checks every physical line as readWhitespace does.
func (el *edgeListReader) readCSV(br *bufio.Reader, format Format) error {
	lf := &csvLines{br: br, el: el}
	cr := csv.NewReader(lf)
	if format == FormatTSV {
		cr.Comma = '\t'
	}
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	var fields [3][]byte
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var pe *ParseError
			var ce *csv.ParseError
			switch {
			case errors.As(err, &pe):
				return pe
			case errors.As(err, &ce) && ce.StartLine != ce.Line:
				return el.fail(ce.StartLine, "the record starting here: line %d, column %d: %v", ce.Line, ce.Column, ce.Err)
			case errors.As(err, &ce):
				return el.fail(ce.Line, "column %d: %v", ce.Column, ce.Err)
			}
			return fmt.Errorf("%s:%d: %w", el.name, lf.lines, err)
		}
		line, _ := cr.FieldPos(0)
		for k := range min(len(rec), 3) {
			fields[k] = []byte(strings.TrimSpace(rec[k]))
		}
		if err := el.record(fields[:], len(rec), line); err != nil {
			return err
		}
	}
}

// csvLines feeds encoding/csv one physical line at a time. Between records
// (an even number of quotes so far) it blanks comment lines and lines of
// only spaces, so that csv skips them and its line numbers stay right; it
// rejects binary bytes and lines longer than MaxLineBytes.
type csvLines struct {
	br     *bufio.Reader
	el     *edgeListReader
	buf    []byte // the rest of the current line
	lines  int
	quotes int // quote characters so far: odd inside a quoted field
}

func (c *csvLines) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		line, err := readRawLine(c.br)
		if len(line) == 0 && err != nil {
			return 0, err
		}
		c.lines++
		c.el.st.Lines = c.lines
		if errors.Is(err, errLineTooLong) {
			return 0, c.el.fail(c.lines, "line longer than %d bytes: not an edge list?", MaxLineBytes)
		}
		if bad, ok := findBinary(line); ok {
			return 0, c.el.fail(c.lines, "invalid byte %#02x: not a text edge list?", bad)
		}
		if c.quotes%2 == 0 {
			if t := bytes.TrimSpace(line); len(t) == 0 || t[0] == '#' || t[0] == '%' {
				line = []byte{'\n'}
			}
		}
		c.quotes += bytes.Count(line, []byte{'"'})
		c.buf = line
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}
