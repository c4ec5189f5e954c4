package scale

import (
	"cmp"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LiveSummary is the median of a live case's runs on one server with one
// binary.
type LiveSummary struct {
	Case, Server, Binary string
	Runs                 int
	Median               LiveRun
}

// liveFields are the LiveRun fields whose medians are taken.
var liveFields = []func(*LiveRun) *float64{
	func(r *LiveRun) *float64 { return &r.WallS },
	func(r *LiveRun) *float64 { return &r.PullS },
	func(r *LiveRun) *float64 { return &r.ComputeS },
	func(r *LiveRun) *float64 { return &r.WriteS },
	func(r *LiveRun) *float64 { return &r.SplitS },
	func(r *LiveRun) *float64 { return &r.ToWriteS },
	func(r *LiveRun) *float64 { return &r.UndoS },
	func(r *LiveRun) *float64 { return &r.JobCPU.Pull },
	func(r *LiveRun) *float64 { return &r.JobCPU.Compute },
	func(r *LiveRun) *float64 { return &r.JobCPU.Write },
	func(r *LiveRun) *float64 { return &r.JobCPU.Split },
	func(r *LiveRun) *float64 { return &r.JobCPU.Rest },
	func(r *LiveRun) *float64 { return &r.JobCPU.Undo },
	func(r *LiveRun) *float64 { return &r.ServerCPU.Pull },
	func(r *LiveRun) *float64 { return &r.ServerCPU.Compute },
	func(r *LiveRun) *float64 { return &r.ServerCPU.Write },
	func(r *LiveRun) *float64 { return &r.ServerCPU.Split },
	func(r *LiveRun) *float64 { return &r.ServerCPU.Rest },
	func(r *LiveRun) *float64 { return &r.ServerCPU.Undo },
	func(r *LiveRun) *float64 { return &r.JobPeakRSSMB },
	func(r *LiveRun) *float64 { return &r.EstimateMB },
	func(r *LiveRun) *float64 { return &r.ServerPeakRSSMB },
	func(r *LiveRun) *float64 { return &r.ServerRSSMB },
	func(r *LiveRun) *float64 { return &r.AUC },
}

// SummarizeLive groups live runs by case, server and binary and takes
// per-field medians; the check is the worst of the group's.
func SummarizeLive(runs []LiveRun) []LiveSummary {
	var out []LiveSummary
	idx := map[[3]string]int{}
	var groups [][]LiveRun
	for _, r := range runs {
		k := [3]string{r.Case, r.Server, r.Binary}
		i, ok := idx[k]
		if !ok {
			i = len(groups)
			idx[k] = i
			groups = append(groups, nil)
			out = append(out, LiveSummary{Case: r.Case, Server: r.Server, Binary: r.Binary})
		}
		groups[i] = append(groups[i], r)
	}
	for i, g := range groups {
		m := g[0]
		for _, f := range liveFields {
			v := make([]float64, len(g))
			for k := range g {
				v[k] = *f(&g[k])
			}
			*f(&m) = median(v)
		}
		m.Checked, m.Mismatches = false, 0
		for _, r := range g {
			if r.Checked {
				m.Checked = true
				m.Mismatches += r.Mismatches
			}
			m.Reused = m.Reused || r.Reused
		}
		out[i].Runs, out[i].Median = len(g), m
	}
	return out
}

// serverRef finds a case's ServerRun on a server.
func serverRef(servers []ServerRun, c, server string) (ServerRun, bool) {
	for _, s := range servers {
		if s.Case == c && s.Server == server {
			return s, true
		}
	}
	return ServerRun{}, false
}

// WriteLiveMarkdown writes the live cases' tables: per server and binary
// the phases (medians), the targets, the CPU of both sides per phase, the
// ratios against the baseline, GDS and the import, and the fault
// scenarios.
func WriteLiveMarkdown(w io.Writer, res *Results) {
	if len(res.Live) == 0 && len(res.Servers) == 0 {
		return
	}
	sums := SummarizeLive(res.Live)
	scoreByKey := map[[2]string]Run{}
	for _, s := range Summarize(res.Runs) {
		scoreByKey[[2]string{s.Case, s.Binary}] = s.Median
	}
	fmt.Fprint(w, "\n## Live: sync against Neo4j\n\n")
	fmt.Fprint(w, "Medians of the runs (wall seconds; the phases are the job's own: pull includes connecting and the lock, split storing the plan). `score` ran on the same graph's edge list with the same `--split-top`, no server running.\n\n")
	fmt.Fprintln(w, "| case | server | binary | runs | sync s | to end of write s | pull s | compute s | write s | split s | undo s | job CPU s | server CPU s | job peak MB | estimate MB | server peak MB | AUC | scores vs `score` |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, s := range sums {
		m := s.Median
		check := "not checked"
		if m.Checked {
			check = "identical"
			if m.Mismatches > 0 {
				check = fmt.Sprintf("**%d differ**", m.Mismatches)
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %.1f | %.1f | %.2f | %.1f | %.2f | %.2f | %.2f | %.1f | %.1f | %.0f | %.0f | %.0f | %s | %s |\n",
			s.Case, s.Server, s.Binary, s.Runs, m.WallS, m.ToWriteS, m.PullS, m.ComputeS, m.WriteS, m.SplitS, m.UndoS,
			m.JobCPU.Total(), m.ServerCPU.Total(), m.JobPeakRSSMB, m.EstimateMB, m.ServerPeakRSSMB, auc(m.AUC, false), check)
	}

	fmt.Fprint(w, "\nTargets (this binary; ratios of medians). Pull rate: relationships read per second of the pull phase (connecting and the lock included).\n\n")
	fmt.Fprintln(w, "| case | server | `score` s | sync s | sync / score | to end of write / score | pull rels/s | GDS project s | pull / GDS project | write s | GDS write of 3 properties s | write / GDS write | job peak / estimate |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range sums {
		if s.Binary != BinaryMain {
			continue
		}
		m := s.Median
		sc, ok := scoreByKey[[2]string{s.Case, BinaryMain}]
		scoreS := math.NaN()
		if ok {
			scoreS = sc.WallS
		}
		ref, _ := serverRef(res.Servers, s.Case, s.Server)
		proj, w3 := median(ref.GDSProjectS), median(ref.GDSWrite3S)
		fmt.Fprintf(w, "| %s | %s | %.1f | %.1f | %.2f | %.2f | %.0f | %.2f | %.1f | %.2f | %.2f | %.2f | %.2f |\n",
			s.Case, s.Server, scoreS, m.WallS, m.WallS/scoreS, m.ToWriteS/scoreS, float64(m.Relationships)/m.PullS,
			proj, m.PullS/proj, m.WriteS, w3, m.WriteS/w3, m.JobPeakRSSMB/m.EstimateMB)
	}

	fmt.Fprint(w, "\nCPU seconds per phase, job / server (this binary, medians; the machine has 2 cores):\n\n")
	fmt.Fprintln(w, "| case | server | pull | compute | write | split | rest | undo |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, s := range sums {
		if s.Binary != BinaryMain {
			continue
		}
		j, v := s.Median.JobCPU, s.Median.ServerCPU
		fmt.Fprintf(w, "| %s | %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f |\n",
			s.Case, s.Server, j.Pull, v.Pull, j.Compute, v.Compute, j.Write, v.Write, j.Split, v.Split, j.Rest, v.Rest, j.Undo, v.Undo)
	}

	first := true
	for _, s := range sums {
		if s.Binary != BinaryMain {
			continue
		}
		var b LiveSummary
		found := false
		for _, o := range sums {
			if o.Case == s.Case && o.Server == s.Server && o.Binary == BinaryBaseline {
				b, found = o, true
			}
		}
		if !found {
			continue
		}
		if first {
			fmt.Fprint(w, "\nAgainst the baseline binary, same server, interleaved (medians; ratio > 1: this version is faster):\n\n")
			fmt.Fprintln(w, "| case | server | sync | pull | compute | write | split | undo | job CPU | server CPU | job peak now / then |")
			fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
			first = false
		}
		m, o := s.Median, b.Median
		fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", s.Case, s.Server,
			o.WallS/m.WallS, o.PullS/m.PullS, o.ComputeS/m.ComputeS, o.WriteS/m.WriteS, o.SplitS/m.SplitS, o.UndoS/m.UndoS,
			o.JobCPU.Total()/m.JobCPU.Total(), o.ServerCPU.Total()/m.ServerCPU.Total(), m.JobPeakRSSMB/o.JobPeakRSSMB)
	}

	if len(res.Servers) > 0 {
		fmt.Fprint(w, "\nThe servers: the import (`neo4j-admin database import full`), the key's uniqueness constraint, the first sync (which creates the written properties; `--method degree`), and GDS on the same graph (medians; the projection as stored, NATURAL; the write of the three numeric properties sync writes, `gds.graph.nodeProperties.write`; `gds.degree.write` of one property). Every timed write, GDS's and sync's, changes every value it writes: Neo4j skips a property set to the value it has, so the bench sets them to -1 first, untimed.\n\n")
		fmt.Fprintln(w, "| case | server | nodes | relationships | heap | page cache | import s | stop + start s | constraint s | store MB | first pull s | first write s | GDS project s | GDS write 3 props s | GDS degree.write s | server RSS MB |")
		fmt.Fprintln(w, "|---|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, s := range res.Servers {
			fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %s | %.1f | %.1f | %.1f | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f |\n",
				s.Case, s.Server, s.Nodes, s.Relationships, s.Heap, s.PageCache, s.ImportS, s.RestartS, s.ConstraintS, s.StoreMB,
				s.FirstPullS, s.FirstWriteS, median(s.GDSProjectS), median(s.GDSWrite3S), median(s.GDSDegreeWriteS), s.ServerRSSMB)
		}
	}
	if len(res.Faults) > 0 {
		fmt.Fprint(w, "\nFault scenarios (checked; see bench/scale/faults.go):\n\n")
		fmt.Fprintln(w, "| case | server | scenario | outcome | what happened |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
		for _, f := range res.Faults {
			outcome := "**failed**"
			if f.Passed {
				outcome = "passed"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", f.Case, f.Server, f.Scenario, outcome, strings.ReplaceAll(f.Detail, "|", "/"))
		}
	}
	var reused []string
	for _, s := range sums {
		if s.Median.Reused {
			reused = append(reused, fmt.Sprintf("%s on %s (%s)", s.Case, s.Server, s.Binary))
		}
	}
	if len(reused) > 0 {
		fmt.Fprintf(w, "\nLive runs reused from earlier results (--reuse), not run again: %s.\n", strings.Join(reused, ", "))
	}
}

// PlotLive draws the live cost curve beside the file-based one: wall
// seconds against relationships of score on the edge list and of sync on
// each server (whole, pull, write), log-log, and the peaks of the job and
// of the server in a second file.
func PlotLive(timePath, memPath string, res *Results) error {
	sums := SummarizeLive(res.Live)
	type pt struct{ x, y float64 }
	curves := map[string][]pt{}
	var names []string
	add := func(name string, x, y float64) {
		if x <= 0 || math.IsNaN(y) || y <= 0 {
			return
		}
		if _, ok := curves[name]; !ok {
			names = append(names, name)
		}
		curves[name] = append(curves[name], pt{x, y})
	}
	live := map[string]bool{}
	for _, s := range sums {
		if s.Binary == BinaryMain {
			live[s.Case] = true
		}
	}
	for _, s := range Summarize(res.Runs) {
		if s.Binary == BinaryMain && live[s.Case] {
			add("score, edge list", float64(s.Median.Edges), s.Median.WallS)
		}
	}
	memNames := []string{}
	mem := map[string][]pt{}
	addMem := func(name string, x, y float64) {
		if x <= 0 || y <= 0 {
			return
		}
		if _, ok := mem[name]; !ok {
			memNames = append(memNames, name)
		}
		mem[name] = append(mem[name], pt{x, y})
	}
	for _, s := range sums {
		if s.Binary != BinaryMain {
			continue
		}
		m := s.Median
		x := float64(m.Relationships)
		add("sync, Neo4j "+s.Server, x, m.WallS)
		add("pull, Neo4j "+s.Server, x, m.PullS)
		add("write, Neo4j "+s.Server, x, m.WriteS)
		addMem("job peak, Neo4j "+s.Server, x, m.JobPeakRSSMB)
		addMem("job estimate, Neo4j "+s.Server, x, m.EstimateMB)
		addMem("server peak, Neo4j "+s.Server, x, m.ServerPeakRSSMB)
	}
	for _, s := range res.Servers {
		add("GDS project, Neo4j "+s.Server, float64(s.Relationships), median(s.GDSProjectS))
		add("GDS write 3 props, Neo4j "+s.Server, float64(s.Relationships), median(s.GDSWrite3S))
	}
	draw1 := func(path, title, ylabel string, names []string, curves map[string][]pt) error {
		n := 0
		for _, c := range curves {
			n = max(n, len(c))
		}
		if n == 0 {
			return nil
		}
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text = "relationships"
		p.Y.Label.Text = ylabel
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
		p.Legend.Top, p.Legend.Left = true, true
		for k, name := range names {
			c := curves[name]
			slices.SortFunc(c, func(a, b pt) int { return cmp.Compare(a.x, b.x) })
			xy := make(plotter.XYs, len(c))
			for i, q := range c {
				xy[i].X, xy[i].Y = q.x, q.y
			}
			l, sc, err := plotter.NewLinePoints(xy)
			if err != nil {
				return err
			}
			l.Color = livePalette[k%len(livePalette)]
			sc.Color = l.Color
			switch {
			case strings.HasPrefix(name, "score"):
				l.Width = vg.Points(2)
			case strings.Contains(name, "2026"):
				l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
				sc.Shape = draw.BoxGlyph{}
			}
			p.Add(l, sc)
			p.Legend.Add(name, l)
		}
		return savePlot(p, path)
	}
	if err := draw1(timePath, "fondue-neo4j sync against a live Neo4j: cost against size", "wall seconds", names, curves); err != nil {
		return err
	}
	return draw1(memPath, "fondue-neo4j sync against a live Neo4j: peak memory", "peak RSS, MB", memNames, mem)
}

var livePalette = func() []color.Color {
	var out []color.Color
	for _, c := range [][3]uint8{{0x00, 0x00, 0x00}, {0x1f, 0x77, 0xb4}, {0xd6, 0x27, 0x28}, {0x2c, 0xa0, 0x2c}, {0xff, 0x7f, 0x0e},
		{0x94, 0x67, 0xbd}, {0x8c, 0x56, 0x4b}, {0xe3, 0x77, 0xc2}, {0x7f, 0x7f, 0x7f}, {0xbc, 0xbd, 0x22}, {0x17, 0xbe, 0xcf}} {
		out = append(out, color.RGBA{R: c[0], G: c[1], B: c[2], A: 0xff})
	}
	return out
}()

// savePlot saves p through a temporary file and a rename.
func savePlot(p *plot.Plot, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+".*"+filepath.Ext(path))
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := p.Save(8*vg.Inch, 5.5*vg.Inch, tmp.Name()); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadLive reads the live runs, server runs and fault scenarios of a
// results.json (for --reuse).
func ReadLive(path string) ([]LiveRun, []ServerRun, []FaultRun, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	var doc struct {
		Live []struct {
			LiveRun
			AUC *float64 `json:"auc"`
		} `json:"live"`
		Servers []ServerRun `json:"servers"`
		Faults  []FaultRun  `json:"faults"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var live []LiveRun
	for _, r := range doc.Live {
		lr := r.LiveRun
		lr.AUC = math.NaN()
		if r.AUC != nil {
			lr.AUC = *r.AUC
		}
		live = append(live, lr)
	}
	return live, doc.Servers, doc.Faults, nil
}

// MarshalJSON writes an undefined AUC as null.
func (r LiveRun) MarshalJSON() ([]byte, error) {
	type plain LiveRun
	out := struct {
		plain
		AUC *float64 `json:"auc"`
	}{plain: plain(r)}
	if !math.IsNaN(r.AUC) {
		out.AUC = &r.AUC
	}
	return json.Marshal(out)
}
