package real

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/neo4jcsv"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
)

// DirName is the folder of the real sets inside the datasets folder.
const DirName = "real"

// Suffixes of a real set's files.
const (
	suffixEdges      = ".edges"
	suffixTruth      = ".truth.tsv"
	suffixNeighbours = ".neighbours.tsv"
	suffixNames      = ".names"
)

// Dir returns the real-data folder inside the datasets folder dataDir.
func Dir(dataDir string) string { return filepath.Join(dataDir, DirName) }

// SetNames returns the real sets of dir, sorted: every X with X.edges,
// X.truth.tsv and X.neighbours.tsv in dir or in its folder X.
func SetNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() { // a set in a folder of its own: X/X.edges (a knowledge graph with its import files)
			if base := setBase(dir, e.Name()); fileExists(base+suffixEdges) && fileExists(base+suffixTruth) && fileExists(base+suffixNeighbours) {
				out = append(out, e.Name())
			}
			continue
		}
		name, ok := strings.CutSuffix(e.Name(), suffixEdges)
		if !ok || name == "" {
			continue
		}
		if fileExists(filepath.Join(dir, name+suffixTruth)) && fileExists(filepath.Join(dir, name+suffixNeighbours)) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// setBase returns the path of set name's files without their suffix: in
// its own folder dir/name when there is one, else in dir.
func setBase(dir, name string) string {
	if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.IsDir() {
		return filepath.Join(dir, name, name)
	}
	return filepath.Join(dir, name)
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// PersonCount is one person behind a labelled name and the number of the
// name's papers that are theirs.
type PersonCount struct {
	Person string `json:"person"`
	Papers int    `json:"papers"`
}

// LabelledName is one line of a truth file.
type LabelledName struct {
	ID      string
	Name    string
	Persons int // distinct real persons behind the name
	Papers  int
	// Foreign counts occurrences of the name on other names' papers that
	// match none of its own: possibly further, unlabelled persons.
	Foreign int
	Degree  int // as the truth file says (the graph's degree is what counts)
	Labels  []PersonCount
	Line    int // in the truth file
}

// LabelledNeighbour is one line of a neighbours file: a graph neighbour
// of an ambiguous name and the persons of that name it appears with (none,
// one, or several).
type LabelledNeighbour struct {
	Neighbour string
	Persons   []string
}

// Set is a loaded real set.
type Set struct {
	Name  string
	Graph *graph.Graph
	// Names are the display names (X.names), nil when there is none.
	Names names.Names
	// Labelled are the truth file's names, in its order.
	Labelled []LabelledName
	// Neighbours holds, per labelled name id, its labelled neighbours in
	// the neighbours file's order.
	Neighbours map[string][]LabelledNeighbour
	// Prefix is the id prefix of the scored nodes ("a:" for
	// (:Author)-[:WROTE]->(:Paper) with author ids a:N), "" when every
	// node is scored (the co-author shape).
	Prefix string
	// Targets marks the nodes whose id starts with Prefix, the nodes
	// scored (fondue.Options.Targets); nil when Prefix is "".
	Targets []bool
	// Dev says which labelled name ids are in the development half; the
	// others are held out. DevRule says how the halves were drawn.
	Dev     map[string]bool
	DevRule string
	// Context is the knowledge-graph context of a set in a folder of its
	// own with Neo4j import node files (LoadContext), nil otherwise.
	Context *evidence.Context
	folder  string // the set's own folder, "" when none
}

// LoadContext reads a set in a folder of its own from the Neo4j import
// files there (fondue/neo4jcsv), when it has any: the graph (the same as
// X.edges, with the same node indices), the context (node labels and the
// evidence properties props) and the targets (the nodes with a label of a
// labelled name). A set without such files keeps a nil Context.
func (s *Set) LoadContext(ctx context.Context, props []string) error {
	if s.folder == "" {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(s.folder, "*.csv"))
	if err != nil {
		return err
	}
	slices.Sort(files)
	var o neo4jcsv.Options
	for _, f := range files {
		switch head, err := firstLine(f); {
		case err != nil:
			return fmt.Errorf("real set %s: %w", s.Name, err)
		case strings.Contains(head, ":START_ID"):
			o.Relationships = append(o.Relationships, f)
		case strings.Contains(head, ":ID"):
			o.Nodes = append(o.Nodes, f)
		}
	}
	if len(o.Nodes) == 0 {
		return nil
	}
	o.EvidenceProperties = props
	kg, err := neo4jcsv.Read(ctx, o)
	if err != nil {
		return fmt.Errorf("real set %s: %w", s.Name, err)
	}
	if kg.Graph.NumNodes() != s.Graph.NumNodes() || kg.Graph.NumEdges() != s.Graph.NumEdges() {
		return fmt.Errorf("real set %s: the import files hold %d nodes and %d relationships, %s%s %d and %d",
			s.Name, kg.Graph.NumNodes(), kg.Graph.NumEdges(), s.Name, suffixEdges, s.Graph.NumNodes(), s.Graph.NumEdges())
	}
	labels := map[string]bool{}
	for _, ln := range s.Labelled {
		if i, ok := kg.Graph.Index(ln.ID); ok {
			for _, l := range kg.Labels[i] {
				labels[l] = true
			}
		}
	}
	targets := make([]bool, kg.Graph.NumNodes())
	for i := range targets {
		targets[i] = slices.ContainsFunc(kg.Labels[i], func(l string) bool { return labels[l] })
	}
	s.Graph, s.Context, s.Targets = kg.Graph, kg.Context, targets
	return nil
}

// firstLine returns a file's first line.
func firstLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return line, err
}

// ParseError is a malformed line of a real set's file.
type ParseError struct {
	File string
	Line int // 0: the file as a whole
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// LoadSet reads the real set name from dir: the graph with the
// project's edge-list reader, the display names (if X.names exists) with
// the names reader of --names, the truth and the neighbours; it detects
// the scored nodes' prefix and draws the development half.
func LoadSet(dir, name string) (*Set, error) {
	base := setBase(dir, name)
	g, _, err := edgelist.ReadFile(base+suffixEdges, edgelist.HeaderAuto)
	if err != nil {
		return nil, fmt.Errorf("real set %s: %w", name, err)
	}
	s := &Set{Name: name, Graph: g}
	if base != filepath.Join(dir, name) {
		s.folder = filepath.Dir(base)
	}
	if fileExists(base + suffixNames) {
		if s.Names, err = names.ReadFile(base + suffixNames); err != nil {
			return nil, fmt.Errorf("real set %s: %w", name, err)
		}
	}
	if s.Labelled, err = readTruthFile(base + suffixTruth); err != nil {
		return nil, err
	}
	if s.Neighbours, err = readNeighboursFile(base+suffixNeighbours, s.Labelled, g); err != nil {
		return nil, err
	}
	s.Prefix = truthPrefix(s.Labelled)
	if s.Prefix != "" {
		s.Targets = make([]bool, g.NumNodes())
		for i := range s.Targets {
			s.Targets[i] = strings.HasPrefix(g.Key(i), s.Prefix)
		}
	}
	s.Dev, s.DevRule = devHalf(name, s.Prefix, s.Labelled)
	return s, nil
}

// truthColumns are the columns of a truth file, in order.
var truthColumns = []string{"id", "name", "persons", "papers", "foreign", "degree", "labels"}

// neighbourColumns are the columns of a neighbours file, in order.
var neighbourColumns = []string{"id", "neighbour", "labels"}

// tsvLines calls fn for every data line of a TSV file with a header line
// equal to columns ('#' lines and blank lines are skipped), with the line's
// fields, after checking their number.
func tsvLines(file string, r io.Reader, columns []string, fn func(line int, f []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<24)
	line, header := 0, false
	for sc.Scan() {
		line++
		text := strings.TrimSuffix(sc.Text(), "\r")
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff")
		}
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, "\t")
		if !header {
			if !slices.Equal(f, columns) {
				return &ParseError{file, line, fmt.Sprintf("header %q: want the tab-separated columns %s", short(text), strings.Join(columns, ", "))}
			}
			header = true
			continue
		}
		if len(f) != len(columns) {
			return &ParseError{file, line, fmt.Sprintf("%d fields, want %d (%s)", len(f), len(columns), strings.Join(columns, ", "))}
		}
		if err := fn(line, f); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return &ParseError{file, line + 1, err.Error()}
	}
	if !header {
		return &ParseError{File: file, Msg: "empty: no header line " + strings.Join(columns, "<TAB>")}
	}
	return nil
}

// short cuts a line for an error message.
func short(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

func readTruthFile(path string) ([]LabelledName, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readTruth(path, f)
}

// readTruth parses a truth file (truthColumns); file names it in errors.
func readTruth(file string, r io.Reader) ([]LabelledName, error) {
	var out []LabelledName
	seen := map[string]int{}
	err := tsvLines(file, r, truthColumns, func(line int, f []string) error {
		fail := func(format string, args ...any) error {
			return &ParseError{file, line, fmt.Sprintf(format, args...)}
		}
		ln := LabelledName{ID: f[0], Name: f[1], Line: line}
		if ln.ID == "" {
			return fail("empty id")
		}
		if prev, ok := seen[ln.ID]; ok {
			return fail("id %s listed twice (first on line %d)", ln.ID, prev)
		}
		seen[ln.ID] = line
		for k, dst := range []*int{&ln.Persons, &ln.Papers, &ln.Foreign, &ln.Degree} {
			v, err := strconv.Atoi(f[2+k])
			if err != nil || v < 0 {
				return fail("%s %q: want a count (an integer >= 0)", truthColumns[2+k], f[2+k])
			}
			*dst = v
		}
		if ln.Persons < 1 {
			return fail("persons %d: a labelled name has at least one person", ln.Persons)
		}
		for _, lab := range strings.Split(f[6], ",") {
			person, papers, ok := strings.Cut(lab, ":")
			n, err := strconv.Atoi(papers)
			if !ok || person == "" || err != nil || n < 1 {
				return fail("labels %q: want person:papers,... (papers an integer >= 1)", short(f[6]))
			}
			ln.Labels = append(ln.Labels, PersonCount{person, n})
		}
		if len(ln.Labels) != ln.Persons {
			return fail("persons %d but %d labels (%s)", ln.Persons, len(ln.Labels), short(f[6]))
		}
		out = append(out, ln)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, &ParseError{File: file, Msg: "no labelled names"}
	}
	return out, nil
}

func readNeighboursFile(path string, truth []LabelledName, g *graph.Graph) (map[string][]LabelledNeighbour, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readNeighbours(path, f, truth, g)
}

// readNeighbours parses a neighbours file (neighbourColumns): every id must
// be a labelled name of truth, and every neighbour a neighbour of it in g.
func readNeighbours(file string, r io.Reader, truth []LabelledName, g *graph.Graph) (map[string][]LabelledNeighbour, error) {
	labelled := make(map[string]bool, len(truth))
	for _, ln := range truth {
		labelled[ln.ID] = true
	}
	out := map[string][]LabelledNeighbour{}
	seen := map[[2]string]int{}
	err := tsvLines(file, r, neighbourColumns, func(line int, f []string) error {
		fail := func(format string, args ...any) error {
			return &ParseError{file, line, fmt.Sprintf(format, args...)}
		}
		id, nb := f[0], f[1]
		if !labelled[id] {
			return fail("name %s is not in the truth file", id)
		}
		i, ok := g.Index(id)
		if !ok {
			return fail("name %s is not a node of the graph", id)
		}
		j, ok := g.Index(nb)
		if !ok || !g.HasEdge(i, j) {
			return fail("%s is not a neighbour of %s in the graph", nb, id)
		}
		if prev, ok := seen[[2]string{id, nb}]; ok {
			return fail("neighbour %s of %s listed twice (first on line %d)", nb, id, prev)
		}
		seen[[2]string{id, nb}] = line
		var persons []string
		if f[2] != "" {
			persons = strings.Split(f[2], ",")
			if slices.Contains(persons, "") {
				return fail("labels %q: want person,person,... or nothing", short(f[2]))
			}
		}
		out[id] = append(out[id], LabelledNeighbour{nb, persons})
		return nil
	})
	return out, err
}

// truthPrefix returns the prefix of the labelled names' ids up to and
// including the first ':' when they all share one ("a:" for a:41, a:50,
// ...), else "".
func truthPrefix(truth []LabelledName) string {
	prefix := ""
	for k, ln := range truth {
		c := strings.IndexByte(ln.ID, ':')
		if c < 0 {
			return ""
		}
		if k == 0 {
			prefix = ln.ID[:c+1]
		} else if ln.ID[:c+1] != prefix {
			return ""
		}
	}
	return prefix
}

// devLists are the committed development halves, one per real set X:
// X.dev.txt in this folder, the ids without the shape's prefix.
//
//go:embed *.dev.txt
var devLists embed.FS

// devHalf returns the development half of a set's labelled names and how
// it was drawn: the committed list X.dev.txt of the set, or of its
// base name (the part before the first '-': the shapes of one set, as
// dblp679 and dblp679-wrote, share the list), when every id it lists is a
// labelled name of the set; else the names whose unprefixed id hashes to an
// even first byte of SHA-256 (about half, the same names in every shape).
func devHalf(set, prefix string, truth []LabelledName) (map[string]bool, string) {
	labelled := map[string]bool{}
	for _, ln := range truth {
		labelled[ln.ID] = true
	}
	candidates := []string{set}
	if base, _, ok := strings.Cut(set, "-"); ok && base != "" {
		candidates = append(candidates, base)
	}
	var note string
	for _, c := range candidates {
		file := c + ".dev.txt"
		ids, err := readDevList(devLists, file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			note = fmt.Sprintf(" (bench/real/%s: %v)", file, err)
			continue
		}
		dev := map[string]bool{}
		ok := true
		for _, id := range ids {
			if !labelled[prefix+id] {
				note = fmt.Sprintf(" (bench/real/%s lists %s, not a labelled name of %s)", file, id, set)
				ok = false
				break
			}
			dev[prefix+id] = true
		}
		if ok {
			return dev, fmt.Sprintf("committed list bench/real/%s (%d of the %d labelled names)", file, len(dev), len(truth))
		}
	}
	dev := map[string]bool{}
	for _, ln := range truth {
		if devByHash(strings.TrimPrefix(ln.ID, prefix)) {
			dev[ln.ID] = true
		}
	}
	return dev, fmt.Sprintf("hash: the names whose id without the prefix has an even first byte of SHA-256 (%d of the %d labelled names)%s", len(dev), len(truth), note)
}

// devByHash is the development half of a set without a committed list:
// an id (without the shape's prefix) is in it when the first byte of its
// SHA-256 is even.
func devByHash(id string) bool {
	h := sha256.Sum256([]byte(id))
	return h[0]%2 == 0
}

// readDevList reads a development list: one id per line, '#' comments.
func readDevList(fsys fs.FS, file string) ([]string, error) {
	b, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, err
	}
	var ids []string
	for l := range bytes.Lines(b) {
		s := strings.TrimSpace(string(l))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		ids = append(ids, s)
	}
	if len(ids) == 0 {
		return nil, errors.New("no ids")
	}
	return ids, nil
}

// NodeOf returns the graph index of a labelled name, and whether it is a
// node of the graph with at least one edge.
func (s *Set) NodeOf(id string) (int, bool) {
	i, ok := s.Graph.Index(id)
	return i, ok && s.Graph.Degree(i) > 0
}

// DisplayName returns a labelled name's display name: from X.names, else
// the truth file's name.
func (s *Set) DisplayName(ln *LabelledName) string {
	if s.Names != nil && s.Names.Has(ln.ID) {
		return s.Names.Of(ln.ID)
	}
	return ln.Name
}
