package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory/sysmem"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/score"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// A member of the split column is quoted when ',' or '|' or CSV needs it.
func TestCSVMember(t *testing.T) {
	for in, want := range map[string]string{
		"a":         "a",
		"":          "",
		"a b":       "a b",
		" lead":     `" lead"`,
		"tab\there": "tab\there", // the TSV quotes the whole field
		`say "hi"`:  `"say ""hi"""`,
		"two\nline": "\"two\nline\"",
		`\.`:        `"\."`,
		"a,b":       `"a,b"`,
		"a|b":       `"a|b"`,
	} {
		if got := csvMember(in); got != want {
			t.Errorf("csvMember(%q) = %q, want %q", in, got, want)
		}
	}
}

// ranking is a triangle 0-1-2 with a tail 2-3, keyed by the given ids,
// node 2 the most ambiguous, proposed as the split {0,1} | {3}.
func ranking(t *testing.T, keys []string, nm names.Names) Ranking {
	t.Helper()
	g, err := graph.NewGraph(4, [][2]int{{0, 1}, {1, 2}, {0, 2}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if keys != nil {
		if g, err = g.WithKeys(keys); err != nil {
			t.Fatal(err)
		}
	}
	res := &fondue.Result{Scores: []float64{0.1, 0.2, 0.9, 0.05}, Ambiguity: []float64{0.5, 0.75, 1, 0.25},
		Entities: []int{1, 1, 2, 1}, Proposals: []fondue.Proposal{{Node: 2, Groups: [][]int32{{0, 1}, {3}}}}}
	return Ranking{Graph: g, Result: res, Names: nm}
}

// The TSV parses back with encoding/csv, ids and names with tabs, quotes
// and the split column's separators included; Top cuts it.
func TestRankingTSV(t *testing.T) {
	nm := names.Names{"a|b": "Smith, J.", "q\"uote": "tab\tname"}
	r := ranking(t, []string{"a|b", "q\"uote", "c d", " e"}, nm)
	var buf bytes.Buffer
	if err := r.WriteTSV(&buf, true); err != nil {
		t.Fatal(err)
	}
	rd := csv.NewReader(&buf)
	rd.Comma = '\t'
	rd.FieldsPerRecord = -1 // the split column only where there is a proposal
	recs, err := rd.ReadAll()
	if err != nil {
		t.Fatalf("%v:\n%s", err, buf.String())
	}
	want := [][]string{
		{"node", "name", "ambiguity", "degree", "score", "entities", "split"},
		{"c d", "c d", "1", "3", "0.9", "2", `"Smith, J.",tab	name|" e"`},
		{`q"uote`, "tab\tname", "0.75", "2", "0.2", "1"},
	}
	for k, w := range want {
		if strings.Join(recs[k], "\x00") != strings.Join(w, "\x00") {
			t.Errorf("record %d: %q, want %q", k, recs[k], w)
		}
	}
	r.Top, r.Names = 1, nil
	buf.Reset()
	if err := r.WriteTSV(&buf, false); err != nil {
		t.Fatal(err)
	}
	// The members "a|b", q"uote and " e" quoted in the split column, then
	// the column quoted as a whole.
	if got := buf.String(); got != "c d\t1\t3\t0.9\t2\t"+`"""a|b"",""q""""uote""|"" e"""`+"\n" {
		t.Errorf("top 1 without names: %q", got)
	}
}

// JSON: one object a line; integer ids stay numbers; names beside ids.
func TestRankingJSON(t *testing.T) {
	var buf bytes.Buffer
	r := ranking(t, nil, nil)
	r.Top = 2
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	want := `[
  {"node":2,"ambiguity":1,"degree":3,"score":0.9,"entities":2,"split":[[0,1],[3]]},
  {"node":1,"ambiguity":0.75,"degree":2,"score":0.2,"entities":1}
]
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	buf.Reset()
	r = ranking(t, []string{"x", "y", "z", "w"}, names.Names{"x": "X"})
	r.Top = 1
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var nodes []Node
	if err := json.Unmarshal(buf.Bytes(), &nodes); err != nil || len(nodes) != 1 || nodes[0].Node != keys.String("z") || nodes[0].Name != "z" ||
		len(nodes[0].SplitNames) != 2 || nodes[0].SplitNames[0][0] != "X" || nodes[0].SplitNames[1][0] != "w" {
		t.Errorf("%v: %s", err, buf.String())
	}
}

// The terminal summary of a run that split, and its log record.
func TestSyncSummary(t *testing.T) {
	sum := &syncjob.Summary{RunID: "r1", NodeCount: 4, RelationshipCount: 4, NodePropertiesWritten: 12, PreProcessingMillis: 1500,
		Split: &splitplan.SplitStats{Planned: 2, Split: 1, Skipped: 1, NodesCreated: 1, RelationshipsMoved: 3}}
	var buf bytes.Buffer
	SyncText(&buf, sum)
	want := "run r1: 4 nodes, 4 relationships; 12 properties written (pull 1.5s, compute 0s, write 0s)\n" +
		"split: 1 of 2 planned nodes split (0 already, 1 skipped, 0 failed), 1 node created, 3 relationships moved; undo: fondue-neo4j undo --run-id r1\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	attrs := SyncAttrs(sum)
	if len(attrs) != 24 || attrs[0] != "run_id" || attrs[len(attrs)-1] != 1 {
		t.Errorf("attrs %v", attrs)
	}

	// An incremental night, and a full one.
	sum = &syncjob.Summary{RunID: "r2", NodeCount: 4, RelationshipCount: 4, NodePropertiesWritten: 3, NodesWritten: 1, NodesUnchanged: 3,
		Incremental: &syncjob.Incremental{Mode: syncjob.ModeIncremental, NodesChanged: 1, NodesRescored: 2, NodesReused: 2}}
	buf.Reset()
	SyncText(&buf, sum)
	want = "run r2: 4 nodes, 4 relationships; 3 properties written (pull 0s, compute 0s, write 0s)\n" +
		"an incremental run: 1 node changed, 2 nodes re-scored, 2 nodes kept\n" +
		"written: 1 node; 3 nodes unchanged, left alone\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	sum.Incremental = &syncjob.Incremental{Mode: syncjob.ModeFull, Reason: "--full (embedding.full)"}
	buf.Reset()
	SyncText(&buf, sum)
	if !strings.Contains(buf.String(), "a full run: --full (embedding.full)\n") {
		t.Errorf("full run: %s", buf.String())
	}
	if attrs := SyncAttrs(sum); !slices.Contains(attrs, any("fullReason")) || !slices.Contains(attrs, any(syncjob.ModeFull)) {
		t.Errorf("full run's attrs %v", attrs)
	}
}

// Counts of one in the singular: "1 node", not "1 nodes".
func TestSyncSummarySingular(t *testing.T) {
	sum := &syncjob.Summary{RunID: "r1", NodeCount: 2, RelationshipCount: 1, NodePropertiesWritten: 1, UnscoredNodes: 1,
		Scored: &syncjob.Scored{Nodes: 1, Context: 1}}
	var buf bytes.Buffer
	SyncText(&buf, sum)
	want := "run r1: 2 nodes, 1 relationship; 1 property written (pull 0s, compute 0s, write 0s)\n" +
		"scored 1 node; 1 isolated node not scored; 1 context node\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// A warm start says where the embedding came from and how much it reused.
func TestSyncSummaryWarmStart(t *testing.T) {
	sum := &syncjob.Summary{RunID: "r2", NodeCount: 78, Epochs: 12, WarmStartFrom: "property", WarmStartNodes: 77, WarmStartNewNodes: 1}
	var buf bytes.Buffer
	SyncText(&buf, sum)
	if want := "warm start from the property: 77 nodes reused, 1 new (12 epochs)\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("got\n%s\nwant a line %q", buf.String(), want)
	}
	attrs := fmt.Sprint(SyncAttrs(sum))
	if !strings.Contains(attrs, "warmStartNodes 77 warmStartNewNodes 1") {
		t.Errorf("attrs %s", attrs)
	}
}

// Nodes left out by a remembered review decision are counted.
func TestSyncSummaryRemembered(t *testing.T) {
	sum := &syncjob.Summary{RunID: "r3", Remembered: []splitplan.Decision{{Key: keys.Int(11), Kind: splitplan.DecisionReject, RunID: "review-1"}}}
	var buf bytes.Buffer
	SyncText(&buf, sum)
	if !strings.Contains(buf.String(), "not proposed: 1 nodes a review decided on") || !strings.Contains(fmt.Sprint(SyncAttrs(sum)), "notProposedByDecision 1") {
		t.Errorf("got\n%s\n%v", buf.String(), SyncAttrs(sum))
	}
}

// A run that resumed an unfinished one says so first, and in its record.
func TestSyncSummaryUnfinished(t *testing.T) {
	sum := &syncjob.Summary{RunID: "r4", Resumed: true, Unfinished: []syncjob.UnfinishedRun{{RunID: "r4", Split: 12, Planned: 40, Action: "resumed"}},
		Split: &splitplan.SplitStats{Planned: 40, Split: 28, AlreadyDone: 12}}
	var buf bytes.Buffer
	SyncText(&buf, sum)
	if want := "resuming run r4, which stopped after 12 of 40 splits\nrun r4: "; !strings.HasPrefix(buf.String(), want) {
		t.Errorf("got\n%s\nwant it to start %q", buf.String(), want)
	}
	if attrs := fmt.Sprint(SyncAttrs(sum)); !strings.Contains(attrs, "unfinished [resuming run r4, which stopped after 12 of 40 splits]") {
		t.Errorf("attrs %s", attrs)
	}
}

// A duplicates run says what it compared, kept and wrote, and the memory
// estimate its guard checked.
func TestSyncSummaryDuplicates(t *testing.T) {
	sum := &syncjob.Summary{RunID: "r5", Duplicates: &syncjob.Duplicates{RelationshipType: "SAME", Compared: 30, Candidates: 41,
		Pairs: []syncjob.DuplicatePair{{A: syncjob.DuplicateNode{Key: keys.Int(25), Name: "Jeffrey Bilmes"}, B: syncjob.DuplicateNode{Key: keys.Int(26), Name: "Jeff A. Bilmes"},
			Probability: 0.98, Reasons: []string{"initials agree", "2 shared co-authors"}}},
		RelationshipsWritten: 1, RelationshipsDeleted: 2, MemoryEstimate: 34 << 20}}
	var buf bytes.Buffer
	SyncText(&buf, sum)
	want := "duplicates: 30 nodes compared, 41 candidate pairs scored, 1 pair kept; 1 SAME relationship written, 2 relationships of earlier runs deleted; memory estimate 34.0 MiB\n"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("got\n%s\nwant a line %q", buf.String(), want)
	}
	if attrs := fmt.Sprint(SyncAttrs(sum)); !strings.Contains(attrs, "duplicateRelationshipsDeleted 2 duplicatesMemoryEstimateBytes 35651584") {
		t.Errorf("attrs %s", attrs)
	}
}

func TestEstimateText(t *testing.T) {
	e := memory.Predict(1000, 5000, memory.Options{Dim: 8, Workers: 2})
	var buf bytes.Buffer
	if err := EstimateText(&buf, e, false, 1<<20); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasSuffix(out, "; does NOT fit (limit 1.0 MiB)\n") || !strings.Contains(out, "\nrequired memory (peak resident, with GC headroom): ") ||
		strings.Count(out, "\n") < len(e.Phases)+2 {
		t.Errorf("%s", out)
	}
	if m := EstimateJSON(1000, 5000, e, true, 0); m["fits"] != true || m["bytesPeak"] != e.Peak || m["limitBytes"] != int64(0) || m["heldToLimit"] != false {
		t.Errorf("%v", m)
	}
	// Between the least and the peak: it fits with the collector held.
	buf.Reset()
	if err := EstimateText(&buf, e, true, e.Least); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "\nleast memory (the live data, the collector held to it): ") ||
		!strings.HasSuffix(out, "; fits, with the garbage collector held to the limit (more CPU time) (limit "+sysmem.FormatBytes(e.Least)+")\n") {
		t.Errorf("%s", out)
	}
	if m := EstimateJSON(1000, 5000, e, true, e.Least); m["heldToLimit"] != true || m["bytesLeast"] != e.Least {
		t.Errorf("%v", m)
	}
}

// How sure the top is, in words, in the terminal summary and the log record.
func TestSyncSummarySure(t *testing.T) {
	sure := []score.Sure{{Top: 3, Chance: 1.4, OnePercent: true}, {Top: 100, Chance: 50}}
	sum := &syncjob.Summary{RunID: "r4", Scored: &syncjob.Scored{Nodes: 300, Sure: sure}}
	var buf bytes.Buffer
	SyncText(&buf, sum)
	want := "scored 300 nodes\n" +
		"the top 1% (3 nodes, ambiguity > 0.99): well separated, chance alone would put about 1.4 of them there; worth reviewing\n" +
		"the top 100 nodes: a short list to check, not a finding; chance alone would put about 50.0 of them there\n"
	if !strings.HasSuffix(buf.String(), want) {
		t.Errorf("got\n%s\nwant it to end with\n%s", buf.String(), want)
	}
	if attrs := fmt.Sprint(SyncAttrs(sum)); !strings.Contains(attrs, "sure [the top 1% (3 nodes, ambiguity > 0.99): well separated") {
		t.Errorf("attrs %s", attrs)
	}
	want1 := "the top 1% (1 node, ambiguity > 0.99): a short list to check, not a finding; chance alone would fill it"
	if got := SureTexts([]score.Sure{{Top: 1, Chance: 1.3, OnePercent: true}}); len(got) != 1 || got[0] != want1 {
		t.Errorf("%q, want %q", got, want1)
	}
}
