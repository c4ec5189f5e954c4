package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/spf13/cobra"
)

func newScoreCmd(a *app) *cobra.Command {
	var (
		top    int
		format string
		header string
	)
	cmd := &cobra.Command{
		Use:   "score FILE",
		Short: "Score every node of an edge list, most ambiguous first (no server needed)",
		Long: `score reads an undirected edge list ("u v" per line, whitespace or comma
separated, '#' and '%' comments, optional header, optional numeric weight which
is ignored) and prints one line per node, most ambiguous first:

    node <TAB> ambiguity <TAB> degree <TAB> score

The graph's estimated peak memory (see "estimate") is checked against
max_memory once the file is read; a graph that would not fit is refused.

ambiguity is the node's percentile among all scored nodes (0..1, 1 = most
ambiguous); score is the method's raw value (for FONDUE, the best Rayleigh
quotient). Isolated nodes cannot be scored; they are counted on stderr.
Use "-" as FILE to read standard input.`,
		Example: `  fondue-neo4j score testdata/lesmis.edges --top 10
  fondue-neo4j score graph.csv --format json --split --top 20
  fondue-neo4j score graph.csv --split=mcl --top 20`,
		Args: func(cmd *cobra.Command, args []string) error {
			// --split takes its value after "=": "--split mcl" leaves "mcl"
			// as a second argument. Say so instead of a generic error.
			if f := cmd.Flags().Lookup("split"); len(args) == 2 && f.Changed &&
				f.Value.String() == f.NoOptDefVal && slices.Contains(fondue.Splitters, args[1]) {
				return usageErrorf("--split %s: write --split=%s (--split alone means the default splitter, %s)", args[1], args[1], fondue.DefaultSplitter)
			}
			return exactArgs(1, "one edge-list file")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if top < 0 {
				return usageErrorf("--top %d: must be 0 (all) or more", top)
			}
			if format != "tsv" && format != "json" {
				return usageErrorf("--format %q: want tsv or json", format)
			}
			hm, err := parseHeaderMode(header)
			if err != nil {
				return err
			}
			opts, err := a.scoreOptions()
			if err != nil {
				return err
			}
			t0 := time.Now()
			g, err := a.readGraph(args[0], hm)
			if err != nil {
				return err
			}
			loadTime := time.Since(t0)
			est := fondue.EstimateMemory(int64(g.NumNodes()), int64(g.NumEdges()), fondue.EstimateOptions{
				Dim: opts.CNE.Dim, Workers: opts.Workers, StringKeys: !g.IntKeys(), FromFile: true,
				KeepState: a.v.GetString("embedding.checkpoint") != "", ExactMaxNode: opts.CNE.ExactMaxNodes})
			if err := a.checkMemory(est); err != nil {
				return err
			}
			if opts.Split.Method != "" {
				if opts.Split.Top == 0 {
					opts.Split.Top = top
				}
				if opts.Split.Top == 0 {
					opts.Split.Top = g.NumNodes()
				}
			}
			ckPath := a.v.GetString("embedding.checkpoint")
			if err := a.loadCheckpoint(ckPath, &opts); err != nil {
				return err
			}
			pr := newProgress(a)
			opts.Progress = pr.report
			a.log.Debug("scoring", "file", args[0], "nodes", g.NumNodes(), "edges", g.NumEdges(), "options", describeOptions(opts))
			res, err := fondue.Score(cmd.Context(), g, opts)
			pr.finish()
			if err != nil {
				return err
			}
			if err := a.saveCheckpoint(ckPath, g, res, opts); err != nil {
				return err
			}
			if iso := res.Unscored(); len(iso) > 0 {
				a.log.Warn("isolated nodes have no score", "count", len(iso), "first", g.Key(iso[0]))
			}
			a.logSummary(g, res, loadTime)
			w := bufio.NewWriter(a.stdout)
			if format == "json" {
				err = writeScoresJSON(w, g, res, top)
			} else {
				err = writeScoresTSV(w, g, res, top)
			}
			if err == nil {
				err = w.Flush()
			}
			return err
		},
	}
	f := cmd.Flags()
	f.IntVar(&top, "top", 0, "print only the K most ambiguous nodes (0: all)")
	f.StringVar(&format, "format", "tsv", "output format: tsv or json")
	f.StringVar(&header, "header", "auto", "whether the file's first line is a header: auto, yes or no")
	addScoreFlags(f)
	f.String("split", "", "also propose a split for each printed node; --split alone uses the default splitter "+
		fondue.DefaultSplitter+", --split=NAME picks one of "+strings.Join(fondue.Splitters, ", "))
	f.Lookup("split").NoOptDefVal = fondue.DefaultSplitter
	f.Int("split-top", 0, "propose splits for the K most ambiguous nodes (default: the printed ones)")
	return cmd
}

// addScoreFlags adds the engine's flags, shared by score and sync.
func addScoreFlags(f flagSet) {
	f.Uint64("seed", 1, "random seed: same input, config and seed give the same scores")
	f.Int("threads", 0, "worker goroutines (0: all cores); does not change results")
	f.String("method", fondue.DefaultMethod, "scoring method: "+strings.Join(fondue.Methods, ", "))
	f.Int("random-splits", 100, "random sign vectors tried per node besides the eigenvector sweep")
	f.Bool("unnormalized", false, "do not divide the Rayleigh quotient by the degree")
	f.Bool("polish", false, "improve each node's best sign vector by single flips (not in the paper)")
	f.Int("dim", 8, "embedding dimension")
	f.Float64("sigma1", 1, "CNE spread of distances between linked nodes")
	f.Float64("sigma2", 2, "CNE spread of distances between unlinked nodes (> sigma1)")
	f.Int("epochs", 2000, "maximum CNE epochs (training stops earlier when converged)")
	f.Float64("lr", 0.1, "Adam learning rate")
	f.Int("neg-ratio", 5, "negative samples per edge in sampled mode")
	f.String("mode", "auto", "CNE objective: exact (all pairs), sampled, or auto (exact up to 1000 nodes)")
	f.Float64("tol", 1e-2, "CNE convergence tolerance (relative change of the smoothed gradient norm)")
	f.String("checkpoint", "", "warm-start from this embedding file if it exists, and save the new embedding to it")
}

type flagSet interface {
	Uint64(name string, value uint64, usage string) *uint64
	Int(name string, value int, usage string) *int
	String(name string, value string, usage string) *string
	Bool(name string, value bool, usage string) *bool
	Float64(name string, value float64, usage string) *float64
}

func parseHeaderMode(s string) (fondue.HeaderMode, error) {
	switch strings.ToLower(s) {
	case "auto":
		return fondue.HeaderAuto, nil
	case "yes", "true", "first":
		return fondue.HeaderFirst, nil
	case "no", "false", "none":
		return fondue.HeaderNone, nil
	}
	return 0, usageErrorf("--header %q: want auto, yes or no", s)
}

// loadCheckpoint prepares a warm start from path; a missing file means a
// cold start (the first scheduled run), anything unreadable is an error.
// An empty path does nothing.
func (a *app) loadCheckpoint(path string, opts *fondue.Options) error {
	if path == "" || !fondue.MethodUsesEmbedding(opts.Method) {
		return nil
	}
	opts.KeepState = true
	ck, err := fondue.ReadCheckpointFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		a.log.Info("no checkpoint yet: cold start", "file", path)
		return nil
	case err != nil:
		return usageErrorf("checkpoint: %v (delete it for a cold start)", err)
	case ck.Dim != opts.CNE.Dim:
		a.log.Warn("checkpoint has another dimension: cold start", "file", path, "checkpoint_dim", ck.Dim, "dim", opts.CNE.Dim)
		return nil
	}
	if ck.Sigma1 != opts.CNE.Sigma1 || ck.Sigma2 != opts.CNE.Sigma2 {
		a.log.Warn("checkpoint was fitted with other sigmas; using it as a starting point anyway", "file", path)
	}
	opts.WarmStart = ck
	return nil
}

// saveCheckpoint saves the run's embedding to path for the next warm start
// (an empty path does nothing) and logs how the warm start went.
func (a *app) saveCheckpoint(path string, g *fondue.Graph, res *fondue.Result, opts fondue.Options) error {
	if res.Warm != nil {
		a.log.Info("warm start", "reused", res.Warm.Reused, "new", res.Warm.New,
			"dropped", res.Warm.Dropped, "epochs", res.CNE.Epochs)
	}
	if path == "" || res.Embedding == nil {
		return nil
	}
	if err := res.Checkpoint(g, opts).WriteFile(path); err != nil {
		return fmt.Errorf("saving checkpoint %s: %w", path, err)
	}
	a.log.Debug("saved checkpoint", "file", path, "nodes", g.NumNodes())
	return nil
}

// vectorCheckpoint turns embeddings saved in node properties into a
// checkpoint (vectors only: a property cannot hold the optimizer state).
// Vectors of another dimension are ignored; nil when none is usable.
func vectorCheckpoint(g *fondue.Graph, vecs [][]float64, o fondue.CNEOptions) *fondue.Checkpoint {
	ck := &fondue.Checkpoint{Dim: o.Dim, Sigma1: o.Sigma1, Sigma2: o.Sigma2}
	for i, v := range vecs {
		if len(v) == o.Dim {
			ck.Keys = append(ck.Keys, g.Key(i))
			ck.X = append(ck.X, v...)
		}
	}
	if ck.Len() == 0 {
		return nil
	}
	return ck
}

// readGraph reads an edge list; its errors already say file and line.
func (a *app) readGraph(path string, hm fondue.HeaderMode) (*fondue.Graph, error) {
	var (
		g   *fondue.Graph
		st  fondue.EdgeListStats
		err error
	)
	if path == "-" {
		g, st, err = fondue.ReadEdgeList(a.stdin, "<stdin>", hm)
	} else {
		g, st, err = fondue.ReadEdgeListFile(path, hm)
	}
	var pe *fondue.ParseError
	switch {
	case errors.As(err, &pe):
		return nil, withCode(exitUsage, err)
	case errors.Is(err, os.ErrNotExist):
		return nil, usageErrorf("edge list %s: no such file", path)
	case err != nil:
		return nil, withCode(exitUsage, fmt.Errorf("edge list %s: %w", path, err))
	}
	a.log.Debug("read edge list", "file", path, "lines", st.Lines, "edges", st.Edges, "header", st.Header,
		"self_loops", g.SelfLoops(), "duplicates", g.Duplicates())
	if st.Weighted {
		a.log.Info("edge weights are ignored: FONDUE works on the unweighted graph", "file", path)
	}
	return g, nil
}

func (a *app) logSummary(g *fondue.Graph, res *fondue.Result, load time.Duration) {
	t := res.Timings
	attrs := []any{"nodes", g.NumNodes(), "edges", g.NumEdges(), "method", res.Method,
		"load_s", round3(load.Seconds()), "scoring_s", round3(t.Scoring.Seconds())}
	if res.Embedding != nil {
		attrs = append(attrs, "prior_s", round3(t.Prior.Seconds()), "embedding_s", round3(t.Embedding.Seconds()),
			"epochs", res.CNE.Epochs, "converged", res.CNE.Converged, "cne_mode", res.CNE.Mode.String())
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

// proposalsByNode indexes split proposals by node.
func proposalsByNode(res *fondue.Result) map[int]*fondue.Proposal {
	m := make(map[int]*fondue.Proposal, len(res.Proposals))
	for k := range res.Proposals {
		m[res.Proposals[k].Node] = &res.Proposals[k]
	}
	return m
}

func limit(ranking []int, top int) []int {
	if top > 0 && top < len(ranking) {
		return ranking[:top]
	}
	return ranking
}

func writeScoresTSV(w io.Writer, g *fondue.Graph, res *fondue.Result, top int) error {
	props := proposalsByNode(res)
	for _, i := range limit(res.Ranking(), top) {
		line := g.Key(i) + "\t" + formatFloat(res.Ambiguity[i]) + "\t" + strconv.Itoa(g.Degree(i)) +
			"\t" + formatFloat(res.Scores[i])
		if p, ok := props[i]; ok {
			line += "\t" + formatGroups(g, p.Groups)
		}
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// formatGroups writes groups of neighbour keys as "a,b|c,d".
func formatGroups(g *fondue.Graph, groups [][]int32) string {
	var sb strings.Builder
	for k, grp := range groups {
		if k > 0 {
			sb.WriteByte('|')
		}
		for l, j := range grp {
			if l > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(g.Key(int(j)))
		}
	}
	return sb.String()
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }

// nodeJSON is one node in --format json; node ids stay numbers when the
// input's ids are integers.
type nodeJSON struct {
	Node      any     `json:"node"`
	Ambiguity float64 `json:"ambiguity"`
	Degree    int     `json:"degree"`
	Score     float64 `json:"score"`
	Split     [][]any `json:"split,omitempty"`
}

func nodeKey(g *fondue.Graph, i int) any {
	if k, ok := g.IntKey(i); ok {
		return k
	}
	return g.Key(i)
}

func writeScoresJSON(w io.Writer, g *fondue.Graph, res *fondue.Result, top int) error {
	props := proposalsByNode(res)
	ranking := limit(res.Ranking(), top)
	out := make([]nodeJSON, 0, len(ranking))
	for _, i := range ranking {
		nj := nodeJSON{Node: nodeKey(g, i), Ambiguity: res.Ambiguity[i], Degree: g.Degree(i), Score: res.Scores[i]}
		if p, ok := props[i]; ok {
			for _, grp := range p.Groups {
				keys := make([]any, len(grp))
				for k, j := range grp {
					keys[k] = nodeKey(g, int(j))
				}
				nj.Split = append(nj.Split, keys)
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
