package syncjob_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/memstore"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// stopAfter is a store that is lost after its first `after` splits: the
// next split fails as an unreachable store does, which stops the loop.
type stopAfter struct {
	syncjob.Store
	after, splits int
}

func (s *stopAfter) Write(ctx context.Context, doing string, fn func(syncjob.Tx) error) error {
	if strings.HasPrefix(doing, "splitting node") {
		if s.splits == s.after {
			return syncjob.Errorf(syncjob.ErrUnreachable, nil, "injected: the store is lost (%s)", doing)
		}
		s.splits++
	}
	return s.Store.Write(ctx, doing, fn)
}

// unfinishedOptions split the 5 most ambiguous characters, with no run id.
func unfinishedOptions(log *bytes.Buffer) syncjob.Options {
	o := options("")
	o.Score.Split = fondue.SplitOptions{Top: 5}
	o.Log = slog.New(slog.NewTextHandler(log, nil))
	return o
}

// stopMidSplit runs a sync on s that stops after 2 of its 5 splits, and
// returns its run id.
func stopMidSplit(t *testing.T, s *memstore.Store) string {
	t.Helper()
	var log bytes.Buffer
	sum, err := syncjob.Sync(ctx(t), &stopAfter{Store: s, after: 2}, unfinishedOptions(&log))
	if !syncjob.IsUnreachable(err) || sum.Split == nil || sum.Split.Split != 2 || sum.Split.Planned != 5 {
		t.Fatalf("the stopped run: %v, split %+v", err, sum.Split)
	}
	if rs := records(t, s); rs != sum.RunID+":true " {
		t.Fatalf("the stopped run's record: %q", rs)
	}
	return sum.RunID
}

// records lists the store's records, "run:unfinished ".
func records(t *testing.T, s syncjob.Store) string {
	t.Helper()
	rs, err := s.Records(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.RunID + ":" + map[bool]string{true: "true", false: "false"}[r.Unfinished] + " ")
	}
	return b.String()
}

// splitAt drops the times of the splits from a dump.
var splitAt = regexp.MustCompile(` ` + splitplan.PropSplitAt + `=\S+`)

// A run stopped mid-split is resumed by the next run given no run id: it
// carries out the rest of the plan under the stopped run's id, says so,
// and leaves the graph as an uninterrupted run of that id does. The run
// after it, the record finished, is a new run.
func TestSyncResumesUnfinished(t *testing.T) {
	s, _ := lesmis(t)
	dead := stopMidSplit(t, s)

	var log bytes.Buffer
	sum, err := syncjob.Sync(ctx(t), s, unfinishedOptions(&log))
	if err != nil {
		t.Fatal(err)
	}
	want := []syncjob.UnfinishedRun{{RunID: dead, Split: 2, Planned: 5, Action: "resumed"}}
	if sum.RunID != dead || !sum.Resumed || sum.NodeCount != 0 || len(sum.Unfinished) != 1 {
		t.Fatalf("resumed: %+v", sum)
	}
	if u := sum.Unfinished[0]; u.CreatedAt == "" || u.RunID != want[0].RunID || u.Split != 2 || u.Planned != 5 || u.Action != "resumed" {
		t.Fatalf("unfinished run %+v, want %+v", u, want[0])
	}
	if sp := sum.Split; sp.AlreadyDone != 2 || sp.Split != 3 {
		t.Fatalf("resumed split %+v: want 2 done already, 3 split", sp)
	}
	if line := "resuming run " + dead + ", which stopped after 2 of 5 splits"; !strings.Contains(log.String(), line) {
		t.Fatalf("the log does not say %q:\n%s", line, log.String())
	}
	if rs := records(t, s); rs != dead+":false " {
		t.Fatalf("records after the resume: %q", rs)
	}

	// The graph is that of the same run uninterrupted.
	o := options(dead)
	o.Score.Split.Top = 5
	ref, _ := lesmis(t)
	if _, err := syncjob.Sync(ctx(t), ref, o); err != nil {
		t.Fatal(err)
	}
	if got, want := splitAt.ReplaceAllString(s.Dump("id"), ""), splitAt.ReplaceAllString(ref.Dump("id"), ""); got != want {
		t.Fatalf("resumed graph differs from an uninterrupted run's")
	}

	// A finished run is never resumed.
	log.Reset()
	sum, err = syncjob.Sync(ctx(t), s, unfinishedOptions(&log))
	if err != nil || sum.RunID == dead || sum.Resumed || sum.Unfinished != nil || sum.NodeCount == 0 {
		t.Fatalf("the next run: %v %+v", err, sum)
	}
	if strings.Contains(log.String(), "stopped after") {
		t.Fatalf("the next run speaks of an unfinished run:\n%s", log.String())
	}
}

// With UnfinishedUndo, the half-applied run is undone (its clones gone,
// its record forgotten), then a new run proceeds: the graph is then that
// of the new run alone.
func TestSyncUndoesUnfinished(t *testing.T) {
	s, _ := lesmis(t)
	dead := stopMidSplit(t, s)

	var log bytes.Buffer
	o := unfinishedOptions(&log)
	o.Unfinished = syncjob.UnfinishedUndo
	sum, err := syncjob.Sync(ctx(t), s, o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.RunID == dead || sum.Resumed || sum.NodeCount != 77 || sum.Split.Split != 5 || len(sum.Unfinished) != 1 {
		t.Fatalf("after the undo: %+v", sum)
	}
	if u := sum.Unfinished[0]; u.RunID != dead || u.Split != 2 || u.Planned != 5 || u.Action != "undone" {
		t.Fatalf("unfinished run %+v", u)
	}
	if line := "undid run " + dead + ", which stopped after 2 of 5 splits"; !strings.Contains(log.String(), line) {
		t.Fatalf("the log does not say %q:\n%s", line, log.String())
	}
	if rs := records(t, s); rs != sum.RunID+":false " {
		t.Fatalf("records: %q", rs)
	}
	if d := s.Dump("id"); strings.Contains(d, dead+"/") {
		t.Fatalf("a clone of the undone run is left:\n%s", d)
	}
	// The scores are the new run's, on the graph as before the stopped
	// run: the same as a run of that id on a fresh graph.
	ref, _ := lesmis(t)
	ro := options(sum.RunID)
	ro.Score.Split.Top = 5
	if _, err := syncjob.Sync(ctx(t), ref, ro); err != nil {
		t.Fatal(err)
	}
	if got, want := splitAt.ReplaceAllString(s.Dump("id"), ""), splitAt.ReplaceAllString(ref.Dump("id"), ""); got != want {
		t.Fatalf("graph after undo and a new run differs from a new run on a fresh graph")
	}
}

// With UnfinishedFail, the run refuses to start, naming the run and how
// far it got, and writes nothing.
func TestSyncFailsOnUnfinished(t *testing.T) {
	s, _ := lesmis(t)
	dead := stopMidSplit(t, s)
	before, writes := s.Dump("id"), s.Writes()
	var log bytes.Buffer
	o := unfinishedOptions(&log)
	o.Unfinished = syncjob.UnfinishedFail
	_, err := syncjob.Sync(ctx(t), s, o)
	if !errors.Is(err, syncjob.ErrUnfinished) || !strings.Contains(err.Error(), "run "+dead+" stopped after 2 of 5 splits") {
		t.Fatalf("want ErrUnfinished naming %s: %v", dead, err)
	}
	if s.Dump("id") != before || s.Writes() != writes {
		t.Fatal("the refused run wrote")
	}
	o.Unfinished = "later"
	if _, err := syncjob.Sync(ctx(t), s, o); !syncjob.IsInvalid(err) || !strings.Contains(err.Error(), `"later": want resume, undo, fail`) {
		t.Fatalf("a bad Unfinished: %v", err)
	}
	// A run given a run id leaves it alone.
	if sum, err := syncjob.Sync(ctx(t), s, options("given")); err != nil || sum.Unfinished != nil || sum.RunID != "given" {
		t.Fatalf("a run with its own run id: %v %+v", err, sum)
	}
}

// A run stopped before its first split has nothing half applied: the
// next run forgets its plan, says so, and starts afresh under a new id.
// One of another selection is left alone, with a warning.
func TestSyncReplacesUnstartedAndOtherSelection(t *testing.T) {
	s, _ := lesmis(t)
	var log bytes.Buffer
	first, err := syncjob.Sync(ctx(t), &stopAfter{Store: s, after: 0}, unfinishedOptions(&log))
	if !syncjob.IsUnreachable(err) || first.Split.Split != 0 {
		t.Fatalf("the stopped run: %v %+v", err, first.Split)
	}
	sum, err := syncjob.Sync(ctx(t), s, unfinishedOptions(&log))
	if err != nil || sum.RunID == first.RunID || sum.Resumed || sum.Split.Split != 5 || len(sum.Unfinished) != 1 || sum.Unfinished[0].Action != "replaced" {
		t.Fatalf("after an unstarted run: %v %+v", err, sum)
	}
	if !strings.Contains(log.String(), "run "+first.RunID+" stopped before its first split (0 of 5)") {
		t.Fatalf("the log does not say the plan was replaced:\n%s", log.String())
	}
	if rs := records(t, s); rs != sum.RunID+":false " {
		t.Fatalf("records: %q", rs)
	}

	s, _ = lesmis(t)
	dead := stopMidSplit(t, s)
	log.Reset()
	o := unfinishedOptions(&log)
	o.Pull.MarkerLabel = "OtherSplit"
	sum, err = syncjob.Sync(ctx(t), s, o)
	if err != nil || sum.RunID == dead || sum.Unfinished != nil {
		t.Fatalf("a run of another selection: %v %+v", err, sum)
	}
	if !strings.Contains(log.String(), "run "+dead+" stopped after 2 of 5 splits; its selection") {
		t.Fatalf("no warning about the unfinished run of another selection:\n%s", log.String())
	}
	if rs := records(t, s); !strings.Contains(rs, dead+":true ") {
		t.Fatalf("the other selection's run: %q", rs)
	}
}

// An approved plan stopped mid-split is finished by applying it again,
// not by a plain run, which says so; its record is then finished.
func TestApplyUnfinished(t *testing.T) {
	s, _ := lesmis(t)
	o := options("dry")
	o.DryRun = true
	dry, err := syncjob.Sync(ctx(t), s, o)
	if err != nil {
		t.Fatal(err)
	}
	plan := dry.Plan
	plan.RunID, plan.ExactNeighbors = "approved-1", true
	plan.Approved = &splitplan.ApprovedRef{File: "a.json", ReviewedAt: "2025-01-01T00:00:00.000Z", Fingerprint: "sha256:1111111111111111"}
	if sum, err := syncjob.Apply(ctx(t), &stopAfter{Store: s, after: 1}, plan, syncjob.ApplyOptions{}); !syncjob.IsUnreachable(err) || sum.Split.Split != 1 {
		t.Fatalf("the stopped apply: %v %+v", err, sum)
	}
	if rs := records(t, s); rs != "approved-1:true " {
		t.Fatalf("records: %q", rs)
	}
	// A plain run (stopped before its first split, so that the graph stays
	// the approved plan's).
	var log bytes.Buffer
	sum, err := syncjob.Sync(ctx(t), &stopAfter{Store: s, after: 0}, unfinishedOptions(&log))
	if !syncjob.IsUnreachable(err) || sum.Resumed || sum.Unfinished != nil || sum.NodeCount == 0 {
		t.Fatalf("a plain run: %v %+v", err, sum)
	}
	if !strings.Contains(log.String(), "run approved-1, which applies the approved plan a.json, stopped after 1 of 3 splits") {
		t.Fatalf("no warning about the stopped approved plan:\n%s", log.String())
	}
	sum, err = syncjob.Apply(ctx(t), s, plan, syncjob.ApplyOptions{})
	if err != nil || !sum.Resumed || sum.Split.AlreadyDone != 1 || sum.Split.Split != 2 {
		t.Fatalf("apply again: %v %+v", err, sum)
	}
	if rs := records(t, s); !strings.Contains(rs, "approved-1:false ") {
		t.Fatalf("records: %q", rs)
	}
}
