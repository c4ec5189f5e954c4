package review

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/reviewtest"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// mergeTestPlan is a dry run's merge plan of three pairs: string keys,
// an integer key beyond 2^53, a name with markup.
func mergeTestPlan() *mergeplan.Plan {
	p := mergeplan.New("dup-run", "2026-01-01T00:00:00.000Z")
	p.IDProperty, p.NodeLabels, p.CandidateType = "uid", []string{"Author", "Paper"}, "FONDUE_DUPLICATE"
	p.DisplayProperties = splitplan.PropertyList{"name", "title"}
	p.Pairs = []mergeplan.Pair{
		{Keep: keys.String("a:25"), Merge: keys.String("a:26"), KeepID: keys.String("4:x:25"), MergeID: keys.String("4:x:26"),
			KeepName: "Jeffrey Bilmes", MergeName: "Jeff A. Bilmes", Score: 7.25,
			Reasons:  []splitplan.Reason{{Kind: "name", Value: "short form or nickname", Weight: 3.5}, {Kind: "co-authors", Value: "2 shared co-authors", Weight: 2.25}},
			Decision: mergeplan.DecisionUndecided, KeepFingerprint: "sha256:aa", MergeFingerprint: "sha256:bb"},
		{Keep: keys.Int(9007199254740993), Merge: keys.Int(7), KeepName: "<b>Thomas</b> Lucas", MergeName: "Thomas LUCAS", Score: 3,
			Reasons:  []splitplan.Reason{{Kind: "name", Value: "same name up to case", Weight: 4}, {Kind: "years", Value: "years 2001-2003 vs 2019", Weight: -1}},
			Decision: mergeplan.DecisionUndecided},
		{Keep: keys.String("a:8"), Merge: keys.String("a:29"), KeepName: "Hans Hughes", MergeName: "Hannah Hughes", Score: -2,
			Decision: mergeplan.DecisionUndecided},
	}
	return p
}

// The merge review page in headless Chromium: the first two pairs shown
// (--top 2) with names, score and reasons; accept the first, reject the
// second; the export is the plan with these decisions (the third pair
// undecided, not shown), its keys as they were, and the time of review.
func TestMergeReviewPageInBrowser(t *testing.T) {
	plan := mergeTestPlan()
	var buf bytes.Buffer
	if err := WriteMerge(&buf, &MergeDoc{Plan: plan, Input: "dry-run.json", Top: 2, GeneratedAt: "2026-01-01T00:00:00Z", Tool: "test"}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("<b>Thomas")) {
		t.Fatal("a name's markup is in the page unescaped")
	}
	path := filepath.Join(t.TempDir(), "merge.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := reviewtest.Open(t)
	t0 := time.Now().Add(-time.Second)
	s.Load(path)

	var shown []struct {
		Keep, Merge, Names, Stats string
		Reasons                   int
	}
	s.Eval(`Array.from(document.querySelectorAll("section.pair")).map(s => ({Keep: s.dataset.keep, Merge: s.dataset.merge,
		Names: s.querySelector(".keep").textContent + " / " + s.querySelector(".merge").textContent,
		Stats: s.querySelector(".stats").textContent, Reasons: s.querySelectorAll(".reason").length}))`, &shown)
	if len(shown) != 2 || shown[0].Keep != "a:25" || shown[0].Merge != "a:26" || shown[0].Names != "Jeffrey Bilmes / Jeff A. Bilmes" ||
		shown[0].Reasons != 2 || shown[1].Keep != "9007199254740993" || shown[1].Names != "<b>Thomas</b> Lucas / Thomas LUCAS" {
		t.Fatalf("pairs shown: %+v", shown)
	}
	if want := "score 7.250 · probability 0.999 · accept merges a:26 into a:25"; shown[0].Stats != want {
		t.Errorf("stats %q, want %q", shown[0].Stats, want)
	}
	var reason string
	s.Eval(`document.querySelectorAll("section.pair")[1].querySelectorAll(".reason")[1].textContent`, &reason)
	if reason != "years 2001-2003 vs 2019 (−1.0)" {
		t.Errorf("reason against: %q", reason)
	}

	s.Decide(1, "accept")
	s.Decide(2, "reject")
	if s.Decision(1) != "accept" || s.Decision(2) != "reject" {
		t.Fatalf("decisions shown: %s %s", s.Decision(1), s.Decision(2))
	}
	var counts string
	s.Eval(`document.getElementById("counts").textContent`, &counts)
	if counts != "1 accepted · 1 rejected · 1 undecided" {
		t.Errorf("counts %q", counts)
	}
	data := s.Export()
	got, err := mergeplan.Parse(data)
	if err != nil {
		t.Fatalf("exported plan: %v\n%s", err, data)
	}
	at, err := time.Parse(time.RFC3339, got.ReviewedAt)
	if err != nil || at.Before(t0) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("reviewedAt %q: %v", got.ReviewedAt, err)
	}
	want := mergeTestPlan()
	want.Input, want.ReviewedAt = "dry-run.json", got.ReviewedAt
	want.Pairs[0].Decision, want.Pairs[1].Decision = mergeplan.DecisionAccept, mergeplan.DecisionReject
	wj, _ := json.MarshalIndent(want, "", "  ")
	gj, _ := json.MarshalIndent(got, "", "  ")
	if !bytes.Equal(wj, gj) {
		t.Errorf("exported plan differs from the clicks:\ngot  %s\nwant %s", gj, wj)
	}
	// A second click takes a decision back.
	s.Decide(1, "accept")
	if again, err := mergeplan.Parse(s.Export()); err != nil || again.Pairs[0].Decision != mergeplan.DecisionUndecided || len(again.Accepted()) != 0 {
		t.Errorf("after taking back: %v %+v", err, again)
	}
}

// ReadDryRun tells a merge dry run (its mergePlan, or a bare merge plan)
// from a split one.
func TestReadMergeDryRun(t *testing.T) {
	plan := mergeTestPlan()
	pj, _ := json.Marshal(plan)
	for name, data := range map[string]string{
		"summary": `{"runId":"dup-run","nodeCount":10,"relationshipCount":20,"mergePlan":` + string(pj) + `}`,
		"bare":    string(pj),
	} {
		dr, err := ReadDryRun("f.json", []byte(data))
		if err != nil || dr.Merge == nil || dr.Plan != nil || len(dr.Merge.Pairs) != 3 || dr.Merge.Pairs[1].Keep != keys.Int(9007199254740993) {
			t.Errorf("%s: %v %+v", name, err, dr)
		}
	}
	if _, err := ReadDryRun("f.json", []byte(`{"mergePlan":{"format":"x"}}`)); err == nil {
		t.Error("a bad merge plan was read")
	}
}
