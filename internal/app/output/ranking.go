package output

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"strings"

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
	// encoding/csv with a tab for the comma quotes a field holding a tab, a
	// quote or a line break, or starting with a space, as RFC 4180 does:
	// the output stays one record per node and reads back with it.
	cw := csv.NewWriter(w)
	cw.Comma = '\t'
	if header {
		cols := []string{"node"}
		if nm != nil {
			cols = append(cols, "name")
		}
		cols = append(cols, "ambiguity", "degree", "score", "entities")
		if res.Proposals != nil {
			cols = append(cols, "split")
		}
		if err := cw.Write(cols); err != nil {
			return err
		}
	}
	var rec []string
	for _, i := range r.nodes() {
		rec = append(rec[:0], g.Key(i))
		if nm != nil {
			rec = append(rec, nm.Of(g.Key(i)))
		}
		rec = append(rec, formatFloat(res.Ambiguity[i]), strconv.Itoa(g.Degree(i)),
			formatFloat(res.Scores[i]), strconv.Itoa(res.Entities[i]))
		if p, ok := props[i]; ok {
			rec = append(rec, splitField(g, p.Groups, nm))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// splitField writes groups of neighbour keys (or names) as "a,b|c,d":
// '|' between groups, ',' between the members of a group. A member holding
// ',', '|' or a quote (or a line break, or starting with a space) is
// quoted as in CSV ("Smith, J." becomes "\"Smith, J.\""), so that the field
// splits back unambiguously; WriteTSV then quotes the whole field if it
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
			sb.WriteString(csvMember(s))
		}
	}
	return sb.String()
}

// csvMember is s as a field of encoding/csv's writer separated by ',' or
// by '|': quoted when either separator needs it.
func csvMember(s string) string {
	if q := csvField(s, ','); q != s {
		return q
	}
	return csvField(s, '|')
}

// csvField is s as the one field of a record of encoding/csv's writer
// with comma as the separator.
func csvField(s string, comma rune) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Comma = comma
	_ = w.Write([]string{s}) // a strings.Builder does not fail
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
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
