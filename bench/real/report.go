package real

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/format"
	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/bench/research"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
)

// Report is what the writers of the real benchmark need besides the
// results.
type Report struct {
	Results *Results
	Machine setup.Machine
	Command string
	// Plots are the picture files (relative to the markdown file) to show.
	Plots []string
}

// metric columns: header, how to format, and which way is better (+1
// higher, -1 lower, 0 not ranked).
type column struct {
	metric, header string
	format         func(float64) string
	better         int
}

var (
	detectionColumns = []column{
		{MetricAUC, "AUC", format.F3, 1},
		{MetricAUCBins, "AUC within degree bins", format.F3, 1},
		{MetricAUC2, "AUC, 2-person positives", format.F3, 1},
		{MetricP20, "P@20", format.F3, 1},
		{MetricP100, "P@100", format.F3, 1},
		{MetricP1, "P@1%", format.F3, 1},
		{MetricRandom, "random", format.F3, 0},
		{MetricHubs, "degree, top 100 ÷ positives'", hubRatio, 0},
	}
	splitColumns = []column{
		{MetricARI, "ARI", format.F3, 1},
		{MetricARI2, "ARI, 2 persons", format.F3, 1},
		{MetricARI3, "ARI, 3+ persons", format.F3, 1},
		{MetricGroups, "groups", f1, 0},
		{MetricGroupsExact, "groups = persons", format.F3, 1},
		{MetricGroupsMAE, "groups MAE", f2, -1},
	}
	entityColumns = []column{
		{MetricSplitMean, "mean, split-evaluated", f1, 0},
		{MetricSplitExact, "exact, split-evaluated", format.F3, 1},
		{MetricSplitMAE, "MAE, split-evaluated", f2, -1},
		{MetricAllMean, "mean, all eligible", f2, 0},
		{MetricAllExact, "exact, all eligible", format.F3, 1},
		{MetricAllMAE, "MAE, all eligible", f2, -1},
	}
)

// Plural writes "1 seed", "3 seeds".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func f1(x float64) string { return fdec(x, 1) }

// hubRatio writes the top's mean degree over the positives', marked when
// the top is hubs (over metrics.HubFactor).
func hubRatio(x float64) string {
	if x > metrics.HubFactor {
		return f2(x) + " **hubs**"
	}
	return f2(x)
}
func f2(x float64) string { return fdec(x, 2) }

func fdec(x float64, d int) string {
	if math.IsNaN(x) {
		return "?"
	}
	return strconv.FormatFloat(x, 'f', d, 64)
}

// defaultFirst returns names with def first (when it is among them).
func defaultFirst(names []string, def string) []string {
	out := slices.Clone(names)
	if k := slices.Index(out, def); k > 0 {
		out = append([]string{def}, slices.Delete(out, k, k+1)...)
	}
	return out
}

// Methods returns the run's methods, the default first.
func (r *Report) methods() []string {
	return defaultFirst(r.Results.Config.Methods, r.Results.Config.DefaultMethod)
}

// splitters returns the run's splitters, the default first.
func (r *Report) splitters() []string {
	return defaultFirst(r.Results.Config.Splitters, r.Results.Config.DefaultSplitter)
}

// WriteMarkdown writes RESULTS.md.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	res := r.Results
	cfg := res.Config
	p("# Real ambiguity: `fondue-bench real`\n\n")
	p("Command: `%s`\n\n", r.Command)
	p("Machine: %s. Run %s, %s wall.\n\n", r.Machine, res.Started.UTC().Format("2006-01-02 15:04 MST"),
		time.Duration(res.Seconds*float64(time.Second)).Round(time.Second))
	e := cfg.Engine
	p("Configuration: engine seeds %d..%d (seed k embeds with base seed %d + k − 1; %s run once, being deterministic); "+
		"CNE dim %d, σ1 %g, σ2 %g, lr %g, at most %d epochs, tol %g, %d random splits; %s. "+
		"Default method `%s`, default splitter `%s` (this build's `fondue.DefaultMethod` and `fondue.DefaultSplitter`). Data: `%s`.\n\n",
		e.BaseSeed, e.BaseSeed+uint64(cfg.Seeds)-1, e.BaseSeed, methodList(cfg.Deterministic),
		e.Dim, e.Sigma1, e.Sigma2, e.LearningRate, e.MaxEpochs, e.Tol, e.RandomSplits, workersText(cfg.Workers),
		cfg.DefaultMethod, cfg.DefaultSplitter, cfg.Dir)
	p("Every number is the mean over the seeds (results.json has every seed). What the metrics are: bench/README.md, section \"Real ambiguity\", " +
		"and the data's README. In every table the default comes first, in **bold**; † marks the best of the others in a column " +
		"(the best baseline; for MAE the lowest).\n\n")
	r.writeHeadline(p)
	for _, s := range res.Sets {
		r.writeSet(p, s)
	}
	if len(r.Plots) > 0 {
		p("## Plots\n\n")
		for _, f := range r.Plots {
			p("![%s](%s)\n\n", strings.TrimSuffix(f, ".png"), f)
		}
	}
	return bw.Flush()
}

// writeHeadline writes the summary: per set and headline metric (all
// labelled names), the default against the best of the others.
func (r *Report) writeHeadline(p func(string, ...any)) {
	cfg := r.Results.Config
	type line struct {
		label string
		table func(*SetSummary) map[string]map[string]map[string]metrics.Stat
		names []string
		def   string
		col   column
	}
	det := func(s *SetSummary) map[string]map[string]map[string]metrics.Stat { return s.Detection }
	spl := func(s *SetSummary) map[string]map[string]map[string]metrics.Stat { return s.Splitting }
	ent := func(s *SetSummary) map[string]map[string]map[string]metrics.Stat { return s.Entities }
	lines := []line{
		{"detection AUC", det, r.methods(), cfg.DefaultMethod, detectionColumns[0]},
		{"AUC within degree bins", det, r.methods(), cfg.DefaultMethod, detectionColumns[1]},
		{"split ARI", spl, r.splitters(), cfg.DefaultSplitter, splitColumns[0]},
		{"split ARI, 3+ persons", spl, r.splitters(), cfg.DefaultSplitter, splitColumns[2]},
		{"groups = persons (split names)", spl, r.splitters(), cfg.DefaultSplitter, splitColumns[4]},
		{"entities MAE (split names)", ent, estimators[:], EstimatorEntities, entityColumns[2]},
		{"entities MAE (all eligible)", ent, estimators[:], EstimatorEntities, entityColumns[5]},
	}
	var rows []string
	for _, s := range r.Results.Sets {
		if s.Summary == nil {
			continue
		}
		for _, l := range lines {
			t := l.table(s.Summary)
			if _, ok := t[l.def]; !ok {
				continue
			}
			dv := statMean(t, l.def, HalfAll, l.col.metric)
			best, bv := "", math.NaN()
			for _, n := range l.names {
				if n == l.def {
					continue
				}
				v := statMean(t, n, HalfAll, l.col.metric)
				if !math.IsNaN(v) && (math.IsNaN(bv) || float64(l.col.better)*(v-bv) > 0) {
					best, bv = n, v
				}
			}
			other := "-"
			if best != "" {
				other = fmt.Sprintf("`%s` %s", best, l.col.format(bv))
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | `%s` %s | %s |", s.Name, l.label, l.def, l.col.format(dv), other))
		}
	}
	if len(rows) == 0 {
		return
	}
	p("## Summary\n\nAll labelled names, mean over the seeds: the default against the best of the others.\n\n")
	p("| set | metric | default | best other |\n|---|---|---|---|\n")
	for _, row := range rows {
		p("%s\n", row)
	}
	p("\n")
}

// workersText says how many goroutines the engine used.
func workersText(n int) string {
	if n <= 0 {
		return "workers: all cores"
	}
	return Plural(n, "worker")
}

// methodList formats names as `a`, `b` and `c`.
func methodList(names []string) string {
	if len(names) == 0 {
		return "no method"
	}
	q := make([]string, len(names))
	for k, n := range names {
		q[k] = "`" + n + "`"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// shape describes a set's shape in words.
func (s *SetResult) shape() string {
	if s.Prefix == "" {
		return "every node scored"
	}
	t := fmt.Sprintf("only the nodes with ids `%s…` scored (%d of %d nodes; fondue.Options.Targets), the others context", s.Prefix, s.Scored, s.Nodes)
	if s.Context != "" {
		t += fmt.Sprintf("; read from its Neo4j import files, with the context (fondue.Options.Context: %s): "+
			"the engine scores the targets and their neighbours and merges pieces by the context, "+
			"while the component baselines count components of the links of the whole graph", s.Context)
	}
	return t
}

func (r *Report) writeSet(p func(string, ...any), s *SetResult) {
	p("## %s\n\n", s.Name)
	p("%d nodes, %d edges; %s. Development half: %s.\n\n", s.Nodes, s.Edges, s.shape(), s.DevRule)
	p("| names | labelled | positives (2 persons) | negatives | left out | split-evaluated (2 / 3+ persons) |\n|---|---:|---:|---:|---:|---:|\n")
	for _, h := range halfOrder {
		hi := s.Halves[h]
		p("| %s | %d | %d (%d) | %d | %d | %d (%d / %d) |\n", h, hi.Labelled, hi.Positives, hi.Positives2, hi.Negatives, hi.LeftOut,
			hi.SplitNames, hi.SplitNames2, hi.SplitNames3)
	}
	p("\n")
	if s.Summary == nil {
		p("Not run.\n\n")
		return
	}
	seeds := len(s.Seeds)
	p("### Detection\n\n")
	p("All labelled names (%s):\n\n", Plural(seeds, "seed"))
	r.writeTable(p, "method", r.methods(), r.Results.Config.DefaultMethod, s.Summary.Detection, detectionColumns, []string{HalfAll})
	p("Development and held-out halves:\n\n")
	r.writeTable(p, "method", r.methods(), r.Results.Config.DefaultMethod, s.Summary.Detection, detectionColumns, []string{HalfDev, HalfHeldOut})

	p("### Splitting\n\n")
	if hi := s.Halves[HalfAll]; hi.SplitNames > 0 {
		persons := float64(s.SplitPersons)
		p("ARI of each splitter's groups against the persons over the labelled neighbours of the %d split-evaluated names "+
			"(%.2f persons on average: compare the groups column):\n\n", hi.SplitNames, persons)
	}
	r.writeTable(p, "splitter", r.splitters(), r.Results.Config.DefaultSplitter, s.Summary.Splitting, splitColumns, []string{HalfAll})
	p("Development and held-out halves:\n\n")
	r.writeTable(p, "splitter", r.splitters(), r.Results.Config.DefaultSplitter, s.Summary.Splitting,
		[]column{splitColumns[0], splitColumns[1], splitColumns[2], splitColumns[4]}, []string{HalfDev, HalfHeldOut})

	p("### Number of entities\n\n")
	hi := s.Halves[HalfAll]
	p("The engine's estimate (`Result.Entities` of `%s`) against the truth's persons, beside the number of components "+
		"(%s in this shape), over the %d split-evaluated positives (%.2f persons on average) and over all %d eligible labelled names "+
		"(negatives have 1 person; %.2f on average):\n\n",
		r.Results.Config.DefaultMethod, s.componentEstimator(), hi.SplitNames, s.truthMean(true), hi.Positives+hi.Negatives, s.truthMean(false))
	r.writeTable(p, "estimator", estimators[:], EstimatorEntities, s.Summary.Entities, entityColumns, []string{HalfAll})
	p("Development and held-out halves:\n\n")
	r.writeTable(p, "estimator", estimators[:], EstimatorEntities, s.Summary.Entities,
		[]column{entityColumns[1], entityColumns[2], entityColumns[4], entityColumns[5]}, []string{HalfDev, HalfHeldOut})

	if len(s.Top) > 0 {
		p("### The default method's top %d (seed %d)\n\n", len(s.Top), s.Seeds[0].Seed)
		p("| rank | name | id | persons | foreign | degree | entities | groups (`%s`) | half |\n|---:|---|---|---:|---:|---:|---:|---:|---|\n", r.Results.Config.DefaultSplitter)
		for _, t := range s.Top {
			half, groups := HalfHeldOut, "-"
			if t.Dev {
				half = HalfDev
			}
			if t.Groups > 0 {
				groups = strconv.Itoa(t.Groups)
			}
			p("| %d | %s | %s | %d | %d | %d | %d | %s | %s |\n", t.Rank, mdEscape(t.Name), t.ID, t.Persons, t.Foreign, t.Degree, t.Entities, groups, half)
		}
		p("\n")
	}

	p("### Time\n\n")
	p("Mean seconds per seed (the default method's includes the embedding%s):\n\n", s.epochsNote())
	var parts []string
	for _, m := range r.methods() {
		if v, ok := s.Summary.Seconds["method:"+m]; ok {
			parts = append(parts, fmt.Sprintf("`%s` %s", m, format.Seconds(v)))
		}
	}
	p("- methods: %s\n", strings.Join(parts, ", "))
	parts = nil
	for _, sp := range r.splitters() {
		if v, ok := s.Summary.Seconds["splitter:"+sp]; ok {
			parts = append(parts, fmt.Sprintf("`%s` %s", sp, format.Seconds(v)))
		}
	}
	p("- splitters: %s\n\n", strings.Join(parts, ", "))
	p("The whole set: %s s.\n\n", format.Seconds(s.Seconds))
}

// componentEstimator names the component count that fits the set's shape.
func (s *SetResult) componentEstimator() string {
	if s.Prefix != "" {
		return "`" + research.TwoHopComponents + "`: papers sharing a co-author"
	}
	return "`" + research.EgoComponents + "`, the `cc` score"
}

// truthMean is the mean number of persons of the split-evaluated names
// (split) or of all eligible names.
func (s *SetResult) truthMean(split bool) float64 {
	if split {
		return float64(s.SplitPersons)
	}
	return float64(s.EligiblePersons)
}

func (s *SetResult) epochsNote() string {
	var ep []string
	for _, sd := range s.Seeds {
		if sd.CNE != nil {
			ep = append(ep, strconv.Itoa(sd.CNE.Epochs))
		}
	}
	if len(ep) == 0 {
		return ""
	}
	return fmt.Sprintf("; CNE %s mode, epochs %s", s.Seeds[0].CNE.Mode, strings.Join(ep, ", "))
}

// mdEscape keeps a display name from breaking a table row.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// writeTable writes one table: a row per name (def first and bold), a
// column per metric and half.
func (r *Report) writeTable(p func(string, ...any), what string, names []string, def string,
	table map[string]map[string]map[string]metrics.Stat, cols []column, halves []string) {
	names = defaultFirst(names, def)
	var present []string
	for _, n := range names {
		if _, ok := table[n]; ok {
			present = append(present, n)
		}
	}
	p("| %s |", what)
	for _, c := range cols {
		for _, h := range halves {
			if len(halves) > 1 {
				p(" %s, %s |", c.header, h)
			} else {
				p(" %s |", c.header)
			}
		}
	}
	p("\n|---|")
	for range len(cols) * len(halves) {
		p("---:|")
	}
	p("\n")
	// The best of the non-default rows per column.
	best := map[[2]string]float64{}
	for _, c := range cols {
		if c.better == 0 {
			continue
		}
		for _, h := range halves {
			b := math.NaN()
			for _, n := range present {
				if n == def {
					continue
				}
				v := statMean(table, n, h, c.metric)
				if !math.IsNaN(v) && (math.IsNaN(b) || float64(c.better)*(v-b) > 0) {
					b = v
				}
			}
			best[[2]string{c.metric, h}] = b
		}
	}
	for _, n := range present {
		bold := n == def
		cell := func(s string) string {
			if bold {
				return "**" + s + "**"
			}
			return s
		}
		p("| %s |", cell("`"+n+"`"))
		for _, c := range cols {
			for _, h := range halves {
				v := statMean(table, n, h, c.metric)
				s := c.format(v)
				if b, ok := best[[2]string{c.metric, h}]; ok && !bold && !math.IsNaN(v) && c.format(v) == c.format(b) {
					s += " †"
				}
				p(" %s |", cell(s))
			}
		}
		p("\n")
	}
	p("\n")
}

// WriteJSON writes results.json: the command, the machine, the
// configuration and every set's results, indented at the top and one line
// per seed and per split-evaluated name, so that it stays readable and
// diffable while holding every number.
func (r *Report) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriter(w)
	res := r.Results
	fmt.Fprintf(bw, "{\n  \"command\": %s,\n  \"machine\": %s,\n  \"config\": %s,\n", format.JSON(r.Command), format.JSON(r.Machine), format.JSON(res.Config))
	fmt.Fprintf(bw, "  \"started\": %s,\n  \"finished\": %s,\n  \"wall_seconds\": %s,\n  \"sets\": [", format.JSON(res.Started), format.JSON(res.Finished), format.JSON(res.Seconds))
	for k, s := range res.Sets {
		if k > 0 {
			fmt.Fprint(bw, ",")
		}
		head := *s
		head.Seeds, head.Splits = nil, nil
		b := format.JSON(head)
		fmt.Fprintf(bw, "\n    %s,\n    \"seeds\": [", strings.TrimSuffix(b, "}"))
		format.JSONLines(bw, "      ", s.Seeds)
		fmt.Fprintf(bw, "\n    ],\n    \"splits\": [")
		format.JSONLines(bw, "      ", s.Splits)
		fmt.Fprintf(bw, "\n    ]}")
	}
	fmt.Fprintf(bw, "\n  ]\n}\n")
	return bw.Flush()
}
