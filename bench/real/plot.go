package real

import (
	"fmt"
	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"image/color"
	"math"
	"path/filepath"
	"strconv"

	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/plots"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// setColors tell the real sets apart in the plots (Okabe–Ito).
var setColors = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // green
	{0xCC, 0x79, 0xA7, 0xff}, // purple
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
}

func setColor(k int) color.RGBA { return setColors[k%len(setColors)] }

// tint mixes c with white: t = 0 is c, 1 white.
func tint(c color.RGBA, t float64) color.RGBA {
	mix := func(x uint8) uint8 { return uint8(float64(x) + t*(255-float64(x))) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

// barSeries is one series of bars: a value per category, shown with a
// colour and a legend label.
type barSeries struct {
	label  string
	values plotter.Values
	color  color.RGBA
}

// barPlot draws grouped bars, one group per category, and saves it.
func barPlot(p *plot.Plot, file string, categories []string, series []barSeries, extra func(p *plot.Plot, w vg.Length) error) error {
	n := len(series)
	w := vg.Points(math.Max(3, math.Min(12, 60/float64(max(n, 1)))))
	for k, s := range series {
		vals := make(plotter.Values, len(s.values))
		for i, v := range s.values {
			if !math.IsNaN(v) {
				vals[i] = v
			}
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		b.Color = s.color
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(float64(k)-float64(n-1)/2)
		p.Add(b)
		p.Legend.Add(s.label, b)
	}
	if extra != nil {
		if err := extra(p, w); err != nil {
			return err
		}
	}
	plots.CellAxis(p, categories)
	width := vg.Length(math.Max(6, 0.12*float64(n*len(categories))+1.5)) * vg.Inch
	return p.Save(width, 4.8*vg.Inch, file)
}

// shade is one metric of a grouped bar plot: its bars take the set's
// colour tinted by t.
type shade struct {
	metric, label string
	t             float64
}

// WritePlots draws the real benchmark's pictures into dir and returns their
// file names: real-detection.png (AUC and AUC within degree bins per method
// and set), real-ari.png (ARI per splitter and set: all split-evaluated
// names, 2 persons, 3+) and real-groups.png (groups proposed per splitter,
// and the engine's entity estimate, against the true number of persons).
func (r *Report) WritePlots(dir string) ([]string, error) {
	res := r.Results
	var sets []*SetResult
	for _, s := range res.Sets {
		if s.Summary != nil {
			sets = append(sets, s)
		}
	}
	if len(sets) == 0 {
		return nil, nil
	}
	var files []string
	methods, splitters := r.methods(), r.splitters()
	for _, pl := range []struct {
		file, title, ylabel string
		names               []string
		def                 string
		stats               func(*SetSummary) map[string]map[string]map[string]metrics.Stat
		shades              []shade
	}{
		{"real-detection.png", "Detection on real ambiguity (all labelled names; light: within degree bins)", "AUC",
			methods, res.Config.DefaultMethod, func(s *SetSummary) map[string]map[string]map[string]metrics.Stat { return s.Detection },
			[]shade{{MetricAUC, "AUC", 0}, {MetricAUCBins, "within bins", 0.55}}},
		{"real-top.png", "The top of the ranking on real ambiguity (all labelled names; dark: P@20, mid: P@100, light: P@1%)", "precision",
			methods, res.Config.DefaultMethod, func(s *SetSummary) map[string]map[string]map[string]metrics.Stat { return s.Detection },
			[]shade{{MetricP20, "P@20", 0}, {MetricP100, "P@100", 0.4}, {MetricP1, "P@1%", 0.7}}},
		{"real-ari.png", "Splitting on real ambiguity: ARI (dark: all, mid: 2 persons, light: 3+)", "ARI",
			splitters, res.Config.DefaultSplitter, func(s *SetSummary) map[string]map[string]map[string]metrics.Stat { return s.Splitting },
			[]shade{{MetricARI, "all", 0}, {MetricARI2, "2 persons", 0.4}, {MetricARI3, "3+ persons", 0.7}}},
	} {
		p := plots.New(pl.title, "", pl.ylabel)
		p.Y.Min, p.Y.Max = 0, 1.35
		p.Y.Tick.Marker = plots.UnitTicks{}
		var series []barSeries
		for k, s := range sets {
			for _, m := range pl.shades {
				vals := make(plotter.Values, len(pl.names))
				for i, name := range pl.names {
					vals[i] = statMean(pl.stats(s.Summary), name, HalfAll, m.metric)
				}
				series = append(series, barSeries{s.Name + " " + m.label, vals, tint(setColor(k), m.t)})
			}
		}
		if err := barPlot(p, filepath.Join(dir, pl.file), markDefault(pl.names, pl.def), series, nil); err != nil {
			return files, err
		}
		files = append(files, pl.file)
	}
	{
		file, err := r.groupsPlot(dir, sets, splitters)
		if err != nil {
			return files, err
		}
		files = append(files, file)
	}
	return files, nil
}

// groupsPlot draws real-groups.png: the mean number of groups each
// splitter proposes on the split-evaluated names, and the engine's entity
// estimate, per set, with the true mean number of persons as a dashed
// line. The axis stops at 2.5 times the largest true mean; taller bars are
// cut there and carry their value.
func (r *Report) groupsPlot(dir string, sets []*SetResult, splitters []string) (string, error) {
	p := plots.New("Groups proposed on the split-evaluated names (dashed: true persons)", "", "mean number of groups")
	cats := append(markDefault(splitters, r.Results.Config.DefaultSplitter), "entities (estimate)")
	top := 0.0
	for _, s := range sets {
		if v := float64(s.SplitPersons); !math.IsNaN(v) {
			top = math.Max(top, 2.5*v)
		}
	}
	top = math.Max(4, math.Ceil(top))
	var series []barSeries
	var cut []plotter.XY
	var cutText []string
	var cutSeries []int
	for k, s := range sets {
		vals := make(plotter.Values, len(cats))
		for i, name := range splitters {
			vals[i] = statMean(s.Summary.Splitting, name, HalfAll, MetricGroups)
		}
		vals[len(splitters)] = statMean(s.Summary.Entities, EstimatorEntities, HalfAll, MetricSplitMean)
		for i, v := range vals {
			if v > top {
				cut = append(cut, plotter.XY{X: float64(i), Y: top})
				cutText = append(cutText, f1(v))
				cutSeries = append(cutSeries, k)
				vals[i] = top
			}
		}
		series = append(series, barSeries{s.Name, vals, setColor(k)})
	}
	p.Y.Min, p.Y.Max = 0, top*1.3
	p.Y.Tick.Marker = intTicks{top}
	extra := func(p *plot.Plot, w vg.Length) error {
		for k, s := range sets {
			v := float64(s.SplitPersons)
			if math.IsNaN(v) {
				continue
			}
			l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: v}, {X: float64(len(cats)) - 0.5, Y: v}})
			if err != nil {
				return err
			}
			l.Color = setColor(k)
			l.Width = vg.Points(1.2)
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			p.Add(l)
			p.Legend.Add(fmt.Sprintf("%s: %.1f persons", s.Name, v), l)
		}
		for c, xy := range cut {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{xy}, Labels: []string{cutText[c]}})
			if err != nil {
				return err
			}
			off := w * vg.Length(float64(cutSeries[c])-float64(len(sets)-1)/2)
			lb.Offset = vg.Point{X: off - vg.Points(6), Y: vg.Points(2)}
			lb.TextStyle[0].Font.Size = vg.Points(8)
			p.Add(lb)
		}
		return nil
	}
	if err := barPlot(p, filepath.Join(dir, "real-groups.png"), cats, series, extra); err != nil {
		return "", err
	}
	return "real-groups.png", nil
}

// intTicks marks whole numbers from 0 up to max, about eight of them.
type intTicks struct{ max float64 }

func (t intTicks) Ticks(lo, hi float64) []plot.Tick {
	step := math.Max(1, math.Ceil(t.max/8))
	var out []plot.Tick
	for x := 0.0; x <= t.max+1e-9; x += step {
		out = append(out, plot.Tick{Value: x, Label: strconv.Itoa(int(x))})
	}
	return out
}

// markDefault labels the default among names.
func markDefault(names []string, def string) []string {
	out := make([]string, len(names))
	for k, n := range names {
		out[k] = n
		if n == def {
			out[k] = n + " (default)"
		}
	}
	return out
}
