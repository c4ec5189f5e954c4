package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/output"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/filesource"
	"github.com/spf13/cobra"
)

func newScoreCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "score FILE",
		Short: "Score every node of an edge list, most ambiguous first (no server needed)",
		Long: `score reads an undirected edge list ("u v" per line, '#' and '%' comments,
optional header, optional numeric weight which is ignored) and prints one line
per node, most ambiguous first:

    node <TAB> ambiguity <TAB> degree <TAB> score <TAB> entities

with the column names on a first line when stdout is a terminal (never when
piped, unless --print-header). --names FILE adds a name column (and names the
neighbours of --split's groups); --split adds each node's proposed split, groups
of neighbours as "a,b|c,d" (--splitter NAME picks the splitter).

The output is TSV as RFC 4180 writes it (with a tab for the comma): a field
holding a tab, a quote or a line break is quoted, its quotes doubled. In the
split column a member holding ',', '|', a quote or a line break is quoted the
same way (Alice|"Smith, J."), so that every field parses back.

The graph's estimated peak memory (see "estimate") is checked against
max_memory once the file is read; a graph that would not fit is refused.

ambiguity is the node's percentile among all scored nodes (0..1, 1 = most
ambiguous); score is the method's raw value (for FONDUE, the best Rayleigh
quotient); entities is the estimated number of real entities behind the
node (1: not ambiguous). Isolated nodes cannot be scored; they are counted on
stderr. Use "-" as FILE to read standard input.

Knowledge graphs: --score-prefix a: scores only the nodes whose id starts with
"a:" (the authors of an a:N -WROTE- p:N edge list), --score-nodes FILE only the
ids it lists (one a line); with both, a node is scored when either selects
it. The other nodes are context: they shape the embedding and the
neighbourhoods but get no line; percentiles, --top and --split are about the
scored nodes.

The files of Neo4j's bulk import instead of an edge list: --nodes FILE and
--relationships FILE (each repeatable; Neo4j 5 header format), --score-labels
Author to score the authors only, --evidence-properties title,year for the
node properties that tell entities apart. Nodes print by their :ID value,
with their name (or title) property as the name column. See
docs/knowledge-graphs.md.

Fields: a .csv file is CSV (RFC 4180: commas, quoted ids may hold spaces,
commas, quotes and line breaks), a .tsv file the same with tabs; other files
are sniffed from their first lines (CSV, TSV, or fields separated by runs of
spaces, tabs and commas). A UTF-8 byte-order mark is ignored.

Exit codes: 0 ok, 1 error, 2 bad usage, configuration or input (a bad
file: file:line: what is wrong), 5 nothing to score (no edges, or none of
the selected nodes has one), 7 not enough
memory, 130 interrupted.`,
		Example: `  fondue-neo4j score testdata/lesmis.edges --names testdata/lesmis.names --split --top 5
  fondue-neo4j score wrote.edges --score-prefix a: --top 20
  fondue-neo4j score --nodes authors.csv --nodes papers.csv --relationships wrote.csv --score-labels Author --split --top 20
  fondue-neo4j score graph.csv --output json --split --top 20
  fondue-neo4j score graph.csv --split --splitter mcl --top 20`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := splitValueAsArg(cmd, args); err != nil {
				return err
			}
			// With --nodes (known once the configuration is read) there is
			// no edge list: RunE checks that there is one or the other.
			if len(args) <= 1 {
				return nil
			}
			return exactArgs(1, "one edge-list file (or --nodes and --relationships files)")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.checkInput(cmd, args, "one edge-list file (or --nodes and --relationships files)"); err != nil {
				return err
			}
			top := a.cfg.Output.Top
			hm, err := parseHeaderMode(a.cfg.Input.Header)
			if err != nil {
				return err
			}
			opts, err := a.scoreOptions()
			if err != nil {
				return err
			}
			if !a.cfg.Split.Enabled {
				opts.Split = fondue.SplitOptions{}
			}
			nm, err := a.readNames(a.cfg.Input.Names)
			if err != nil {
				return err
			}
			sc, err := a.scoreFiles(cmd.Context(), args, hm, opts, top)
			if err != nil {
				return err
			}
			g, res := sc.Subgraph.Graph, sc.Result
			if a.usesKG() {
				nm = kgNames(g, sc.Subgraph.Names, nm)
			} else {
				a.checkNames(nm, g)
			}
			return a.printTable(output.Ranking{Graph: g, Result: res, Top: top, Names: nm})
		},
	}
	cli.AddFlags(cmd, config.CmdScore)
	useSplitFlag(cmd.Flags())
	return cmd
}

// fileSource is the source of score and review: the edge list args[0]
// (its score_nodes file read first) or the import files.
func (a *app) fileSource(args []string, hm edgelist.HeaderMode) (*filesource.Source, error) {
	in := a.cfg.Input
	src := &filesource.Source{Nodes: in.Nodes, Relationships: in.Relationships, Stdin: a.stdin, Header: hm, Log: a.log}
	if src.KG() {
		return src, nil
	}
	sel, err := filesource.ReadSelection(in.ScorePrefix, in.ScoreNodes)
	if err != nil {
		return nil, exitCode(err)
	}
	src.EdgeList, src.Select = args[0], sel
	return src, nil
}

// scoreFiles scores the files of score and review (args, as fileSource
// reads them) with sync's pipeline (syncjob.Score: the state file, the
// memory guard, the warm start), with progress and the summary log. top is
// the number of nodes shown, the default number of split proposals.
func (a *app) scoreFiles(ctx context.Context, args []string, hm edgelist.HeaderMode, opts fondue.Options, top int) (*syncjob.Scoring, error) {
	src, err := a.fileSource(args, hm)
	if err != nil {
		return nil, err
	}
	var est memory.Estimate
	guard, err := a.memoryGuard(&est)
	if err != nil {
		return nil, err
	}
	pr := newProgress(a)
	defer pr.finish()
	src.Progress = loadProgress(pr)
	var pull syncjob.PullOptions
	if src.KG() { // an edge list has neither (checkInput)
		pull.WriteNodeLabels, pull.EvidenceProperties = a.cfg.Input.ScoreLabels, a.cfg.Graph.EvidenceProperties
	}
	e := a.cfg.Engine.Embedding
	ahead := readStateAhead(e.Checkpoint, opts.Method)
	sc, err := syncjob.Score(ctx, src, syncjob.Options{Pull: pull, Score: opts, Split: opts.Split.Splitter != nil,
		// The state file, read and saved as sync does.
		OnlyChanged: e.Checkpoint != "", Full: e.Full,
		TopNodes: -1, Memory: guard, Progress: pr.report,
		Prepare: func(sg *syncjob.Subgraph, o *fondue.Options) error {
			if o.Split.Splitter != nil && o.Split.Top == 0 {
				o.Split.Top = top
				if o.Split.Top == 0 {
					o.Split.Top = sg.Graph.NumNodes()
				}
			}
			if _, err := a.loadCheckpoint(e.Checkpoint, sg.Graph, o, ahead); err != nil {
				return err
			}
			a.log.Debug("scoring", "nodes", sg.Graph.NumNodes(), "edges", sg.Graph.NumEdges(), "options", describeOptions(*o))
			return nil
		},
		Scored: func(sg *syncjob.Subgraph, res *fondue.Result, o fondue.Options, sum *syncjob.Summary) error {
			pr.finish()
			if err := a.saveCheckpoint(e.Checkpoint, sg.Graph, res, o); err != nil {
				return err
			}
			if sum.UnscoredNodes > 0 {
				a.log.Warn("isolated nodes have no score", "count", sum.UnscoredNodes, "first", sg.Graph.Key(res.Unscored(sg.Targets)[0]))
			}
			a.logSummary(sg.Graph, res, time.Duration(sum.PreProcessingMillis)*time.Millisecond, est)
			return nil
		},
	})
	return sc, exitCode(err)
}

// readNames reads a names file ("" : none).
func (a *app) readNames(path string) (names.Names, error) {
	if path == "" {
		return nil, nil
	}
	if isFolder(path) {
		return nil, usageErrorf("names file %s: is a folder; give a file", path)
	}
	nm, err := names.ReadFile(path)
	var ne *names.Error
	switch {
	case errors.As(err, &ne):
		return nil, withCode(exitUsage, err)
	case errors.Is(err, os.ErrNotExist):
		return nil, usageErrorf("names file %s: no such file", path)
	case err != nil:
		return nil, withCode(exitUsage, fmt.Errorf("names file %s: %w", path, err))
	}
	return nm, nil
}

// checkNames warns when the names file names none, or only some, of the
// graph's nodes: ids that do not match are the usual mistake.
func (a *app) checkNames(nm names.Names, g *graph.Graph) {
	if nm == nil {
		return
	}
	missing, first := 0, ""
	for i := range g.NumNodes() {
		if !nm.Has(g.Key(i)) {
			if missing == 0 {
				first = g.Key(i)
			}
			missing++
		}
	}
	if missing > 0 {
		a.log.Warn("nodes without a name are shown by id", "count", missing, "of", g.NumNodes(), "first", first)
	}
}

// checkpointMinShare is how much a checkpoint's nodes and the graph's must
// overlap (shared nodes over the nodes of either) for a warm start without
// --checkpoint-force: less means it was saved for another graph (or the
// ids changed).
const checkpointMinShare = 0.5

func parseHeaderMode(s string) (edgelist.HeaderMode, error) {
	switch strings.ToLower(s) {
	case "auto":
		return edgelist.HeaderAuto, nil
	case "yes", "true", "first":
		return edgelist.HeaderFirst, nil
	case "no", "false", "none":
		return edgelist.HeaderNone, nil
	}
	return 0, usageErrorf("--header %q: want auto, yes or no", s)
}

// stateAhead reads a state file in the background from the start of a
// run, so that the read overlaps the pull (or the files' read).
type stateAhead struct {
	path string
	done chan struct{}
	st   *fondue.State
	err  error
}

// readStateAhead starts reading the state file at path when the run will
// (a path, and a method with an embedding); nil otherwise.
func readStateAhead(path, method string) *stateAhead {
	if path == "" || !score.UsesEmbedding(method) {
		return nil
	}
	r := &stateAhead{path: path, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.st, r.err = fondue.ReadStateFile(path)
	}()
	return r
}

// get returns the state file at path: the one read ahead, or read now.
func (r *stateAhead) get(path string) (*fondue.State, error) {
	if r == nil || r.path != path {
		return fondue.ReadStateFile(path)
	}
	<-r.done
	return r.st, r.err
}

// loadCheckpoint prepares the run from the state file at path
// (embedding.checkpoint): the engine's saved state, from which the run is
// incremental (opts.Since; the engine runs in full, saying why, when it
// does not fit the graph), or, with embedding.full, a warm start only. A
// missing file means a full cold run (the first scheduled run), anything
// unreadable is an error. An empty path does nothing. full says why the
// run is full when it is not left to the engine ("" otherwise).
func (a *app) loadCheckpoint(path string, g *graph.Graph, opts *fondue.Options, ahead *stateAhead) (full string, err error) {
	if path == "" || !score.UsesEmbedding(opts.Method) {
		return "", nil
	}
	if err := checkWritable(path); err != nil {
		return "", withCode(exitUsage, fmt.Errorf("checkpoint %s: %w (checked before fitting, so that the fit is not lost)", path, err))
	}
	st, err := ahead.get(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		a.log.Info("no state file yet: a cold start, in full", "file", path)
		return "no state file yet", nil
	case err != nil:
		var se *fondue.StateError
		if errors.As(err, &se) {
			err = se.Err
		}
		return "", usageErrorf("checkpoint %s: %v (delete it for a cold start)", path, err)
	}
	if !a.cfg.Engine.Embedding.CheckpointForce {
		opts.WarmStartMinShare = checkpointMinShare
	}
	ck := st.Checkpoint
	if !a.cfg.Engine.Embedding.Full && !(opts.WarmStartMinShare > 0 && ck != nil && shareOf(g, ck) < opts.WarmStartMinShare) {
		opts.Since = st // the engine says whether it fits
		return "", nil
	}
	// --full, or a file of another graph: a warm start, which the engine
	// refuses (naming --checkpoint-force) below the share.
	switch {
	case ck == nil:
		return "--full (embedding.full); the state file holds no embedding", nil
	case ck.Dim != opts.CNE.WithDefaults().Dim:
		a.log.Warn("checkpoint has another dimension: cold start", "file", path, "checkpoint_dim", ck.Dim, "dim", opts.CNE.WithDefaults().Dim)
		return "--full (embedding.full); the state file has another dimension", nil
	}
	if ck.Sigma1 != opts.CNE.Sigma1 || ck.Sigma2 != opts.CNE.Sigma2 {
		a.log.Warn("checkpoint was fitted with other sigmas; using it as a starting point anyway", "file", path)
	}
	opts.WarmStart = ck
	return "--full (embedding.full)", nil
}

// shareOf is the share of the nodes of g and ck that both hold (shared
// over the union), as the engine's warm start counts it.
func shareOf(g *graph.Graph, ck *cne.Checkpoint) float64 {
	shared := 0
	for _, k := range ck.Keys {
		if _, ok := g.Index(k); ok {
			shared++
		}
	}
	return float64(shared) / float64(max(g.NumNodes()+ck.Len()-shared, 1))
}

// isFolder is whether path names a folder: an input file that is one is
// said so once, rather than in each layer's words of the read that failed.
func isFolder(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// checkWritable checks that a file can be written at path (by a temporary
// file and a rename, as Checkpoint.WriteFile does): its folder exists and
// takes new files, and path is not a folder.
func checkWritable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return errors.New("is a folder; give a file name")
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("folder %s does not exist", dir)
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	}
	f, err := os.CreateTemp(dir, ".fondue-write-test-*")
	if err != nil {
		return fmt.Errorf("cannot create files in %s: %w", dir, errors.Unwrap(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// saveCheckpoint saves the run's state (fondue.State: embedding, scores'
// terms, fingerprints) to path for the next run (an empty path does
// nothing) and logs how the warm start went. opts are those scored with:
// their Since, the state read from path, lets a night append only what
// changed.
func (a *app) saveCheckpoint(path string, g *graph.Graph, res *fondue.Result, opts fondue.Options) error {
	if res.Warm != nil {
		a.log.Info("warm start", "reused", res.Warm.Reused, "new", res.Warm.New,
			"dropped", res.Warm.Dropped, "share", round3(float64(res.Warm.Reused)/float64(max(g.NumNodes()+res.Warm.Dropped, 1))),
			"epochs", res.CNE.Epochs)
	}
	if path == "" || res.Embedding == nil {
		return nil
	}
	st := res.State(g, opts)
	if st == nil {
		return nil
	}
	// The rows that changed since the state read (opts.Since) are
	// appended to it, or it is written whole.
	t0 := time.Now()
	saved, err := st.WriteFileSince(path, opts.Since)
	if err != nil {
		return fmt.Errorf("saving checkpoint %s: %w", path, err)
	}
	a.log.Debug("saved checkpoint", "file", path, "nodes", g.NumNodes(), "rows_written", saved.Rows,
		"appended", saved.Patch, "bytes", saved.Bytes, "seconds", round3(time.Since(t0).Seconds()))
	return nil
}

// readGraph reads an edge list (filesource), with the load's progress.
func (a *app) readGraph(path string, hm edgelist.HeaderMode) (*graph.Graph, error) {
	pr := newProgress(a)
	defer pr.finish()
	src := &filesource.Source{EdgeList: path, Stdin: a.stdin, Header: hm, Progress: loadProgress(pr), Log: a.log}
	g, err := src.ReadEdgeList()
	return g, exitCode(err)
}

// logSummary logs what a scoring run did and cost, with the memory
// estimate it was admitted on (est) and, where the OS tells, the peak
// resident memory so far, so that the two can be checked against each other.
func (a *app) logSummary(g *graph.Graph, res *fondue.Result, load time.Duration, est memory.Estimate) {
	t := res.Timings
	attrs := []any{"nodes", g.NumNodes(), "edges", g.NumEdges(), "max_degree", g.MaxDegree(), "method", res.Method,
		"load_s", round3(load.Seconds()), "scoring_s", round3(t.Scoring.Seconds()),
		"estimate_mb", round3(float64(est.Peak) / (1 << 20))}
	if peak := sysmem.PeakRSS(); peak > 0 {
		// The peak so far: writing the results, still to come, adds little.
		attrs = append(attrs, "peak_rss_mb", round3(float64(peak)/(1<<20)))
	}
	if res.Embedding != nil {
		attrs = append(attrs, "prior_s", round3(t.Prior.Seconds()), "embedding_s", round3(t.Embedding.Seconds()),
			"epochs", res.CNE.Epochs, "converged", res.CNE.Converged, "cne_mode", res.CNE.Mode.String())
	}
	if len(res.Sure) > 0 {
		attrs = append(attrs, "top", output.SureTexts(res.Sure))
	}
	if res.Proposals != nil {
		attrs = append(attrs, "splitting_s", round3(t.Splitting.Seconds()), "proposals", len(res.Proposals))
	}
	if a.tty {
		a.log.Info("scored", attrs...)
	} else {
		a.log.Debug("scored", attrs...)
	}
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
