package filesource

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

// Selection is the choice of an edge list's nodes to score: by id prefix
// (score_prefix), by a list of ids (score_nodes), or both (a node is
// scored when either selects it). The zero value scores every node.
type Selection struct {
	prefix string
	file   string     // the list's file, "" for none
	ids    []listedID // the ids it lists
}

// listedID is an id of a score_nodes file and its line.
type listedID struct {
	id   string
	line int
}

// ReadSelection reads the selection of the ids with prefix and of those
// file lists (one a line, '#' comments; "": none), so that its errors come
// before the edge list's.
func ReadSelection(prefix, file string) (Selection, error) {
	sel := Selection{prefix: prefix, file: file}
	if sel.file == "" {
		return sel, nil
	}
	if isFolder(sel.file) {
		return sel, invalidf("score_nodes %s: is a folder; give a file", sel.file)
	}
	f, err := os.Open(sel.file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return sel, invalidf("score_nodes %s: no such file", sel.file)
	case err != nil:
		return sel, invalidf("score_nodes %s: %v", sel.file, errors.Unwrap(err))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		if line == 1 {
			s = strings.TrimPrefix(s, "\ufeff") // a UTF-8 byte-order mark
		}
		s = strings.TrimSpace(s)
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		sel.ids = append(sel.ids, listedID{s, line})
	}
	if err := sc.Err(); err != nil {
		return sel, invalidf("score_nodes %s: %v", sel.file, err)
	}
	return sel, nil
}

// chooses reports whether the selection chooses nodes (else every node is
// scored).
func (s Selection) chooses() bool { return s.prefix != "" || s.file != "" }

// describe names the selection for messages.
func (s Selection) describe() string {
	var parts []string
	if s.prefix != "" {
		parts = append(parts, "--score-prefix "+strconv.Quote(s.prefix))
	}
	if s.file != "" {
		parts = append(parts, "--score-nodes "+s.file)
	}
	return strings.Join(parts, " or ")
}

// Targets returns the nodes of g to score (fondue.Options.Targets), nil
// for all of them. An id of the list that is not in g is an error naming
// its file and line (syncjob.ErrInvalid); a selection none of whose nodes
// has an edge leaves nothing to score (syncjob.ErrEmpty).
func (s Selection) Targets(g *graph.Graph) ([]bool, error) {
	if !s.chooses() {
		return nil, nil
	}
	t := make([]bool, g.NumNodes())
	if s.prefix != "" {
		for i := range t {
			t[i] = strings.HasPrefix(g.Key(i), s.prefix)
		}
	}
	for _, x := range s.ids {
		i, ok := g.Index(x.id)
		if !ok {
			return nil, invalidf("%s:%d: node %s is not in the edge list", s.file, x.line, strconv.Quote(x.id))
		}
		t[i] = true
	}
	selected, linked := fondue.CountTargets(g, t)
	switch {
	case selected == 0:
		return nil, empty("nothing to score: no node of the edge list is selected by %s", s.describe())
	case linked == 0:
		if selected == 1 {
			return nil, empty("nothing to score: the one node selected by %s has no edge", s.describe())
		}
		return nil, empty("nothing to score: none of the %d nodes selected by %s has an edge", selected, s.describe())
	}
	return t, nil
}
