// Package plots is the look both reports of the bench give their plots:
// fonts (New), an axis of named cells (CellAxis) and ticks that leave room
// for the legend (UnitTicks).
package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// New returns a plot with a title, axis labels and the reports' fonts.
func New(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	p.X.Tick.Label.Font.Size = vg.Points(10)
	p.Y.Tick.Label.Font.Size = vg.Points(10)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	return p
}

// CellAxis labels the x axis with one slanted name per cell, puts the
// legend top left and adds the grid.
func CellAxis(p *plot.Plot, names []string) {
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign = draw.XRight
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(6)
	p.Add(plotter.NewGrid())
}

// UnitTicks marks 0, 0.2, ..., 1 only, so that the room left above 1 for
// the legend has no ticks.
type UnitTicks struct{}

// Ticks returns the ticks of [lo, hi] among -1, -0.8, ..., 1.
func (UnitTicks) Ticks(lo, hi float64) []plot.Tick {
	var t []plot.Tick
	for k := -5; k <= 5; k++ {
		x := float64(k) / 5
		if x < lo-1e-9 || x > math.Min(hi, 1)+1e-9 {
			continue
		}
		t = append(t, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)})
	}
	return t
}
