package bench

import (
	"strconv"
	"strings"

	"github.com/fondue-neo4j/fondue-neo4j/bench/internal/format"
)

func (r *Report) writeRuntime(p func(string, ...any)) {
	ratios := r.reportRatios()
	p("## Runtime (seconds per run; the paper's table runtime)\n\n")
	p("Each cell: ours FONDUE / NC / CC, mean wall time per seed, then the paper's in parentheses. Our FONDUE time includes the degree prior, the CNE embedding and the scoring; the paper does not say whether its times include the embedding. The paper ran on an i7-7700K (4 cores, 32 GB); ours ran on the machine above, with the machine possibly shared.\n\n")
	ratioHeader(p, ratios)
	for _, d := range r.reportDatasets(&r.Paper.Runtime) {
		p("| %s |", d.Paper)
		for _, x := range ratios {
			p(" %s |", r.runtimeCell(d, x))
		}
		p("\n")
	}
	p("\n### Where the time goes\n\nMean seconds per seed, by phase. `epochs`: CNE epochs to convergence.\n\n")
	p("| dataset | ratio | nodes | q | prior | embedding | FONDUE scoring | epochs | degree | CC | NC | splitting (all splitters) | seed total |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for k := range r.Results.Cells {
		cs := &r.Results.Cells[k]
		if cs.Skipped || (cs.IdentSeeds == 0 && cs.SplitSeeds == 0) {
			continue
		}
		r.writePhaseRow(p, cs)
	}
	p("\n")
}

// runtimeMethods are the methods of the paper's runtime table.
var runtimeMethods = []string{"fondue", "nc", "cc"}

// runtimeCell is a cell of the runtime table: our seconds per method (or
// the cell's mark), then the paper's in parentheses where it has the cell.
func (r *Report) runtimeCell(d PaperDataset, x float64) string {
	c, mark := r.cell(d, x)
	var s string
	if mark != "" || c.Methods == nil {
		s = mark
		if s == "" || (s == "not run" && r.qZero(d, x)) {
			s = "-"
		}
	} else {
		var parts []string
		for _, m := range runtimeMethods {
			if ms, ok := c.Methods[m]; ok {
				parts = append(parts, format.Seconds(ms.Seconds.Total))
			} else {
				parts = append(parts, "·")
			}
		}
		s = strings.Join(parts, "/")
	}
	if r.Paper.Runtime.HasCell(d.Name, x) {
		var parts []string
		for _, m := range runtimeMethods {
			v, _ := r.Paper.Runtime.Get(d.Name, x, m)
			parts = append(parts, format.Seconds(v))
		}
		s += "<br>(" + strings.Join(parts, "/") + ")"
	}
	return s
}

// writePhaseRow writes a cell's row of the "where the time goes" table.
func (r *Report) writePhaseRow(p func(string, ...any), cs *CellSummary) {
	seeds := r.seedsOf(cs.Dataset, cs.Ratio)
	var n, total float64
	for _, s := range seeds {
		n = float64(s.Nodes)
		total += seedSeconds(s)
	}
	total /= float64(len(seeds))
	methodTotal := func(m string) string {
		if ms, ok := cs.Methods[m]; ok {
			return format.Seconds(ms.Seconds.Total)
		}
		return ""
	}
	split := 0.0
	for _, ss := range cs.Splitters {
		split += ss.Seconds
	}
	pr, em, sc := "", "", ""
	if f, ok := cs.Methods["fondue"]; ok {
		pr, em, sc = format.Seconds(f.Seconds.Prior), format.Seconds(f.Seconds.Embedding), format.Seconds(f.Seconds.Scoring)
	}
	ep := ""
	if cs.Epochs.N > 0 {
		ep = strconv.FormatFloat(cs.Epochs.Mean, 'f', 0, 64)
	}
	p("| %s | %s | %.0f | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", cs.Dataset, RatioLabel(cs.Ratio), n, cs.Ambiguous,
		pr, em, sc, ep, methodTotal("degree"), methodTotal("cc"), methodTotal("nc"), format.Seconds(split), format.Seconds(total))
}

// seedSeconds is the wall time spent on one seed: contraction, the
// embedding and FONDUE scoring, the baselines and the splitters.
func seedSeconds(s *SeedResult) float64 {
	t := s.ContractSeconds + s.EmbedSeconds
	for m, r := range s.Methods {
		switch m {
		case "fondue":
		case "combined": // shares FONDUE's prior and embedding
			t += r.Seconds.Scoring
		default:
			t += r.Seconds.Total
		}
	}
	for _, sp := range s.Splitters {
		t += sp.Seconds
	}
	return t
}

func (r *Report) seedsOf(dataset string, ratio float64) []*SeedResult {
	var out []*SeedResult
	for _, s := range r.Results.Seeds {
		if s.Dataset == dataset && RatioKey(s.Ratio) == RatioKey(ratio) {
			out = append(out, s)
		}
	}
	return out
}
