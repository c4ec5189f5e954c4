package output

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Ranking is score's output: the nodes of Graph, most ambiguous first, with
// their scores (Result) and the splits it proposes.
type Ranking struct {
	Graph  *graph.Graph
	Result *fondue.Result
	Top    int         // the nodes printed: the Top most ambiguous, 0 for all
	Names  names.Names // display names, nil for none: adds a name column
}

// proposalsByNode indexes split proposals by node.
func proposalsByNode(res *fondue.Result) map[int]*fondue.Proposal {
	m := make(map[int]*fondue.Proposal, len(res.Proposals))
	for k := range res.Proposals {
		m[res.Proposals[k].Node] = &res.Proposals[k]
	}
	return m
}

// nodes returns the printed nodes, most ambiguous first.
func (r Ranking) nodes() []int {
	ranking := r.Result.Ranking()
	if r.Top > 0 && r.Top < len(ranking) {
		return ranking[:r.Top]
	}
	return ranking
}

// WriteTSV writes one line per node, tab-separated: node, name (with
// Names), ambiguity, degree, score, entities, split (with proposals); with
// header, the column names first.
func (r Ranking) WriteTSV(w io.Writer, header bool) error {
	g, res, nm := r.Graph, r.Result, r.Names
	props := proposalsByNode(res)
	if header {
		cols := "node"
		if nm != nil {
			cols += "\tname"
		}
		cols += "\tambiguity\tdegree\tscore\tentities"
		if res.Proposals != nil {
			cols += "\tsplit"
		}
		if _, err := io.WriteString(w, cols+"\n"); err != nil {
			return err
		}
	}
	for _, i := range r.nodes() {
		line := tsvField(g.Key(i))
		if nm != nil {
			line += "\t" + tsvField(nm.Of(g.Key(i)))
		}
		line += "\t" + formatFloat(res.Ambiguity[i]) + "\t" + strconv.Itoa(g.Degree(i)) +
			"\t" + formatFloat(res.Scores[i]) + "\t" + strconv.Itoa(res.Entities[i])
		if p, ok := props[i]; ok {
			line += "\t" + tsvField(splitField(g, p.Groups, nm))
		}
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// tsvField quotes a field of the tab-separated output as RFC 4180 (and
// encoding/csv's writer, with a tab for the comma) does: a field holding a
// tab, a quote or a line break, or starting with a space, is put in quotes,
// its quotes doubled. The output stays one record per node and reads back
// with encoding/csv (Comma '\t') or "score" itself.
func tsvField(s string) string {
	if !fieldNeedsQuotes(s, "\t") {
		return s
	}
	return quoteField(s)
}

// fieldNeedsQuotes reports whether s must be quoted in a field separated by
// any of seps: it holds a separator, a quote or a line break, or starts
// with a space (which a reader may trim), or is encoding/csv's `\.`.
func fieldNeedsQuotes(s, seps string) bool {
	if s == "" {
		return false
	}
	if s == `\.` || strings.ContainsAny(s, seps+"\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

func quoteField(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// splitField writes groups of neighbour keys (or names) as "a,b|c,d":
// '|' between groups, ',' between the members of a group. A member holding
// ',', '|' or a quote (or a line break, or starting with a space) is
// quoted as in CSV ("Smith, J." becomes "\"Smith, J.\""), so that the field
// splits back unambiguously; tsvField then quotes the whole field if it
// needs it.
func splitField(g *graph.Graph, groups [][]int32, nm names.Names) string {
	var sb strings.Builder
	for k, grp := range groups {
		if k > 0 {
			sb.WriteByte('|')
		}
		for l, j := range grp {
			if l > 0 {
				sb.WriteByte(',')
			}
			s := g.Key(int(j))
			if nm != nil {
				s = nm.Of(s)
			}
			if fieldNeedsQuotes(s, ",|") {
				s = quoteField(s)
			}
			sb.WriteString(s)
		}
	}
	return sb.String()
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }

// Node is one node in WriteJSON's output; node ids stay numbers when the
// input's ids are integers.
type Node struct {
	Node      keys.Key     `json:"node"`
	Name      string       `json:"name,omitempty"` // with Names
	Ambiguity float64      `json:"ambiguity"`
	Degree    int          `json:"degree"`
	Score     float64      `json:"score"`
	Entities  int          `json:"entities"` // the estimated number of real entities (fondue.Result.Entities)
	Split     [][]keys.Key `json:"split,omitempty"`
	// SplitNames are the groups of Split by name (with Names).
	SplitNames [][]string `json:"splitNames,omitempty"`
	// Reasons are, per group of Split, the shared context (venues,
	// keywords, years, ...) that made its pieces one group (with a
	// knowledge graph's context; see Reasons).
	Reasons [][]splitplan.Reason `json:"reasons,omitempty"`
}

// WriteJSON writes a JSON array of Node, one object a line.
func (r Ranking) WriteJSON(w io.Writer) error {
	g, res, nm := r.Graph, r.Result, r.Names
	props := proposalsByNode(res)
	ranking := r.nodes()
	out := make([]Node, 0, len(ranking))
	for _, i := range ranking {
		nj := Node{Node: keys.OfGraph(g, i), Ambiguity: res.Ambiguity[i], Degree: g.Degree(i), Score: res.Scores[i], Entities: res.Entities[i]}
		if nm != nil {
			nj.Name = nm.Of(g.Key(i))
		}
		if p, ok := props[i]; ok {
			nj.Reasons = Reasons(g, p, nm)
			for _, grp := range p.Groups {
				ks := make([]keys.Key, len(grp))
				for k, j := range grp {
					ks[k] = keys.OfGraph(g, int(j))
				}
				nj.Split = append(nj.Split, ks)
				if nm != nil {
					ns := make([]string, len(grp))
					for k, j := range grp {
						ns[k] = nm.Of(g.Key(int(j)))
					}
					nj.SplitNames = append(nj.SplitNames, ns)
				}
			}
		}
		out = append(out, nj)
	}
	// One object per line: readable, and easy to process line by line.
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	for k, nj := range out {
		b, err := json.Marshal(nj)
		if err != nil {
			return err
		}
		sep := ",\n  "
		if k == 0 {
			sep = "\n  "
		}
		if _, err := io.WriteString(w, sep+string(b)); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "\n]\n")
	return err
}
