// Package scale benchmarks fondue-neo4j at growing graph sizes: for each
// case it runs the real `fondue-neo4j score` command in a child process on a
// generated graph with planted ambiguous nodes, and records wall time per
// phase, CNE epochs, peak resident memory and the AUC of the planted nodes.
// Child processes make the memory figure honest: peak RSS is per process.
package scale

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/bench/generate"
	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
)

// Case is one graph to benchmark: a generated SBM graph, or an edge-list file.
type Case struct {
	Name      string
	Nodes     int     // SBM size (ignored with File)
	AvgDegree float64 // SBM average degree
	File      string  // an existing edge list instead of a generated graph
	// Neo4j makes it a live case (neo4j:sbm:...): the graph is imported
	// into each test server and synced (see LiveConfig).
	Neo4j bool
	// KG makes the SBM a knowledge graph (kg:NODES:DEGREE, see kg.go):
	// the block model's nodes are the scored authors, its links papers,
	// with venues, hub keywords and a year as context; score reads it as
	// Neo4j import files.
	KG bool
	// Flat makes the SBM a block model without hubs (flat:NODES:DEGREE):
	// the same communities, mixing and planting, but every node of the
	// same weight (generate.SBMOptions.DegreeRange 1, the narrowest the
	// generator accepts), so degrees are Poisson around DEGREE.
	Flat bool
}

// sbmOptions are the generator's options for a generated case.
func (c Case) sbmOptions(seed uint64) generate.SBMOptions {
	o := generate.SBMOptions{Nodes: c.Nodes, AvgDegree: c.AvgDegree, Seed: seed}
	if c.Flat {
		o.DegreeRange = 1
	}
	return o
}

// ParseCase reads "sbm:NODES:DEGREE", "flat:NODES:DEGREE" (the block
// model without hubs), "kg:NODES:DEGREE" or "file:PATH" (name = base
// name), or any of them after "neo4j:" for a live case.
func ParseCase(s string) (Case, error) {
	if rest, ok := strings.CutPrefix(s, "neo4j:"); ok {
		c, err := ParseCase(rest)
		if err != nil || c.Neo4j {
			return Case{}, fmt.Errorf("case %q: want neo4j:sbm:NODES:DEGREE, neo4j:flat:NODES:DEGREE, neo4j:kg:NODES:DEGREE or neo4j:file:PATH", s)
		}
		c.Name, c.Neo4j = "neo4j-"+c.Name, true
		return c, nil
	}
	switch {
	case strings.HasPrefix(s, "sbm:"):
		f := strings.Split(s, ":")
		if len(f) != 3 {
			return Case{}, fmt.Errorf("case %q: want sbm:NODES:DEGREE", s)
		}
		n, err1 := strconv.Atoi(strings.ReplaceAll(f[1], "_", ""))
		d, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || n < 100 || d <= 0 {
			return Case{}, fmt.Errorf("case %q: want sbm:NODES:DEGREE with NODES >= 100 and DEGREE > 0", s)
		}
		return Case{Name: fmt.Sprintf("sbm-%s-d%g", humanCount(n), d), Nodes: n, AvgDegree: d}, nil
	case strings.HasPrefix(s, "kg:"), strings.HasPrefix(s, "flat:"):
		kind, rest, _ := strings.Cut(s, ":")
		c, err := ParseCase("sbm:" + rest)
		if err != nil {
			return Case{}, fmt.Errorf("case %q: want %s:NODES:DEGREE with NODES >= 100 and DEGREE > 0", s, kind)
		}
		c.Name = kind + strings.TrimPrefix(c.Name, "sbm")
		c.KG, c.Flat = kind == "kg", kind == "flat"
		return c, nil
	case strings.HasPrefix(s, "file:"):
		p := strings.TrimPrefix(s, "file:")
		return Case{Name: strings.TrimSuffix(filepath.Base(p), ".edges"), File: p}, nil
	}
	return Case{}, fmt.Errorf("case %q: want sbm:NODES:DEGREE, flat:NODES:DEGREE, kg:NODES:DEGREE, file:PATH, or one of them after neo4j:", s)
}

// Resolve finds a file case's edge list: the path as given if it exists,
// else, for a bare file name such as "condmat05.edges", the file of that
// name in the datasets folder dataDir returns (bench's --data-dir,
// $BENCH_DATASETS, ../shared/datasets). Generated cases need nothing.
func (c *Case) Resolve(dataDir func() (string, error)) error {
	if c.File == "" {
		return nil
	}
	if _, err := os.Stat(c.File); err == nil {
		return nil
	}
	if filepath.Base(c.File) != c.File {
		return fmt.Errorf("case file:%s: no such file", c.File)
	}
	dir, err := dataDir()
	if err != nil {
		return fmt.Errorf("case file:%s: not in the working folder, and %w", c.File, err)
	}
	p := filepath.Join(dir, c.File)
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("case file:%s: neither in the working folder nor in the datasets folder %s", c.File, dir)
	}
	c.File = p
	return nil
}

func humanCount(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// Config says what to run.
type Config struct {
	Cases    []Case
	Ratio    float64 // fraction of nodes merged into planted ambiguous pairs (default 0.01)
	Seed     uint64
	Repeats  int    // runs per case and binary; medians are reported (default 1)
	CacheDir string // generated graphs are kept here between runs
	Binary   string // the fondue-neo4j binary to run (required)
	// Baseline, when set, is a second fondue-neo4j binary (e.g. an older
	// version) run on the same inputs, for speed ratios.
	Baseline string
	// DoubleEpochs also runs each case with twice the epochs the normal run
	// took and no early stop, to check that stopping early costs no AUC.
	DoubleEpochs bool
	Threads      int
	Log          io.Writer // progress lines; nil for none
	// ExtraArgs are passed to every score run.
	ExtraArgs []string
	// SplitTop, when above 0, adds to each score case (not live) a run of
	// each binary with --split --split-top SplitTop beside its plain
	// run, for what splitting the top costs (SplitRun).
	SplitTop int
	// Reuse holds runs of earlier results (ReadRuns): a case and binary
	// found there is reported from them instead of being run again, for
	// cases too slow to repeat (10M nodes take an hour). The report says
	// which.
	Reuse []Run
	// Live configures the live cases (neo4j:...). ReuseLive, ReuseServers
	// and ReuseFaults are earlier results of live cases: a case and server
	// found in ReuseServers is reported from them instead of being run.
	Live         LiveConfig
	ReuseLive    []LiveRun
	ReuseServers []ServerRun
	ReuseFaults  []FaultRun
}

// The binaries a Run can come from: the one measured, the --baseline one
// run beside it, and runs read from an earlier results file (--compare).
const (
	BinaryMain     = "main"
	BinaryBaseline = "baseline"
	BinaryPrevious = "previous"
)

// Run is one measured child run.
type Run struct {
	Case         string  `json:"case"`
	Binary       string  `json:"binary"` // BinaryMain, BinaryBaseline or BinaryPrevious
	Repeat       int     `json:"repeat"`
	DoubleEpochs bool    `json:"double_epochs"`
	Nodes        int     `json:"nodes"`
	Edges        int     `json:"edges"`
	MaxDegree    int     `json:"max_degree,omitempty"`
	Ambiguous    int     `json:"ambiguous"`
	WallS        float64 `json:"wall_s"`
	LoadS        float64 `json:"load_s"`
	PriorS       float64 `json:"prior_s"`
	EmbeddingS   float64 `json:"embedding_s"`
	ScoringS     float64 `json:"scoring_s"`
	Epochs       int     `json:"epochs"`
	// PeakRSSMB is the child's own peak (VmHWM), as its summary logs it;
	// binaries that do not log it are measured by wait's maxrss, which
	// Linux starts at this program's resident memory when the child starts
	// (see sysmem.PeakRSS): an upper bound, and for small graphs a floor.
	PeakRSSMB      float64 `json:"peak_rss_mb"`
	PeakFromRusage bool    `json:"peak_from_rusage"` // absent in files older than the field: all were
	Reused         bool    `json:"reused,omitempty"` // taken from earlier results (Config.Reuse)
	EstimateMB     float64 `json:"estimate_mb"`      // fondue.EstimateMemory's prediction of the peak
	CPUS           float64 `json:"cpu_s"`
	AUC            float64 `json:"auc"`
	// Top is the head of the ranking against the planted nodes: precision
	// at 20, 100 and 1%, the random baseline, the head's mean degree
	// against the planted nodes'.
	Top metrics.Top `json:"top"`
}

// prepared is a case's input on disk.
type prepared struct {
	edges, labels   string
	kgNodes, kgRels string // a KG case's import files (edges unused)
	nodes, edgesN   int
	ambiguous       map[string]bool
}

// Execute runs every case and returns the measurements.
func Execute(ctx context.Context, cfg Config) (*Results, error) {
	res := &Results{}
	var err error
	res.Runs, err = execute(ctx, cfg, res)
	return res, err
}

func execute(ctx context.Context, cfg Config, res *Results) ([]Run, error) {
	if cfg.Ratio == 0 {
		cfg.Ratio = 0.01
	}
	if cfg.Repeats <= 0 {
		cfg.Repeats = 1
	}
	if cfg.Binary == "" {
		return nil, errors.New("scale: no fondue-neo4j binary to run (Config.Binary)")
	}
	if err := os.MkdirAll(cfg.CacheDir, 0o755); err != nil {
		return nil, err
	}
	cfg.Live.defaults()
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	var runs []Run
	reused := func(c Case, binary string) []Run {
		var rs []Run
		for _, r := range cfg.Reuse {
			if r.Case == c.Name && r.Binary == binary && !r.DoubleEpochs {
				r.Reused = true
				rs = append(rs, r)
			}
		}
		return rs
	}
	for _, c := range cfg.Cases {
		if c.Neo4j {
			logf("%s: preparing input", c.Name)
			p, err := prepare(c, cfg)
			if err != nil {
				return runs, fmt.Errorf("%s: %w", c.Name, err)
			}
			lres := &Results{}
			err = executeLive(ctx, cfg, c, p, lres, logf)
			runs = append(runs, lres.Runs...)
			res.Live = append(res.Live, lres.Live...)
			res.Servers = append(res.Servers, lres.Servers...)
			res.Faults = append(res.Faults, lres.Faults...)
			res.Nights = append(res.Nights, lres.Nights...)
			if err != nil {
				return runs, err
			}
			continue
		}
		bins := [][2]string{{BinaryMain, cfg.Binary}}
		if cfg.Baseline != "" {
			bins = append(bins, [2]string{BinaryBaseline, cfg.Baseline})
		}
		// Reused runs are reported whether or not this run names a
		// baseline; a binary without any is run.
		have := map[string]bool{}
		for _, b := range []string{BinaryMain, BinaryBaseline} {
			if rs := reused(c, b); len(rs) > 0 {
				logf("%s %s: %d run(s) reused from earlier results", c.Name, b, len(rs))
				if cfg.SplitTop > 0 {
					logf("%s %s: no --split-top run (it is made beside a score run made now)", c.Name, b)
				}
				runs = append(runs, rs...)
				have[b] = true
			}
		}
		var todo [][2]string
		for _, b := range bins {
			if !have[b[0]] {
				todo = append(todo, b)
			}
		}
		if len(todo) == 0 && !cfg.DoubleEpochs {
			continue
		}
		bins = todo
		logf("%s: preparing input", c.Name)
		p, err := prepare(c, cfg)
		if err != nil {
			return runs, fmt.Errorf("%s: %w", c.Name, err)
		}
		if len(p.ambiguous) == 0 {
			logf("%s: no planted ambiguous node (ratio %g of its nodes rounds to no pair): AUC is undefined, reported as n/a", c.Name, cfg.Ratio)
		}
		for rep := 0; rep < cfg.Repeats; rep++ {
			for _, b := range bins {
				r, err := runScore(ctx, cfg, c, p, b, rep, nil)
				if err != nil {
					return runs, fmt.Errorf("%s (%s): %w", c.Name, b[0], err)
				}
				logf("%s %s #%d: %.1fs wall, %d epochs, %.0f MB peak, AUC %.4f", c.Name, b[0], rep+1, r.WallS, r.Epochs, r.PeakRSSMB, r.AUC)
				runs = append(runs, r)
				if cfg.SplitTop > 0 {
					s, err := runSplit(ctx, cfg, c, p, b, rep, r)
					if err != nil {
						return runs, fmt.Errorf("%s (%s, --split-top %d): %w", c.Name, b[0], cfg.SplitTop, err)
					}
					logf("%s %s #%d --split-top %d: %.1fs wall, %.1f CPU s (%+.1f over score), %.0f MB peak; %d split, %d clones, at most %d groups",
						c.Name, b[0], rep+1, s.SplitTop, s.WallS, s.CPUS, s.ExtraCPUS, s.PeakRSSMB, s.SplitNodes, s.Clones, s.MaxGroups)
					res.Splits = append(res.Splits, s)
				}
			}
		}
		if cfg.DoubleEpochs {
			var last Run
			for _, r := range runs {
				if r.Case == c.Name && r.Binary == BinaryMain && !r.DoubleEpochs {
					last = r
				}
			}
			// No early stop of either kind: the gradient-norm test never
			// fires at this tolerance, and the ranking-stability stop is off.
			args := []string{"--epochs", strconv.Itoa(2 * last.Epochs), "--tol", "1e-300", "--stability-stop=false"}
			r, err := runScore(ctx, cfg, c, p, [2]string{BinaryMain, cfg.Binary}, 0, args)
			if err != nil {
				return runs, fmt.Errorf("%s (double epochs): %w", c.Name, err)
			}
			r.DoubleEpochs = true
			logf("%s twice the epochs: %.1fs wall, %d epochs, AUC %.4f", c.Name, r.WallS, r.Epochs, r.AUC)
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// prepare generates (or finds in the cache) the case's contracted graph and
// the keys of its planted ambiguous nodes.
func prepare(c Case, cfg Config) (*prepared, error) {
	// A live case shares its graph with the file case of the same name.
	base := filepath.Join(cfg.CacheDir, fmt.Sprintf("%s-r%g-s%d", strings.TrimPrefix(c.Name, "neo4j-"), cfg.Ratio, cfg.Seed))
	p := &prepared{edges: base + ".edges", labels: base + ".labels"}
	if c.KG {
		p.kgNodes, p.kgRels = base+".nodes.csv", base+".rels.csv"
	}
	if _, err := os.Stat(p.labels); err != nil && c.KG {
		if err := writeKG(c, cfg, p); err != nil {
			return nil, err
		}
		debug.FreeOSMemory()
	} else if err != nil {
		var g *graph.Graph
		if c.File != "" {
			g, _, err = edgelist.ReadFile(c.File, edgelist.HeaderAuto)
		} else {
			g, err = generate.SBM(c.sbmOptions(cfg.Seed))
		}
		if err != nil {
			return nil, err
		}
		ct, err := eval.Contract(g, cfg.Ratio, cfg.Seed)
		if err != nil {
			return nil, err
		}
		if err := writeEdges(p.edges, ct.Graph, c.Name); err != nil {
			return nil, err
		}
		var sb strings.Builder
		for i, amb := range ct.Ambiguous {
			if amb {
				sb.WriteString(ct.Graph.Key(i) + "\n")
			}
		}
		if err := os.WriteFile(p.labels, []byte(sb.String()), 0o644); err != nil {
			return nil, err
		}
		// Generating 10M nodes takes about 10 GB: hand it back to the OS
		// now, so that it does not sit beside the measured child.
		debug.FreeOSMemory()
	}
	lb, err := os.ReadFile(p.labels)
	if err != nil {
		return nil, err
	}
	p.ambiguous = map[string]bool{}
	for _, k := range strings.Fields(string(lb)) {
		p.ambiguous[k] = true
	}
	return p, nil
}

func writeEdges(path string, g *graph.Graph, name string) error {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, "# %s: %d nodes, %d edges (generated for fondue-bench scale)\n", name, g.NumNodes(), g.NumEdges())
	buf := make([]byte, 0, 64)
	for i := 0; i < g.NumNodes(); i++ {
		for _, j := range g.Neighbors(i) {
			if int(j) > i {
				buf = append(buf[:0], g.Key(i)...)
				buf = append(buf, ' ')
				buf = append(buf, g.Key(int(j))...)
				buf = append(buf, '\n')
				w.Write(buf)
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// runScore runs one `score` child and measures it.
func runScore(ctx context.Context, cfg Config, c Case, p *prepared, bin [2]string, rep int, extra []string) (Run, error) {
	r, _, err := scoreChild(ctx, cfg, c, p, bin, rep, extra, false, nil)
	return r, err
}

// runScoreOut is runScore with --output json among extra: the output is
// kept whole (and parsed once the child has exited, so that parsing does
// not compete with it) and returned.
func runScoreOut(ctx context.Context, cfg Config, c Case, p *prepared, bin [2]string, rep int, extra []string) (Run, []byte, error) {
	return scoreChild(ctx, cfg, c, p, bin, rep, extra, true, nil)
}

// SplitRun is one `score --split --split-top K` run of a score case, set
// beside the same binary's plain score run of the same repeat: the
// difference in CPU is what the split costs.
type SplitRun struct {
	Case           string  `json:"case"`
	Binary         string  `json:"binary"` // BinaryMain or BinaryBaseline
	Repeat         int     `json:"repeat"`
	SplitTop       int     `json:"split_top"`
	WallS          float64 `json:"wall_s"`
	CPUS           float64 `json:"cpu_s"` // user + system
	PeakRSSMB      float64 `json:"peak_rss_mb"`
	PeakFromRusage bool    `json:"peak_from_rusage"`
	ScoreCPUS      float64 `json:"score_cpu_s"` // the plain score run's
	ExtraCPUS      float64 `json:"extra_cpu_s"` // CPUS - ScoreCPUS: the split's own cost
	SplitCounts
}

// SplitCounts describe the splits of score's output: the nodes split
// (two groups or more), the clones (groups beyond each node's first), the
// most groups of one node, and the mean degree of the nodes split.
type SplitCounts struct {
	SplitNodes  int     `json:"split_nodes"`
	Clones      int     `json:"clones"`
	MaxGroups   int     `json:"max_groups"`
	SplitDegree float64 `json:"split_degree"`
}

// runSplit runs score with --split --split-top cfg.SplitTop, output as
// the plain run's (TSV, so that the two differ by the split alone), and
// sets it beside plain.
func runSplit(ctx context.Context, cfg Config, c Case, p *prepared, bin [2]string, rep int, plain Run) (SplitRun, error) {
	var sc SplitCounts
	r, _, err := scoreChild(ctx, cfg, c, p, bin, rep, []string{"--split", "--split-top", strconv.Itoa(cfg.SplitTop)}, false, &sc)
	if err != nil {
		return SplitRun{}, err
	}
	return SplitRun{Case: c.Name, Binary: bin[0], Repeat: rep, SplitTop: cfg.SplitTop, WallS: r.WallS, CPUS: r.CPUS,
		PeakRSSMB: r.PeakRSSMB, PeakFromRusage: r.PeakFromRusage, ScoreCPUS: plain.CPUS, ExtraCPUS: r.CPUS - plain.CPUS,
		SplitCounts: sc}, nil
}

// scoreChild runs score; with sc, the TSV output's split column is
// counted into it.
func scoreChild(ctx context.Context, cfg Config, c Case, p *prepared, bin [2]string, rep int, extra []string, jsonOut bool, sc *SplitCounts) (Run, []byte, error) {
	r := Run{Case: c.Name, Binary: bin[0], Repeat: rep, Ambiguous: len(p.ambiguous)}
	// An empty config file keeps a stray fondue.yaml out of the measurement.
	empty := filepath.Join(cfg.CacheDir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		return r, nil, err
	}
	args := []string{"score", p.edges}
	if c.KG {
		args = []string{"score", "--nodes", p.kgNodes, "--relationships", p.kgRels, "--score-labels", "Author",
			"--evidence-properties", "year"}
	}
	args = append(args, "--config", empty, "--seed", strconv.FormatUint(cfg.Seed, 10),
		"--log-level", "debug", "--log-format", "json")
	if cfg.Threads > 0 {
		args = append(args, "--threads", strconv.Itoa(cfg.Threads))
	}
	args = append(args, cfg.ExtraArgs...)
	args = append(args, extra...)
	cmd := exec.CommandContext(ctx, bin[1], args...)
	cmd.Env = filterEnv(os.Environ())
	out, err := cmd.StdoutPipe()
	if err != nil {
		return r, nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	// Linux starts the child's maxrss at this process's peak: bring that
	// down to what this process holds now (best effort; see Run.PeakRSSMB).
	_ = sysmem.ResetPeakRSS()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return r, nil, err
	}
	var scores map[string]float64
	var degrees map[string]int
	var raw []byte
	var perr error
	if jsonOut {
		raw, perr = io.ReadAll(out)
	} else {
		col := 1
		if c.KG { // import files give names: node, name, ambiguity, ...
			col = 2
		}
		scores, degrees, perr = readScores(out, col, sc)
	}
	werr := cmd.Wait()
	r.WallS = time.Since(start).Seconds()
	if werr != nil {
		return r, nil, fmt.Errorf("%v: %s", werr, lastLine(stderr.String()))
	}
	if perr != nil {
		return r, nil, perr
	}
	if jsonOut {
		ref, err := parseScoreJSON(raw)
		if err != nil {
			return r, nil, err
		}
		scores = make(map[string]float64, len(ref))
		degrees = make(map[string]int, len(ref))
		for k, row := range ref {
			if row.Ambiguity != nil {
				scores[k] = *row.Ambiguity
			}
			if row.Degree != nil {
				degrees[k] = int(*row.Degree)
			}
		}
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakRSSMB = float64(ru.Maxrss) / 1024 // kilobytes on Linux
		r.PeakFromRusage = true                 // unless the child logs its own (parseSummary)
		r.CPUS = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	parseSummary(stderr.String(), &r)
	if r.EstimateMB == 0 {
		// Older binaries do not log the estimate they admitted the run on:
		// make it here from the counts (and the largest degree, if logged).
		est := memory.Predict(int64(r.Nodes), int64(r.Edges), memory.Options{
			Workers: cfg.Threads, FromFile: true, MaxDegree: int64(r.MaxDegree)})
		r.EstimateMB = float64(est.Peak) / (1 << 20)
	}
	labels := make([]bool, 0, len(scores))
	vals := make([]float64, 0, len(scores))
	degs := make([]int, 0, len(scores))
	for k, v := range scores {
		labels = append(labels, p.ambiguous[k])
		vals = append(vals, v)
		degs = append(degs, degrees[k])
	}
	if r.AUC, err = eval.AUC(vals, labels, eval.TiesAverage); err != nil {
		return r, nil, err
	}
	r.Top = metrics.TopOf(vals, labels, degs)
	if r.Nodes == 0 {
		r.Nodes = len(scores)
	}
	return r, raw, nil
}

// filterEnv drops the caller's FONDUE_* settings, so that the children run
// with defaults plus the given flags.
func filterEnv(env []string) []string {
	var out []string
	for _, e := range env {
		if strings.HasPrefix(e, "FONDUE_") {
			continue
		}
		out = append(out, e)
	}
	return out
}

// readScores parses `score` TSV output: node, ambiguity, degree[, score,
// entities, split], or with names node, name, ambiguity, degree, ...: the
// ambiguity is column col, the degree the next. With sc, the split column
// (col+4) is counted into it.
func readScores(r io.Reader, col int, sc *SplitCounts) (map[string]float64, map[string]int, error) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<16), 1<<26)
	m, deg := map[string]float64{}, map[string]int{}
	degSum := 0
	for s.Scan() {
		f := strings.Split(s.Text(), "\t")
		if len(f) < col+2 {
			continue
		}
		v, err := strconv.ParseFloat(f[col], 64)
		d, derr := strconv.Atoi(f[col+1])
		if err != nil || derr != nil {
			return nil, nil, fmt.Errorf("bad score line %q", s.Text())
		}
		m[f[0]], deg[f[0]] = v, d
		if sc != nil && len(f) > col+4 {
			if g := splitGroups(f[col+4]); g >= 2 {
				sc.SplitNodes++
				sc.Clones += g - 1
				sc.MaxGroups = max(sc.MaxGroups, g)
				degSum += d
			}
		}
	}
	if sc != nil && sc.SplitNodes > 0 {
		sc.SplitDegree = float64(degSum) / float64(sc.SplitNodes)
	}
	return m, deg, s.Err()
}

// splitGroups counts the groups of score's split field, "a,b|c,d": '|'
// between groups, a member holding '|' quoted as in CSV, and the whole
// field quoted again (quotes doubled) when it holds a quote.
func splitGroups(f string) int {
	if f == "" {
		return 0
	}
	if len(f) >= 2 && f[0] == '"' && f[len(f)-1] == '"' {
		f = strings.ReplaceAll(f[1:len(f)-1], `""`, `"`)
	}
	n, quoted := 1, false
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case '"':
			quoted = !quoted
		case '|':
			if !quoted {
				n++
			}
		}
	}
	return n
}

// parseSummary reads the phase times from the child's "scored" log line.
func parseSummary(stderr string, r *Run) {
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.Contains(line, `"msg":"scored"`) {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		num := func(k string) float64 {
			v, _ := m[k].(float64)
			return v
		}
		r.Nodes, r.Edges, r.Epochs = int(num("nodes")), int(num("edges")), int(num("epochs"))
		r.MaxDegree, r.EstimateMB = int(num("max_degree")), num("estimate_mb")
		r.LoadS, r.PriorS, r.EmbeddingS, r.ScoringS = num("load_s"), num("prior_s"), num("embedding_s"), num("scoring_s")
		if peak := num("peak_rss_mb"); peak > 0 {
			r.PeakRSSMB, r.PeakFromRusage = peak, false
		}
		if r.LoadS == 0 { // older binaries do not log it
			r.LoadS = math.Max(0, r.WallS-r.PriorS-r.EmbeddingS-r.ScoringS)
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	if s == "" {
		return "(no output)"
	}
	return s
}
