package neo4jtests

// sync --duplicates on the ACL Anthology graph (acl-dup), bulk-imported:
// the pairs it writes are those "duplicates" finds on the same files.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/storetest"
)

// dupSummary is the part of sync's summary that --duplicates fills.
type dupSummary struct {
	RunID             string              `json:"runId"`
	RelationshipCount int                 `json:"relationshipCount"`
	Duplicates        *syncjob.Duplicates `json:"duplicates"`
}

// acl-dup imported with neo4j-admin: sync --duplicates --dry-run lists
// the pairs that "duplicates" prints on the import files with a score of
// at least 0 (probability .5), in the same order with the same scores, and
// writes nothing; sync --duplicates writes them as FONDUE_DUPLICATE
// relationships from a to b with the run id; the next run's pull leaves
// them out (the same relationship count) and replaces them.
func TestSyncDuplicatesACL(t *testing.T) {
	reset(t)
	files := realImport(t, "acl-dup", []string{"authors", "papers", "venues"}, []string{"wrote", "published_in"})
	if _, err := srv.Import(ctxT(t, 5*time.Minute), files); err != nil {
		t.Fatal(err)
	}
	var fileArgs []string
	for _, f := range files.Nodes {
		fileArgs = append(fileArgs, "--nodes", f)
	}
	for _, f := range files.Relationships {
		fileArgs = append(fileArgs, "--relationships", f)
	}
	code, out, stderr := runCLI(t, "", append([]string{"duplicates", "--score-labels", "Author", "--name-property", "name",
		"--evidence-properties", "title,year", "--top", "0", "--output", "json", "--log-level", "error"}, fileArgs...)...)
	if code != 0 {
		t.Fatalf("duplicates: exit %d: %s", code, stderr)
	}
	var fromFiles []struct {
		A, B  any
		Score float64
	}
	if err := json.Unmarshal([]byte(out), &fromFiles); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range fromFiles {
		if p.Score >= 0 {
			want = append(want, fmt.Sprintf("%v>%v %.6f", p.A, p.B, p.Score))
		}
	}

	args := func(more ...string) []string {
		return syncArgs("sync", append([]string{"--duplicates", "--node-labels", "Author,Paper,Venue", "--id-property", "uid",
			"--write-node-labels", "Author", "--name-property", "name", "--display-property", "name,title",
			"--evidence-properties", "title,year", "--output", "json"}, more...)...)
	}
	before := dump(t)
	code, out, stderr = runCLI(t, "", args("--dry-run")...)
	if code != 0 {
		t.Fatalf("sync --duplicates --dry-run: exit %d: %s", code, stderr)
	}
	var dry dupSummary
	if err := json.Unmarshal([]byte(out), &dry); err != nil || dry.Duplicates == nil {
		t.Fatalf("dry run summary: %v: %.500s", err, out)
	}
	if dump(t) != before {
		t.Fatal("the dry run wrote")
	}
	var got []string
	for _, p := range dry.Duplicates.Pairs {
		got = append(got, fmt.Sprintf("%v>%v %.6f", p.A.Key, p.B.Key, p.Score))
		if math.Abs(p.Probability-1/(1+math.Exp(-p.Score))) > 1e-12 || len(p.Reasons) == 0 {
			t.Fatalf("pair %+v", p)
		}
	}
	if !slices.Equal(got, want) {
		n := 0
		for n < min(len(got), len(want)) && got[n] == want[n] {
			n++
		}
		t.Fatalf("sync --duplicates --dry-run: %d pairs, duplicates on the files: %d of score >= 0; first difference at %d: %q vs %q",
			len(got), len(want), n, got[min(n, len(got)-1)], want[min(n, len(want)-1)])
	}
	t.Logf("%s: %d authors compared, %d candidates, %d pairs of probability >= .5", srv.Version(), dry.Duplicates.Compared, dry.Duplicates.Candidates, len(got))

	for k, run := range []string{"dup-1", "dup-2"} {
		t0 := time.Now()
		code, out, stderr = runCLI(t, "", args("--run-id", run)...)
		if code != 0 {
			t.Fatalf("sync --duplicates %s: exit %d: %s", run, code, stderr)
		}
		var sum dupSummary
		if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Duplicates == nil {
			t.Fatalf("summary: %v: %.500s", err, out)
		}
		d := sum.Duplicates
		t.Logf("%s: sync --duplicates %s in %s: %d relationships written, %d deleted (find %d ms)", srv.Version(), run,
			time.Since(t0).Round(time.Millisecond), d.RelationshipsWritten, d.RelationshipsDeleted, d.FindMillis)
		if d.RelationshipsWritten != len(want) || d.RelationshipsDeleted != 0 || sum.RelationshipCount != dry.RelationshipCount {
			t.Fatalf("run %d: written %d deleted %d, %d relationships pulled; want %d, 0, %d", k, d.RelationshipsWritten, d.RelationshipsDeleted,
				sum.RelationshipCount, len(want), dry.RelationshipCount)
		}
		var rels []string
		for _, r := range cypher(t, `MATCH (a:Author)-[d:FONDUE_DUPLICATE]->(b:Author) WHERE d.fondue_run = $run
			RETURN a.uid, b.uid, d.score, d.probability, size(d.reasons)`, map[string]any{"run": run}) {
			rels = append(rels, fmt.Sprintf("%v>%v %.6f", r.Values[0], r.Values[1], r.Values[2]))
			if p, _ := r.Values[3].(float64); p < 0.5 || r.Values[4].(int64) == 0 {
				t.Fatalf("relationship %v", r.Values)
			}
		}
		all := cypher(t, `MATCH ()-[d:FONDUE_DUPLICATE]->() RETURN count(d)`, nil)
		wantSorted := slices.Sorted(slices.Values(want))
		if slices.Sort(rels); !slices.Equal(rels, wantSorted) || all[0].Values[0].(int64) != int64(len(want)) {
			t.Fatalf("run %s: %d relationships of the run (%v in all), want %d", run, len(rels), all[0].Values[0], len(want))
		}
	}
}

// seedGraph creates a storetest graph (nodes by label, relationships by
// type; every node has a uid).
func seedGraph(t *testing.T, g storetest.Graph) {
	t.Helper()
	byLabel := map[string][]any{}
	for _, n := range g.Nodes {
		byLabel[n.Labels[0]] = append(byLabel[n.Labels[0]], n.Props)
	}
	for l, rows := range byLabel {
		cypher(t, "UNWIND $rows AS r CREATE (n:"+l+") SET n = r", map[string]any{"rows": rows})
	}
	cypher(t, "CREATE INDEX seed_uid IF NOT EXISTS FOR (n:Author) ON (n.uid)", nil)
	byType := map[string][]any{}
	for _, r := range g.Rels {
		byType[r.Type] = append(byType[r.Type], map[string]any{"a": r.From, "b": r.To})
	}
	for typ, rows := range byType {
		cypher(t, "UNWIND $rows AS r MATCH (a {uid: r.a}), (b {uid: r.b}) CREATE (a)-[:"+typ+"]->(b)", map[string]any{"rows": rows})
	}
}

// The review flow on Neo4j: sync --duplicates --dry-run proposes the two
// people under two names; plan accept one pair, reject the other; sync
// --merge --plan merges the accepted one (the merged-away author leaves,
// its papers move to the survivor); the next sync --duplicates proposes
// neither pair (one is one node now, the other remembered as rejected).
func TestDuplicatesReviewMerge(t *testing.T) {
	reset(t)
	seedGraph(t, storetest.Authors())
	dir := t.TempDir()
	args := func(more ...string) []string {
		return syncArgs("sync", append([]string{"--duplicates", "--id-property", "uid", "--write-node-labels", "Author",
			"--display-property", "title", "--evidence-properties", "title,year", "--min-probability", "0.01", "--output", "json"}, more...)...)
	}
	code, out, stderr := runCLI(t, "", args("--dry-run")...)
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	dry := filepath.Join(dir, "duplicates.json")
	if err := os.WriteFile(dry, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	approved := filepath.Join(dir, "merge.json")
	for _, d := range [][2]string{{"accept", "25,26"}, {"reject", "28,27"}} {
		if code, _, stderr := runCLI(t, "", "plan", d[0], "--plan", dry, "--approved", approved, d[1]); code != 0 {
			t.Fatalf("plan %s %s: exit %d: %s", d[0], d[1], code, stderr)
		}
	}
	if code, out, stderr := runCLI(t, "", syncArgs("sync", "--merge", "--plan", approved, "--id-property", "uid", "--run-id", "m1", "--output", "json")...); code != 0 {
		t.Fatalf("sync --merge: exit %d: %s\n%s", code, stderr, out)
	}
	left := cypher(t, `MATCH (a:Author) WHERE a.uid IN [25, 26] OPTIONAL MATCH (a)-[w:WROTE]->() RETURN a.uid, count(w) ORDER BY a.uid`, nil)
	if len(left) != 1 || left[0].Values[0].(int64) != 25 || left[0].Values[1].(int64) != 6 {
		t.Fatalf("after the merge: %v", left)
	}
	code, out, stderr = runCLI(t, "", args("--run-id", "d2")...)
	if code != 0 {
		t.Fatalf("sync --duplicates after the merge: exit %d: %s", code, stderr)
	}
	var sum dupSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Duplicates == nil {
		t.Fatalf("summary: %v: %.500s", err, out)
	}
	if d := sum.Duplicates; len(d.Pairs) != 0 || d.Remembered != 1 || d.RelationshipsWritten != 0 {
		t.Fatalf("after the review: %+v", d)
	}
}
