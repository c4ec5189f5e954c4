package bench

import (
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/format"
)

func (r *Report) writeSplit(p func(string, ...any)) {
	splitters := r.Results.Config.Splitters
	ratios := r.reportRatios()
	p("## Splitting: ARI (the paper's table split)\n\n")
	p("For every planted ambiguous node, the adjusted Rand index of the splitter's partition of its neighbours against their true origin, averaged over the nodes, then over seeds. Neighbours of both merged nodes have no true side: they are left out (the `shared` column counts them). Splitters: %s (the first is the default).\n\n", strings.Join(splitters, ", "))
	p("Each cell: one line per splitter, ours (the paper's, where it has one).\n\n")
	ratioHeader(p, ratios)
	for _, d := range r.reportDatasets(&r.Paper.ARI) {
		if !d.Available() && len(r.Paper.ARI.Cells[d.Name]) == 0 {
			continue
		}
		p("| %s |", d.Paper)
		for _, x := range ratios {
			p(" %s |", strings.Join(r.splitCellLines(d, x, splitters), "<br>"))
		}
		p("\n")
	}
	p("\n")
	if len(splitters) == 0 {
		return
	}
	r.writeSplitDetail(p, splitters, ratios)
}

// splitCellLines are the lines of a cell of the split table: one per
// splitter, ours and the paper's, or the cell's mark (with the paper's
// FONDUE and MCL when it has the cell).
func (r *Report) splitCellLines(d PaperDataset, x float64, splitters []string) []string {
	c, mark := r.cell(d, x)
	var lines []string
	switch {
	case mark == "n/a":
		lines = append(lines, "n/a")
	case mark != "" || c.Splitters == nil:
		if mark == "" {
			mark = "not run"
		}
		if mark == "not run" && r.qZero(d, x) {
			mark = "-"
		}
		lines = append(lines, mark)
	default:
		for _, s := range splitters {
			ss, ok := c.Splitters[s]
			if !ok {
				continue
			}
			l := s + " " + format.F3(ss.ARI.Mean)
			if pv, ok := r.Paper.ARI.Get(d.Name, x, s); ok {
				l += " (" + format.F3(pv) + ")"
			}
			lines = append(lines, l)
		}
	}
	if r.Paper.ARI.HasCell(d.Name, x) && (mark == "n/a" || mark == "not run" || mark == "-") {
		var pp []string
		for _, s := range []string{"fondue", "mcl"} {
			if v, ok := r.Paper.ARI.Get(d.Name, x, s); ok {
				pp = append(pp, s+" "+format.F3(v))
			}
		}
		lines = append(lines, "(paper: "+strings.Join(pp, ", ")+")")
	}
	return lines
}

// defaultVsMCL compares the default splitter with MCL over the cells of
// the paper's split table.
type defaultVsMCL struct {
	sumDef, sumMCL float64
	n, winsDef     int
}

// writeSplitDetail writes the detail table of every splitter per cell, and
// the default splitter against MCL on the paper's cells.
func (r *Report) writeSplitDetail(p func(string, ...any), splitters []string, ratios []float64) {
	def := splitters[0]
	p("### Splitting detail\n\n")
	p("Mean ARI ± sd over seeds. `nodes`: ambiguous nodes evaluated over all seeds; `shared`: neighbours left out as shared, of all neighbours; `groups`: mean number of groups made.\n\n")
	p("| dataset | ratio | seeds | nodes | shared |")
	for _, s := range splitters {
		p(" %s |", s)
	}
	p(" paper FONDUE | paper MCL | %s groups | mcl groups |\n|---|---|---|---|---|", def)
	for range splitters {
		p("---|")
	}
	p("---|---|---|---|\n")
	var cmp defaultVsMCL
	for _, d := range r.reportDatasets(nil) {
		for _, x := range ratios {
			c, mark := r.cell(d, x)
			if mark != "" || c.Splitters == nil {
				continue
			}
			r.writeSplitDetailRow(p, d, x, c, splitters)
			if _, okm := r.Paper.ARI.Get(d.Name, x, "mcl"); okm && c.Splitters[def] != nil && c.Splitters["mcl"] != nil {
				cmp.n++
				a, b := c.Splitters[def].ARI.Mean, c.Splitters["mcl"].ARI.Mean
				cmp.sumDef += a
				cmp.sumMCL += b
				if a >= b {
					cmp.winsDef++
				}
			}
		}
	}
	if cmp.n > 0 && def != "mcl" {
		n := float64(cmp.n)
		p("\nOn the %d cells of the paper's split table that ran: default splitter `%s` mean ARI %s, `mcl` %s (difference %+.3f); `%s` at least as good as `mcl` in %d of %d cells.\n",
			cmp.n, def, format.F3(cmp.sumDef/n), format.F3(cmp.sumMCL/n), (cmp.sumDef-cmp.sumMCL)/n, def, cmp.winsDef, cmp.n)
	}
	p("\n")
}

// writeSplitDetailRow writes a cell's row of the splitting detail table.
func (r *Report) writeSplitDetailRow(p func(string, ...any), d PaperDataset, x float64, c *CellSummary, splitters []string) {
	def := splitters[0]
	counts := c.Splitters[def] // else the first splitter that ran
	if counts == nil {
		for _, s := range splitters {
			if c.Splitters[s] != nil {
				counts = c.Splitters[s]
				break
			}
		}
	}
	p("| %s | %s | %d | %d | %d/%d |", d.Paper, RatioLabel(x), c.SplitSeeds, counts.Nodes, counts.Shared, counts.Shared+counts.Neighbors)
	for _, s := range splitters {
		if ss := c.Splitters[s]; ss != nil {
			p(" %s ± %s |", format.F3(ss.ARI.Mean), format.F3(ss.ARI.SD))
		} else {
			p(" |")
		}
	}
	paperCell := func(s string) string {
		if v, ok := r.Paper.ARI.Get(d.Name, x, s); ok {
			return format.F3(v)
		}
		return ""
	}
	groups := func(s string) string {
		if ss := c.Splitters[s]; ss != nil {
			return strconv.FormatFloat(ss.MeanGroups, 'f', 2, 64)
		}
		return ""
	}
	p(" %s | %s | %s | %s |\n", paperCell("fondue"), paperCell("mcl"), groups(def), groups("mcl"))
}
