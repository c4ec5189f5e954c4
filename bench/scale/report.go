package scale

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Summary is the median of a case's runs with one binary.
type Summary struct {
	Case   string
	Binary string
	Runs   int
	Median Run
}

// Summarize groups the normal runs (not the double-epoch checks) by case and
// binary, and takes per-field medians.
func Summarize(runs []Run) []Summary {
	var out []Summary
	index := map[[2]string]int{}
	var groups [][]Run
	for _, r := range runs {
		if r.DoubleEpochs {
			continue
		}
		k := [2]string{r.Case, r.Binary}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
			out = append(out, Summary{Case: r.Case, Binary: r.Binary})
		}
		groups[i] = append(groups[i], r)
	}
	for i, g := range groups {
		med := g[0]
		pick := func(f func(Run) float64) float64 {
			v := make([]float64, len(g))
			for k, r := range g {
				v[k] = f(r)
			}
			return median(v)
		}
		med.WallS = pick(func(r Run) float64 { return r.WallS })
		med.LoadS = pick(func(r Run) float64 { return r.LoadS })
		med.PriorS = pick(func(r Run) float64 { return r.PriorS })
		med.EmbeddingS = pick(func(r Run) float64 { return r.EmbeddingS })
		med.ScoringS = pick(func(r Run) float64 { return r.ScoringS })
		med.PeakRSSMB = pick(func(r Run) float64 { return r.PeakRSSMB })
		med.CPUS = pick(func(r Run) float64 { return r.CPUS })
		med.AUC = pick(func(r Run) float64 { return r.AUC })
		med.Epochs = int(pick(func(r Run) float64 { return float64(r.Epochs) }))
		for _, r := range g {
			med.PeakFromRusage = med.PeakFromRusage || r.PeakFromRusage
			med.Reused = med.Reused || r.Reused
		}
		out[i].Runs = len(g)
		out[i].Median = med
	}
	return out
}

// WriteMarkdown writes the results table, the baseline ratios and the
// double-epoch checks.
func WriteMarkdown(w io.Writer, runs []Run, header string) error {
	sums := Summarize(runs)
	fmt.Fprintf(w, "%s\n\n", header)
	fmt.Fprintln(w, "| case | binary | nodes | edges | runs | wall s | load s | prior s | CNE s | scores s | epochs | CPU s | peak RSS MB | estimate MB | AUC |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	rusage := false
	for _, s := range sums {
		m := s.Median
		mark := ""
		if m.PeakFromRusage {
			mark, rusage = "†", true
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %.1f | %.2f | %.3f | %.1f | %.2f | %d | %.1f | %.0f%s | %.0f | %s |\n",
			s.Case, s.Binary, m.Nodes, m.Edges, s.Runs, m.WallS, m.LoadS, m.PriorS, m.EmbeddingS, m.ScoringS, m.Epochs, m.CPUS, m.PeakRSSMB, mark, m.EstimateMB, auc(m.AUC, false))
	}
	writeTop(w, sums)
	var reused []string
	for _, s := range sums {
		if s.Median.Reused {
			reused = append(reused, fmt.Sprintf("%s (%s)", s.Case, s.Binary))
		}
	}
	if len(reused) > 0 {
		fmt.Fprintf(w, "\nReused from earlier results (--reuse), not run again: %s.\n", strings.Join(reused, ", "))
	}
	if rusage {
		fmt.Fprint(w, "\n† wait's maxrss: that binary does not log its own peak. Linux starts the figure at the resident memory of the program that started it (generating a graph takes memory), so it is an upper bound of the run's peak.\n")
	}
	byKey := map[[2]string]Run{}
	for _, s := range sums {
		byKey[[2]string{s.Case, s.Binary}] = s.Median
	}
	var under []string
	estimated := 0
	for _, s := range sums {
		if s.Median.EstimateMB > 0 {
			estimated++
		}
		if m := s.Median; m.EstimateMB > 0 && m.EstimateMB < m.PeakRSSMB {
			how := "measured"
			if m.PeakFromRusage {
				how = "measured by wait's maxrss, an upper bound"
			}
			under = append(under, fmt.Sprintf("%s (%s): %.0f MB estimated, %.0f MB %s", s.Case, s.Binary, m.EstimateMB, m.PeakRSSMB, how))
		}
	}
	if len(under) > 0 {
		fmt.Fprintf(w, "\n**The memory estimate is below the measured peak** in %d case(s): %s.\n", len(under), strings.Join(under, "; "))
	} else if estimated > 0 {
		fmt.Fprint(w, "\nThe memory estimate is at or above the measured peak in every case.\n")
	}
	for _, ref := range []struct{ binary, what string }{
		{BinaryBaseline, "the baseline binary"},
		{BinaryPrevious, "the previous results (--compare)"},
	} {
		first := true
		for _, s := range sums {
			b, ok := byKey[[2]string{s.Case, ref.binary}]
			if s.Binary != BinaryMain || !ok {
				continue
			}
			if first {
				fmt.Fprintf(w, "\nAgainst %s (medians; ratio > 1 means this version is faster):\n\n", ref.what)
				fmt.Fprintln(w, "| case | wall ratio | CPU ratio | CNE ratio | epochs now / then | peak RSS now / then | AUC now - then |")
				fmt.Fprintln(w, "|---|---:|---:|---:|---|---:|---:|")
				first = false
			}
			m := s.Median
			fmt.Fprintf(w, "| %s | %.2f | %.2f | %.2f | %d / %d | %.2f | %s |\n", s.Case, b.WallS/m.WallS, b.CPUS/m.CPUS,
				b.EmbeddingS/m.EmbeddingS, m.Epochs, b.Epochs, m.PeakRSSMB/b.PeakRSSMB, auc(m.AUC-b.AUC, true))
		}
	}
	first := true
	for _, r := range runs {
		if !r.DoubleEpochs {
			continue
		}
		m := byKey[[2]string{r.Case, BinaryMain}]
		if first {
			fmt.Fprint(w, "\nEarly stopping check: the same run with twice the epochs and no early stop:\n\n")
			fmt.Fprintln(w, "| case | epochs | AUC | epochs x2 | AUC x2 | difference |")
			fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
			first = false
		}
		fmt.Fprintf(w, "| %s | %d | %s | %d | %s | %s |\n", r.Case, m.Epochs, auc(m.AUC, false), r.Epochs, auc(r.AUC, false), auc(m.AUC-r.AUC, true))
	}
	return nil
}

// auc formats an AUC (or a difference of two, with a sign); NaN, the AUC of
// a case without planted nodes, is "n/a".
func auc(x float64, signed bool) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case signed:
		return fmt.Sprintf("%+.4f", x)
	}
	return fmt.Sprintf("%.4f", x)
}

// MarshalJSON writes an undefined AUC (NaN: no planted node) as null,
// which JSON can hold.
func (r Run) MarshalJSON() ([]byte, error) {
	type plain Run
	out := struct {
		plain
		AUC *float64 `json:"auc"`
	}{plain: plain(r)}
	if !math.IsNaN(r.AUC) {
		out.AUC = &r.AUC
	}
	return json.Marshal(out)
}

// WriteJSON writes every run.
func WriteJSON(path string, res *Results, config any) error {
	b, err := json.MarshalIndent(map[string]any{"config": config, "runs": res.Runs, "live": res.Live, "servers": res.Servers, "faults": res.Faults, "splits": res.Splits, "nights": res.Nights}, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// writeFileAtomic writes a file through a temporary file and a rename, so
// that a failed or interrupted write leaves the previous file whole.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// PlotCost draws wall time and peak memory against edges on log-log axes,
// with a line of slope 1 through the smallest case for reference. Runs of
// the baseline binary and previous results (--compare) are drawn dashed
// beside this version's.
func PlotCost(path string, runs []Run) error {
	curves := map[string][]Run{}
	for _, s := range Summarize(runs) {
		if s.Median.Edges > 0 {
			curves[s.Binary] = append(curves[s.Binary], s.Median)
		}
	}
	if len(curves[BinaryMain]) < 2 {
		return nil
	}
	p := plot.New()
	p.Title.Text = "fondue-neo4j score: cost against graph size"
	p.X.Label.Text = "edges"
	p.Y.Label.Text = "wall seconds / peak RSS in MB"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	// The curves climb from bottom left to top right: the legend goes in
	// the empty corner.
	p.Legend.Top, p.Legend.Left = false, false
	series := func(pts []Run, f func(Run) float64) plotter.XYs {
		xy := make(plotter.XYs, len(pts))
		for k, r := range pts {
			xy[k].X, xy[k].Y = float64(r.Edges), math.Max(f(r), 1e-3)
		}
		return xy
	}
	// style: 0 solid with points, 1 dashed with boxes (baseline), 2 dotted
	// reference line, 3 dash-dotted with triangles (previous).
	add := func(name string, xy plotter.XYs, style, k int) error {
		l, sc, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		l.Color = plotColors[k%len(plotColors)]
		sc.Color = l.Color
		switch style {
		case 1:
			l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			sc.Shape = draw.BoxGlyph{}
		case 2:
			l.Dashes = []vg.Length{vg.Points(2), vg.Points(3)}
			sc.Radius = 0
		case 3:
			l.Dashes = []vg.Length{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}
			sc.Shape = draw.TriangleGlyph{}
		}
		p.Add(l, sc)
		p.Legend.Add(name, l)
		return nil
	}
	linear := func(xy plotter.XYs) plotter.XYs {
		out := make(plotter.XYs, len(xy))
		for k := range xy {
			out[k].X = xy[k].X
			out[k].Y = xy[0].Y * xy[k].X / xy[0].X
		}
		return out
	}
	for _, b := range []string{BinaryMain, BinaryBaseline, BinaryPrevious} {
		pts := curves[b]
		if len(pts) < 2 {
			continue
		}
		slices.SortFunc(pts, func(a, b Run) int { return a.Edges - b.Edges })
		wall := series(pts, func(r Run) float64 { return r.WallS })
		rss := series(pts, func(r Run) float64 { return r.PeakRSSMB })
		label, style := "", 0
		switch b {
		case BinaryBaseline:
			label, style = " ("+b+")", 1
		case BinaryPrevious:
			label, style = " ("+b+")", 3
		}
		if err := add("wall time (s)"+label, wall, style, 0); err != nil {
			return err
		}
		if err := add("peak RSS (MB)"+label, rss, style, 1); err != nil {
			return err
		}
		if b == BinaryMain {
			if err := add("wall, linear in edges", linear(wall), 2, 0); err != nil {
				return err
			}
			if err := add("RSS, linear in edges", linear(rss), 2, 1); err != nil {
				return err
			}
		}
	}
	// Through a temporary file (its extension picks the format) and a
	// rename, like the other reports.
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+".*"+filepath.Ext(path))
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := p.Save(7*vg.Inch, 5*vg.Inch, tmp.Name()); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Report writes results.md, results.json and cost.png into dir, and for
// live cases live-time.png and live-memory.png.
func Report(dir string, res *Results, header string, config any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var sb strings.Builder
	if err := WriteMarkdown(&sb, res.Runs, header); err != nil {
		return err
	}
	WriteSplitMarkdown(&sb, res.Splits)
	WriteLiveMarkdown(&sb, res)
	WriteNightsMarkdown(&sb, res.Nights)
	if err := writeFileAtomic(filepath.Join(dir, "results.md"), []byte(sb.String())); err != nil {
		return err
	}
	if err := WriteJSON(filepath.Join(dir, "results.json"), res, config); err != nil {
		return err
	}
	if len(res.Live) > 0 {
		if err := PlotLive(filepath.Join(dir, "live-time.png"), filepath.Join(dir, "live-memory.png"), res); err != nil {
			return err
		}
	}
	if len(res.Runs) == 0 {
		return nil
	}
	return PlotCost(filepath.Join(dir, "cost.png"), res.Runs)
}

// ReadJSON reads the runs of a results.json that WriteJSON wrote, for
// comparing with a new run (--compare). The runs are relabelled as
// BinaryPrevious; a previous run's baseline and double-epoch runs are
// dropped.
func ReadJSON(path string) ([]Run, error) {
	all, err := ReadRuns(path)
	if err != nil {
		return nil, err
	}
	var runs []Run
	for _, r := range all {
		if r.Binary == BinaryMain && !r.DoubleEpochs {
			r.Binary = BinaryPrevious
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no runs of a main binary", path)
	}
	return runs, nil
}

// ReadRuns reads the main and baseline runs of a results.json that
// WriteJSON wrote, as they were (Config.Reuse); runs it had read with
// --compare are left out.
func ReadRuns(path string) ([]Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Runs []struct {
			Run
			AUC    *float64 `json:"auc"`
			Rusage *bool    `json:"peak_from_rusage"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var runs []Run
	for _, r := range doc.Runs {
		if r.Binary != BinaryMain && r.Binary != BinaryBaseline {
			continue
		}
		run := r.Run
		run.AUC = math.NaN()
		if r.AUC != nil {
			run.AUC = *r.AUC
		}
		// Files written before the field existed measured every peak
		// by wait's maxrss.
		run.PeakFromRusage = r.Rusage == nil || *r.Rusage
		runs = append(runs, run)
	}
	return runs, nil
}

// writeTop writes the head of each case's ranking against the planted
// nodes, and names the heads full of hubs.
func writeTop(w io.Writer, sums []Summary) {
	fmt.Fprintln(w, "\nThe top of the ranking (the planted nodes are the positives; random: their share, the precision of a random order; degrees are means):")
	fmt.Fprintln(w, "\n| case | binary | AUC | P@20 | P@100 | P@1% | random | degree, top 100 | degree, top 1% | degree, planted | hubs first |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, s := range sums {
		t := s.Median.Top
		if t.Ranked == 0 {
			continue // results written before the field
		}
		hubs := ""
		if t.Hubs() {
			hubs = fmt.Sprintf("**yes** (over %dx the planted)", metrics.HubFactor)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f | %.1f | %s |\n",
			s.Case, s.Binary, auc(s.Median.AUC, false), t.P20, t.P100, t.P1, t.Random, t.Deg100, t.Deg1, t.PosDeg, hubs)
	}
}

// WriteSplitMarkdown writes a table per case of the --split-top runs:
// medians by binary of the CPU (user + system) of score and of score with
// the split, the split's own (their difference, run by run), and what the
// split made.
func WriteSplitMarkdown(w io.Writer, splits []SplitRun) {
	var cases []string
	by := map[string]map[string][]SplitRun{}
	var binaries []string
	for _, s := range splits {
		if by[s.Case] == nil {
			cases = append(cases, s.Case)
			by[s.Case] = map[string][]SplitRun{}
		}
		by[s.Case][s.Binary] = append(by[s.Case][s.Binary], s)
		if !slices.Contains(binaries, s.Binary) {
			binaries = append(binaries, s.Binary)
		}
	}
	for _, c := range cases {
		top := 0
		for _, g := range by[c] {
			top = g[0].SplitTop
		}
		fmt.Fprintf(w, "\n`%s` with `--split --split-top %d` beside the same binary's plain `score` (medians; CPU is user + system; the split's own CPU is the difference, run by run; clones are groups beyond a node's first):\n\n", c, top)
		fmt.Fprintln(w, "| binary | runs | score CPU s | score + split CPU s | split's own CPU s | wall s | peak RSS MB | nodes split | clones | max groups | mean degree, split nodes |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, b := range binaries {
			g := by[c][b]
			if len(g) == 0 {
				continue
			}
			med := func(f func(SplitRun) float64) float64 {
				v := make([]float64, len(g))
				for k, s := range g {
					v[k] = f(s)
				}
				return median(v)
			}
			mark := ""
			if slices.ContainsFunc(g, func(s SplitRun) bool { return s.PeakFromRusage }) {
				mark = "†"
			}
			fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %+.1f | %.1f | %.0f%s | %.0f | %.0f | %.0f | %.1f |\n", b, len(g),
				med(func(s SplitRun) float64 { return s.ScoreCPUS }), med(func(s SplitRun) float64 { return s.CPUS }),
				med(func(s SplitRun) float64 { return s.ExtraCPUS }), med(func(s SplitRun) float64 { return s.WallS }),
				med(func(s SplitRun) float64 { return s.PeakRSSMB }), mark,
				med(func(s SplitRun) float64 { return float64(s.SplitNodes) }), med(func(s SplitRun) float64 { return float64(s.Clones) }),
				med(func(s SplitRun) float64 { return float64(s.MaxGroups) }), med(func(s SplitRun) float64 { return s.SplitDegree }))
		}
	}
}
