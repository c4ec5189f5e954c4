package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench"
	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/bench/real"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The --quick preset: seconds, not minutes.
var (
	quickDatasets = []string{"polbooks", "netscience"}
	quickRatios   = []float64{0.1}
)

const quickSeeds = 3

// benchFlags are the bench command's own flags (the engine's are read
// through the configuration).
type benchFlags struct {
	datasets, methods, splitters []string
	ratios                       string
	seeds, splitSeeds            int
	out, ties, dataDir           string
	quick, fresh, reportOnly     bool
	skipReal                     bool
}

func newBenchCmd(a *app) *cobra.Command {
	var bf benchFlags
	cmd := &cobra.Command{
		Use:   "fondue-bench",
		Short: "Reproduce the FONDUE paper's evaluation: AUC, ARI and runtime tables with plots",
		Long: `fondue-bench runs the evaluation of the FONDUE paper (docs/method.md section 5) on the
paper's datasets found in --data-dir: for each dataset and contraction ratio r,
q = floor(r*n) random node pairs are merged (the planted ambiguous nodes), then

  identification  AUC and NDCG of fondue, degree, cc and nc (--contractions
                  per cell)
  splitting       ARI of every splitter's partition of each planted node's
                  neighbours against their true origin (--split-contractions
                  per cell)
  runtime         wall time per method and phase

and writes to --output-dir: RESULTS.md (the paper's tables, with the paper's number
beside ours in every cell), results.json (every raw number, the configuration
and the seeds), roc-<dataset>.png, auc-bars.png and ari-cells.png.

Then, when the datasets folder has a folder "real", it runs the evaluation on
real ambiguity of "fondue-bench real" (3 seeds; 1 with --quick; --methods and
--splitters apply) into --out/real; --skip-real skips it.

Finished seeds are appended to results.jsonl as they complete; running the same
command again resumes where it stopped (--fresh starts over). The engine options
(--seed, --dim, --sigma2, --epochs, ...) are those of "fondue-neo4j score" and
are read from the same configuration. Progress goes to stderr.

"fondue-bench real" runs the real evaluation alone; "fondue-bench scale"
measures score at growing graph sizes instead.`,
		Example: `  fondue-bench --quick
  fondue-bench --datasets polbooks,grqc --ratios 0.01,0.1 --contractions 5
  fondue-bench --output-dir bench-full   # the whole paper table (about 10 minutes on 2 cores)`,
		Args: cli.ExactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runBench(cmd, &bf) },
	}
	f := cmd.Flags()
	f.StringSliceVar(&bf.datasets, "datasets", nil, "datasets to run, comma-separated (default: all available: "+strings.Join(bench.MustPaper().AvailableDatasets(), ",")+")")
	f.StringVar(&bf.ratios, "ratios", "0.001,0.01,0.1", "contraction ratios r (q = floor(r*n) merged pairs), comma-separated; 1% = 0.01")
	f.IntVar(&bf.seeds, "contractions", 10, "random contractions per cell for identification, seeds 1..N (the paper: 10)")
	f.IntVar(&bf.splitSeeds, "split-contractions", 3, "random contractions per cell for splitting (the paper: 3); seeds 1..N, shared with identification")
	f.StringSliceVar(&bf.methods, "methods", nil, "identification methods (default: "+strings.Join(score.Methods(), ",")+")")
	f.StringSliceVar(&bf.splitters, "splitters", nil, "splitters to evaluate (default: "+strings.Join(setup.SplitterNames(), ",")+"; the first is the default splitter)")
	f.StringVar(&bf.out, "output-dir", "bench-out", "folder of the reports")
	f.BoolVar(&bf.quick, "quick", false, "quick preset: polbooks and netscience, r=0.1, 3 seeds (under a minute)")
	f.BoolVar(&bf.fresh, "fresh", false, "ignore the results of an earlier run in --output-dir instead of resuming it")
	f.BoolVar(&bf.reportOnly, "report-only", false, "run nothing: write the reports from the results already in --output-dir (results.jsonl)")
	f.StringVar(&bf.ties, "ties", "average", "AUC tie convention of the tables: average (the usual AUC) or loss (the paper's baseline columns)")
	f.StringVar(&bf.dataDir, "data-dir", "", "datasets directory (default: $"+setup.DataDirEnv+", else "+setup.DefaultDataDir+")")
	f.BoolVar(&bf.skipReal, "skip-real", false, "do not run the real evaluation (fondue-bench real) after the paper's")
	cli.AddSettingFlags(cmd, nil, engineKeys...)
	return cmd
}

// runBench runs the benchmark the flags describe and writes its reports
// into --output-dir: intermediate ones after each cell, the final ones with the
// plots at the end.
func (a *app) runBench(cmd *cobra.Command, bf *benchFlags) error {
	bf.applyQuick(cmd.Flags())
	paper := bench.MustPaper()
	cfg, err := bf.config(paper)
	if err != nil {
		return err
	}
	if cfg.Engine, err = cli.EngineOptions(a.cfg); err != nil {
		return err
	}
	if cfg.DataDir, err = setup.FindDataDir(bf.dataDir); err != nil {
		return cli.WithCode(cli.ExitUsage, err)
	}
	out := bf.out
	if err := os.MkdirAll(out, 0o755); err != nil {
		return cli.WithCode(cli.ExitUsage, fmt.Errorf("--output-dir %s: %w", out, err))
	}
	cfg.Journal = filepath.Join(out, "results.jsonl")
	command := commandLine(cmd)
	pr := newBenchProgress(a)
	cfg.Progress = pr.event
	rep := &bench.Report{Paper: paper, Machine: setup.ThisMachine(), Command: command}
	cfg.Checkpoint = func(res *bench.Results) {
		rep.Results = res
		if err := writeBenchReports(rep, out, false); err != nil {
			a.log.Warn("could not write the intermediate report", "err", err)
		}
	}
	a.log.Debug("bench", "datasets", cfg.Datasets, "ratios", cfg.Ratios, "seeds", bf.seeds, "split_seeds", bf.splitSeeds,
		"data_dir", cfg.DataDir, "out", out, "options", cli.DescribeOptions(cfg.Engine))
	res, runErr := bench.Run(cmd.Context(), cfg)
	pr.finish()
	if res == nil {
		if errors.Is(runErr, context.Canceled) {
			return runErr
		}
		return cli.WithCode(cli.ExitUsage, runErr)
	}
	rep.Results = res
	if err := writeBenchReports(rep, out, true); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(a.stderr, "bench: wrote %s (%d seeds in %s)\n", filepath.Join(out, "RESULTS.md"), len(res.Seeds), time.Duration(res.Seconds*float64(time.Second)).Round(time.Second))
	if runErr != nil || bf.skipReal {
		return runErr
	}
	return a.runBenchReal(cmd, bf, cfg)
}

// runBenchReal runs the real evaluation after the paper's, into --out/real,
// when the datasets folder has real sets.
func (a *app) runBenchReal(cmd *cobra.Command, bf *benchFlags, cfg bench.Config) error {
	dir := real.Dir(cfg.DataDir)
	if sets, err := real.SetNames(dir); err != nil || len(sets) == 0 {
		fmt.Fprintf(a.stderr, "bench: no real sets in %s: the real evaluation is skipped\n", dir)
		return nil
	}
	seeds := realSeeds
	if bf.quick {
		seeds = realQuickSeeds
	}
	rc := real.Config{Dir: dir, Seeds: seeds, Methods: bf.methods, Splitters: bf.splitters, Engine: cfg.Engine}
	return a.runReal(cmd.Context(), rc, filepath.Join(bf.out, "real"), commandLine(cmd))
}

// applyQuick fills in the --quick preset for the flags not set.
func (bf *benchFlags) applyQuick(fl *pflag.FlagSet) {
	if !bf.quick {
		return
	}
	if !fl.Changed("datasets") {
		bf.datasets = quickDatasets
	}
	if !fl.Changed("ratios") {
		bf.ratios = joinFloats(quickRatios)
	}
	if !fl.Changed("contractions") {
		bf.seeds = quickSeeds
	}
	if !fl.Changed("split-contractions") {
		bf.splitSeeds = quickSeeds
	}
}

// config checks the flags and makes the run's configuration from them,
// without the engine's options, the data directory and the outputs.
func (bf *benchFlags) config(paper *bench.PaperData) (bench.Config, error) {
	cfg := bench.Config{Datasets: bf.datasets, Seeds: bf.seeds, SplitSeeds: bf.splitSeeds, Fresh: bf.fresh, ReportOnly: bf.reportOnly}
	if bf.reportOnly && bf.fresh {
		return cfg, cli.UsageErrorf("--report-only reads the results of an earlier run: it cannot be --fresh")
	}
	var err error
	if cfg.Ratios, err = parseRatios(bf.ratios); err != nil {
		return cfg, err
	}
	if bf.seeds < 0 || bf.splitSeeds < 0 || bf.seeds+bf.splitSeeds == 0 {
		return cfg, cli.UsageErrorf("--contractions %d --split-contractions %d: need at least one contraction", bf.seeds, bf.splitSeeds)
	}
	if bf.methods != nil {
		cfg.Methods = bf.methods
	}
	for _, m := range cfg.Methods {
		if !slices.Contains(score.Methods(), m) {
			return cfg, cli.UsageErrorf("--methods: unknown method %q (want some of %s)", m, strings.Join(score.Methods(), ","))
		}
	}
	if bf.splitters != nil {
		cfg.Splitters = bf.splitters
	}
	for _, s := range cfg.Splitters {
		if !slices.Contains(setup.SplitterNames(), s) {
			return cfg, cli.UsageErrorf("--splitters: unknown splitter %q (want some of %s)", s, strings.Join(setup.SplitterNames(), ","))
		}
	}
	if cfg.Ties, err = parseTies(bf.ties); err != nil {
		return cfg, err
	}
	return cfg, checkDatasets(paper, cfg.Datasets)
}

// parseTies parses --ties.
func parseTies(ties string) (eval.TieMode, error) {
	switch ties {
	case "average":
		return eval.TiesAverage, nil
	case "loss":
		return eval.TiesAsLoss, nil
	}
	return 0, cli.UsageErrorf("--ties %q: want average or loss", ties)
}

// checkDatasets checks that the datasets are the paper's and available.
func checkDatasets(paper *bench.PaperData, datasets []string) error {
	for _, d := range datasets {
		pd, ok := paper.Dataset(d)
		if !ok {
			return cli.UsageErrorf("--datasets: unknown dataset %q (known: %s)", d, strings.Join(paper.AvailableDatasets(), ","))
		}
		if !pd.Available() {
			return cli.UsageErrorf("--datasets: %s is not available: %s", d, pd.Unavailable)
		}
	}
	return nil
}

func joinFloats(xs []float64) string {
	s := make([]string, len(xs))
	for k, x := range xs {
		s[k] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

// parseRatios parses "0.001,0.01,0.1" (or percentages: "1%").
func parseRatios(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		scale := 1.0
		if strings.HasSuffix(f, "%") {
			f, scale = strings.TrimSuffix(f, "%"), 0.01
		}
		x, err := strconv.ParseFloat(f, 64)
		x *= scale
		if err != nil || !(x > 0 && x < 0.5) {
			return nil, cli.UsageErrorf("--ratios: %q is not a ratio in (0, 0.5)", f)
		}
		x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64) // 1% -> 0.01 exactly
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return nil, cli.UsageErrorf("--ratios: no ratio given")
	}
	slices.Sort(out)
	return out, nil
}

// commandLine reconstructs the command with the flags the user set, for the
// report's header.
func commandLine(cmd *cobra.Command) string {
	parts := []string{cmd.CommandPath()}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if cli.DeprecatedFor(f) != "" {
			return // its flag, set too, is listed under its own name
		}
		v := f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			v = strings.Join(sv.GetSlice(), ",")
		}
		if f.Value.Type() == "bool" && v == "true" {
			parts = append(parts, "--"+f.Name)
			return
		}
		parts = append(parts, "--"+f.Name+" "+v)
	})
	return strings.Join(parts, " ")
}

// writeBenchReports writes RESULTS.md and results.json (and, at the end, the
// plots), each through a temporary file so that a reader never sees half a
// file.
func writeBenchReports(rep *bench.Report, out string, plots bool) error {
	if plots {
		files, err := rep.WritePlots(out)
		if err != nil {
			return fmt.Errorf("plots: %w", err)
		}
		rep.Plots = files
	}
	if err := writeAtomic(out, "results.json", func(f *os.File) error { return rep.WriteJSON(f) }); err != nil {
		return err
	}
	return writeAtomic(out, "RESULTS.md", func(f *os.File) error { return rep.WriteMarkdown(f) })
}

// writeAtomic writes dir/name through a temporary file, so that a reader
// never sees half a file.
func writeAtomic(dir, name string, fn func(f *os.File) error) error {
	tmp, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return err
	}
	if err := fn(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// benchProgress shows the run's progress on stderr: a bar on a terminal,
// one line per finished seed otherwise, and one summary line per cell.
type benchProgress struct {
	a     *app
	bar   *progressbar.ProgressBar
	start time.Time
	cell  []*bench.SeedResult
	cellK string
}

func newBenchProgress(a *app) *benchProgress { return &benchProgress{a: a, start: time.Now()} }

func (p *benchProgress) println(s string) {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
	fmt.Fprintln(p.a.stderr, s)
	if p.bar != nil {
		_ = p.bar.RenderBlank()
	}
}

func (p *benchProgress) event(e bench.Event) {
	switch e.Kind {
	case bench.EventStart:
		if p.a.tty {
			p.bar = progressbar.NewOptions(e.Total,
				progressbar.OptionSetWriter(p.a.stderr),
				progressbar.OptionSetDescription("bench"),
				progressbar.OptionShowCount(),
				progressbar.OptionSetWidth(30),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(200*time.Millisecond),
				progressbar.OptionClearOnFinish(),
			)
		}
		p.println(fmt.Sprintf("bench: %d seeds to run", e.Total))
	case bench.EventLoaded:
		p.flushCell()
		p.println(fmt.Sprintf("bench: %s: %d nodes, %d edges", e.Dataset, e.Nodes, e.Edges))
	case bench.EventCellSkip:
		p.flushCell()
		p.println(fmt.Sprintf("bench: %s r=%s: q = 0, skipped (the paper's \"-\")", e.Dataset, bench.RatioLabel(e.Ratio)))
	case bench.EventSeedDone, bench.EventResumed:
		key := e.Dataset + " " + bench.RatioKey(e.Ratio)
		if key != p.cellK {
			p.flushCell()
			p.cellK = key
		}
		p.cell = append(p.cell, e.Seed)
		if p.bar == nil {
			verb := "done"
			if e.Kind == bench.EventResumed {
				verb = "resumed"
			}
			p.println(fmt.Sprintf("bench: [%d/%d] %s r=%s seed %d %s: %s", e.Done, e.Total, e.Dataset, bench.RatioLabel(e.Ratio), e.Seed.Seed, verb, seedLine(e.Seed)))
		}
	}
	if p.bar != nil && e.Total > 0 {
		p.bar.Describe(fmt.Sprintf("%-10s %-5s", e.Dataset, bench.RatioLabel(e.Ratio)))
		_ = p.bar.Set(e.Done)
	}
}

// seedLine summarises one seed: AUC per method, ARI per splitter, seconds.
func seedLine(s *bench.SeedResult) string {
	var parts []string
	for _, m := range score.Methods() {
		if r, ok := s.Methods[m]; ok {
			parts = append(parts, fmt.Sprintf("%s %.3f", m, r.AUC))
		}
	}
	var sp []string
	for _, name := range setup.SplitterNames() {
		if r, ok := s.Splitters[name]; ok {
			sp = append(sp, fmt.Sprintf("%s %.3f", name, r.MeanARI))
		}
	}
	var line []string
	if len(parts) > 0 {
		line = append(line, "AUC "+strings.Join(parts, ", "))
	}
	if len(sp) > 0 {
		line = append(line, "ARI "+strings.Join(sp, ", "))
	}
	return fmt.Sprintf("q=%d; %s", s.Ambiguous, strings.Join(line, "; "))
}

// flushCell prints the mean AUC of the cell that just ended.
func (p *benchProgress) flushCell() {
	if len(p.cell) == 0 {
		return
	}
	s0 := p.cell[0]
	sum := map[string]float64{}
	n := map[string]int{}
	for _, s := range p.cell {
		for m, r := range s.Methods {
			sum["auc "+m] += r.AUC
			n["auc "+m]++
		}
		for m, r := range s.Splitters {
			sum["ari "+m] += r.MeanARI
			n["ari "+m]++
		}
	}
	var parts []string
	for _, m := range score.Methods() {
		if k := "auc " + m; n[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %.3f", m, sum[k]/float64(n[k])))
		}
	}
	var sp []string
	for _, m := range setup.SplitterNames() {
		if k := "ari " + m; n[k] > 0 {
			sp = append(sp, fmt.Sprintf("%s %.3f", m, sum[k]/float64(n[k])))
		}
	}
	line := fmt.Sprintf("bench: %s r=%s (%d seeds)", s0.Dataset, bench.RatioLabel(s0.Ratio), len(p.cell))
	if len(parts) > 0 {
		line += ": mean AUC " + strings.Join(parts, ", ")
	}
	if len(sp) > 0 {
		line += "; mean ARI " + strings.Join(sp, ", ")
	}
	p.println(line)
	p.cell = nil
}

func (p *benchProgress) finish() {
	p.flushCell()
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
}
