package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/bench/eval"
	"github.com/fondue-neo4j/fondue-neo4j/bench/metrics"
	"github.com/fondue-neo4j/fondue-neo4j/bench/setup"
	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
)

// Tests read bench/testdata (copies of polbooks and netscience), never
// ../shared.
const testData = "testdata"

func TestPaperData(t *testing.T) {
	p, err := Paper()
	if err != nil {
		t.Fatal(err)
	}
	count := func(tab PaperTable) (cells, values int) {
		for _, byRatio := range tab.Cells {
			for _, byMethod := range byRatio {
				cells++
				values += len(byMethod)
			}
		}
		return
	}
	// docs/method.md section 6: 30 AUC cells of 4 methods, 18 ARI cells of
	// 2 splitters, 30 runtime cells of 3 methods.
	for _, c := range []struct {
		name          string
		tab           PaperTable
		cells, values int
	}{{"auc", p.AUC, 30, 120}, {"ari", p.ARI, 18, 36}, {"runtime", p.Runtime, 30, 90}} {
		if cells, values := count(c.tab); cells != c.cells || values != c.values {
			t.Errorf("%s: %d cells, %d values; want %d, %d", c.name, cells, values, c.cells, c.values)
		}
	}
	spot := []struct {
		tab      PaperTable
		ds       string
		r        float64
		m        string
		want     float64
		reported bool
	}{
		{p.AUC, "grqc", 0.001, "fondue", 0.852, true},
		{p.AUC, "fb-sc", 0.1, "cc", 0.158, true},
		{p.AUC, "polbooks", 0.01, "degree", 0.755, true},
		{p.AUC, "astroph", 0.1, "nc", 0.836, true},
		{p.AUC, "std", 0.1, "fondue", 0.712, true},
		{p.AUC, "lesmis", 0.01, "fondue", 0, false}, // "-" in the paper
		{p.ARI, "email", 0.01, "mcl", 0.281, true},
		{p.ARI, "hepth", 0.001, "fondue", 0.475, true},
		{p.ARI, "lesmis", 0.1, "fondue", 0.402, true},
		{p.ARI, "netscience", 0.001, "mcl", 0, false},
		{p.Runtime, "condmat05", 0.01, "fondue", 839, true},
		{p.Runtime, "lesmis", 0.1, "cc", 0.04, true},
		{p.Runtime, "fb-pp", 0.001, "nc", 316, true},
	}
	for _, s := range spot {
		v, ok := s.tab.Get(s.ds, s.r, s.m)
		if ok != s.reported || v != s.want {
			t.Errorf("%s r=%v %s: %v, %v; want %v, %v", s.ds, s.r, s.m, v, ok, s.want, s.reported)
		}
	}
	if got := p.AvailableDatasets(); strings.Join(got, ",") != "email,lesmis,netscience,polbooks,fb-sc,fb-pp,grqc,condmat05,astroph" {
		t.Errorf("available datasets %v", got)
	}
	for _, name := range []string{"ppi", "std", "cm03", "hepth"} {
		if d, ok := p.Dataset(name); !ok || d.Available() || d.Unavailable == "" {
			t.Errorf("dataset %s should be listed as not available: %+v", name, d)
		}
	}
	if RatioLabel(0.001) != "0.1%" || RatioLabel(0.01) != "1%" || RatioLabel(0.1) != "10%" {
		t.Error("RatioLabel")
	}
}

// quickConfig is the --quick preset with fixed seeds, on the test copies.
func quickConfig() Config {
	return Config{
		Datasets: []string{"polbooks", "netscience"}, Ratios: []float64{0.1},
		Seeds: 3, SplitSeeds: 3, DataDir: testData,
		Engine: fondue.Options{Seed: 1},
	}
}

var quickResults *Results

func runQuick(t *testing.T) *Results {
	t.Helper()
	if quickResults == nil {
		res, err := Run(context.Background(), quickConfig())
		if err != nil {
			t.Fatal(err)
		}
		quickResults = res
	}
	return quickResults
}

// The quick preset's FONDUE AUC must stay at the paper's level (polbooks
// .868, netscience .897) and above degree; the default splitter must beat
// MCL on average.
func TestQuickPresetRegression(t *testing.T) {
	res := runQuick(t)
	if !res.Complete || len(res.Seeds) != 6 {
		t.Fatalf("complete %v, %d seeds", res.Complete, len(res.Seeds))
	}
	floor := map[string]float64{"polbooks": 0.84, "netscience": 0.87}
	ariDefault, ariMCL := 0.0, 0.0
	for _, name := range []string{"polbooks", "netscience"} {
		c := res.Cell(name, 0.1)
		if c == nil || c.IdentSeeds != 3 || c.SplitSeeds != 3 {
			t.Fatalf("%s: cell %+v", name, c)
		}
		f, d := c.Methods["fondue"].AUC.Mean, c.Methods["degree"].AUC.Mean
		t.Logf("%s: FONDUE AUC %.3f, degree %.3f", name, f, d)
		if f < floor[name] || f <= d {
			t.Errorf("%s: FONDUE AUC %.3f (floor %.2f), degree %.3f", name, f, floor[name], d)
		}
		ariDefault += c.Splitters[split.Default].ARI.Mean / 2
		ariMCL += c.Splitters[split.MCL].ARI.Mean / 2
	}
	t.Logf("mean ARI: %s %.3f, mcl %.3f", split.Default, ariDefault, ariMCL)
	if ariDefault <= ariMCL {
		t.Errorf("default splitter mean ARI %.3f not above MCL's %.3f", ariDefault, ariMCL)
	}
}

// Contraction invariants as the runner records them: q = floor(r·n)
// ambiguous nodes, n − q nodes, and every original edge either kept,
// dropped as a loop or merged as a duplicate.
func TestRunnerContractionInvariants(t *testing.T) {
	res := runQuick(t)
	orig := map[string][2]int{}
	for _, name := range []string{"polbooks", "netscience"} {
		d, _ := MustPaper().Dataset(name)
		g, err := LoadDataset(testData, d)
		if err != nil {
			t.Fatal(err)
		}
		orig[name] = [2]int{g.NumNodes(), g.NumEdges()}
	}
	for _, s := range res.Seeds {
		n, m := orig[s.Dataset][0], orig[s.Dataset][1]
		q := int(math.Floor(s.Ratio * float64(n)))
		if s.Ambiguous != q || s.Nodes != n-q || s.Edges != m-s.DroppedLoops-s.MergedEdges {
			t.Errorf("%s seed %d: q %d nodes %d edges %d (dropped %d merged %d); original %d nodes %d edges",
				s.Dataset, s.Seed, s.Ambiguous, s.Nodes, s.Edges, s.DroppedLoops, s.MergedEdges, n, m)
		}
		if s.EngineSeed != uint64(s.Seed) {
			t.Errorf("engine seed %d for seed %d with base 1", s.EngineSeed, s.Seed)
		}
	}
}

// A cell with q = 0 is reported as "-" in the markdown and marked skipped in
// the JSON; the writers' output parses.
func TestWritersSkippedCell(t *testing.T) {
	cfg := Config{Datasets: []string{"polbooks"}, Ratios: []float64{0.001, 0.1}, Seeds: 1, SplitSeeds: 1,
		DataDir: testData, Engine: fondue.Options{Seed: 1}, Splitters: []string{split.Default, split.MCL}}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Cell("polbooks", 0.001); c == nil || !c.Skipped {
		t.Fatalf("polbooks at 0.1%%: %+v, want skipped (q = floor(0.105) = 0)", c)
	}
	rep := &Report{Results: res, Paper: MustPaper(), Machine: setup.ThisMachine(), Command: "fondue-bench --test"}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	text := md.String()
	for _, want := range []string{
		"fondue-bench --test",
		"| polbooks | - | not run<br>(.836/.680/.598/.755) | ",  // AUC: q = 0, then not run, with the paper's numbers
		"| lesmis | - | - | not run<br>(.799/.513/.412/.733) |", // the paper's own "-"
		"| PPI | n/a<br>(.775/.516/.623/.729) |",
		"average ranks for ties",
		"| polbooks | 10% | 1 | 10 |", // split detail: 1 seed, 10 nodes
		"Each cell: ours combined / FONDUE / NC / CC / degree / LCC",
		"### Targets: the default method (`combined`)",
		"Over the 1 cells: ours − paper FONDUE",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Command string
		Config  ConfigRecord
		Cells   []CellSummary
		Seeds   []SeedResult
	}
	if err := json.Unmarshal(js.Bytes(), &parsed); err != nil {
		t.Fatalf("results.json does not parse: %v", err)
	}
	if parsed.Command != rep.Command || len(parsed.Seeds) != 1 || len(parsed.Cells) != 2 || !parsed.Cells[0].Skipped ||
		parsed.Config.Engine.Sigma2 != 2 || parsed.Config.Ties != "average" {
		t.Fatalf("parsed JSON: %+v", parsed)
	}
	s := parsed.Seeds[0]
	if len(s.Methods["fondue"].ROC) != rocPoints || len(s.Splitters["mcl"].ARI) != s.Ambiguous-s.Splitters["mcl"].Skipped {
		t.Fatalf("seed record incomplete: %+v", s)
	}
}

// The split evaluation leaves out neighbours shared by both merged nodes and
// counts them.
func TestSplitEvaluationSharedNeighbours(t *testing.T) {
	// 0 and 1 are merged. 0's neighbours 2, 3 (linked), 1's neighbours 5, 6
	// (linked); 4 is adjacent to both. 7 hangs off 4 so nothing is isolated.
	g, err := graph.NewGraph(8, [][2]int{{0, 2}, {0, 3}, {2, 3}, {0, 4}, {1, 4}, {1, 5}, {1, 6}, {5, 6}, {4, 7}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := eval.ContractPairs(g, [][2]int{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := EvaluateSplits(context.Background(), c, nil, fondue.Options{Split: fondue.SplitOptions{Splitter: split.Find(split.Splitters(), split.MCL)}})
	if err != nil {
		t.Fatal(err)
	}
	// MCL: {2,3}, {4}, {5,6}; on the evaluated {2,3,5,6} that is the truth.
	if r.Shared != 1 || r.Neighbors != 4 || r.Skipped != 0 || len(r.ARI) != 1 || r.ARI[0] != 1 || r.MeanARI != 1 || r.MeanGroups != 3 {
		t.Fatalf("split result %+v", r)
	}
	// Hand-made groups: the shared neighbour 4 is ignored wherever it goes.
	truth, pred, shared := splitLabels(c, 0, [][]int32{{1, 2, 3}, {4, 5}})
	if ari, err := eval.ARI(truth, pred); shared != 1 || len(truth) != 4 || err != nil || ari != 1 {
		t.Fatalf("labels %v %v shared %d", truth, pred, shared)
	}
	// {2} | {3, 5, 6}: contingency [[1 1] [0 2]], ARI = (1 − 1)/(2.5 − 1) = 0.
	truth, pred, _ = splitLabels(c, 0, [][]int32{{1}, {2, 4, 5}})
	if got, err := eval.ARI(truth, pred); err != nil || got != 0 {
		t.Fatalf("ARI %v, want 0 (by hand)", got)
	}
	// A node whose neighbours are all shared is skipped.
	h, err := graph.NewGraph(4, [][2]int{{0, 2}, {1, 2}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := eval.ContractPairs(h, [][2]int{{0, 1}})
	r2, err := EvaluateSplits(context.Background(), c2, nil, fondue.Options{Split: fondue.SplitOptions{Splitter: split.Find(split.Splitters(), split.MCL)}})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Skipped != 1 || r2.Shared != 1 || len(r2.ARI) != 0 {
		t.Fatalf("all-shared node: %+v", r2)
	}
}

// The per-seed metrics against hand-computed values.
func TestMethodResultByHand(t *testing.T) {
	res := &fondue.Result{Scores: []float64{0.9, 0.8, 0.7, 0.6, math.NaN()}}
	labels := []bool{true, false, true, false, true}
	mr, err := methodResult(res, labels, eval.TiesAverage)
	if err != nil {
		t.Fatal(err)
	}
	// Pairs (positive, negative): (.9,.8) (.9,.6) (.7,.6) won, (.7,.8) lost.
	if mr.AUC != 0.75 || mr.AUCLoss != 0.75 {
		t.Errorf("AUC %v %v, want .75", mr.AUC, mr.AUCLoss)
	}
	// DCG = 1/log2(2) + 1/log2(4) = 1.5; ideal = 1 + 1/log2(3).
	if want := 1.5 / (1 + 1/math.Log2(3)); math.Abs(mr.NDCG-want) > 1e-12 {
		t.Errorf("NDCG %v, want %v", mr.NDCG, want)
	}
	// ROC: (0,0) (0,.5) (.5,.5) (.5,1) (1,1).
	for _, c := range []struct{ x, y float64 }{{0, 0.5}, {0.25, 0.5}, {0.5, 1}, {1, 1}} {
		if got := mr.ROC[int(c.x*(rocPoints-1))]; got != c.y {
			t.Errorf("ROC at %v = %v, want %v", c.x, got, c.y)
		}
	}
	// Ties: one tied positive–negative pair counts half, or as a loss.
	tied := &fondue.Result{Scores: []float64{1, 1, 0}}
	tl := []bool{true, false, false}
	if a, err := methodResult(tied, tl, eval.TiesAverage); err != nil || a.AUC != 0.75 || a.AUCLoss != 0.5 {
		t.Errorf("tied AUC %v, want .75 / .5", a)
	}
	if a, err := methodResult(tied, tl, eval.TiesAsLoss); err != nil || a.AUC != 0.5 {
		t.Errorf("AUC with ties as loss %v, want .5", a)
	}
	if _, err := methodResult(tied, tl[:2], eval.TiesAverage); err == nil {
		t.Error("labels of another length accepted")
	}
}

// A second run with the same journal resumes every seed and reproduces the
// same numbers; a different engine configuration does not reuse them.
func TestJournalResume(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Datasets: []string{"polbooks"}, Ratios: []float64{0.1}, Seeds: 2, SplitSeeds: 1,
		DataDir: testData, Engine: fondue.Options{Seed: 5}, Journal: filepath.Join(dir, "results.jsonl")}
	first, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A torn last line (a crash mid-write) is ignored.
	f, _ := os.OpenFile(cfg.Journal, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"dataset":"polbooks","ratio":0.1,"se`)
	f.Close()
	second, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if second.Resumed != 2 {
		t.Fatalf("resumed %d seeds, want 2", second.Resumed)
	}
	a, b := first.Cell("polbooks", 0.1), second.Cell("polbooks", 0.1)
	if a.Methods["fondue"].AUC != b.Methods["fondue"].AUC || a.Splitters["ncut"].ARI != b.Splitters["ncut"].ARI {
		t.Fatal("resumed results differ")
	}
	// Report only: a third seed is missing and stays missing.
	ro := cfg
	ro.ReportOnly, ro.Seeds = true, 3
	rep, err := Run(context.Background(), ro)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Cell("polbooks", 0.1); rep.Resumed != 2 || c.IdentSeeds != 2 || c.SplitSeeds != 1 {
		t.Fatalf("report only: resumed %d, cell %+v", rep.Resumed, c)
	}
	// The tie convention of a report does not depend on the one the seeds
	// ran under.
	ro.Ties = eval.TiesAsLoss
	loss, err := Run(context.Background(), ro)
	if err != nil {
		t.Fatal(err)
	}
	cc := loss.Cell("polbooks", 0.1).Methods["cc"]
	if cc.AUC != cc.AUCLoss || cc.AUC == cc.AUCAverage || loss.Seeds[0].Methods["cc"].AUC != loss.Seeds[0].Methods["cc"].AUCLoss {
		t.Fatalf("ties as loss: AUC %+v, loss %+v, average %+v", cc.AUC, cc.AUCLoss, cc.AUCAverage)
	}
	cfg.Engine.CNE.Sigma2 = 3
	third, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if third.Resumed != 0 {
		t.Fatalf("resumed %d seeds under another configuration", third.Resumed)
	}
}

// The default target table: SE from the seeds, the best of the four
// baselines, and the verdicts, on a hand-made cell.
func TestDefaultTargetsTable(t *testing.T) {
	stat := func(mean, sd float64) metrics.Stat { return metrics.Stat{Mean: mean, SD: sd, N: 4} }
	ms := func(mean, sd float64) *MethodSummary { return &MethodSummary{AUC: stat(mean, sd)} }
	res := &Results{
		Config: ConfigRecord{Datasets: []string{"netscience", "polbooks"}, Ratios: []float64{0.1},
			Methods: []string{"combined", "fondue", "degree", "cc", "nc", "lcc"}},
		Cells: []CellSummary{
			// paper .897; SE .02/2 = .01; best baseline lcc .875: +0.015, met.
			{Dataset: "netscience", Ratio: 0.1, Ambiguous: 37, IdentSeeds: 4, Methods: map[string]*MethodSummary{
				"combined": ms(0.89, 0.02), "fondue": ms(0.9, 0), "degree": ms(0.8, 0), "cc": ms(0.85, 0), "nc": ms(0.86, 0), "lcc": ms(0.875, 0)}},
			// paper .868; .85 is more than one SE (.005) below: miss (paper).
			{Dataset: "polbooks", Ratio: 0.1, Ambiguous: 10, IdentSeeds: 4, Methods: map[string]*MethodSummary{
				"combined": ms(0.85, 0.01), "fondue": ms(0.9, 0), "degree": ms(0.8, 0), "cc": ms(0.6, 0), "nc": ms(0.7, 0), "lcc": ms(0.75, 0)}},
		},
	}
	rep := &Report{Results: res, Paper: MustPaper()}
	var b strings.Builder
	rep.writeDefaultTargets(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) })
	text := b.String()
	for _, want := range []string{
		"| netscience | 10% | 4 | .890 ± .010 | .897 | -0.007 | LCC .875 | +0.015 | met |",
		"| polbooks | 10% | 4 | .850 ± .005 | .868 | -0.018 | degree .800 | +0.050 | **miss** (paper) |",
		"cells within one SE of the paper or above: 1 of 2",
		"cells at least 0.01 above it: 2 of 2",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
}
