package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// bench/testdata holds polbooks and netscience: the --quick preset.
const benchData = "../../bench/testdata"

func TestBenchQuick(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, "", "bench", "--quick", "--data-dir", benchData, "--out", out, "--threads", "2", "--splitters", "ncut,mcl,fondue")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout not empty: %q", stdout)
	}
	for _, want := range []string{"bench: 6 seeds to run", "polbooks r=10% seed 3 done", "netscience r=10% (3 seeds): mean AUC combined", "wrote " + filepath.Join(out, "RESULTS.md")} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, f := range []string{"RESULTS.md", "results.json", "results.jsonl", "roc-polbooks.png", "roc-netscience.png", "auc-bars.png", "ari-cells.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "RESULTS.md"))
	for _, want := range []string{"fondue-neo4j bench --data-dir " + benchData, "--quick", "![roc-polbooks](roc-polbooks.png)", "Targets met in 2 of 2 cells run."} {
		if !strings.Contains(string(md), want) {
			t.Errorf("RESULTS.md lacks %q", want)
		}
	}
	var res struct {
		Config struct {
			Seeds     int
			Splitters []string
			Workers   int
		}
		Seeds []json.RawMessage
	}
	b, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if err := json.Unmarshal(b, &res); err != nil || res.Config.Seeds != 3 || len(res.Seeds) != 6 ||
		!slices.Equal(res.Config.Splitters, []string{"ncut", "mcl", "fondue"}) || res.Config.Workers != 2 {
		t.Fatalf("results.json: %v %+v", err, res.Config)
	}
	// The same command again resumes everything.
	code, _, stderr = runCLI(t, "", "bench", "--quick", "--data-dir", benchData, "--out", out, "--threads", "2", "--splitters", "ncut,mcl,fondue")
	if code != 0 || strings.Count(stderr, " resumed: ") != 6 {
		t.Fatalf("rerun: exit %d, stderr %s", code, stderr)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"bench", "--ties", "half"}, "--ties"},
		{[]string{"bench", "--datasets", "std"}, "not available"},
		{[]string{"bench", "--datasets", "karate2"}, "unknown dataset"},
		{[]string{"bench", "--ratios", "0.7"}, "--ratios"},
		{[]string{"bench", "--methods", "pagerank"}, "unknown method"},
		{[]string{"bench", "--splitters", "magic"}, "unknown splitter"},
		{[]string{"bench", "--seeds", "0", "--split-seeds", "0"}, "at least one seed"},
		{[]string{"bench", "--data-dir", filepath.Join(dir, "none")}, "datasets directory not found"},
		{[]string{"bench", "extra"}, "no arguments"},
		{[]string{"bench", "--sigma2", "0.5", "--data-dir", benchData}, "sigma2"},
	}
	for _, c := range cases {
		code, out, stderr := runCLI(t, "", append(c.args, "--out", filepath.Join(dir, "o"))...)
		if code != exitUsage || !strings.Contains(stderr, c.msg) || out != "" {
			t.Errorf("%v: exit %d, stderr %q (want %q)", c.args, code, stderr, c.msg)
		}
	}
}

func TestParseRatios(t *testing.T) {
	got, err := parseRatios("0.1, 1%,0.001,0.01")
	if err != nil || !slices.Equal(got, []float64{0.001, 0.01, 0.1}) {
		t.Fatalf("parseRatios: %v %v", got, err)
	}
}

// bench scale looks up a bare file name in the datasets folder, and says
// where it looked when the file is in neither place.
func TestBenchScaleFileCase(t *testing.T) {
	data := t.TempDir()
	code, out, stderr := runCLI(t, "", "bench", "scale", "--cases", "file:condmat05.edges", "--data-dir", data, "--out", t.TempDir())
	if code != exitUsage || out != "" || !strings.Contains(stderr, "file:condmat05.edges: neither in the working folder nor in the datasets folder "+data) {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "bench", "scale", "--cases", "file:condmat05.edges", "--data-dir", filepath.Join(data, "none"))
	if code != exitUsage || !strings.Contains(stderr, "datasets directory not found") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
}

// bench --help and the README agree on how long the full run takes.
func TestBenchHelpMatchesReadme(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`bench --out bench-full # the paper's whole evaluation, about (\d+ minutes)`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md does not say how long the full bench takes")
	}
	code, out, _ := runCLI(t, "", "bench", "--help")
	if code != 0 || !strings.Contains(out, "the whole paper table (about "+string(m[1])) || strings.Contains(out, "hours") {
		t.Fatalf("bench --help does not say %q:\n%s", m[1], out)
	}
	if !strings.Contains(out, "docs/method.md section 5") {
		t.Fatal("bench --help does not cite the method's reference")
	}
}

// The default output folders of bench and bench scale are ignored by git.
func TestBenchOutputIgnored(t *testing.T) {
	ignore, err := os.ReadFile("../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(ignore), "\n")
	root := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}).rootCmd()
	for _, path := range [][]string{{"bench"}, {"bench", "scale"}} {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		out := cmd.Flags().Lookup("out").DefValue
		if !slices.Contains(lines, "/"+out+"/") {
			t.Errorf("%s writes to %s by default, which .gitignore does not list", strings.Join(path, " "), out)
		}
	}
}
