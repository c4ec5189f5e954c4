package scale

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/bench/generate"
)

func TestParseCase(t *testing.T) {
	c, err := ParseCase("sbm:1_000_000:20")
	if err != nil || c.Nodes != 1_000_000 || c.AvgDegree != 20 || c.Name != "sbm-1M-d20" {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = ParseCase("file:/data/condmat05.edges")
	if err != nil || c.File != "/data/condmat05.edges" || c.Name != "condmat05" {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = ParseCase("kg:330000:4")
	if err != nil || !c.KG || c.Nodes != 330000 || c.Name != "kg-330k-d4" {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = ParseCase("flat:100_000:20")
	if err != nil || !c.Flat || c.KG || c.Nodes != 100_000 || c.AvgDegree != 20 || c.Name != "flat-100k-d20" {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = ParseCase("neo4j:flat:1000:4")
	if err != nil || !c.Flat || !c.Neo4j || c.Name != "neo4j-flat-1k-d4" {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = ParseCase("neo4j:kg:330000:4")
	if err != nil || !c.KG || !c.Neo4j || c.Name != "neo4j-kg-330k-d4" {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []string{"sbm:10", "sbm:x:10", "sbm:50:10", "sbm:1000:0", "er:100:5", "", "kg:10:2", "neo4j:neo4j:kg:1000:4", "flat:1000", "flat:50:10"} {
		if _, err := ParseCase(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestReadScoresAndSummary(t *testing.T) {
	m, deg, err := readScores(strings.NewReader("7\t1\t3\t2.5\nx\t0.5\t1\t0.1\n"), 1, nil)
	if err != nil || len(m) != 2 || m["7"] != 1 || m["x"] != 0.5 || deg["7"] != 3 || deg["x"] != 1 {
		t.Fatalf("%v %v %v", m, deg, err)
	}
	// With names (import files): node, name, ambiguity, degree.
	if m, deg, err := readScores(strings.NewReader("7\t7\t0.25\t3\n"), 2, nil); err != nil || m["7"] != 0.25 || deg["7"] != 3 {
		t.Fatalf("%v %v %v", m, deg, err)
	}
	for _, bad := range []string{"7\tnope\t3\n", "7\t1\tthree\n"} {
		if _, _, err := readScores(strings.NewReader(bad), 1, nil); err == nil {
			t.Fatalf("bad line %q accepted", bad)
		}
	}
	var r Run
	r.WallS = 10
	parseSummary(`{"level":"DEBUG","msg":"read edge list"}
{"level":"DEBUG","msg":"scored","nodes":100,"edges":400,"epochs":120,"prior_s":0.5,"embedding_s":7,"scoring_s":1.5}`, &r)
	if r.Nodes != 100 || r.Edges != 400 || r.Epochs != 120 || r.EmbeddingS != 7 || r.LoadS != 1 {
		t.Fatalf("%+v (load falls back to wall minus the phases for binaries that do not log it)", r)
	}
	if r.MaxDegree != 0 || r.EstimateMB != 0 {
		t.Fatalf("%+v: an older binary's summary has no estimate", r)
	}
	parseSummary(`{"level":"DEBUG","msg":"scored","nodes":100,"edges":400,"max_degree":37,"estimate_mb":21.5,"load_s":0.25}`, &r)
	if r.MaxDegree != 37 || r.EstimateMB != 21.5 || r.LoadS != 0.25 {
		t.Fatalf("%+v: want the logged largest degree and estimate", r)
	}
	// The child's own peak replaces wait's maxrss, which can hold this
	// program's peak (an older binary keeps the rusage figure).
	r.PeakRSSMB, r.PeakFromRusage = 900, true
	parseSummary(`{"level":"DEBUG","msg":"scored","nodes":100,"edges":400,"peak_rss_mb":31.5}`, &r)
	if r.PeakRSSMB != 31.5 || r.PeakFromRusage {
		t.Fatalf("%+v: want the logged peak", r)
	}
}

// --compare: an earlier results.json comes back as "previous" runs, whose
// ratios and curve are reported beside this run's; an estimate below the
// measured peak is called out.
func TestCompareWithPrevious(t *testing.T) {
	old := []Run{
		{Case: "g", Binary: BinaryMain, WallS: 6, CPUS: 12, EmbeddingS: 5, Epochs: 150, AUC: 0.90, Edges: 1000, PeakRSSMB: 30, EstimateMB: 40},
		{Case: "h", Binary: BinaryMain, WallS: 60, CPUS: 110, EmbeddingS: 50, Epochs: 120, AUC: math.NaN(), Edges: 10000, PeakRSSMB: 100, EstimateMB: 120},
		{Case: "g", Binary: BinaryBaseline, WallS: 9, Edges: 1000},
		{Case: "h", Binary: BinaryMain, DoubleEpochs: true, WallS: 100, Edges: 10000},
	}
	oldDir := t.TempDir()
	if err := Report(oldDir, &Results{Runs: old}, "# old", nil); err != nil {
		t.Fatal(err)
	}
	prev, err := ReadJSON(filepath.Join(oldDir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(prev) != 2 || prev[0].Binary != BinaryPrevious || prev[0].WallS != 6 || !math.IsNaN(prev[1].AUC) {
		t.Fatalf("previous runs: %+v (want the two main runs, relabelled, NaN AUC kept)", prev)
	}
	now := []Run{
		{Case: "g", Binary: BinaryMain, WallS: 2, CPUS: 3, EmbeddingS: 1, Epochs: 50, AUC: 0.91, Edges: 1000, PeakRSSMB: 27, EstimateMB: 40},
		{Case: "h", Binary: BinaryMain, WallS: 20, CPUS: 44, EmbeddingS: 10, Epochs: 40, AUC: 0.95, Edges: 10000, PeakRSSMB: 130, EstimateMB: 120},
	}
	dir := t.TempDir()
	if err := Report(dir, &Results{Runs: append(now, prev...)}, "# now", nil); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "results.md"))
	for _, want := range []string{
		"Against the previous results (--compare)",
		"| g | 3.00 | 4.00 | 5.00 | 50 / 150 | 0.90 | +0.0100 |",
		"| h | 3.00 | 2.50 | 5.00 | 40 / 120 | 1.30 | n/a |",
		"**The memory estimate is below the measured peak** in 1 case(s): h (main): 120 MB estimated, 130 MB measured.",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), "Against the baseline") {
		t.Errorf("a previous run's baseline became a baseline here:\n%s", md)
	}
	if _, err := ReadJSON(filepath.Join(dir, "nope.json")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestSummarizeAndReport(t *testing.T) {
	runs := []Run{
		{Case: "g", Binary: "main", WallS: 3, CPUS: 6, EmbeddingS: 2, Epochs: 100, AUC: 0.9, Edges: 1000, PeakRSSMB: 30},
		{Case: "g", Binary: "main", WallS: 1, CPUS: 2, EmbeddingS: 1, Epochs: 100, AUC: 0.9, Edges: 1000, PeakRSSMB: 20},
		{Case: "g", Binary: "main", WallS: 2, CPUS: 4, EmbeddingS: 1.5, Epochs: 100, AUC: 0.9, Edges: 1000, PeakRSSMB: 25},
		{Case: "g", Binary: "baseline", WallS: 5, CPUS: 10, EmbeddingS: 4.5, Epochs: 200, AUC: 0.88, Edges: 1000, PeakRSSMB: 25, PeakFromRusage: true},
		{Case: "h", Binary: "main", WallS: 20, Edges: 10000, PeakRSSMB: 100, Epochs: 90, AUC: 0.95},
		{Case: "h", Binary: "main", DoubleEpochs: true, WallS: 40, Epochs: 180, AUC: 0.94},
	}
	sums := Summarize(runs)
	if len(sums) != 3 || sums[0].Runs != 3 || sums[0].Median.WallS != 2 || sums[0].Median.PeakRSSMB != 25 {
		t.Fatalf("%+v", sums)
	}
	dir := t.TempDir()
	if err := Report(dir, &Results{Runs: runs}, "# test", map[string]any{"seed": 1}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Baseline ratio: median wall 5 / 2 = 2.50; double-epoch check: +0.0100.
	// The baseline's peak came from wait's maxrss, and is marked as such.
	for _, want := range []string{"| g | 2.50 | 2.50 | 3.00 | 100 / 200 | 1.00 | +0.0200 |", "| h | 90 | 0.9500 | 180 | 0.9400 | +0.0100 |",
		"| 25† |", "† wait's maxrss"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	for _, f := range []string{"results.json", "cost.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// A file case given by bare name is found in the datasets folder when it
// is not in the working folder.
func TestCaseResolve(t *testing.T) {
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "tiny.edges"), []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	calls := 0
	dataDir := func() (string, error) { calls++; return data, nil }
	c, err := ParseCase("file:tiny.edges")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Resolve(dataDir); err != nil || c.File != filepath.Join(data, "tiny.edges") || c.Name != "tiny" {
		t.Fatalf("bare name: %+v %v", c, err)
	}
	// A file in the working folder wins, without looking for the datasets.
	if err := os.WriteFile("tiny.edges", []byte("1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ = ParseCase("file:tiny.edges")
	if err := c.Resolve(dataDir); err != nil || c.File != "tiny.edges" || calls != 1 {
		t.Fatalf("local file: %+v %v (datasets looked up %d times)", c, err, calls)
	}
	c, _ = ParseCase("file:nope.edges")
	if err := c.Resolve(dataDir); err == nil || !strings.Contains(err.Error(), "neither in the working folder nor in the datasets folder "+data) {
		t.Fatalf("missing bare name: %v", err)
	}
	c, _ = ParseCase("file:sub/nope.edges")
	if err := c.Resolve(dataDir); err == nil || !strings.Contains(err.Error(), "sub/nope.edges: no such file") {
		t.Fatalf("missing path: %v", err)
	}
	c, _ = ParseCase("file:nope.edges")
	noData := func() (string, error) { return "", os.ErrNotExist }
	if err := c.Resolve(noData); err == nil || !strings.Contains(err.Error(), "not in the working folder") {
		t.Fatalf("no datasets folder: %v", err)
	}
}

// A case without planted nodes has no AUC: the reports say n/a and
// results.json holds null, instead of failing on NaN and losing the file.
func TestReportWithoutPlantedNodes(t *testing.T) {
	runs := []Run{
		{Case: "tiny", Binary: "main", WallS: 1, Edges: 10, Nodes: 8, PeakRSSMB: 20, Epochs: 50, AUC: math.NaN()},
		{Case: "tiny", Binary: "main", DoubleEpochs: true, WallS: 2, Epochs: 100, AUC: math.NaN()},
		{Case: "big", Binary: "main", WallS: 3, Edges: 1000, Nodes: 200, PeakRSSMB: 30, Epochs: 60, AUC: 0.8},
	}
	dir := t.TempDir()
	if err := Report(dir, &Results{Runs: runs}, "# test", map[string]any{"ratio": 0.01}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "results.md"))
	if strings.Contains(string(md), "NaN") || !strings.Contains(string(md), "| 20 | 0 | n/a |") ||
		!strings.Contains(string(md), "| tiny | 50 | n/a | 100 | n/a | n/a |") {
		t.Fatalf("results.md:\n%s", md)
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Runs []struct {
			Case string   `json:"case"`
			AUC  *float64 `json:"auc"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &got); err != nil || len(got.Runs) != 3 || got.Runs[0].AUC != nil || got.Runs[2].AUC == nil || *got.Runs[2].AUC != 0.8 {
		t.Fatalf("results.json: %v\n%s", err, b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

// --reuse: a case and binary found in earlier results is reported from
// them and not run (the binary here does not exist); the report says so.
func TestReuse(t *testing.T) {
	c, err := ParseCase("sbm:1000:10")
	if err != nil {
		t.Fatal(err)
	}
	earlier := []Run{
		{Case: c.Name, Binary: BinaryMain, WallS: 2, CPUS: 3, Epochs: 70, AUC: 0.9, Nodes: 1000, Edges: 5000, PeakRSSMB: 20, EstimateMB: 30},
		{Case: "other", Binary: BinaryMain, WallS: 9, AUC: 0.8},
	}
	dir := t.TempDir()
	if err := WriteJSON(filepath.Join(dir, "results.json"), &Results{Runs: append(earlier, Run{Case: c.Name, Binary: BinaryPrevious, WallS: 5})}, nil); err != nil {
		t.Fatal(err)
	}
	reuse, err := ReadRuns(filepath.Join(dir, "results.json"))
	if err != nil || len(reuse) != 2 {
		t.Fatalf("ReadRuns: %v, %+v (want the two main runs, not the previous one)", err, reuse)
	}
	res, err := Execute(context.Background(), Config{Cases: []Case{c}, CacheDir: dir, Binary: filepath.Join(dir, "no-such-binary"), Reuse: reuse})
	runs := res.Runs
	if err != nil {
		t.Fatalf("Execute ran something: %v", err)
	}
	if len(runs) != 1 || !runs[0].Reused || runs[0].WallS != 2 || runs[0].Case != c.Name {
		t.Fatalf("runs %+v, want the one earlier run of %s, marked reused", runs, c.Name)
	}
	var sb strings.Builder
	if err := WriteMarkdown(&sb, runs, "# t"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "Reused from earlier results (--reuse), not run again: "+c.Name+" (main).") {
		t.Errorf("report does not say what was reused:\n%s", sb.String())
	}
	if runs[0].PeakFromRusage {
		t.Error("a peak the file says was the child's own came back as wait's maxrss")
	}
	// A file from before peak_from_rusage existed: every peak there was
	// wait's maxrss. Its baseline runs are reported without --baseline.
	old := `{"runs": [{"case": "` + c.Name + `", "binary": "baseline", "wall_s": 4, "peak_rss_mb": 900, "auc": 0.8}]}`
	if err := os.WriteFile(filepath.Join(dir, "old.json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	older, err := ReadRuns(filepath.Join(dir, "old.json"))
	if err != nil || len(older) != 1 || !older[0].PeakFromRusage {
		t.Fatalf("ReadRuns(old file) = %+v, %v; want its peak marked as wait's maxrss", older, err)
	}
	res, err = Execute(context.Background(), Config{Cases: []Case{c}, CacheDir: dir, Binary: filepath.Join(dir, "no-such-binary"), Reuse: append(reuse, older...)})
	runs = res.Runs
	if err != nil || len(runs) != 2 || runs[1].Binary != BinaryBaseline || !runs[1].Reused {
		t.Fatalf("runs %+v, %v: want the reused main and baseline runs", runs, err)
	}
}

// The long compute of the fault scenarios lasts 2.5 lock TTLs at the
// measured binary's CNE speed on the case (median seconds per epoch of its
// score runs), at least 100 epochs; a fixed --fault-epochs wins; 400
// without runs to go by.
func TestFaultEpochs(t *testing.T) {
	c := Case{Name: "neo4j-sbm-1M-d20"}
	res := &Results{Runs: []Run{
		{Case: c.Name, Binary: BinaryMain, Epochs: 70, EmbeddingS: 35},    // 0.5 s an epoch
		{Case: c.Name, Binary: BinaryMain, Epochs: 70, EmbeddingS: 42},    // 0.6
		{Case: c.Name, Binary: BinaryMain, Epochs: 70, EmbeddingS: 28},    // 0.4
		{Case: c.Name, Binary: BinaryBaseline, Epochs: 70, EmbeddingS: 7}, // not the measured binary
		{Case: "other", Binary: BinaryMain, Epochs: 70, EmbeddingS: 700},  // another case
		{Case: c.Name, Binary: BinaryMain, Epochs: 140, EmbeddingS: 7, DoubleEpochs: true},
	}}
	if got, want := faultEpochs(Config{}, res, c), 600; got != want { // 2.5 * 120 s / 0.5 s
		t.Errorf("faultEpochs = %d, want %d", got, want)
	}
	if got := faultEpochs(Config{Live: LiveConfig{FaultEpochs: 33}}, res, c); got != 33 {
		t.Errorf("with FaultEpochs 33: %d", got)
	}
	if got := faultEpochs(Config{}, &Results{}, c); got != 400 {
		t.Errorf("without runs: %d, want 400", got)
	}
	fast := &Results{Runs: []Run{{Case: c.Name, Binary: BinaryMain, Epochs: 100, EmbeddingS: 1}}}
	if got := faultEpochs(Config{}, fast, c); got != 30000 {
		t.Errorf("0.01 s an epoch: %d, want 30000", got)
	}
}

// A flat case is the sbm case of the same size and seed with every node of
// one weight: the same number of edges, and no hub.
func TestFlatCaseHasNoHubs(t *testing.T) {
	sbm, _ := ParseCase("sbm:5000:20")
	flat, _ := ParseCase("flat:5000:20")
	maxDeg := func(c Case) (int, int) {
		g, err := generate.SBM(c.sbmOptions(7))
		if err != nil {
			t.Fatal(err)
		}
		m := 0
		for i := 0; i < g.NumNodes(); i++ {
			m = max(m, g.Degree(i))
		}
		return m, g.NumEdges()
	}
	ms, es := maxDeg(sbm)
	mf, ef := maxDeg(flat)
	if es < 50_000 || ef < 50_000 || es > 50_500 || ef > 50_500 {
		t.Errorf("edges: sbm %d, flat %d; want 50000 each (the generator tops up, a few more)", es, ef)
	}
	// Poisson(20) passes 60 with a probability near 1e-12; the power law
	// of the sbm case reaches far beyond.
	if mf > 60 || ms < 200 {
		t.Errorf("largest degree: flat %d (want at most 60), sbm %d (want hubs, 200 or more)", mf, ms)
	}
}

// score --split's column: groups between '|', members holding '|' quoted
// as in CSV, the field quoted again when it holds a quote.
func TestSplitGroups(t *testing.T) {
	for _, tc := range []struct {
		field string
		want  int
	}{
		{"", 0},
		{"1,2,3", 1},
		{"1,2|3|4,5", 3},
		{`"""a|b"",c|d"`, 2}, // members "a|b" and c, then d
		{`"""x"""`, 1},
	} {
		if got := splitGroups(tc.field); got != tc.want {
			t.Errorf("splitGroups(%q) = %d, want %d", tc.field, got, tc.want)
		}
	}
	// Three nodes split into 3, 2 and 4 groups (degrees 10, 20, 60), one
	// proposal of a single group (not a split), one node without.
	out := "1\t0.9\t10\t0.5\t3\t2,3|4|5,6\n" +
		"2\t0.8\t20\t0.4\t2\t7|8\n" +
		"3\t0.7\t60\t0.3\t1\t9,10\n" +
		"4\t0.6\t60\t0.2\t4\t1|2|3|4\n" +
		"5\t0.1\t5\t0.1\t1\n"
	var sc SplitCounts
	m, _, err := readScores(strings.NewReader(out), 1, &sc)
	if err != nil || len(m) != 5 {
		t.Fatalf("%v %v", m, err)
	}
	if want := (SplitCounts{SplitNodes: 3, Clones: 6, MaxGroups: 4, SplitDegree: 30}); sc != want {
		t.Errorf("counts %+v, want %+v", sc, want)
	}
}

// The split table: per case and binary, medians of the paired runs, the
// split's own CPU the median of the differences.
func TestSplitReport(t *testing.T) {
	splits := []SplitRun{
		{Case: "sbm-1k-d20", Binary: BinaryMain, SplitTop: 100, CPUS: 30, ScoreCPUS: 20, ExtraCPUS: 10, WallS: 16, PeakRSSMB: 50,
			SplitCounts: SplitCounts{SplitNodes: 90, Clones: 400, MaxGroups: 30, SplitDegree: 175}},
		{Case: "sbm-1k-d20", Binary: BinaryMain, SplitTop: 100, CPUS: 34, ScoreCPUS: 22, ExtraCPUS: 12, WallS: 18, PeakRSSMB: 52,
			SplitCounts: SplitCounts{SplitNodes: 90, Clones: 400, MaxGroups: 30, SplitDegree: 175}},
		{Case: "sbm-1k-d20", Binary: BinaryMain, SplitTop: 100, CPUS: 40, ScoreCPUS: 21, ExtraCPUS: 19, WallS: 20, PeakRSSMB: 54,
			SplitCounts: SplitCounts{SplitNodes: 90, Clones: 400, MaxGroups: 30, SplitDegree: 175}},
		{Case: "flat-1k-d20", Binary: BinaryBaseline, SplitTop: 100, CPUS: 21, ScoreCPUS: 20, ExtraCPUS: 1, WallS: 11, PeakRSSMB: 40, PeakFromRusage: true,
			SplitCounts: SplitCounts{SplitNodes: 60, Clones: 61, MaxGroups: 3, SplitDegree: 21.5}},
	}
	dir := t.TempDir()
	if err := Report(dir, &Results{Splits: splits}, "# t", nil); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "results.md"))
	for _, want := range []string{
		"`sbm-1k-d20` with `--split --split-top 100`",
		"| main | 3 | 21.0 | 34.0 | +12.0 | 18.0 | 52 | 90 | 400 | 30 | 175.0 |",
		"`flat-1k-d20` with `--split --split-top 100`",
		"| baseline | 1 | 20.0 | 21.0 | +1.0 | 11.0 | 40† | 60 | 61 | 3 | 21.5 |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	var doc struct {
		Splits []SplitRun `json:"splits"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Splits) != 4 || doc.Splits[3] != splits[3] {
		t.Fatalf("results.json splits: %v %+v", err, doc.Splits)
	}
}
