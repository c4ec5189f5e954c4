package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/mergeplan"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// Authors is a small bibliography with two people under two names each
// (as the duplicates command's test graph): 24 authors (uids 1-24) with
// distinct names writing 60 papers (uids 1000-1059) in pairs and
// triples at venues 2000-2004; "Jeffrey Bilmes" (25) and "Jeff A. Bilmes"
// (26) write on graphical models with 1 and 2 at venue 2003, "Thomas
// Lucas" (27) and "Thomas LUCAS" (28) on phonology with 5 and 6 at 2004;
// "Hannah Hughes" (29) and "Karl Keller" (30), whose names are close to
// 8's and 11's, share nothing with them.
func Authors() Graph {
	var g Graph
	first := strings.Fields("Anna Boris Carla Dmitri Elena Felix Greta Hans Ines Jonas Karin Lars Maria Nils Olga Pavel Rosa Sven Tara Uwe Vera Wim Xenia Yann")
	last := strings.Fields("Adams Baker Clark Davis Evans Fisher Green Hughes Irwin Jones Keller Lopez Moore Nash Owens Price Quinn Reed Stone Turner Ulrich Vance Walsh Young")
	topics := strings.Fields("parsing tagging translation summarization retrieval dialogue morphology semantics")
	author := func(uid int64, name string) {
		g.Nodes = append(g.Nodes, Node{Labels: []string{"Author"}, Props: map[string]any{"uid": uid, "name": name}})
	}
	for i := range first {
		author(int64(i+1), first[i]+" "+last[i])
	}
	for k, n := range []string{"Jeffrey Bilmes", "Jeff A. Bilmes", "Thomas Lucas", "Thomas LUCAS", "Hannah Hughes", "Karl Keller"} {
		author(int64(25+k), n)
	}
	for k, v := range strings.Fields("ACL EMNLP COLING ICASSP Interspeech") {
		g.Nodes = append(g.Nodes, Node{Labels: []string{"Venue"}, Props: map[string]any{"uid": int64(2000 + k), "name": v}})
	}
	paper := func(k int, title string, year, venue int, by ...int) {
		uid := int64(1000 + k)
		g.Nodes = append(g.Nodes, Node{Labels: []string{"Paper"}, Props: map[string]any{"uid": uid, "title": title, "year": int64(year)}})
		for _, a := range by {
			g.Rels = append(g.Rels, Rel{From: int64(a), To: uid, Type: "WROTE"})
		}
		g.Rels = append(g.Rels, Rel{From: uid, To: int64(2000 + venue), Type: "PUBLISHED_IN"})
	}
	for k := range 60 {
		by := []int{k%24 + 1, (k*7+3)%24 + 1}
		if k%3 == 0 {
			by = append(by, (k*5+11)%24+1)
		}
		slices.Sort(by)
		paper(k, "Neural "+topics[k%8]+" for "+topics[(k+3)%8], 2000+k%15, k%3, slices.Compact(by)...)
	}
	for k := range 6 {
		paper(60+k, fmt.Sprintf("Graphical models for speech part %d", k), 2005+k, 3, 1, 2, 25+k%2)
		paper(70+k, fmt.Sprintf("Phonology of tone systems part %d", k), 2010+k, 4, 5, 6, 27+k%2)
	}
	for k := range 4 {
		paper(80+k, fmt.Sprintf("Protein folding kinetics part %d", k), 2019, 0, 29, 30, 13+k)
	}
	return g
}

// DuplicatesPull is the suite's selection for duplicates: every node
// and every type but the duplicates' own, keyed by uid, the authors
// compared.
var DuplicatesPull = syncjob.PullOptions{IDProperty: "uid", WriteNodeLabels: []string{"Author"}, ExcludeTypes: []string{syncjob.DefaultDuplicateType},
	EvidenceProperties: []string{"title", "year"}, DisplayProperties: []string{"title"}}

// dupLines are the lines of a dump with a relationship of type typ, as
// "from>to" by uid, sorted; each must hold run and the words of must.
func dupLines(t *testing.T, dump, typ, run string, must ...string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(dump, "\n") {
		if !strings.HasPrefix(line, "R ") || !strings.Contains(line, typ) {
			continue
		}
		from, rest, _ := strings.Cut(strings.TrimPrefix(line, "R uid:"), " ")
		_, to, _ := strings.Cut(rest, "]-> uid:")
		for _, w := range append(must, run) {
			if !strings.Contains(line, w) {
				t.Errorf("%s relationship without %s: %s", typ, w, line)
			}
		}
		out = append(out, from+">"+to)
	}
	slices.Sort(out)
	return out
}

// The link primitives: Link creates a relationship, sets it again without
// a second one, leaves out a link whose end is gone; Unlink deletes the
// relationships of a type that are not of a run, at most limit at once.
func testLinks(t *testing.T, f Factory) {
	fx := f(t, Seed())
	st := fx.Store()
	ctx := Ctx(t)
	n := byUID(t, st, 1, 2, 3, 11)
	fx.Relate(t, 3, 11, "SAME") // of no run: deleted
	link := func(a, b int64, run string) syncjob.Link {
		return syncjob.Link{From: n[a].ID, To: n[b].ID, Props: map[string]any{"run": run, "score": 1.5, "reasons": []string{"x", "y"}}}
	}
	var set int
	err := st.Write(ctx, "link", func(tx syncjob.Tx) error {
		var err error
		set, err = tx.Link("SAME", []syncjob.Link{link(1, 2, "r1"), link(2, 3, "r1"), {From: keys.String("gone"), To: n[1].ID}})
		return err
	})
	if err != nil || set != 2 {
		t.Fatalf("link: %d set, %v; want 2", set, err)
	}
	err = st.Write(ctx, "link again", func(tx syncjob.Tx) error {
		var err error
		set, err = tx.Link("SAME", []syncjob.Link{link(1, 2, "r2")})
		return err
	})
	if got := relsOf(t, st, n[1].ID); err != nil || set != 1 || !slices.Equal(got, []string{"KNOWS<100", "KNOWS>2", "KNOWS>3", "KNOWS>4", "KNOWS>5", "LIKES<100", "SAME>2"}) {
		t.Fatalf("link again: %d set, %v; rels of 1: %v", set, err, got)
	}
	if p := fx.Props(t, 1); p["run"] != nil {
		t.Fatalf("Link set a node's properties: %v", p)
	}
	// Unlink: of SAME, 2>3 (r1) and 3>11 (no run) are not r2's; one at a time.
	var deleted []int
	for range 3 {
		err := st.Write(ctx, "unlink", func(tx syncjob.Tx) error {
			k, err := tx.Unlink("SAME", "run", "r2", 1)
			deleted = append(deleted, k)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(deleted, []int{1, 1, 0}) {
		t.Errorf("unlink one at a time: %v, want [1 1 0]", deleted)
	}
	if got := dupLines(t, fx.Dump(t), "SAME", "r2"); !slices.Equal(got, []string{"1>2"}) {
		t.Errorf("after unlink: %v, want [1>2]", got)
	}
}

// sync with Duplicates writes the two people under two names as
// relationships, first node to second, with the run id; later pulls leave
// them out; a second run replaces them, and deletes those of a run that
// stopped half way; a dry run writes nothing and lists the pairs.
func testSyncDuplicates(t *testing.T, f Factory) {
	fx := f(t, Authors())
	st := fx.Store()
	ctx := Ctx(t)
	before, err := st.Pull(ctx, DuplicatesPull)
	if err != nil {
		t.Fatal(err)
	}
	o := syncjob.Options{RunID: "dup-1", Pull: DuplicatesPull, Memory: syncjob.MemoryGuard{Limit: -1},
		Write:      syncjob.WriteOptions{RunProperty: "fondue_run", BatchSize: 1},
		Duplicates: &syncjob.DuplicateOptions{MinProbability: 0.01}}
	dry := o
	dry.DryRun, dry.RunID = true, "dry"
	d0 := fx.Dump(t)
	sum, err := syncjob.Sync(ctx, st, dry)
	if err != nil {
		t.Fatal(err)
	}
	if d := fx.Dump(t); d != d0 {
		t.Fatalf("the dry run wrote")
	}
	d := sum.Duplicates
	if d == nil || len(d.Pairs) != 2 || d.Compared != 30 || d.RelationshipType != syncjob.DefaultDuplicateType {
		t.Fatalf("dry run: %+v", d)
	}
	var top []string
	for _, p := range d.Pairs[:2] {
		top = append(top, fmt.Sprintf("%v>%v", p.A.Key, p.B.Key))
		if p.Probability < 0.01 || len(p.Reasons) == 0 || p.A.Name == "" {
			t.Errorf("pair %+v", p)
		}
	}
	if slices.Sort(top); !slices.Equal(top, []string{"25>26", "27>28"}) {
		t.Fatalf("best pairs %v, want 25>26 and 27>28", top)
	}
	want := make([]string, len(d.Pairs))
	for k, p := range d.Pairs {
		want[k] = fmt.Sprintf("%v>%v", p.A.Key, p.B.Key)
	}
	slices.Sort(want)

	// The dry run's merge plan: the pairs undecided, the node with more
	// papers kept (the first on a tie: 25 and 26 wrote 3 each, so did 27
	// and 28), pinned by their neighbourhoods.
	mp := sum.MergePlan
	if mp == nil || len(mp.Pairs) != 2 || mp.RunID != "dry" || mp.IDProperty != "uid" || mp.CandidateType != syncjob.DefaultDuplicateType {
		t.Fatalf("merge plan %+v", mp)
	}
	for k, p := range mp.Pairs {
		if p.Decision != mergeplan.DecisionUndecided || p.Score != d.Pairs[k].Score || p.KeepFingerprint == "" || p.MergeFingerprint == "" ||
			len(p.Reasons) == 0 || p.Reasons[0].Value == "" || p.KeepName == "" || p.KeepID.IsZero() {
			t.Errorf("merge pair %+v", p)
		}
		if got := fmt.Sprintf("%v>%v", p.Keep, p.Merge); got != fmt.Sprintf("%v>%v", d.Pairs[k].A.Key, d.Pairs[k].B.Key) {
			t.Errorf("merge pair %d: keep>merge %s, want the first node kept on a tie of degrees", k, got)
		}
	}
	// A review rejected Lucas' pair: later runs do not propose it.
	if err := mp.Decide(map[[2]string]string{{"28", "27"}: mergeplan.DecisionReject}, "2026-01-01T00:00:00Z"); err != nil {
		t.Fatal(err)
	}
	data, err := mp.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ds, err := splitplan.MarshalDecisions(mp.Decisions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddRecord(ctx, syncjob.Record{RunID: "reviewed", Plan: data, Decisions: ds}); err != nil {
		t.Fatal(err)
	}
	sum, err = syncjob.Sync(ctx, st, dry)
	if err != nil {
		t.Fatal(err)
	}
	if d := sum.Duplicates; len(d.Pairs) != 1 || d.Remembered != 1 || d.Pairs[0].A.Key.Text() != "25" || len(sum.MergePlan.Pairs) != 1 {
		t.Fatalf("after the rejection: %+v", d)
	}
	if err := st.DeleteRecord(ctx, "reviewed"); err != nil {
		t.Fatal(err)
	}

	// A run that stopped half way left a relationship of its own.
	fx.Relate(t, 3, 4, syncjob.DefaultDuplicateType)
	sum, err = syncjob.Sync(ctx, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if w := sum.Duplicates; w.RelationshipsWritten != len(want) || w.RelationshipsDeleted != 1 {
		t.Errorf("written %d deleted %d, want %d and 1", w.RelationshipsWritten, w.RelationshipsDeleted, len(want))
	}
	if got := dupLines(t, fx.Dump(t), syncjob.DefaultDuplicateType, "dup-1", "score", "probability", "reasons"); !slices.Equal(got, want) {
		t.Fatalf("relationships %v, want %v", got, want)
	}
	// Later pulls leave them out (and would read them without ExcludeTypes).
	after, err := st.Pull(ctx, DuplicatesPull)
	if err != nil || after.Graph.NumEdges() != before.Graph.NumEdges() {
		t.Fatalf("pull after: %v, %d edges, want %d", err, after.Graph.NumEdges(), before.Graph.NumEdges())
	}
	all := DuplicatesPull
	all.ExcludeTypes = nil
	if sg, err := st.Pull(ctx, all); err != nil || sg.Graph.NumEdges() != before.Graph.NumEdges()+2 {
		t.Fatalf("pull of every type: %v, want %d edges", err, before.Graph.NumEdges()+2)
	}
	// The next run replaces them.
	o.RunID = "dup-2"
	sum, err = syncjob.Sync(ctx, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if w := sum.Duplicates; w.RelationshipsWritten != len(want) || w.RelationshipsDeleted != 0 {
		t.Errorf("second run: written %d deleted %d, want %d and 0", w.RelationshipsWritten, w.RelationshipsDeleted, len(want))
	}
	if got := dupLines(t, fx.Dump(t), syncjob.DefaultDuplicateType, "dup-2", "score", "probability", "reasons"); !slices.Equal(got, want) {
		t.Fatalf("second run: relationships %v, want %v", got, want)
	}
	// Asking for a pulled type is refused.
	bad := o
	bad.Pull.RelationshipTypes = []string{"WROTE", syncjob.DefaultDuplicateType}
	if _, err := syncjob.Sync(ctx, st, bad); !syncjob.IsInvalid(err) {
		t.Errorf("pulling the duplicates' type: %v", err)
	}
}
