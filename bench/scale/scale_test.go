package scale

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	for _, bad := range []string{"sbm:10", "sbm:x:10", "sbm:50:10", "sbm:1000:0", "er:100:5", ""} {
		if _, err := ParseCase(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestReadScoresAndSummary(t *testing.T) {
	m, err := readScores(strings.NewReader("7\t1\t3\t2.5\nx\t0.5\t1\t0.1\n"))
	if err != nil || len(m) != 2 || m["7"] != 1 || m["x"] != 0.5 {
		t.Fatalf("%v %v", m, err)
	}
	if _, err := readScores(strings.NewReader("7\tnope\t3\n")); err == nil {
		t.Fatal("bad line accepted")
	}
	var r Run
	r.WallS = 10
	parseSummary(`{"level":"DEBUG","msg":"read edge list"}
{"level":"DEBUG","msg":"scored","nodes":100,"edges":400,"epochs":120,"prior_s":0.5,"embedding_s":7,"scoring_s":1.5}`, &r)
	if r.Nodes != 100 || r.Edges != 400 || r.Epochs != 120 || r.EmbeddingS != 7 || r.LoadS != 1 {
		t.Fatalf("%+v (load falls back to wall minus the phases for binaries that do not log it)", r)
	}
}

func TestSummarizeAndReport(t *testing.T) {
	runs := []Run{
		{Case: "g", Binary: "main", WallS: 3, CPUS: 6, EmbeddingS: 2, Epochs: 100, AUC: 0.9, Edges: 1000, PeakRSSMB: 30},
		{Case: "g", Binary: "main", WallS: 1, CPUS: 2, EmbeddingS: 1, Epochs: 100, AUC: 0.9, Edges: 1000, PeakRSSMB: 20},
		{Case: "g", Binary: "main", WallS: 2, CPUS: 4, EmbeddingS: 1.5, Epochs: 100, AUC: 0.9, Edges: 1000, PeakRSSMB: 25},
		{Case: "g", Binary: "baseline", WallS: 5, CPUS: 10, EmbeddingS: 4.5, Epochs: 200, AUC: 0.88, Edges: 1000, PeakRSSMB: 25},
		{Case: "h", Binary: "main", WallS: 20, Edges: 10000, PeakRSSMB: 100, Epochs: 90, AUC: 0.95},
		{Case: "h", Binary: "main", DoubleEpochs: true, WallS: 40, Epochs: 180, AUC: 0.94},
	}
	sums := Summarize(runs)
	if len(sums) != 3 || sums[0].Runs != 3 || sums[0].Median.WallS != 2 || sums[0].Median.PeakRSSMB != 25 {
		t.Fatalf("%+v", sums)
	}
	dir := t.TempDir()
	if err := Report(dir, runs, "# test", map[string]any{"seed": 1}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Baseline ratio: median wall 5 / 2 = 2.50; double-epoch check: +0.0100.
	for _, want := range []string{"| g | 2.50 | 2.50 | 3.00 | 100 / 200 | +0.0200 |", "| h | 90 | 0.9500 | 180 | 0.9400 | +0.0100 |"} {
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
