package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/dedup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

// Duplicates is the duplicates command's output: pairs of nodes of Graph
// that may be one entity, most likely first (as dedup.Find returns them),
// with the names that were compared.
type Duplicates struct {
	Graph *graph.Graph
	Pairs []dedup.Pair
	Names []string // per node index: the name compared ("" for none)
}

// Pair is one pair in WriteJSON's output; node ids stay numbers when the
// input's ids are integers, as score prints them.
type Pair struct {
	A       keys.Key `json:"a"`
	B       keys.Key `json:"b"`
	Score   float64  `json:"score"` // higher: more likely one entity
	NameA   string   `json:"nameA"`
	NameB   string   `json:"nameB"`
	Reasons []Why    `json:"reasons"`
}

// Why is one reason of a pair: its kind ("name", "coauthors", ...), its
// text for people ("3 shared co-authors") and how much it counted.
type Why struct {
	Kind   string  `json:"kind"`
	Text   string  `json:"text"`
	Weight float64 `json:"weight"`
}

// WriteTSV writes one line per pair, tab-separated: a, b, score, name_a,
// name_b, reasons (their texts joined by "; "); with header, the column
// names first. Fields are quoted as in Ranking.WriteTSV.
func (d Duplicates) WriteTSV(w io.Writer, header bool) error {
	cw := csv.NewWriter(w)
	cw.Comma = '\t'
	if header {
		if err := cw.Write([]string{"a", "b", "score", "name_a", "name_b", "reasons"}); err != nil {
			return err
		}
	}
	rec := make([]string, 6)
	var texts []string
	for _, p := range d.Pairs {
		texts = texts[:0]
		for _, r := range p.Reasons {
			texts = append(texts, r.Text)
		}
		rec[0], rec[1], rec[2] = d.Graph.Key(p.A), d.Graph.Key(p.B), formatFloat(p.Score)
		rec[3], rec[4], rec[5] = d.name(p.A), d.name(p.B), strings.Join(texts, "; ")
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes a JSON array of Pair, one object a line ("[]" for no
// pair). One buffer serves every pair: the output of --top 0 is large.
func (d Duplicates) WriteJSON(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	buf.WriteString("[")
	var why []Why
	for k, p := range d.Pairs {
		why = why[:0]
		for _, r := range p.Reasons {
			why = append(why, Why{Kind: r.Kind, Text: r.Text, Weight: r.Weight})
		}
		pj := Pair{A: keys.OfGraph(d.Graph, p.A), B: keys.OfGraph(d.Graph, p.B), Score: p.Score,
			NameA: d.name(p.A), NameB: d.name(p.B), Reasons: why}
		if k > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n  ")
		if err := enc.Encode(pj); err != nil { // as json.Marshal, and a newline
			return err
		}
		buf.Truncate(buf.Len() - 1)
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		buf.Reset()
	}
	if len(d.Pairs) > 0 {
		buf.WriteString("\n")
	}
	buf.WriteString("]\n")
	_, err := w.Write(buf.Bytes())
	return err
}

func (d Duplicates) name(i int) string {
	if i < len(d.Names) {
		return d.Names[i]
	}
	return ""
}
