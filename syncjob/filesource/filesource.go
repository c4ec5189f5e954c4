// Package filesource reads the graph to score from files, as a
// syncjob.Source: an edge list (package edgelist) or Neo4j's bulk-import
// CSV files (package neo4jcsv). The score and review commands run the
// sync job's pipeline (syncjob.Score) on it, as sync runs it on Neo4j.
//
// Its errors are syncjob's kinds: a bad file or option wraps
// syncjob.ErrInvalid (its message says file:line: what is wrong),
// nothing to score syncjob.ErrEmpty.
package filesource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/neo4jcsv"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// Source reads an edge list (EdgeList) or the import files (Nodes and
// Relationships). Of syncjob.PullOptions, WriteNodeLabels choose the
// import files' nodes to score (the others are context) and
// EvidenceProperties their evidence; an edge list's targets are Select's.
// The options that query Neo4j are refused; ReadBack is ignored (a file
// holds no scores written).
type Source struct {
	// EdgeList is the edge list's path, "-" for Stdin.
	EdgeList string
	Stdin    io.Reader
	Header   edgelist.HeaderMode
	// Nodes and Relationships are the import files, instead of an edge list.
	Nodes, Relationships []string
	// Select chooses the edge list's nodes to score (ReadSelection).
	Select Selection
	// Progress, when set, receives the bytes of the edge list read so far
	// and its size (0: unknown), every MiB, and once more at its end with
	// done == total when it was called before.
	Progress func(done, total int)
	// Log receives what the read found (default: nothing).
	Log *slog.Logger
}

var _ syncjob.FileSource = (*Source)(nil)

// FromFile says that the graph is read from a file (syncjob.FileSource).
func (s *Source) FromFile() bool { return true }

// KG reports whether s reads import files rather than an edge list.
func (s *Source) KG() bool { return len(s.Nodes) > 0 || len(s.Relationships) > 0 }

// Pull reads the graph (syncjob.Source). A graph without an edge, or
// whose chosen nodes have none, wraps syncjob.ErrEmpty.
func (s *Source) Pull(ctx context.Context, o syncjob.PullOptions) (*syncjob.Subgraph, error) {
	for _, x := range []struct {
		field string
		set   bool
	}{{"PullOptions.NodeQuery", o.Custom()}, {"PullOptions.NodeLabels", len(o.NodeLabels) > 0},
		{"PullOptions.RelationshipTypes", len(o.RelationshipTypes) > 0}, {"PullOptions.IDProperty", o.IDProperty != ""},
		{"PullOptions.EmbeddingProperty", o.EmbeddingProperty != ""}} {
		if x.set {
			return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "%s chooses what to read from Neo4j: files are read whole", x.field)
		}
	}
	if s.KG() {
		return s.pullKG(ctx, o)
	}
	if len(o.WriteNodeLabels) > 0 || len(o.EvidenceProperties) > 0 {
		return nil, syncjob.Errorf(syncjob.ErrInvalid, nil, "PullOptions.WriteNodeLabels and PullOptions.EvidenceProperties need the import files: an edge list has no labels or properties")
	}
	g, err := s.ReadEdgeList()
	if err != nil {
		return nil, err
	}
	if g.NumEdges() == 0 {
		return nil, empty("edge list %s: nothing to score: its %d edge lines are all self-loops (dropped)", s.EdgeList, g.SelfLoops())
	}
	t, err := s.Select.Targets(g)
	if err != nil {
		return nil, err
	}
	return &syncjob.Subgraph{Graph: g, Targets: t, Options: o}, nil
}

// pullKG reads the import files: the nodes with a WriteNodeLabels label
// are the targets, the labels and EvidenceProperties the context, the
// nodes' name or title property their Names.
func (s *Source) pullKG(ctx context.Context, o syncjob.PullOptions) (*syncjob.Subgraph, error) {
	kg, err := s.ReadKG(ctx, o.WriteNodeLabels, o.EvidenceProperties, "")
	if err != nil {
		return nil, err
	}
	g := kg.Graph
	if g.NumEdges() == 0 {
		return nil, empty("nothing to score: the --nodes and --relationships files hold no relationship between two nodes")
	}
	if kg.Targets != nil {
		if selected, linked := fondue.CountTargets(g, kg.Targets); linked == 0 {
			return nil, empty("nothing to score: none of the %d nodes labelled %s has a relationship",
				selected, strings.Join(o.WriteNodeLabels, " or "))
		}
	}
	return &syncjob.Subgraph{Graph: g, Names: kg.Names, Targets: kg.Targets, Context: kg.Context, Options: o}, nil
}

// ReadKG reads the import files with the nodes to score (scoreLabels),
// the evidence kept and nameProperty's values ("": none).
func (s *Source) ReadKG(ctx context.Context, scoreLabels, evidence []string, nameProperty string) (*neo4jcsv.Graph, error) {
	t0 := time.Now()
	kg, err := neo4jcsv.Read(ctx, neo4jcsv.Options{Nodes: s.Nodes, Relationships: s.Relationships,
		ScoreLabels: scoreLabels, EvidenceProperties: evidence, NameProperty: nameProperty})
	var pe *neo4jcsv.ParseError
	switch {
	case errors.As(err, &pe):
		return nil, invalid(err)
	case err != nil:
		return nil, err
	}
	g := kg.Graph
	s.log().Debug("read import files", "nodes", g.NumNodes(), "edges", g.NumEdges(), "self_loops", g.SelfLoops(),
		"duplicates", g.Duplicates(), "kinds", strings.Join(kg.Context.Kinds, ","), "seconds", round3(time.Since(t0).Seconds()))
	return kg, nil
}

// ReadEdgeList reads the edge list; its errors say file and line.
func (s *Source) ReadEdgeList() (*graph.Graph, error) {
	var (
		g   *graph.Graph
		st  edgelist.Stats
		err error
	)
	path := s.EdgeList
	if path == "-" {
		g, st, err = edgelist.Read(&counter{r: s.Stdin, report: s.Progress}, "<stdin>", s.Header)
	} else {
		if isFolder(path) {
			return nil, invalidf("edge list %s: is a folder; give an edge-list file", path)
		}
		var f *os.File
		if f, err = os.Open(path); err == nil {
			size := 0
			if fi, serr := f.Stat(); serr == nil && fi.Mode().IsRegular() {
				size = int(fi.Size())
			}
			g, st, err = edgelist.Read(&counter{r: f, report: s.Progress, total: size}, path, s.Header)
			f.Close()
		}
	}
	var pe *edgelist.ParseError
	switch {
	case errors.Is(err, edgelist.ErrNoEdges):
		return nil, empty("%v: nothing to score", err)
	case errors.As(err, &pe):
		return nil, invalid(err)
	case errors.Is(err, os.ErrNotExist):
		return nil, invalidf("edge list %s: no such file", path)
	case err != nil:
		return nil, invalidf("edge list %s: %v", path, err)
	}
	log := s.log()
	log.Debug("read edge list", "file", path, "format", st.Format.String(), "lines", st.Lines, "edges", st.Edges, "header", st.Header,
		"self_loops", g.SelfLoops(), "duplicates", g.Duplicates())
	if st.Header {
		// A line taken for a header is not an edge: say which, so that a
		// wrong --header yes (or a wrong guess) shows.
		log.Info("took a line for the header: not an edge", "file", path, "line", st.HeaderLine, "text", st.HeaderText)
	}
	if st.Weighted {
		log.Info("edge weights are ignored: FONDUE works on the unweighted graph", "file", path)
	}
	return g, nil
}

func (s *Source) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// counter reports the bytes read through it, every MiB.
type counter struct {
	r        io.Reader
	report   func(done, total int)
	total    int // the file's size; 0 when unknown (standard input)
	done     int
	reported int  // done when last reported
	ended    bool // the end was reached
}

func (c *counter) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.done += n
	switch {
	case c.report == nil || c.ended:
	case err == io.EOF:
		c.ended = true
		if c.reported > 0 {
			c.report(c.done, c.done)
		}
	case c.done-c.reported >= 1<<20:
		c.reported = c.done
		total := c.total
		if c.done >= total {
			total = 0 // the file grew: the size is no longer known
		}
		c.report(c.done, total)
	}
	return n, err
}

// isFolder is whether path names a folder: an input file that is one is
// said so once, rather than in each layer's words of the read that failed.
func isFolder(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

func invalid(err error) error { return syncjob.Errorf(syncjob.ErrInvalid, err, "%s", err.Error()) }

func invalidf(format string, args ...any) error { return invalid(fmt.Errorf(format, args...)) }

func empty(format string, args ...any) error {
	return syncjob.Errorf(syncjob.ErrEmpty, nil, "%s", fmt.Sprintf(format, args...))
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
