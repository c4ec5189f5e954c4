package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/cli"
)

// fondue-bench duplicates on the miniature acl-dup of bench/testdata/real.
// The fold baseline by hand: it ranks (a:0, a:2) in dev (John Smith, JOHN
// SMITH: a surface truth pair of 3, 2 of them variants) and (a:3, a:4)
// in test (its only truth pair). Dev: P@100 1, AP 1/3, variant AP 0 (the
// surface pair left out, nothing ranked), R@P.9 1/3, cluster F1 .5.
func TestDuplicatesCLI(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, "duplicates", "--data-dir", benchData, "--skip-planted", "--output-dir", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "duplicates: acl-dup: 18 nodes, 24 edges, 8 Authors; truth dev 3, test 1 pairs"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "RESULTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| names equal after folding case, accents, punctuation | 1.000 | .333 | .000 | .333 | .500 (1.000) | 1 | 1 (33%) |",
		"| names equal after folding case, accents, punctuation | 1.000 | 1.000 | - | 1.000 | 1.000 (1.000) | 1 | 1 (100%) |",
		"| **engine** (`dedup.Find`, no labels) |",
		"| name similarity (Jaro-Winkler, blocked on last name + initial) (issue) | .988 | .496 | .103 | .345 | .527 |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		ACL map[string]map[string]struct {
			AP      *float64 `json:"ap"`
			Variant *float64 `json:"variant_ap"`
			Truth   int      `json:"truth"`
		} `json:"acl"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if r := res.ACL["dev"]["fold"]; r.AP == nil || *r.AP != 0.333333 || r.Truth != 3 {
		t.Errorf("results.json dev fold = %+v, want AP .333333 of 3 truth pairs", r)
	}
	if r := res.ACL["test"]["fold"]; r.Variant != nil {
		t.Errorf("test half has no variant pair: variant AP %v, want null", *r.Variant)
	}
}

func TestDuplicatesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"duplicates", "--ratio", "2", "--data-dir", benchData},
		{"duplicates", "--datasets", "nosuch", "--skip-acl", "--data-dir", benchData},
		{"duplicates", "--data-dir", t.TempDir()},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != cli.ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
			t.Errorf("%v: exit %d, %q; want exit %d and one line", args, code, stderr, cli.ExitUsage)
		}
	}
}
