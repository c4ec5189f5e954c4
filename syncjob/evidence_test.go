package syncjob_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/memory"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// The context of pulled nodes: kinds are the label sets sorted and joined
// by ":" (two orders of the same labels are one kind); a property whose
// values are all numbers is numeric (absent: NaN); one with a text value
// is text, its numbers written as text (absent: ""); lists are their
// elements joined by spaces; values land at the nodes' graph indices.
func TestNewContext(t *testing.T) {
	ev := syncjob.NewEvidenceValues([]string{"year", "title", "mixed"})
	ev.Add([]any{int64(2001), "Graph cuts", int64(7)})
	ev.Add([]any{nil, nil, "seven"})
	ev.Add([]any{1999.5, []any{"a", int64(2), nil}, 2.5})
	order := []int32{2, 0, 1} // position -> graph node
	sets := [][]string{{"Paper"}, {"Person", "Author"}, {"Author", "Person"}}
	c := syncjob.NewContext(3, sets, []int32{1, 0, 2}, ev, order)
	if c == nil || !slices.Equal(c.Kinds, []string{"Paper", "Author:Person"}) || !slices.Equal(c.Kind, []int32{1, 0, 1}) {
		t.Fatalf("kinds %+v", c)
	}
	if err := c.Check(3); err != nil {
		t.Fatal(err)
	}
	year, title, mixed := c.Properties[0], c.Properties[1], c.Properties[2]
	if !year.Numeric || year.Name != "year" || year.Number[2] != 2001 || !math.IsNaN(year.Number[0]) || year.Number[1] != 1999.5 {
		t.Errorf("year %+v", year)
	}
	if title.Numeric || !slices.Equal(title.Text, []string{"", "a 2", "Graph cuts"}) {
		t.Errorf("title %+v", title)
	}
	if mixed.Numeric || !slices.Equal(mixed.Text, []string{"seven", "2.5", "7"}) {
		t.Errorf("mixed %+v", mixed)
	}
	if want := int64(len("Graph cuts") + len("a 2") + len("7seven2.5")); ev.TextBytes != want {
		t.Errorf("text bytes %d, want %d", ev.TextBytes, want)
	}
	// Nothing beyond the links: one kind, no evidence properties.
	if c := syncjob.NewContext(2, [][]string{{"Node"}}, []int32{0, 0}, nil, []int32{0, 1}); c != nil {
		t.Errorf("one kind: %+v, want nil", c)
	}
	if c := syncjob.NewContext(2, nil, nil, nil, []int32{0, 1}); c != nil {
		t.Errorf("no labels: %+v, want nil", c)
	}
	// Evidence without labels: kinds unknown.
	ev = syncjob.NewEvidenceValues([]string{"year"})
	ev.Add([]any{int64(1)})
	ev.Add([]any{int64(2)})
	if c := syncjob.NewContext(2, nil, nil, ev, []int32{1, 0}); c == nil || c.Kind != nil || !slices.Equal(c.Properties[0].Number, []float64{2, 1}) {
		t.Errorf("no labels, evidence: %+v", c)
	}
}

// A memstore pull fills the context from labels and properties, and the
// engine gets it (fondue.Options.Context) with the targets.
func TestSyncContextReachesEngine(t *testing.T) {
	s, _ := lesmis(t)
	var ids []string
	for k := range 6 {
		ids = append(ids, s.AddNode([]string{"Place"}, map[string]any{"id": int64(1000 + k), "name": "Paris", "year": int64(1830 + k)}))
	}
	s.AddRel(ids[0], ids[1], "APPEARS_WITH", nil)
	o := options("ctx")
	o.Split = false
	o.Pull.NodeLabels = []string{"Character", "Place"}
	o.Pull.WriteNodeLabels = []string{"Character"}
	o.Pull.EvidenceProperties = []string{"name", "year"}
	var got *evidence.Context
	o.Scored = func(sg *syncjob.Subgraph, _ *fondue.Result, opts fondue.Options, _ *syncjob.Summary) error {
		if opts.Context != sg.Context || len(opts.Targets) != sg.Graph.NumNodes() {
			t.Errorf("the engine got context %p and %d targets, the pull %p", opts.Context, len(opts.Targets), sg.Context)
		}
		got = sg.Context
		if i, ok := sg.Graph.Index("1003"); !ok || sg.Context.Properties[1].Number[i] != 1833 || sg.Context.Kinds[sg.Context.Kind[i]] != "Place" {
			t.Errorf("node 1003: %+v", sg.Context)
		}
		return nil
	}
	if _, err := syncjob.Sync(ctx(t), s, o); err != nil {
		t.Fatal(err)
	}
	if got == nil || len(got.Kinds) != 2 || got.Properties[0].Numeric || !got.Properties[1].Numeric {
		t.Fatalf("context %+v", got)
	}
}

// Sync's memory estimate on a graph with a context is the one score makes
// of the same graph and options (memory.ForGraph): the kinds, the
// evidence values, the structural graph of the targets and the pieces.
func TestSyncMemoryCountsContext(t *testing.T) {
	s, _ := lesmis(t)
	for k := range 6 {
		s.AddNode([]string{"Place"}, map[string]any{"id": int64(1000 + k), "name": "Paris", "year": int64(1830 + k)})
	}
	o := options("ctx-mem")
	o.Split = false
	o.Pull.NodeLabels = []string{"Character", "Place"}
	o.Pull.WriteNodeLabels = []string{"Character"}
	o.Pull.EvidenceProperties = []string{"name", "year"}
	var got memory.Estimate
	o.Memory = syncjob.MemoryGuard{Limit: -1, Estimated: func(e memory.Estimate, _ int64) { got = e }}
	var want memory.Estimate
	o.Scored = func(sg *syncjob.Subgraph, _ *fondue.Result, opts fondue.Options, _ *syncjob.Summary) error {
		want = memory.Predict(int64(sg.Graph.NumNodes()), int64(sg.Graph.NumEdges()), memory.ForGraph(sg.Graph, opts))
		return nil
	}
	if _, err := syncjob.Sync(ctx(t), s, o); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got.Phases[0].Parts {
		names = append(names, p.Name)
	}
	for _, n := range []string{"context: the nodes' kinds", "context: evidence properties", "context: the structural graph", "context: pieces and profiles"} {
		if !slices.Contains(names, n) {
			t.Errorf("sync's estimate has no part %q: %v", n, names)
		}
	}
	if got.Peak != want.Peak || got.Live != want.Live {
		t.Fatalf("sync's estimate: peak %d, live %d; score's of the same graph: %d, %d", got.Peak, got.Live, want.Peak, want.Live)
	}
}

// An evidence property that no pulled node has (a typo: "venue") is
// refused before scoring, in the dry run too, as score refuses it; the
// graph is left as it was. One that some node has is taken.
func TestSyncRefusesMissingEvidence(t *testing.T) {
	for _, dry := range []bool{false, true} {
		s, _ := lesmis(t)
		before := s.Dump("id")
		o := options("typo")
		o.DryRun = dry
		o.Pull.EvidenceProperties = []string{"id", "venue"}
		_, err := syncjob.Sync(ctx(t), s, o)
		want := `no node has the evidence property "venue"`
		if !syncjob.IsInvalid(err) || err == nil || err.Error() != want {
			t.Fatalf("dry run %v: %v, want %q", dry, err, want)
		}
		if after := s.Dump("id"); after != before {
			t.Errorf("dry run %v: the graph changed", dry)
		}
	}
	s, _ := lesmis(t)
	s.AddNode([]string{"Character"}, map[string]any{"id": int64(999), "venue": "KDD"})
	o := options("one")
	o.DryRun = true
	o.Pull.EvidenceProperties = []string{"id", "venue"}
	if _, err := syncjob.Sync(ctx(t), s, o); err != nil {
		t.Fatalf("one node has venue: %v", err)
	}
}

// A plan's groups carry the engine's reasons as a person reads them: a
// context node by its display name (else its key), a property by its
// value; they survive the plan's JSON (a stored or approved plan) exactly.
func TestPlanReasonsRoundTrip(t *testing.T) {
	var b graph.Builder
	for _, k := range []int64{1, 2, 3, 4, 5} {
		b.AddIntNode(k)
	}
	for _, e := range [][2]int32{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {2, 4}} {
		b.AddIndexEdge(e[0], e[1])
	}
	g := b.Build()
	sg := &syncjob.Subgraph{Graph: g, IDs: make([]keys.Key, 5), Keys: make([]keys.Key, 5), Names: []string{"Smith", "", "", "KDD", ""},
		Options: syncjob.PullOptions{IDProperty: "uid", DisplayProperties: []string{"name"}}}
	for i := range 5 {
		sg.IDs[i], sg.Keys[i] = keys.String("4:x:"+string(rune('0'+i))), keys.Int(int64(i+1))
	}
	res := &fondue.Result{Entities: []int{2, 1, 1, 1, 1}, Proposals: []fondue.Proposal{{Node: 0, Groups: [][]int32{{1}, {2}}, Score: 3, Ambiguity: 1,
		Reasons: [][]evidence.Reason{
			{{Kind: "Venue", Node: 3, Weight: 2.5}, {Kind: "title", Node: -1, Value: "graph", Weight: 1.25}},
			{{Kind: "Keyword", Node: 4, Weight: 0.5}}}}}}
	p, err := syncjob.NewPlan(sg, res, syncjob.PlanOptions{RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]splitplan.Reason{{{Kind: "Venue", Value: "KDD", Weight: 2.5}, {Kind: "title", Value: "graph", Weight: 1.25}}, {{Kind: "Keyword", Value: "5", Weight: 0.5}}}
	for k, g := range p.Nodes[0].Groups {
		if !slices.Equal(g.Reasons, want[k]) {
			t.Fatalf("group %d reasons %+v, want %+v", k, g.Reasons, want[k])
		}
	}
	text, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := splitplan.Unmarshal(text)
	if err != nil {
		t.Fatal(err)
	}
	for k, g := range back.Nodes[0].Groups {
		if !slices.Equal(g.Reasons, want[k]) {
			t.Fatalf("read back: group %d reasons %+v, want %+v", k, g.Reasons, want[k])
		}
	}
	if again, _ := back.Marshal(); string(again) != string(text) {
		t.Fatalf("written again:\n%s\nwant\n%s", again, text)
	}
	// Without reasons (no context), no "reasons" in the plan.
	res.Proposals[0].Reasons = nil
	p, _ = syncjob.NewPlan(sg, res, syncjob.PlanOptions{RunID: "r"})
	if text, _ := p.Marshal(); len(p.Nodes[0].Groups[0].Reasons) != 0 || strings.Contains(string(text), `"reasons"`) {
		t.Fatalf("a plan without context: %s", text)
	}
}
