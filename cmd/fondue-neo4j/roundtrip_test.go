package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/internal/app/output"
)

// splitField parses the split column of score's text output, as the README
// describes it: groups separated by '|', members by ',', a member holding
// either (or a quote, a line break, or starting with a space) in double
// quotes with its quotes doubled.
func splitField(t *testing.T, s string) [][]string {
	t.Helper()
	var groups [][]string
	var grp []string
	for {
		var m string
		if strings.HasPrefix(s, `"`) {
			var sb strings.Builder
			k := 1
			for {
				if k >= len(s) {
					t.Fatalf("split field %q: unterminated quote", s)
				}
				if s[k] == '"' {
					if k+1 < len(s) && s[k+1] == '"' {
						sb.WriteByte('"')
						k += 2
						continue
					}
					k++
					break
				}
				sb.WriteByte(s[k])
				k++
			}
			m, s = sb.String(), s[k:]
			if s != "" && s[0] != ',' && s[0] != '|' {
				t.Fatalf("split field: %q after a quoted member", s)
			}
		} else {
			end := strings.IndexAny(s, ",|")
			if end < 0 {
				end = len(s)
			}
			if strings.Contains(s[:end], `"`) {
				t.Fatalf("split field: bare quote in %q", s[:end])
			}
			m, s = s[:end], s[end:]
		}
		grp = append(grp, m)
		if s == "" {
			return append(groups, grp)
		}
		if s[0] == '|' {
			groups, grp = append(groups, grp), nil
		}
		s = s[1:]
	}
}

// testIDs returns n distinct node ids of every form the edge-list reader
// accepts in a CSV file: spaces, commas, '|', tabs, quotes, line breaks,
// comment characters, backslashes and non-ASCII letters, besides the
// README's "Smith, J.".
func testIDs(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 11))
	alphabet := []string{"a", "Z", "0", "7", " ", ",", "|", "\"", "\n", "\t", "#", "%", "é", "-", ".", `\`, "'", "||", `""`}
	ids := []string{"Smith, J.", "Alice", "a|b", `Dwayne "The Rock" Johnson`, `"lead`, "x\n# not a comment", "Tab\tName", `\.`, ",", "|", `"`, "a,b|c,d"}
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	for len(ids) < n {
		var sb strings.Builder
		for range 1 + r.IntN(6) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		id := strings.TrimSpace(sb.String()) // spaces around a field are not part of the id
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	return ids
}

// writeIDGraph writes a CSV edge list on ids (every field quoted), a ring
// where each id is linked to the next three, so that every id is a node and
// the neighbour of nodes with a split.
func writeIDGraph(t *testing.T, ids []string) string {
	t.Helper()
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	var buf bytes.Buffer
	for i := range ids {
		for d := 1; d <= 3; d++ {
			fmt.Fprintf(&buf, "%s,%s\n", q(ids[i]), q(ids[(i+d)%len(ids)]))
		}
	}
	return writeFile(t, t.TempDir(), "ids.csv", buf.String())
}

// The text output of score --split (and --names) parses back: read as TSV
// with encoding/csv and the split column split as the README says, it
// gives exactly the ids, names and groups of the JSON output, for every id
// the edge-list reader accepts.
func TestScoreTextOutputRoundTrips(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		ids := testIDs(seed, 60)
		file := writeIDGraph(t, ids)
		nameOf := map[string]string{}
		for k, id := range ids {
			nameOf[id] = []string{id + " (name)", "\"" + id + "\"", "N" + fmt.Sprint(k) + ", " + id, id + `|"x"`}[k%4]
		}
		nb, _ := json.Marshal(nameOf)
		namesFile := writeFile(t, filepath.Dir(file), "names.json", string(nb))
		for _, withNames := range []bool{false, true} {
			args := []string{"score", file, "--method", "degree", "--split", "--splitter", "mcl"}
			if withNames {
				args = append(args, "--names", namesFile)
			}
			code, text, stderr := runCLI(t, "", append(args, "--print-header")...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			code, js, stderr := runCLI(t, "", append(args, "--output", "json")...)
			if code != 0 {
				t.Fatalf("%v --output json: exit %d: %s", args, code, stderr)
			}
			var want []output.Node
			if err := json.Unmarshal([]byte(js), &want); err != nil {
				t.Fatal(err)
			}
			r := csv.NewReader(strings.NewReader(text))
			r.Comma = '\t'
			recs, err := r.ReadAll()
			if err != nil {
				t.Fatalf("seed %d names %v: the text output is not TSV: %v", seed, withNames, err)
			}
			if len(recs) != len(want)+1 || len(want) != len(ids) {
				t.Fatalf("seed %d: %d records for %d nodes (%d ids)", seed, len(recs), len(want), len(ids))
			}
			header := recs[0]
			for k, w := range want {
				rec := recs[k+1]
				if len(rec) != len(header) {
					t.Fatalf("record %q: %d fields, header %q", rec, len(rec), header)
				}
				if rec[0] != w.Node.Text() {
					t.Errorf("node %d: %q, JSON %q", k, rec[0], w.Node)
				}
				groups := splitField(t, rec[len(rec)-1])
				wantGroups := w.SplitNames
				if !withNames {
					wantGroups = nil
					for _, g := range w.Split {
						var s []string
						for _, x := range g {
							s = append(s, x.Text())
						}
						wantGroups = append(wantGroups, s)
					}
				} else if rec[1] != w.Name || w.Name != nameOf[w.Node.Text()] {
					t.Errorf("node %q: name %q, JSON %q", rec[0], rec[1], w.Name)
				}
				if !reflect.DeepEqual(groups, wantGroups) {
					t.Errorf("node %q: split %q parses to %q, JSON has %q", rec[0], rec[len(rec)-1], groups, wantGroups)
				}
			}
		}
	}
}
