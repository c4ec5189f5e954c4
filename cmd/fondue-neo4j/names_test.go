package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
)

const lesmisNames = "../../testdata/lesmis.names"

// The README's first command: Fantine first, then Valjean, by name, with
// his proposed groups.
func TestScoreNamesTSV(t *testing.T) {
	code, out, stderr := runCLI(t, "", "score", lesmis, "--names", lesmisNames, "--split", "--top", "3", "--print-header")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || lines[0] != "node\tname\tambiguity\tdegree\tscore\tentities\tsplit" {
		t.Fatalf("output:\n%s", out)
	}
	if !strings.HasPrefix(lines[2], "23\tFantine\t") {
		t.Fatalf("second line %q", lines[2])
	}
	f := strings.Split(lines[1], "\t")
	if len(f) != 7 || f[0] != "11" || f[1] != "Valjean" || f[2] != "1" || f[3] != "36" {
		t.Fatalf("first line %q", lines[1])
	}
	groups := strings.Split(f[6], "|")
	nm, _ := names.ReadFile(lesmisNames)
	seen := 0
	for _, g := range groups {
		for _, n := range strings.Split(g, ",") {
			if !strings.Contains(strings.Join(valuesOf(nm), "\n")+"\n", n+"\n") {
				t.Errorf("%q in Valjean's split is not a character", n)
			}
			seen++
		}
	}
	if len(groups) < 2 || seen != 36 || !strings.Contains(f[6], "Cosette") || !strings.Contains(f[6], "Myriel") {
		t.Errorf("Valjean's split %q: %d groups, %d names", f[6], len(groups), seen)
	}
	// Without --names, the same numbers with ids.
	_, plain, _ := runCLI(t, "", "score", lesmis, "--split", "--top", "3")
	pf := strings.Split(strings.Split(plain, "\n")[0], "\t")
	if len(pf) != 6 || pf[0] != "11" || pf[1] != f[2] || pf[2] != f[3] || pf[3] != f[4] || pf[4] != f[5] || strings.Count(pf[5], "|") != strings.Count(f[6], "|") {
		t.Errorf("with names %q, without %q", lines[1], pf)
	}
}

func valuesOf(n names.Names) []string {
	var out []string
	for _, v := range n {
		out = append(out, v)
	}
	return out
}

// JSON output: a name per node and the split by name beside the split by id;
// a JSON names file is the same as the text one; names missing for some
// nodes fall back to ids with one warning.
func TestScoreNamesJSON(t *testing.T) {
	type row struct {
		Node       int64      `json:"node"`
		Name       string     `json:"name"`
		Split      [][]int64  `json:"split"`
		SplitNames [][]string `json:"splitNames"`
	}
	code, out, stderr := runCLI(t, "", "score", lesmis, "--names", lesmisNames, "--split", "--top", "2", "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []row
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("%v: %s", err, out)
	}
	nm, _ := names.ReadFile(lesmisNames)
	if rows[0].Node != 11 || rows[0].Name != "Valjean" || rows[1].Name != nm[jsonNum(rows[1].Node)] {
		t.Fatalf("rows %+v", rows)
	}
	for _, r := range rows {
		if len(r.Split) != len(r.SplitNames) {
			t.Fatalf("node %d: split %v, names %v", r.Node, r.Split, r.SplitNames)
		}
		for g := range r.Split {
			for k, id := range r.Split[g] {
				if r.SplitNames[g][k] != nm[jsonNum(id)] {
					t.Errorf("node %d: neighbour %d named %q", r.Node, id, r.SplitNames[g][k])
				}
			}
		}
	}

	// The same names as JSON, minus Valjean's.
	m := map[string]string{}
	for k, v := range nm {
		if k != "11" {
			m[k] = v
		}
	}
	data, _ := json.Marshal(m)
	jf := filepath.Join(t.TempDir(), "names.json")
	os.WriteFile(jf, data, 0o644)
	code, out2, stderr := runCLI(t, "", "score", lesmis, "--names", jf, "--split", "--top", "2", "--output", "json")
	var rows2 []row
	if code != 0 || json.Unmarshal([]byte(out2), &rows2) != nil || len(rows2) != 2 {
		t.Fatalf("exit %d: %s %s", code, out2, stderr)
	}
	if rows2[0].Name != "11" || rows2[1].Name != rows[1].Name || !strings.Contains(stderr, "nodes without a name are shown by id") ||
		!strings.Contains(stderr, `"count":1`) {
		t.Errorf("names JSON minus Valjean: %+v; stderr %s", rows2, stderr)
	}
}

// The column names: on a terminal by default, never when piped, always with
// --print-header, never with --print-header=false.
func TestScoreHeader(t *testing.T) {
	_, piped, _ := runCLI(t, "", "score", lesmis, "--top", "1")
	if strings.HasPrefix(piped, "node") || strings.Count(piped, "\n") != 1 {
		t.Errorf("piped output has a header: %q", piped)
	}
	_, forced, _ := runCLI(t, "", "score", lesmis, "--top", "1", "--print-header")
	if !strings.HasPrefix(forced, "node\tambiguity\tdegree\tscore\tentities\n11\t") {
		t.Errorf("--print-header: %q", forced)
	}
	tty := func(args ...string) string {
		m, s := openPTY(t)
		code, _, stderr := runCLIStdout(t, s, args...)
		s.Close()
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return readPTY(t, m)
	}
	if got := tty("score", lesmis, "--top", "1"); !strings.HasPrefix(got, "node\tambiguity\tdegree\tscore\tentities\r\n11\t") {
		t.Errorf("on a terminal: %q", got)
	}
	if got := tty("score", lesmis, "--top", "1", "--print-header=false"); !strings.HasPrefix(got, "11\t") {
		t.Errorf("on a terminal with --print-header=false: %q", got)
	}
	// --header still means the input's header line.
	in := "from to\n1 2\n2 3\n3 1\n3 4\n"
	code, out, stderr := runCLI(t, in, "score", "-", "--header", "yes", "--print-header")
	if code != 0 || !strings.HasPrefix(out, "node\tambiguity") || strings.Count(out, "\n") != 5 {
		t.Errorf("--header yes --print-header: exit %d, %q %s", code, out, stderr)
	}
}

// --split is a switch everywhere and --splitter picks the method; the old
// --split=NAME still works, with a deprecation warning, and means the same.
func TestSplitSpellings(t *testing.T) {
	base := []string{"score", lesmis, "--top", "3", "--output", "json", "--seed", "2"}
	run := func(env map[string]string, extra ...string) (string, string) {
		for k, v := range env {
			t.Setenv(k, v)
		}
		code, out, stderr := runCLI(t, "", append(base, extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		for k := range env {
			os.Unsetenv(k)
		}
		return out, stderr
	}
	want, stderr := run(nil, "--split", "--splitter", "mcl")
	if strings.Contains(stderr, "deprecated") || !strings.Contains(want, `"split":`) {
		t.Fatalf("--split --splitter mcl: %s %s", want, stderr)
	}
	old, stderr := run(nil, "--split=mcl")
	if old != want || !strings.Contains(stderr, "--split=mcl is deprecated: write --split --splitter mcl") {
		t.Errorf("--split=mcl: same output %v, stderr %q", old == want, stderr)
	}
	env, _ := run(map[string]string{"FONDUE_SPLIT_ENABLED": "true", "FONDUE_SPLIT_METHOD": "mcl"})
	if env != want {
		t.Errorf("split.enabled and split.method from the environment differ from the flags")
	}
	def, _ := run(nil, "--split")
	ncut, _ := run(nil, "--split", "--splitter", "ncut")
	if def != ncut || def == want {
		t.Errorf("--split alone is not the default splitter ncut")
	}
	off, _ := run(map[string]string{"FONDUE_SPLIT_METHOD": "mcl"})
	if strings.Contains(off, `"split":`) {
		t.Errorf("a splitter alone turned splitting on: %s", off)
	}
	if no, _ := run(map[string]string{"FONDUE_SPLIT_ENABLED": "true"}, "--split=false"); strings.Contains(no, `"split":`) {
		t.Errorf("--split=false proposed splits: %s", no)
	}
}

func TestVersion(t *testing.T) {
	code, out, stderr := runCLI(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "fondue-neo4j ") || !strings.Contains(out, runtime.Version()) || stderr != "" {
		t.Errorf("--version: exit %d, %q %q", code, out, stderr)
	}
	bi := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2025-01-02T03:04:05Z"}}}
	for _, c := range []struct {
		ver, rev string
		bi       *debug.BuildInfo
		want     string
	}{
		{"", "", bi, "fondue-neo4j v1.2.3 (commit 0123456789ab, modified, 2025-01-02T03:04:05Z; go1.99)"},
		{"v2.0.0", "feedbeef", bi, "fondue-neo4j v2.0.0 (commit feedbeef; go1.99)"},
		{"", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "fondue-neo4j (devel) (commit unknown; go1.0)"},
		{"", "", nil, "fondue-neo4j (devel) (commit unknown; go1.0)"},
	} {
		if got := formatVersion(c.ver, c.rev, c.bi, "go1.0"); got != c.want {
			t.Errorf("formatVersion(%q, %q): %q, want %q", c.ver, c.rev, got, c.want)
		}
	}
}
