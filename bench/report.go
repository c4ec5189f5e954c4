package bench

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/format"
	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
)

// Report is what the writers need besides the results.
type Report struct {
	Results *Results
	Paper   *PaperData
	Machine setup.Machine
	Command string // the command line that produced the results
	// Plots are the picture files (relative to the markdown file) to show.
	Plots []string
}

// reportDatasets lists the rows of a table in the paper's order: the
// datasets the table has cells for (the AUC table when table is nil), and
// any other dataset of the run.
func (r *Report) reportDatasets(table *PaperTable) []PaperDataset {
	if table == nil {
		table = &r.Paper.AUC
	}
	var out []PaperDataset
	for _, d := range r.Paper.Datasets {
		if len(table.Cells[d.Name]) > 0 || slices.Contains(r.Results.Config.Datasets, d.Name) {
			out = append(out, d)
		}
	}
	return out
}

// reportRatios is the union of the paper's ratios and the run's, ascending.
func (r *Report) reportRatios() []float64 {
	rs := slices.Clone(r.Results.Config.Ratios)
	for _, x := range r.Paper.PaperRatios() {
		if !slices.ContainsFunc(rs, func(y float64) bool { return RatioKey(x) == RatioKey(y) }) {
			rs = append(rs, x)
		}
	}
	slices.Sort(rs)
	return rs
}

// cellState says what a (dataset, ratio) cell of ours holds.
func (r *Report) cell(d PaperDataset, ratio float64) (c *CellSummary, mark string) {
	if !d.Available() {
		return nil, "n/a"
	}
	c = r.Results.Cell(d.Name, ratio)
	switch {
	case c == nil:
		return nil, "not run"
	case c.Skipped:
		return c, "-"
	case c.IdentSeeds == 0 && c.SplitSeeds == 0:
		return c, "not run"
	}
	return c, ""
}

// WriteMarkdown writes the report: the paper's tables with our numbers and
// the paper's side by side, target checks, and the plots.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	res := r.Results
	cfg := res.Config
	p("# FONDUE benchmark: this implementation against the paper\n\n")
	if r.Command != "" {
		p("```\n%s\n```\n\n", r.Command)
	}
	p("- Machine: %s\n", r.Machine)
	p("- Run: %s to %s (%s wall, %d seeds run, %d resumed from the journal)%s\n",
		res.Started.Format("2006-01-02 15:04"), res.Finished.Format("15:04 MST"), format.Seconds(res.Seconds)+" s",
		len(res.Seeds)-res.Resumed, res.Resumed, map[bool]string{true: "", false: "; **incomplete**"}[res.Complete])
	compute := 0.0
	for _, s := range res.Seeds {
		compute += seedSeconds(s)
	}
	p("- Compute time of the seeds reported (sum of their wall times, whenever they ran): %s s\n", format.Seconds(compute))
	p("- Seeds: %d contraction seeds per cell for identification, %d for splitting (the paper: 10 and 3); %s\n",
		cfg.Seeds, cfg.SplitSeeds, cfg.SeedRule)
	e := cfg.Engine
	p("- Engine: CNE d=%d, sigma1=%g, sigma2=%g, lr=%g, epochs<=%d, tol=%g, neg-ratio=%d, mode %s (exact up to %d nodes); FONDUE random splits %d, normalized %v, polish %v; base seed %d\n",
		e.Dim, e.Sigma1, e.Sigma2, e.LearningRate, e.MaxEpochs, e.Tol, e.NegRatio, e.Mode, e.ExactMaxNodes,
		e.RandomSplits, e.Normalized, e.Polish, e.BaseSeed)
	p("- Paper numbers: %s (bench/paper.json)\n", r.Paper.Source)
	p("- Cell marks: `-` q = floor(r*n) = 0, no ambiguous node (as in the paper); `n/a` dataset not available; `not run` not in this run.\n\n")

	r.writeAUC(p)
	r.writeDefaultTargets(p)
	r.writeTargets(p)
	r.writeNDCG(p)
	r.writeTop(p)
	r.writeSplit(p)
	r.writeRuntime(p)
	if len(r.Plots) > 0 {
		p("## Plots\n\n")
		for _, f := range r.Plots {
			p("![%s](%s)\n\n", strings.TrimSuffix(f, ".png"), f)
		}
	}
	return bw.Flush()
}

func (r *Report) tieNote() string {
	if r.Results.Config.Ties == "loss" {
		return "AUC counts a tied positive-negative pair as a **loss** for the positive (`--ties loss`): the convention that reproduces the paper's CC and degree columns (docs/method.md section 9). It is not the usual AUC."
	}
	return "AUC uses **average ranks for ties** (a tied positive-negative pair counts half; the usual ROC AUC, `--ties average`). The paper's CC and degree columns were computed with ties counted as losses (docs/method.md section 9), so our CC and degree values are higher on graphs with many ties; `--ties loss` reproduces the paper's convention. FONDUE scores have no ties, so its column is the same either way. results.json has both."
}

func (r *Report) writeAUC(p func(string, ...any)) {
	ratios := r.reportRatios()
	methods := r.reportMethods()
	paperMethods := []string{"fondue", "nc", "cc", "degree"}
	p("## Identification: AUC (the paper's table quant)\n\n%s\n\n", r.tieNote())
	p("Each cell: ours %s, mean over seeds; below it, in parentheses, the paper's FONDUE / NC / CC / degree.\n\n", methodNames(methods))
	ratioHeader(p, ratios)
	for _, d := range r.reportDatasets(nil) {
		p("| %s |", d.Paper)
		for _, x := range ratios {
			c, mark := r.cell(d, x)
			paper := r.Paper.AUC.HasCell(d.Name, x)
			var ours string
			switch {
			case mark == "n/a" && !paper && r.qZero(d, x):
				ours = "-"
			case mark == "n/a":
				ours = "n/a"
			case mark == "-" || (mark == "not run" && !paper && d.Available() && r.qZero(d, x)):
				ours = "-"
			case mark != "" || c.Methods == nil:
				ours = mark
				if ours == "" {
					ours = "not run"
				}
			default:
				var parts []string
				for _, m := range methods {
					if ms, ok := c.Methods[m]; ok {
						parts = append(parts, format.F3(ms.AUC.Mean))
					} else {
						parts = append(parts, "·")
					}
				}
				ours = strings.Join(parts, "/")
			}
			if paper {
				var parts []string
				for _, m := range paperMethods {
					v, _ := r.Paper.AUC.Get(d.Name, x, m)
					parts = append(parts, format.F3(v))
				}
				ours += "<br>(" + strings.Join(parts, "/") + ")"
			} else if ours != "-" {
				ours += "<br>(paper: -)"
			}
			p(" %s |", ours)
		}
		p("\n")
	}
	p("\n")
}

// qZero reports whether floor(ratio * n) = 0 for the paper's node count.
func (r *Report) qZero(d PaperDataset, ratio float64) bool {
	return int(math.Floor(ratio*float64(d.Nodes)*(1+1e-9))) == 0
}

// methodOrder is the order of the methods in the tables: the default,
// FONDUE, then the baselines.
var methodOrder = []string{"combined", "fondue", "nc", "cc", "degree", "lcc"}

// methodLabels are the methods' names in the tables' text.
var methodLabels = map[string]string{"combined": "combined", "fondue": "FONDUE", "nc": "NC", "cc": "CC", "degree": "degree", "lcc": "LCC"}

// reportMethods lists the run's identification methods in methodOrder,
// then any others in the run's order.
func (r *Report) reportMethods() []string {
	run := r.Results.Config.Methods
	var out []string
	for _, m := range methodOrder {
		if slices.Contains(run, m) {
			out = append(out, m)
		}
	}
	for _, m := range run {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

func methodNames(methods []string) string {
	var parts []string
	for _, m := range methods {
		if l, ok := methodLabels[m]; ok {
			m = l
		}
		parts = append(parts, m)
	}
	return strings.Join(parts, " / ")
}

// writeTop writes the precision at the top of each method's ranking, per
// cell, beside a random order's, and marks the heads full of hubs.
func (r *Report) writeTop(p func(string, ...any)) {
	methods := r.reportMethods()
	p("## Identification: precision at the top\n\nWhat a person reviewing the head of the list sees: the share of planted nodes among the 20, the 100 and the top 1%% of the ranked nodes (ties broken by expectation), mean over seeds; random is the planted nodes' share, the precision of a random order. Each cell: P@20 / P@100 / P@1%%; ‡ marks a method whose top 100 or top 1%% has a mean degree over %d times the planted nodes' in most seeds (hubs first). The paper reports none of these.\n\n", metrics.HubFactor)
	p("| dataset | ratio | random |")
	for _, m := range methods {
		p(" %s |", m)
	}
	p("\n|---|---|---:|")
	for range methods {
		p("---|")
	}
	p("\n")
	for _, d := range r.reportDatasets(nil) {
		if !d.Available() || !slices.Contains(r.Results.Config.Datasets, d.Name) {
			continue
		}
		for _, x := range r.reportRatios() {
			c, mark := r.cell(d, x)
			if mark != "" || c.Methods == nil {
				continue
			}
			random := math.NaN()
			for _, ms := range c.Methods {
				if ms.Random.N > 0 {
					random = ms.Random.Mean
				}
			}
			if math.IsNaN(random) {
				continue // results written before the field
			}
			p("| %s | %s | %s |", d.Paper, RatioLabel(x), format.F3(random))
			for _, m := range methods {
				ms, ok := c.Methods[m]
				if !ok || ms.P100.N == 0 {
					p(" · |")
					continue
				}
				hub := ""
				if 2*ms.Hubs > ms.P100.N {
					hub = " ‡"
				}
				p(" %s / %s / %s%s |", format.F3(ms.P20.Mean), format.F3(ms.P100.Mean), format.F3(ms.P1.Mean), hub)
			}
			p("\n")
		}
	}
	p("\n")
}

func (r *Report) writeNDCG(p func(string, ...any)) {
	ratios := r.reportRatios()
	methods := r.reportMethods()
	p("## Identification: NDCG\n\nThe journal version's ranking metric (tied scores share their average gain). Each cell: %s, mean over seeds. The paper reports no NDCG.\n\n", methodNames(methods))
	ratioHeader(p, ratios)
	for _, d := range r.reportDatasets(nil) {
		if !d.Available() || !slices.Contains(r.Results.Config.Datasets, d.Name) {
			continue
		}
		p("| %s |", d.Paper)
		for _, x := range ratios {
			c, mark := r.cell(d, x)
			if mark != "" || c.Methods == nil {
				if mark == "" {
					mark = "not run"
				}
				p(" %s |", mark)
				continue
			}
			var parts []string
			for _, m := range methods {
				if ms, ok := c.Methods[m]; ok {
					parts = append(parts, format.F3(ms.NDCG.Mean))
				} else {
					parts = append(parts, "·")
				}
			}
			p(" %s |", strings.Join(parts, "/"))
		}
		p("\n")
	}
	p("\n")
}

// WriteJSON writes the results with the configuration, the machine and the
// paper's source: indented at the top, one line per seed and per cell, so
// that the file stays readable and diffable while holding every number.
func (r *Report) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriter(w)
	res := r.Results
	fmt.Fprintf(bw, "{\n  \"command\": %s,\n  \"machine\": %s,\n  \"paper_source\": %s,\n  \"config\": %s,\n",
		format.JSON(r.Command), format.JSON(r.Machine), format.JSON(r.Paper.Source), format.JSON(res.Config))
	fmt.Fprintf(bw, "  \"started\": %s,\n  \"finished\": %s,\n  \"wall_seconds\": %s,\n  \"complete\": %v,\n  \"resumed\": %d,\n",
		format.JSON(res.Started), format.JSON(res.Finished), format.JSON(res.Seconds), res.Complete, res.Resumed)
	fmt.Fprintf(bw, "  \"cells\": [")
	format.JSONLines(bw, "    ", res.Cells)
	fmt.Fprintf(bw, "\n  ],\n  \"seeds\": [")
	format.JSONLines(bw, "    ", res.Seeds)
	fmt.Fprintf(bw, "\n  ]\n}\n")
	return bw.Flush()
}

// ratioHeader writes the header of a table with one column per ratio, in
// the paper's layout.
func ratioHeader(p func(string, ...any), ratios []float64) {
	p("| dataset |")
	for _, x := range ratios {
		p(" %s |", RatioLabel(x))
	}
	p("\n|---|")
	for range ratios {
		p("---|")
	}
	p("\n")
}
