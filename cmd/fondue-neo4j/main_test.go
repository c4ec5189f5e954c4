package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/cne"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/edgelist"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/split"
	"github.com/spf13/cobra"
)

// runCLI runs the command in-process and returns exit code, stdout, stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

const lesmis = "../../testdata/lesmis.edges"

func TestScoreTSV(t *testing.T) {
	code, out, stderr := runCLI(t, "", "score", lesmis, "--top", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 10", len(lines))
	}
	prevAmb := 2.0
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 5 { // node, ambiguity, degree, score, entities
			t.Fatalf("line %q: %d fields", l, len(f))
		}
		amb, err1 := strconv.ParseFloat(f[1], 64)
		_, err2 := strconv.Atoi(f[2])
		_, err3 := strconv.ParseFloat(f[3], 64)
		ent, err4 := strconv.Atoi(f[4])
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || amb > prevAmb || amb <= 0 || amb > 1 || ent < 1 {
			t.Fatalf("line %q: bad fields or order", l)
		}
		prevAmb = amb
	}
	if !strings.HasPrefix(lines[0], "11\t1\t36\t") || !strings.HasPrefix(lines[1], "23\t") {
		t.Errorf("most ambiguous lesmis nodes: %q, %q, want Valjean (11, degree 36), then Fantine (23)", lines[0], lines[1])
	}
	if stderr != "" {
		t.Errorf("stderr not quiet off a terminal: %q", stderr)
	}
}

// The CLI prints exactly what the library computes, for the same seed.
func TestScoreMatchesLibrary(t *testing.T) {
	g, _, err := edgelist.ReadFile(lesmis, edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	// The default, and --random-splits -1 (none) as fondue.NoRandomSplits:
	// the flag passes the library's value through unchanged.
	for _, c := range []struct {
		opts fondue.Options
		args []string
	}{
		{fondue.Options{Seed: 9}, nil},
		{fondue.Options{Seed: 9, Method: score.MethodFONDUE, RandomSplits: score.NoRandomSplits}, []string{"--method", "fondue", "--random-splits", "-1"}},
		// The earlier versions' fit, and the stability stop alone off.
		{fondue.Options{Seed: 9, CNE: cne.Options{NoiseStart: true, NoStabilityStop: true}}, []string{"--start", "noise", "--stability-stop=false"}},
		{fondue.Options{Seed: 9, CNE: cne.Options{NoStabilityStop: true}}, []string{"--stability-stop=false"}},
	} {
		res, err := fondue.Score(context.Background(), g, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"score", lesmis, "--output", "json", "--seed", "9", "--threads", "3"}, c.args...)
		code, out, stderr := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var rows []struct {
			Node      int64   `json:"node"`
			Ambiguity float64 `json:"ambiguity"`
			Degree    int     `json:"degree"`
			Score     float64 `json:"score"`
		}
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("bad JSON: %v\n%s", err, out)
		}
		if len(rows) != g.NumNodes() {
			t.Fatalf("%d rows for %d nodes", len(rows), g.NumNodes())
		}
		for _, r := range rows {
			i, ok := g.Index(strconv.FormatInt(r.Node, 10))
			if !ok || res.Scores[i] != r.Score || res.Ambiguity[i] != r.Ambiguity || g.Degree(i) != r.Degree {
				t.Fatalf("%v: node %d: CLI %+v, library score %v ambiguity %v", c.args, r.Node, r, res.Scores[i], res.Ambiguity[i])
			}
		}
	}
	// None is not the default: without random splits some node scores lower.
	def, err := fondue.Score(context.Background(), g, fondue.Options{Seed: 9, Method: score.MethodFONDUE})
	if err != nil {
		t.Fatal(err)
	}
	none, err := fondue.Score(context.Background(), g, fondue.Options{Seed: 9, Method: score.MethodFONDUE, RandomSplits: score.NoRandomSplits})
	if err != nil {
		t.Fatal(err)
	}
	lower := 0
	for i := range def.Scores {
		if none.Scores[i] < def.Scores[i] {
			lower++
		}
	}
	if lower == 0 {
		t.Error("no random splits gave the same scores as 100 random splits on every node")
	}
}

// The entities column (JSON field entities) is the library's estimated
// number of entities, after score and before split (and after name).
func TestScoreEntities(t *testing.T) {
	g, _, err := edgelist.ReadFile(lesmis, edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fondue.Score(context.Background(), g, fondue.Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "score", lesmis, "--output", "json", "--seed", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []struct {
		Node     int64 `json:"node"`
		Entities *int  `json:"entities"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != g.NumNodes() {
		t.Fatalf("JSON %v: %d rows", err, len(rows))
	}
	several := 0
	for _, r := range rows {
		i, _ := g.Index(strconv.FormatInt(r.Node, 10))
		if r.Entities == nil || *r.Entities != res.Entities[i] || *r.Entities < 1 {
			t.Fatalf("node %d: entities %v, library %d", r.Node, r.Entities, res.Entities[i])
		}
		if *r.Entities > 1 {
			several++
		}
	}
	if several == 0 {
		t.Fatal("no node of lesmis is estimated to hold several entities")
	}
	code, out, stderr = runCLI(t, "", "score", lesmis, "--seed", "2", "--names", lesmisNames, "--split", "--top", "2", "--print-header")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || lines[0] != "node\tname\tambiguity\tdegree\tscore\tentities\tsplit" {
		t.Fatalf("exit %d: %q %s", code, out, stderr)
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		i, _ := g.Index(f[0])
		if len(f) != 7 || f[5] != strconv.Itoa(res.Entities[i]) {
			t.Fatalf("line %q: want entities %d in the sixth column", l, res.Entities[i])
		}
	}
}

func TestScoreSplitAndMethods(t *testing.T) {
	code, out, stderr := runCLI(t, "", "score", lesmis, "--top", "2", "--split", "--splitter", "mcl", "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []struct {
		Node  int64     `json:"node"`
		Split [][]int64 `json:"split"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 || len(rows[0].Split) < 2 {
		t.Fatalf("split output %v: %s", err, out)
	}
	for _, m := range []string{"degree", "cc", "nc"} {
		code, out, stderr := runCLI(t, "", "score", lesmis, "--top", "1", "--method", m)
		if code != 0 || strings.Count(out, "\n") != 1 {
			t.Fatalf("method %s: exit %d, %q %s", m, code, out, stderr)
		}
	}
}

func TestScoreStdinStringIDsAndIsolated(t *testing.T) {
	in := "source,target\nalice,bob\nbob,carol\ncarol,alice\ncarol,dave\nerin,erin\n"
	code, out, stderr := runCLI(t, in, "score", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Count(out, "\n") != 4 || strings.Contains(out, "erin") {
		t.Fatalf("output %q", out)
	}
	if !strings.Contains(stderr, "isolated nodes have no score") || !strings.Contains(stderr, "erin") {
		t.Fatalf("isolated node not reported: %q", stderr)
	}
}

func TestScoreBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.edges", "")
	three := write("bad.edges", "1 2\n2 3 x\n")
	cases := []struct {
		args []string
		env  map[string]string
		code int
		msg  string
	}{
		{[]string{"score", empty}, nil, exitEmpty, empty + ": no edges"},
		{[]string{"score", three}, nil, exitUsage, three + `:2: weight "x" is not a number`},
		{[]string{"score", filepath.Join(dir, "nope")}, nil, exitUsage, "no such file"},
		{[]string{"score"}, nil, exitUsage, "needs one edge-list file"},
		{[]string{"score", lesmis, "--top", "-1"}, nil, exitUsage, "flag --top: top = -1: want a non-negative integer"},
		{[]string{"score", lesmis, "--format", "xml"}, nil, exitUsage, "flag --output: output = xml: want one of text, tsv, json"},
		{[]string{"score", lesmis, "--dim", "0"}, nil, exitUsage, "flag --dim: embedding.dim = 0: want a positive integer"},
		{[]string{"score", lesmis, "--method", "pagerank"}, nil, exitUsage, "method"},
		{[]string{"score", lesmis, "--split=kmeans"}, nil, exitUsage, "--split is a switch; pick the splitter with --splitter NAME"},
		{[]string{"score", lesmis, "--split", "mcl"}, nil, exitUsage, "--split is a switch; write --split --splitter mcl"},
		{[]string{"score", lesmis, "--split", "--splitter", "kmeans"}, nil, exitUsage, "flag --splitter: split.method = kmeans: want one of"},
		{[]string{"score", lesmis, "--split=mcl", "--splitter", "ncut"}, nil, exitUsage, "--split=mcl and --splitter ncut disagree"},
		{[]string{"score", lesmis, "--split", "--splitter", "fondue", "--method", "degree"}, nil, exitUsage, `splitter "fondue" needs an embedding: score with method "combined" or "fondue", not "degree"`},
		{[]string{"score", lesmis, "--print-header=maybe"}, nil, exitUsage, "want auto, true or false"},
		{[]string{"score", lesmis}, map[string]string{"FONDUE_PRINT_HEADER": "sometimes"}, exitUsage, `FONDUE_PRINT_HEADER: print_header = "sometimes": want auto`},
		{[]string{"score", lesmis, "--names", filepath.Join(dir, "nope.tsv")}, nil, exitUsage, "names file " + filepath.Join(dir, "nope.tsv") + ": no such file"},
		{[]string{"score", lesmis}, map[string]string{"FONDUE_NAMES": filepath.Join(dir, "nope.tsv")}, exitUsage, "names file " + filepath.Join(dir, "nope.tsv") + ": no such file"},
		{[]string{"score", lesmis, "--names", write("bad.names", "11 Valjean\n")}, nil, exitUsage, "bad.names:1: \"11 Valjean\": want id<TAB>name"},
		{[]string{"score", lesmis, "--mode", "fast"}, nil, exitUsage, "flag --mode: embedding.mode = fast: want one of auto, exact, sampled"},
		{[]string{"score", lesmis, "--epochs", "ten"}, nil, exitUsage, "flag --epochs: embedding.epochs = ten: want a positive integer"},
		{[]string{"score", lesmis}, map[string]string{"FONDUE_EMBEDDING_SIGMA2": "0.5"}, exitUsage, "sigma2 (0.5) must be larger"},
		{[]string{"score", lesmis, "--config", filepath.Join(dir, "missing.yaml")}, nil, exitUsage, "not found"},
		{[]string{"score", lesmis, "--config", write("bad.yaml", "seed: [1,\n")}, nil, exitUsage, "config file"},
		{[]string{"frobnicate"}, nil, exitUsage, "unknown command"},
	}
	for _, c := range cases {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		code, out, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) || out != "" {
			t.Errorf("%v: exit %d (want %d), stderr %q (want %q), stdout %q", c.args, code, c.code, stderr, c.msg, out)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") > 0 || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: want one line on stderr, got %q", c.args, stderr)
		}
		for k := range c.env {
			os.Unsetenv(k)
		}
	}
}

// flag > environment > config file > default.
func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "fondue.yaml")
	if err := os.WriteFile(cfg, []byte("seed: 3\nmethod: degree\nembedding:\n  dim: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen fondue.Options
	capture := func(args ...string) {
		t.Helper()
		var out, errb bytes.Buffer
		a := newApp(strings.NewReader(""), &out, &errb)
		root := a.rootCmd()
		sc, _, err := root.Find([]string{"score"})
		if err != nil {
			t.Fatal(err)
		}
		sc.RunE = func(cmd *cobra.Command, args []string) error {
			o, err := a.scoreOptions()
			seen = o
			return err
		}
		root.SetArgs(append([]string{"score", "x"}, args...))
		if err := root.ExecuteContext(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	capture("--config", cfg)
	if seen.Seed != 3 || seen.Method != "degree" || seen.CNE.Dim != 4 || seen.CNE.Sigma2 != 2 {
		t.Fatalf("file: %+v", seen)
	}
	t.Setenv("FONDUE_SEED", "4")
	t.Setenv("FONDUE_EMBEDDING_DIM", "5")
	capture("--config", cfg)
	if seen.Seed != 4 || seen.CNE.Dim != 5 || seen.Method != "degree" {
		t.Fatalf("env over file: %+v", seen)
	}
	capture("--config", cfg, "--seed", "6")
	if seen.Seed != 6 || seen.CNE.Dim != 5 {
		t.Fatalf("flag over env: %+v", seen)
	}
	// ./fondue.yaml is found without --config.
	wd, _ := os.Getwd()
	t.Chdir(dir)
	defer os.Chdir(wd)
	os.Unsetenv("FONDUE_SEED")
	capture()
	if seen.Seed != 3 {
		t.Fatalf("./fondue.yaml not read: %+v", seen)
	}
}

// --checkpoint: the first run starts cold and saves; the second warm-starts
// from the file, reusing every node, and needs fewer epochs; it appends its
// state, which the third reads.
func TestScoreCheckpoint(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "lesmis.ck")
	epochs := func(stderr string) int {
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, `"msg":"scored"`) {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err == nil {
					return int(m["epochs"].(float64))
				}
			}
		}
		t.Fatalf("no scored line in %q", stderr)
		return 0
	}
	code, _, stderr := runCLI(t, "", "score", lesmis, "--checkpoint", ck, "--mode", "sampled", "--log-level", "debug")
	if code != 0 || !strings.Contains(stderr, "cold start") {
		t.Fatalf("first run: exit %d, %s", code, stderr)
	}
	cold := epochs(stderr)
	if _, err := os.Stat(ck); err != nil {
		t.Fatalf("checkpoint not saved: %v", err)
	}
	code, _, stderr = runCLI(t, "", "score", lesmis, "--checkpoint", ck, "--mode", "sampled", "--log-level", "debug")
	if code != 0 || !strings.Contains(stderr, `"msg":"warm start"`) || !strings.Contains(stderr, `"reused":77`) {
		t.Fatalf("second run: exit %d, %s", code, stderr)
	}
	if warm := epochs(stderr); warm >= cold {
		t.Fatalf("warm start took %d epochs, cold %d", warm, cold)
	}
	// The same graph: its state is appended as a patch of no rows, read
	// back by the next run.
	if !strings.Contains(stderr, `"rows_written":0,"appended":true`) {
		t.Fatalf("second run: the state not appended as a patch of no rows: %s", stderr)
	}
	code, _, stderr = runCLI(t, "", "score", lesmis, "--checkpoint", ck, "--mode", "sampled", "--log-level", "debug")
	if code != 0 || !strings.Contains(stderr, `"reused":77`) || !strings.Contains(stderr, `"appended":true`) {
		t.Fatalf("third run, after a patch: exit %d, %s", code, stderr)
	}
	if err := os.WriteFile(ck, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "", "score", lesmis, "--checkpoint", ck)
	if code != exitUsage || !strings.Contains(stderr, "checkpoint "+ck+": not a fondue state or checkpoint") || !strings.Contains(stderr, "delete it for a cold start") {
		t.Fatalf("corrupt checkpoint: exit %d, %s", code, stderr)
	}
}

func TestEstimateAndMemoryLimit(t *testing.T) {
	code, out, stderr := runCLI(t, "", "estimate", "--nodes", "1000000", "--edges", "10000000", "--max-memory", "64GiB")
	if code != 0 || !strings.Contains(out, "required memory") || !strings.Contains(out, "fits (limit 64.0 GiB)") {
		t.Fatalf("estimate: exit %d, %q %s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", "estimate", "--nodes", "1000000", "--edges", "10000000", "--max-memory", "100MB", "--output", "json")
	var e struct {
		Fits       bool  `json:"fits"`
		Held       bool  `json:"heldToLimit"`
		BytesPeak  int64 `json:"bytesPeak"`
		BytesLeast int64 `json:"bytesLeast"`
	}
	if code != exitMemory || json.Unmarshal([]byte(out), &e) != nil || e.Fits || e.Held || e.BytesPeak < 100e6 || e.BytesLeast >= e.BytesPeak {
		t.Fatalf("estimate json: exit %d, %q", code, out)
	}
	// Given its least memory, below its peak, the run fits with the
	// collector held to the limit; a byte less does not fit.
	code, out, stderr = runCLI(t, "", "estimate", "--nodes", "1000000", "--edges", "10000000", "--max-memory", strconv.FormatInt(e.BytesLeast, 10))
	if code != 0 || !strings.Contains(out, "; fits, with the garbage collector held to the limit") {
		t.Fatalf("estimate at the least: exit %d, %q %s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", "estimate", "--nodes", "1000000", "--edges", "10000000", "--max-memory", strconv.FormatInt(e.BytesLeast-1, 10))
	if code != exitMemory || !strings.Contains(out, "does NOT fit") {
		t.Fatalf("estimate below the least: exit %d, %q", code, out)
	}
	code, out, stderr = runCLI(t, "", "score", lesmis, "--max-memory", "1MB")
	if code != exitMemory || out != "" || !strings.Contains(stderr, "exceeds the limit of 976.6 KiB") {
		t.Fatalf("score over the limit: exit %d, %q", code, stderr)
	}
	// Between the least and the peak that estimate FILE gives, score runs
	// and warns that it holds the collector to the limit.
	code, out, _ = runCLI(t, "", "estimate", lesmis, "--output", "json")
	if code != 0 || json.Unmarshal([]byte(out), &e) != nil || e.BytesLeast >= e.BytesPeak {
		t.Fatalf("estimate lesmis: exit %d, %q", code, out)
	}
	code, out, stderr = runCLI(t, "", "score", lesmis, "--max-memory", strconv.FormatInt((e.BytesLeast+e.BytesPeak)/2, 10))
	if code != 0 || out == "" || !strings.Contains(stderr, "running with the garbage collector held to the limit") {
		t.Fatalf("score between the least and the peak: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "estimate", "--nodes", "0", "--edges", "5")
	if code != exitUsage {
		t.Fatalf("estimate --nodes 0: exit %d %s", code, stderr)
	}
}

// --relationships is --edges under Neo4j's word: the same estimate, shown
// in estimate's help only; both with different counts is a usage error.
func TestEstimateRelationships(t *testing.T) {
	// A fixed --max-memory: the default limit is the available memory, which
	// changes between two runs.
	code, a, _ := runCLI(t, "", "estimate", "--nodes", "5000", "--edges", "40000", "--threads", "2", "--output", "json", "--max-memory", "8GiB")
	code2, b, stderr := runCLI(t, "", "estimate", "--nodes", "5000", "--relationships", "40000", "--threads", "2", "--output", "json", "--max-memory", "8GiB")
	if code != 0 || code2 != 0 || a != b || !strings.Contains(b, `"relationshipCount":40000`) {
		t.Fatalf("--relationships differs from --edges: %q vs %q (%s)", a, b, stderr)
	}
	code, c, _ := runCLI(t, "", "estimate", "--nodes", "5000", "--edges", "40000", "--relationships", "40000", "--threads", "2", "--output", "json", "--max-memory", "8GiB")
	if code != 0 || c != a {
		t.Fatalf("the same count twice: exit %d, %q", code, c)
	}
	code, _, stderr = runCLI(t, "", "estimate", "--nodes", "5000", "--edges", "40000", "--relationships", "4000")
	if code != exitUsage || !strings.Contains(stderr, "disagree") {
		t.Fatalf("different counts: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "estimate", lesmis, "--relationships", "10")
	if code != exitUsage || !strings.Contains(stderr, "the file gives the counts") {
		t.Fatalf("file and --relationships: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "score", lesmis, "--relationships", "10")
	if code != exitUsage || !strings.Contains(stderr, "relationships") {
		t.Fatalf("score --relationships: exit %d, %s", code, stderr)
	}
	_, help, _ := runCLI(t, "", "estimate", "--help")
	if !strings.Contains(help, "--relationships") {
		t.Fatalf("estimate's help does not show --relationships:\n%s", help)
	}
}

// --split alone proposes with the default splitter.
func TestScoreSplitDefault(t *testing.T) {
	code, out, stderr := runCLI(t, "", "score", lesmis, "--top", "3", "--split", "--output", "json", "--seed", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []struct {
		Node  int64     `json:"node"`
		Split [][]int64 `json:"split"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("output %v: %s", err, out)
	}
	g, _, err := edgelist.ReadFile(lesmis, edgelist.HeaderAuto)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fondue.Score(context.Background(), g, fondue.Options{Seed: 4,
		Split: fondue.SplitOptions{Splitter: split.Splitters()[0], Top: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range res.Proposals {
		if len(rows[k].Split) != len(p.Groups) {
			t.Fatalf("node %d: CLI groups %v, library %v", rows[k].Node, rows[k].Split, p.Groups)
		}
		for gi, grp := range p.Groups {
			for j, x := range grp {
				if g.Key(int(x)) != strings.TrimSpace(jsonNum(rows[k].Split[gi][j])) {
					t.Fatalf("node %d group %d differs", rows[k].Node, gi)
				}
			}
		}
	}
}

func jsonNum(x int64) string { b, _ := json.Marshal(x); return string(b) }

// The run summary carries the largest degree and the memory estimate the
// run was admitted on (what `estimate FILE` prints for the same settings),
// so that fondue-bench scale can check the estimate against the measured peak.
func TestSummaryLogsEstimate(t *testing.T) {
	code, _, stderr := runCLI(t, "", "score", lesmis, "--threads", "2", "--max-memory", "8GiB", "--log-level", "debug", "--log-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum map[string]any
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, `"msg":"scored"`) {
			if err := json.Unmarshal([]byte(l), &sum); err != nil {
				t.Fatal(err)
			}
		}
	}
	if sum == nil {
		t.Fatalf("no scored line in %s", stderr)
	}
	if sum["max_degree"] != 36.0 { // Valjean
		t.Errorf("max_degree %v, want 36", sum["max_degree"])
	}
	// The peak is this test process's own (the CLI runs in it): at least
	// the Go runtime, and no more than the process has held by now (the
	// log rounds to 0.001 MiB).
	if peak, _ := sum["peak_rss_mb"].(float64); peak < 1 || peak > float64(sysmem.PeakRSS())/(1<<20)+0.001 {
		t.Errorf("peak_rss_mb %v, want a positive figure up to this process's peak %.3f MiB", sum["peak_rss_mb"], float64(sysmem.PeakRSS())/(1<<20))
	}
	code, out, stderr := runCLI(t, "", "estimate", lesmis, "--threads", "2", "--max-memory", "8GiB", "--output", "json")
	if code != 0 {
		t.Fatalf("estimate: exit %d: %s", code, stderr)
	}
	var est struct {
		Peak int64 `json:"bytesPeak"`
	}
	if err := json.Unmarshal([]byte(out), &est); err != nil || est.Peak == 0 {
		t.Fatalf("estimate --output json: %v\n%s", err, out)
	}
	if got, want := sum["estimate_mb"], math.Round(float64(est.Peak)/(1<<20)*1000)/1000; got != want {
		t.Errorf("estimate_mb %v, want %v (estimate's peak)", got, want)
	}
}

// A run's soft memory limit is its estimate, or max_memory when lower,
// less the program's pages, at least 256 MiB; the process's limit is back to what
// it was once the run returns.
func TestSoftLimit(t *testing.T) {
	for _, c := range []struct{ peak, limit, want int64 }{
		{1 << 30, 0, 1<<30 - binaryResident},
		{1 << 30, 512 << 20, 512<<20 - binaryResident},
		{1 << 30, 4 << 30, 1<<30 - binaryResident},
		{40 << 20, 0, 256 << 20},
		{300 << 20, 128 << 20, 128 << 20},
	} {
		if got := softLimit(c.peak, c.limit); got != c.want {
			t.Errorf("softLimit(%d, %d) = %d, want %d", c.peak, c.limit, got, c.want)
		}
	}
	before := debug.SetMemoryLimit(-1)
	if code, _, stderr := runCLI(t, "", "score", lesmis, "--max-memory", "none"); code != 0 {
		t.Fatalf("score: exit %d, %s", code, stderr)
	}
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("the soft limit is %d after the run, was %d", after, before)
	}
}
