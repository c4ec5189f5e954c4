package bench

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"

	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/format"
	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/plots"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// methodColors gives every method and splitter a fixed colour across plots
// (mostly the Okabe–Ito palette, readable for colour-blind people).
var methodColors = map[string]color.RGBA{
	"combined":  {0x00, 0x00, 0x00, 0xff}, // black: the default method
	"fondue":    {0xD5, 0x5E, 0x00, 0xff}, // vermillion
	"lcc":       {0xCC, 0x79, 0xA7, 0xff}, // purple
	"nc":        {0x00, 0x72, 0xB2, 0xff}, // blue
	"cc":        {0x00, 0x9E, 0x73, 0xff}, // green
	"degree":    {0x99, 0x99, 0x99, 0xff}, // grey
	"ncut":      {0x00, 0x00, 0x00, 0xff}, // black: the default splitter
	"mcl":       {0x00, 0x72, 0xB2, 0xff},
	"spectral":  {0x00, 0x9E, 0x73, 0xff},
	"posterior": {0xCC, 0x79, 0xA7, 0xff}, // purple
	"hybrid":    {0x56, 0xB4, 0xE9, 0xff}, // sky blue
	"mcl2":      {0xE6, 0x9F, 0x00, 0xff}, // orange
	"2means":    {0x8C, 0x56, 0x4B, 0xff}, // brown
	// The component baselines of real ambiguity.
	"ego-components":     {0xF0, 0xE4, 0x42, 0xff}, // yellow
	"two-hop-components": {0x66, 0x66, 0x66, 0xff}, // dark grey
}

var extraColors = []color.RGBA{
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
	{0x66, 0x66, 0x66, 0xff},
	{0xE6, 0x9F, 0x00, 0xff},
	{0xCC, 0x79, 0xA7, 0xff},
}

func colorOf(name string, k int) color.RGBA {
	if c, ok := methodColors[name]; ok {
		return c
	}
	return extraColors[k%len(extraColors)]
}

// WritePlots draws the pictures into dir and returns their file names:
// auc-<dataset>.png (per dataset, every method's mean AUC at every ratio
// run, with standard-error bars and the paper's FONDUE), roc-<dataset>.png
// (per dataset, at the largest ratio it ran, every method's ROC averaged
// vertically over the seeds), auc-bars.png (AUC per method and dataset at
// that ratio, with the paper's FONDUE as a marker) and ari-cells.png (ARI
// per splitter and cell, as markers).
func (r *Report) WritePlots(dir string) ([]string, error) {
	var files []string
	methods := r.reportMethods()
	for _, name := range r.Results.Config.Datasets {
		f, err := r.aucDatasetPlot(dir, name, methods)
		if err != nil {
			return files, err
		}
		if f != "" {
			files = append(files, f)
		}
	}
	picks := r.largestRatioCells()
	for _, pk := range picks {
		f, err := r.rocPlot(dir, pk, methods)
		if err != nil {
			return files, err
		}
		files = append(files, f)
	}
	if len(picks) > 0 {
		f, err := r.aucBarsPlot(dir, picks, methods)
		if err != nil {
			return files, err
		}
		files = append(files, f)
		if f, err = r.topBarsPlot(dir, picks, methods); err != nil {
			return files, err
		}
		if f != "" {
			files = append(files, f)
		}
	}
	f, err := r.ariCellsPlot(dir)
	if err != nil {
		return files, err
	}
	if f != "" {
		files = append(files, f)
	}
	slices.Sort(files)
	return files, nil
}

// datasetPick is a dataset's cell at the largest ratio with identification
// results.
type datasetPick struct {
	d string
	c *CellSummary
}

// largestRatioCells picks, per dataset in the configured order, the cell at
// the largest ratio with identification results.
func (r *Report) largestRatioCells() []datasetPick {
	var picks []datasetPick
	for _, name := range r.Results.Config.Datasets {
		var best *CellSummary
		for k := range r.Results.Cells {
			c := &r.Results.Cells[k]
			if c.Dataset == name && !c.Skipped && len(c.Methods) > 0 && (best == nil || c.Ratio > best.Ratio) {
				best = c
			}
		}
		if best != nil {
			picks = append(picks, datasetPick{name, best})
		}
	}
	return picks
}

// maxSeeds is the largest number of seeds behind any method's AUC in cells.
func maxSeeds(cells ...*CellSummary) int {
	seeds := 0
	for _, c := range cells {
		for _, ms := range c.Methods {
			seeds = max(seeds, ms.AUC.N)
		}
	}
	return seeds
}

// rocPlot draws roc-<dataset>.png: every method's ROC in the picked cell,
// averaged vertically over the seeds, with the diagonal.
func (r *Report) rocPlot(dir string, pk datasetPick, methods []string) (string, error) {
	c := pk.c
	d, _ := r.Paper.Dataset(pk.d)
	p := plots.New(fmt.Sprintf("%s, r = %s (q = %d): ROC averaged over %d seeds", d.Paper, RatioLabel(c.Ratio), c.Ambiguous, maxSeeds(c)),
		"false positive rate", "true positive rate")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	diag := plotter.NewFunction(func(x float64) float64 { return x })
	diag.Color = color.RGBA{0xbb, 0xbb, 0xbb, 0xff}
	diag.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(diag)
	for k, m := range methods {
		ms, ok := c.Methods[m]
		if !ok || len(ms.ROC) == 0 {
			continue
		}
		l, err := rocLine(ms.ROC, colorOf(m, k), m == methods[0])
		if err != nil {
			return "", err
		}
		p.Add(l)
		label := fmt.Sprintf("%s (AUC %s)", m, format.F3(ms.AUC.Mean))
		if pv, ok := r.Paper.AUC.Get(pk.d, c.Ratio, m); ok {
			label += fmt.Sprintf(", paper %s", format.F3(pv))
		}
		p.Legend.Add(label, l)
	}
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(6)
	p.Legend.YOffs = vg.Points(6)
	p.Add(plotter.NewGrid())
	name := "roc-" + pk.d + ".png"
	if err := p.Save(6*vg.Inch, 5*vg.Inch, filepath.Join(dir, name)); err != nil {
		return "", err
	}
	return name, nil
}

// rocLine is the line of an ROC grid (true positive rates at evenly spaced
// false positive rates); the default method's is thicker.
func rocLine(roc []float64, c color.RGBA, isDefault bool) (*plotter.Line, error) {
	pts := make(plotter.XYs, len(roc))
	for i, v := range roc {
		pts[i].X = float64(i) / float64(len(roc)-1)
		pts[i].Y = v
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color = c
	l.Width = vg.Points(2)
	if isDefault {
		l.Width = vg.Points(2.8)
	}
	return l, nil
}

// aucBarsPlot draws auc-bars.png: a bar per method and picked cell, with the
// paper's FONDUE as a square on our FONDUE's bar.
func (r *Report) aucBarsPlot(dir string, picks []datasetPick, methods []string) (string, error) {
	p := plots.New("Identification AUC per dataset (largest ratio run; squares: the paper's FONDUE)", "", "AUC")
	p.Y.Min, p.Y.Max = 0, 1.35 // room for the legend above the bars
	p.Y.Tick.Marker = plots.UnitTicks{}
	w := vg.Points(12)
	if len(picks) > 6 {
		w = vg.Points(8)
	}
	var names []string
	for _, pk := range picks {
		d, _ := r.Paper.Dataset(pk.d)
		names = append(names, fmt.Sprintf("%s %s", d.Paper, RatioLabel(pk.c.Ratio)))
	}
	shown := 0
	for k, m := range methods {
		vals, have := methodAUCs(picks, m)
		if !have {
			continue
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return "", err
		}
		b.Color = colorOf(m, k)
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(float64(shown)-float64(len(methods)-1)/2)
		shown++
		p.Add(b)
		p.Legend.Add(m, b)
		if m == "fondue" {
			if err := r.addPaperFondueOnBars(p, picks, b.Offset); err != nil {
				return "", err
			}
		}
	}
	plots.CellAxis(p, names)
	width := vg.Length(math.Max(6, 1.1*float64(len(picks)))) * vg.Inch
	if err := p.Save(width, 4.5*vg.Inch, filepath.Join(dir, "auc-bars.png")); err != nil {
		return "", err
	}
	return "auc-bars.png", nil
}

// topBarsPlot draws top-bars.png: a bar per method and picked cell, the
// precision at 1% of the ranked nodes, with a random order's as a line of
// squares; "" when no cell measured it.
func (r *Report) topBarsPlot(dir string, picks []datasetPick, methods []string) (string, error) {
	p := plots.New("Precision at 1% of the ranked nodes (largest ratio run; squares: a random order's)", "", "P@1%")
	p.Y.Min, p.Y.Max = 0, 1.35
	p.Y.Tick.Marker = plots.UnitTicks{}
	w := vg.Points(12)
	if len(picks) > 6 {
		w = vg.Points(8)
	}
	var names []string
	random := make(plotter.XYs, len(picks))
	for i, pk := range picks {
		d, _ := r.Paper.Dataset(pk.d)
		names = append(names, fmt.Sprintf("%s %s", d.Paper, RatioLabel(pk.c.Ratio)))
		random[i].X = float64(i)
		for _, ms := range pk.c.Methods {
			if ms.Random.N > 0 {
				random[i].Y = ms.Random.Mean
			}
		}
	}
	shown := 0
	for k, m := range methods {
		vals := make(plotter.Values, len(picks))
		have := false
		for i, pk := range picks {
			if ms, ok := pk.c.Methods[m]; ok && ms.P1.N > 0 {
				vals[i], have = ms.P1.Mean, true
			}
		}
		if !have {
			continue
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return "", err
		}
		b.Color = colorOf(m, k)
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(float64(shown)-float64(len(methods)-1)/2)
		shown++
		p.Add(b)
		p.Legend.Add(m, b)
	}
	if shown == 0 {
		return "", nil
	}
	sc, err := plotter.NewScatter(random)
	if err != nil {
		return "", err
	}
	sc.GlyphStyle.Shape = draw.BoxGlyph{}
	p.Add(sc)
	plots.CellAxis(p, names)
	width := vg.Length(math.Max(6, 1.1*float64(len(picks)))) * vg.Inch
	if err := p.Save(width, 4.5*vg.Inch, filepath.Join(dir, "top-bars.png")); err != nil {
		return "", err
	}
	return "top-bars.png", nil
}

// methodAUCs is a method's mean AUC in each picked cell (0 where it did not
// run) and whether it ran in any.
func methodAUCs(picks []datasetPick, m string) (plotter.Values, bool) {
	vals := make(plotter.Values, len(picks))
	have := false
	for i, pk := range picks {
		vals[i] = math.NaN()
		if ms, ok := pk.c.Methods[m]; ok {
			vals[i] = ms.AUC.Mean
			have = true
		}
	}
	if !have {
		return vals, false
	}
	for i := range vals {
		if math.IsNaN(vals[i]) {
			vals[i] = 0
		}
	}
	return vals, true
}

// addPaperFondueOnBars adds the paper's FONDUE AUC of each picked cell as
// a square on top of our FONDUE's bar (shifted by off).
func (r *Report) addPaperFondueOnBars(p *plot.Plot, picks []datasetPick, off vg.Length) error {
	var pts plotter.XYs
	for i, pk := range picks {
		if pv, ok := r.Paper.AUC.Get(pk.d, pk.c.Ratio, "fondue"); ok {
			pts = append(pts, plotter.XY{X: float64(i), Y: pv})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Shape = draw.BoxGlyph{}
	sc.GlyphStyle.Radius = vg.Points(3.5)
	sc.GlyphStyle.Color = color.Black
	p.Add(offsetScatter{sc, off})
	p.Legend.Add("paper FONDUE", sc)
	return nil
}

// ariCellsPlot draws ari-cells.png: ARI per cell, one marker per splitter,
// side by side; lines join the default splitter's and MCL's markers. Bars
// were unreadable with eight splitters over sixteen cells.
// It returns "" when no cell has splitting results.
func (r *Report) ariCellsPlot(dir string) (string, error) {
	var cells []*CellSummary
	for k := range r.Results.Cells {
		c := &r.Results.Cells[k]
		if !c.Skipped && len(c.Splitters) > 0 {
			cells = append(cells, c)
		}
	}
	splitters := r.Results.Config.Splitters
	if len(cells) == 0 || len(splitters) == 0 {
		return "", nil
	}
	p := plots.New("Splitting ARI per cell (mean over seeds and ambiguous nodes)", "", "ARI")
	p.Y.Max = 1.55 // room for the legend above the markers
	p.Y.Tick.Marker = plots.UnitTicks{}
	var names []string
	for _, c := range cells {
		d, _ := r.Paper.Dataset(c.Dataset)
		names = append(names, fmt.Sprintf("%s %s", d.Paper, RatioLabel(c.Ratio)))
	}
	n := float64(len(splitters))
	spread := math.Min(0.08, 0.7/n)
	for k, s := range splitters {
		var pts plotter.XYs
		for i, c := range cells {
			if ss, ok := c.Splitters[s]; ok {
				pts = append(pts, plotter.XY{X: float64(i) + spread*(float64(k)-(n-1)/2), Y: ss.ARI.Mean})
			}
		}
		if err := addSplitterMarkers(p, pts, s, k); err != nil {
			return "", err
		}
	}
	plots.CellAxis(p, names)
	p.Y.Min = math.Min(0, p.Y.Min)
	width := vg.Length(math.Max(6, 0.55*float64(len(cells))+1.5)) * vg.Inch
	if err := p.Save(width, 5*vg.Inch, filepath.Join(dir, "ari-cells.png")); err != nil {
		return "", err
	}
	return "ari-cells.png", nil
}

// splitterShapes are the markers of the splitters, in their order.
var splitterShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{},
	draw.RingGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// addSplitterMarkers adds the k-th splitter's markers, larger circles for
// the default (k = 0), and a line through them for the default and MCL.
func addSplitterMarkers(p *plot.Plot, pts plotter.XYs, s string, k int) error {
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Color = colorOf(s, k)
	sc.GlyphStyle.Shape = splitterShapes[k%len(splitterShapes)]
	sc.GlyphStyle.Radius = vg.Points(3.2)
	label := s
	if k == 0 {
		label += " (default)"
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(4.5)
	}
	if k == 0 || s == "mcl" {
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = colorOf(s, k)
		l.Width = vg.Points(1)
		if s == "mcl" {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l)
	}
	p.Add(sc)
	p.Legend.Add(label, sc)
	return nil
}

// offsetScatter draws a scatter shifted horizontally by a fixed length, to
// sit on top of an offset bar.
type offsetScatter struct {
	*plotter.Scatter
	off vg.Length
}

func (s offsetScatter) Plot(c draw.Canvas, p *plot.Plot) {
	c.Push()
	c.Translate(vg.Point{X: s.off})
	s.Scatter.Plot(c, p)
	c.Pop()
}

// aucDatasetPlot draws auc-<dataset>.png: for every ratio run on the
// dataset, each method's mean AUC over the seeds as a marker with a bar of
// one standard error either side, and the paper's FONDUE as a square
// outline at our FONDUE's position.
// It returns "" when the dataset has no identification results.
func (r *Report) aucDatasetPlot(dir, name string, methods []string) (string, error) {
	var cells []*CellSummary
	for k := range r.Results.Cells {
		c := &r.Results.Cells[k]
		if c.Dataset == name && !c.Skipped && len(c.Methods) > 0 {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return "", nil
	}
	d, _ := r.Paper.Dataset(name)
	p := plots.New(fmt.Sprintf("%s: AUC per method (mean of %d seeds ± 1 SE)", d.Paper, maxSeeds(cells...)), "contraction ratio", "AUC")
	pos := markerPositions{n: float64(len(methods))}
	pos.spread = math.Min(0.1, 0.8/(pos.n+1))
	lo := 1.0
	for k, m := range methods {
		low, err := addMethodAUCMarkers(p, cells, m, k, pos)
		if err != nil {
			return "", err
		}
		lo = math.Min(lo, low)
	}
	low, err := r.addPaperFondueMarkers(p, name, cells, methods, pos)
	if err != nil {
		return "", err
	}
	lo = math.Min(lo, low)
	var names []string
	for _, c := range cells {
		names = append(names, fmt.Sprintf("r = %s (q = %d)", RatioLabel(c.Ratio), c.Ambiguous))
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(cells))-0.4+0.9 // room for the legend on the right
	p.Y.Min = math.Max(0, math.Floor(lo*20)/20-0.05)
	p.Y.Max = 1
	p.Legend.Top = false
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	file := "auc-" + name + ".png"
	width := vg.Length(math.Max(5, 1.8*float64(len(cells))+2.5)) * vg.Inch
	if err := p.Save(width, 4.5*vg.Inch, filepath.Join(dir, file)); err != nil {
		return "", err
	}
	return file, nil
}

// markerPositions places the markers of n methods side by side, spread
// apart, around each cell's position on the x axis.
type markerPositions struct {
	n, spread float64
}

// x is the position of the k-th method's marker in the i-th cell.
func (mp markerPositions) x(i int, k float64) float64 {
	return float64(i) + mp.spread*(k-(mp.n-1)/2)
}

// addMethodAUCMarkers adds the k-th method's mean AUC per cell as a marker
// with a bar of one standard error either side. It returns the lowest value
// drawn (1 when none).
func addMethodAUCMarkers(p *plot.Plot, cells []*CellSummary, m string, k int, pos markerPositions) (float64, error) {
	lo := 1.0
	var pts plotter.XYs
	var errs plotter.YErrors
	for i, c := range cells {
		ms, ok := c.Methods[m]
		if !ok {
			continue
		}
		se := 0.0
		if ms.AUC.N > 1 {
			se = ms.AUC.SD / math.Sqrt(float64(ms.AUC.N))
		}
		pts = append(pts, plotter.XY{X: pos.x(i, float64(k)), Y: ms.AUC.Mean})
		errs = append(errs, struct{ Low, High float64 }{se, se})
		lo = math.Min(lo, ms.AUC.Mean-se)
	}
	if len(pts) == 0 {
		return lo, nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return lo, err
	}
	sc.GlyphStyle.Color = colorOf(m, k)
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Radius = vg.Points(3.5)
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{pts, errs})
	if err != nil {
		return lo, err
	}
	eb.LineStyle.Color = colorOf(m, k)
	eb.LineStyle.Width = vg.Points(1.2)
	p.Add(eb, sc)
	label := m
	if k == 0 {
		label += " (default)"
	}
	p.Legend.Add(label, sc)
	return lo, nil
}

// addPaperFondueMarkers adds the paper's FONDUE AUC per cell as a square
// outline around our FONDUE's marker. It returns the lowest value drawn (1
// when none).
func (r *Report) addPaperFondueMarkers(p *plot.Plot, name string, cells []*CellSummary, methods []string, pos markerPositions) (float64, error) {
	lo := 1.0
	var paper plotter.XYs
	at := float64(max(0, slices.Index(methods, "fondue")))
	for i, c := range cells {
		if pv, ok := r.Paper.AUC.Get(name, c.Ratio, "fondue"); ok {
			paper = append(paper, plotter.XY{X: pos.x(i, at), Y: pv})
			lo = math.Min(lo, pv)
		}
	}
	if len(paper) == 0 {
		return lo, nil
	}
	sc, err := plotter.NewScatter(paper)
	if err != nil {
		return lo, err
	}
	sc.GlyphStyle.Shape = draw.SquareGlyph{} // an outline around our FONDUE's marker
	sc.GlyphStyle.Radius = vg.Points(5.5)
	sc.GlyphStyle.Color = color.Black
	p.Add(sc)
	p.Legend.Add("paper FONDUE", sc)
	return lo, nil
}
