package main

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"
)

// The two input problems of a new user: a byte-order mark, and ids with
// spaces quoted in a CSV export.
func TestScoreReadsWhatUsersHave(t *testing.T) {
	bom := writeFile(t, t.TempDir(), "t.txt", "\xef\xbb\xbf1 2\n2 3\n3 1\n")
	code, out, stderr := runCLI(t, "", "score", bom, "--method", "degree")
	var nodes []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(l, "\t")
		nodes = append(nodes, f[0])
		if f[2] != "2" {
			t.Errorf("line %q: a triangle's nodes have degree 2", l)
		}
	}
	slices.Sort(nodes)
	if code != 0 || !slices.Equal(nodes, []string{"1", "2", "3"}) {
		t.Fatalf("BOM triangle: exit %d, nodes %q, %s", code, nodes, stderr)
	}

	export := "\"a.name\",\"b.name\"\n\"Alice Smith\",\"Bob\"\n\"Bob\",\"Smith, J.\"\n\"Smith, J.\",\"Alice Smith\"\n\"Tab\tName\",\"Bob\"\n"
	code, out, stderr = runCLI(t, export, "score", "-", "--method", "degree", "--header", "yes")
	if code != 0 {
		t.Fatalf("quoted CSV: exit %d, %s", code, stderr)
	}
	// Read back as TSV: one record per node, ids intact.
	r := csv.NewReader(strings.NewReader(out))
	r.Comma = '\t'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("output is not TSV: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, rec := range recs {
		got[rec[0]] = rec[2]
	}
	want := map[string]string{"Bob": "3", "Alice Smith": "2", "Smith, J.": "2", "Tab\tName": "1"}
	if len(got) != len(want) {
		t.Fatalf("nodes %v, want %v", got, want)
	}
	for k, d := range want {
		if got[k] != d {
			t.Errorf("node %q: degree %q, want %s", k, got[k], d)
		}
	}
}
