package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
)

// fondue-bench real --quick on bench/testdata/real: one seed, both shapes,
// the reports and plots in --out, the engine's flags read as score's.
func TestRealQuickCLI(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, "real", "--quick", "--data-dir", benchData, "--output-dir", out, "--threads", "2", "--seed", "4",
		"--methods", "degree,cc", "--splitters", "ego-components,two-hop-components")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout not empty: %q", stdout)
	}
	for _, want := range []string{
		"real: dblp679: 8846 nodes, 29040 edges, every node scored; 184 positives, 394 negatives, 174 names to split",
		"real: dblp679-wrote: 15545 nodes, 24576 edges, 8869 a:… nodes scored; 184 positives, 417 negatives, 184 names to split",
		"real: [1/2] dblp679 seed 1: AUC degree 0.847, cc 0.927; ARI ego-components 0.782, two-hop-components",
		"real: [2/2] dblp679-wrote seed 1: AUC degree 0.859, cc 0.859; ARI ego-components 0.158, two-hop-components 0.720",
		"real: wrote " + filepath.Join(out, "RESULTS.md") + " (2 sets, 1 seed, in ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, f := range []string{"RESULTS.md", "results.json", "real-detection.png", "real-ari.png", "real-groups.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "RESULTS.md"))
	for _, want := range []string{"Command: `fondue-bench real --data-dir " + benchData, "--quick", "## dblp679-wrote", "| `cc` | .927 † | .854 † |", "![real-ari](real-ari.png)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("RESULTS.md lacks %q", want)
		}
	}
	var res struct {
		Results struct {
			Config struct {
				Seeds     int
				Methods   []string
				Splitters []string
				Engine    struct {
					BaseSeed uint64 `json:"base_seed"`
				}
			}
			Sets []struct {
				Name  string
				Seeds []struct {
					EngineSeed uint64 `json:"engine_seed"`
				}
			}
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if err := json.Unmarshal(b, &res.Results); err != nil {
		t.Fatal(err)
	}
	c := res.Results.Config
	if c.Seeds != 1 || !slices.Equal(c.Methods, []string{"degree", "cc"}) || c.Engine.BaseSeed != 4 ||
		len(res.Results.Sets) != 2 || res.Results.Sets[1].Seeds[0].EngineSeed != 4 {
		t.Fatalf("results.json: %+v", res.Results)
	}
}

// Bad flags, a missing real-data folder, an unknown set and a malformed
// file are usage errors with one clear line.
func TestRealUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bad, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"x.edges":          "1 2\n1 3\n",
		"x.truth.tsv":      "id\tname\tpersons\tpapers\tforeign\tdegree\tlabels\n1\tone\tmany\t2\t0\t2\ta:1,b:1\n",
		"x.neighbours.tsv": "id\tneighbour\tlabels\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(bad, "real", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"--methods", "pagerank"}, "unknown method"},
		{[]string{"--splitters", "magic"}, "unknown splitter"},
		{[]string{"--runs", "0"}, "--runs 0"},
		{[]string{"extra"}, "no arguments"},
		{[]string{"--data-dir", dir}, "real data folder not found: " + filepath.Join(dir, "real")},
		{[]string{"--data-dir", filepath.Join(dir, "none")}, "datasets directory not found"},
		{[]string{"--data-dir", benchData, "--sets", "dblp1"}, `--sets: unknown real set "dblp1"`},
		{[]string{"--data-dir", bad}, filepath.Join(bad, "real", "x.truth.tsv") + `:2: persons "many"`},
		{[]string{"--data-dir", benchData, "--sigma2", "0.5"}, "sigma2"},
	}
	for _, c := range cases {
		code, out, stderr := runCLI(t, append([]string{"real"}, append(c.args, "--output-dir", filepath.Join(dir, "o"))...)...)
		if code != cli.ExitUsage || !strings.Contains(stderr, c.msg) || out != "" || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q (want %q in one line)", c.args, code, stderr, c.msg)
		}
	}
}

// The full bench runs the real evaluation only when the datasets folder
// has real sets, and says so when it has none.
func TestBenchWithoutRealData(t *testing.T) {
	data := t.TempDir()
	b, err := os.ReadFile(filepath.Join(benchData, "polbooks.edges"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "polbooks.edges"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, "--data-dir", data, "--output-dir", out, "--datasets", "polbooks", "--ratios", "0.1", "--contractions", "1", "--split-contractions", "0", "--methods", "degree")
	if code != 0 || !strings.Contains(stderr, "bench: no real sets in "+filepath.Join(data, "real")+": the real evaluation is skipped") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "real")); !os.IsNotExist(err) {
		t.Errorf("out/real: %v", err)
	}
}
