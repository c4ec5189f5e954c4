package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runCLI runs the command in-process and returns exit code, stdout, stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// bench/testdata holds polbooks and netscience: the --quick preset.
const benchData = "../../../bench/testdata"

func TestBenchQuick(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, "--quick", "--data-dir", benchData, "--output-dir", out, "--threads", "2", "--splitters", "ncut,mcl,fondue")
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
	for _, want := range []string{"fondue-bench --data-dir " + benchData, "--quick", "![roc-polbooks](roc-polbooks.png)", "Targets met in 2 of 2 cells run."} {
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
	// bench/testdata/real holds the real sets: the quick real run follows,
	// into out/real, with the same splitters.
	for _, want := range []string{"real: [1/2] dblp679 seed 1: AUC combined", "real: [2/2] dblp679-wrote seed 1", "real: wrote " + filepath.Join(out, "real", "RESULTS.md") + " (2 sets, 1 seed,"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	var realRes struct {
		Config struct {
			Seeds     int
			Splitters []string
		}
	}
	b, _ = os.ReadFile(filepath.Join(out, "real", "results.json"))
	if err := json.Unmarshal(b, &realRes); err != nil || realRes.Config.Seeds != 1 || !slices.Equal(realRes.Config.Splitters, []string{"ncut", "mcl", "fondue"}) {
		t.Fatalf("real/results.json: %v %+v", err, realRes.Config)
	}
	// The same command again resumes everything; --skip-real skips the real run.
	code, _, stderr = runCLI(t, "--quick", "--data-dir", benchData, "--output-dir", out, "--threads", "2", "--splitters", "ncut,mcl,fondue", "--skip-real")
	if code != 0 || strings.Count(stderr, " resumed: ") != 6 || strings.Contains(stderr, "real:") {
		t.Fatalf("rerun: exit %d, stderr %s", code, stderr)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"--ties", "half"}, "--ties"},
		{[]string{"--datasets", "std"}, "not available"},
		{[]string{"--datasets", "karate2"}, "unknown dataset"},
		{[]string{"--ratios", "0.7"}, "--ratios"},
		{[]string{"--methods", "pagerank"}, "unknown method"},
		{[]string{"--splitters", "magic"}, "unknown splitter"},
		{[]string{"--contractions", "0", "--split-contractions", "0"}, "at least one contraction"},
		{[]string{"--data-dir", filepath.Join(dir, "none")}, "datasets directory not found"},
		{[]string{"extra"}, "no arguments"},
		{[]string{"--sigma2", "0.5", "--data-dir", benchData}, "sigma2"},
	}
	for _, c := range cases {
		code, out, stderr := runCLI(t, append(c.args, "--output-dir", filepath.Join(dir, "o"))...)
		if code != cli.ExitUsage || !strings.Contains(stderr, c.msg) || out != "" {
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
	code, out, stderr := runCLI(t, "scale", "--cases", "file:condmat05.edges", "--data-dir", data, "--output-dir", t.TempDir())
	if code != cli.ExitUsage || out != "" || !strings.Contains(stderr, "file:condmat05.edges: neither in the working folder nor in the datasets folder "+data) {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "scale", "--cases", "file:condmat05.edges", "--data-dir", filepath.Join(data, "none"))
	if code != cli.ExitUsage || !strings.Contains(stderr, "datasets directory not found") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
}

// fondue-bench --help and docs/choosing-a-method.md agree on how long the
// full run takes.
func TestBenchHelpMatchesDocs(t *testing.T) {
	readme, err := os.ReadFile("../../../docs/choosing-a-method.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`bench --output-dir bench-full # the paper's whole evaluation, about (\d+ minutes)`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("docs/choosing-a-method.md does not say how long the full bench takes")
	}
	code, out, _ := runCLI(t, "--help")
	if code != 0 || !strings.Contains(out, "the whole paper table (about "+string(m[1])) || strings.Contains(out, "hours") {
		t.Fatalf("fondue-bench --help does not say %q:\n%s", m[1], out)
	}
	if !strings.Contains(out, "docs/method.md section 5") {
		t.Fatal("fondue-bench --help does not cite the method's reference")
	}
}

// The default output folders of fondue-bench, fondue-bench real and
// fondue-bench scale are ignored by git.
func TestBenchOutputIgnored(t *testing.T) {
	ignore, err := os.ReadFile("../../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(ignore), "\n")
	root := newApp(&strings.Builder{}, &strings.Builder{}).rootCmd()
	for _, path := range [][]string{{}, {"real"}, {"scale"}} {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		out := cmd.Flags().Lookup("output-dir").DefValue
		if !slices.Contains(lines, "/"+out+"/") {
			t.Errorf("%s writes to %s by default, which .gitignore does not list", cmd.CommandPath(), out)
		}
	}
}

// The engine's options come from the same configuration as score's: flag
// over FONDUE_* environment over config file.
func TestBenchReadsConfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "fondue.yaml")
	if err := os.WriteFile(file, []byte("seed: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	engineSeed := func(args ...string) uint64 {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		args = append([]string{"--config", file, "--data-dir", benchData, "--output-dir", out, "--datasets", "polbooks",
			"--ratios", "0.1", "--contractions", "1", "--split-contractions", "0", "--methods", "degree", "--skip-real"}, args...)
		code, _, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var res struct {
			Seeds []struct {
				EngineSeed uint64 `json:"engine_seed"`
			}
		}
		b, _ := os.ReadFile(filepath.Join(out, "results.json"))
		if err := json.Unmarshal(b, &res); err != nil || len(res.Seeds) != 1 {
			t.Fatalf("results.json: %v, %d seeds", err, len(res.Seeds))
		}
		return res.Seeds[0].EngineSeed
	}
	if got := engineSeed(); got != 7 {
		t.Errorf("config file seed 7: engine seed %d", got)
	}
	t.Setenv("FONDUE_SEED", "8")
	if got := engineSeed(); got != 8 {
		t.Errorf("FONDUE_SEED=8 over the file's 7: engine seed %d", got)
	}
	if got := engineSeed("--seed", "9"); got != 9 {
		t.Errorf("--seed 9 over FONDUE_SEED=8: engine seed %d", got)
	}
	t.Setenv("FONDUE_EMBEDDING_SIGMA2", "0.5")
	code, _, stderr := runCLI(t, "--data-dir", benchData, "--output-dir", filepath.Join(dir, "o"))
	if code != cli.ExitUsage || !strings.Contains(stderr, "sigma2") {
		t.Errorf("FONDUE_EMBEDDING_SIGMA2=0.5: exit %d, %q", code, stderr)
	}
}

// scale measures the fondue-neo4j given by --binary, else one beside this
// program or on $PATH, and says how to build one when there is none.
func TestScaleBinary(t *testing.T) {
	cache := t.TempDir()
	code, _, stderr := runCLI(t, "scale", "--cache-dir", cache, "--binary", filepath.Join(cache, "none"), "--output-dir", t.TempDir())
	if code != cli.ExitUsage || !strings.Contains(stderr, "--binary") {
		t.Fatalf("missing --binary: exit %d, %q", code, stderr)
	}
	t.Setenv("PATH", t.TempDir())
	code, _, stderr = runCLI(t, "scale", "--cache-dir", cache, "--output-dir", t.TempDir())
	if code != cli.ExitUsage || !strings.Contains(stderr, "go build -o fondue-neo4j ./cmd/fondue-neo4j") {
		t.Fatalf("no binary: exit %d, %q", code, stderr)
	}
}

// Every --flag that bench/README.md, bench/SCALE.md and the sections of
// the README and docs/ that run fondue-bench name is a flag of fondue-bench
// or of its real or scale command (or, in bench/README.md and SCALE.md, a
// flag of the fondue-neo4j runs that scale measures: "scale ... -- --method
// fondue", the nights' --checkpoint and --full): documented flags are real.
func TestDocumentedFlagsExist(t *testing.T) {
	pages, err := filepath.Glob("../../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	runsBench := regexp.MustCompile(`\ngo run \./(bench/)?bench/cmd/fondue-bench`)
	var all string
	for _, page := range append([]string{"../../../README.md"}, pages...) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(page, "../../../")
		for _, sec := range strings.Split(string(text), "\n## ") {
			if runsBench.MatchString(sec) {
				docs[name] += sec
				all += sec
			}
		}
	}
	if !strings.Contains(all, "--quick") || !strings.Contains(all, "--binary") {
		t.Fatal("neither the README nor docs/ has a section running fondue-bench --quick and fondue-bench scale --binary")
	}
	for _, name := range []string{"README.md", "SCALE.md"} {
		b, err := os.ReadFile(filepath.Join("../../../bench", name))
		if err != nil {
			t.Fatal(err)
		}
		docs["bench/"+name] = string(b)
	}
	root := newApp(&strings.Builder{}, &strings.Builder{}).rootCmd()
	root.InitDefaultHelpFlag()
	scale, _, err := root.Find([]string{"scale"})
	if err != nil {
		t.Fatal(err)
	}
	realCmd, _, err := root.Find([]string{"real"})
	if err != nil {
		t.Fatal(err)
	}
	dupCmd, _, err := root.Find([]string{"duplicates"})
	if err != nil {
		t.Fatal(err)
	}
	flag := regexp.MustCompile("(?:^|[\\s`(\\[|])--([a-z][a-z0-9-]*)")
	for file, text := range docs {
		for _, m := range flag.FindAllStringSubmatch(text, -1) {
			if root.Flags().Lookup(m[1]) == nil && scale.Flags().Lookup(m[1]) == nil && realCmd.Flags().Lookup(m[1]) == nil &&
				dupCmd.Flags().Lookup(m[1]) == nil && !(strings.HasPrefix(file, "bench/") && slices.Contains(scoreFlags(), m[1])) {
				t.Errorf("%s names --%s, which fondue-bench does not have", file, m[1])
			}
		}
	}
}

// engineFlags are the names of the engine's flags, which score, review and
// sync share (scale passes them on to score).
// scoreFlags are the flags of fondue-neo4j score, which SCALE.md's runs use.
func scoreFlags() []string {
	var names []string
	for _, s := range config.Settings() {
		if f, ok := s.FlagOn(config.CmdScore); ok {
			names = append(names, f.Name)
		}
	}
	return names
}

// fondue-bench offers the flags it uses, in the words of fondue-neo4j:
// the folder of the reports is --output-dir (--output is a format there),
// the contractions per cell --contractions and --split-contractions (not
// --seeds beside the engine's --seed), no warm start and no --method
// (--methods). The older spellings still work, with a warning.
func TestBenchVocabulary(t *testing.T) {
	root := newApp(&strings.Builder{}, &strings.Builder{}).rootCmd()
	for _, path := range [][]string{{}, {"scale"}} {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		if cmd.Flags().Lookup("output-dir") == nil {
			t.Errorf("%s has no --output-dir", cmd.CommandPath())
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			switch {
			case f.Hidden && cli.DeprecatedFor(f) == "":
				t.Errorf("%s --%s is hidden but not an older spelling: a flag it does not use", cmd.CommandPath(), f.Name)
			case f.Hidden:
			case slices.Contains([]string{"out", "seeds", "split-seeds", "method", "checkpoint", "checkpoint-force"}, f.Name):
				t.Errorf("%s offers --%s", cmd.CommandPath(), f.Name)
			}
		})
	}
	var stderr strings.Builder
	a := newApp(&strings.Builder{}, &stderr)
	root = a.rootCmd()
	var got []string
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		for _, name := range []string{"contractions", "split-contractions", "output-dir"} {
			got = append(got, cmd.Flags().Lookup(name).Value.String())
		}
		return nil
	}
	root.SetArgs([]string{"--seeds", "4", "--split-seeds", "2", "--out", "folder"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"4", "2", "folder"}) {
		t.Errorf("--seeds 4 --split-seeds 2 --out folder set %q", got)
	}
	for _, w := range []string{"--out is deprecated: write --output-dir", "--seeds is deprecated: write --contractions",
		"--split-seeds is deprecated: write --split-contractions"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("no warning %q: %s", w, stderr.String())
		}
	}
	if code, _, stderr := runCLI(t, "--checkpoint", "x.ck", "--report-only"); code != cli.ExitUsage || !strings.Contains(stderr, "unknown flag: --checkpoint") {
		t.Errorf("--checkpoint: exit %d, %s", code, stderr)
	}
}

// Every command of fondue-bench has the settings' flags it declares
// (engineKeys, scaleKeys), each named, explained and defaulted as the
// settings say, and no other setting's; the root's persistent flags are
// fondue-neo4j's (config.CmdEvery).
func TestBenchSettingsAsDeclared(t *testing.T) {
	root := newApp(&strings.Builder{}, &strings.Builder{}).rootCmd()
	if err := cli.CheckFlags(root, config.CmdEvery); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		path []string
		keys []string
		help map[string]string
	}{{nil, engineKeys, nil}, {[]string{"real"}, engineKeys, nil}, {[]string{"scale"}, []string{"seed", "threads"}, scaleKeys}} {
		t.Run(strings.Join(append([]string{"fondue-bench"}, c.path...), " "), func(t *testing.T) {
			cmd, _, err := root.Find(c.path)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
				if k, ok := cli.KeyOf(f); ok {
					got = append(got, k)
				}
			})
			if want := slices.Sorted(slices.Values(c.keys)); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
				t.Errorf("got the flags of %v, want those of %v", got, want)
			}
			for _, k := range c.keys {
				s, _ := config.Lookup(k)
				fl, _ := s.FlagOn(^config.Commands(0))
				want := fl.Help
				if h, ok := c.help[k]; ok {
					want = h
				}
				f := cmd.Flags().Lookup(fl.Name)
				if f == nil {
					t.Errorf("%s: got no --%s, want one", k, fl.Name)
					continue
				}
				if f.Usage != want {
					t.Errorf("--%s: got help %q, want %q", fl.Name, f.Usage, want)
				}
				if got, want := f.DefValue, fmt.Sprint(s.Default); want != "[]" && got != want {
					t.Errorf("--%s: got default %q, want %q", fl.Name, got, want)
				}
			}
		})
	}
}
