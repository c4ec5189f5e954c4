package review

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/evidence"
	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
	"github.com/fondue-neo4j/fondue-neo4j/internal/app/names"
	"github.com/fondue-neo4j/fondue-neo4j/internal/testenv/reviewtest"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob/splitplan"
)

// reasonsDoc is the review of an author a:1 whose four papers split in two
// groups, each with the reasons the engine gives (built here: the engine
// of this branch gives none yet): a shared venue (a context node, named by
// its display name), a keyword and a year.
func reasonsDoc(t *testing.T) (*Doc, *graph.Graph) {
	t.Helper()
	var b graph.Builder
	for _, e := range [][2]string{{"a:1", "p:1"}, {"a:1", "p:2"}, {"a:1", "p:3"}, {"a:1", "p:4"},
		{"p:1", "v:1"}, {"p:2", "v:1"}, {"p:3", "k:1"}, {"p:4", "k:1"}} {
		b.AddEdge(e[0], e[1])
	}
	g := b.Build()
	idx := func(k string) int {
		i, ok := g.Index(k)
		if !ok {
			t.Fatalf("no node %s", k)
		}
		return i
	}
	n := g.NumNodes()
	res := &fondue.Result{Scores: make([]float64, n), Ambiguity: make([]float64, n), Entities: make([]int, n)}
	a := idx("a:1")
	res.Scores[a], res.Ambiguity[a], res.Entities[a] = 2.5, 1, 2
	res.Proposals = []fondue.Proposal{{Node: a,
		Groups: [][]int32{{int32(idx("p:1")), int32(idx("p:2"))}, {int32(idx("p:3")), int32(idx("p:4"))}},
		Reasons: [][]evidence.Reason{
			{{Kind: "Venue", Node: idx("v:1"), Weight: 2.25}, {Kind: "year", Node: -1, Value: "2006", Weight: 0.5}},
			{{Kind: "Keyword", Node: idx("k:1"), Weight: 1.5}},
		}}}
	nm := names.Names{"a:1": "lu zhang", "v:1": "Intl. Conf. on Data Engineering", "p:1": "Paper one"}
	return FromEdgeList("kg", g, res, nm, "ncut"), g
}

// The score path: a group's reasons name the context nodes by their
// display name (the id without one), the property values as they are.
func TestFromResultReasons(t *testing.T) {
	doc, _ := reasonsDoc(t)
	want := [][]splitplan.Reason{
		{{Kind: "Venue", Value: "Intl. Conf. on Data Engineering", Weight: 2.25}, {Kind: "year", Value: "2006", Weight: 0.5}},
		{{Kind: "Keyword", Value: "k:1", Weight: 1.5}},
	}
	got, _ := json.Marshal(doc.Nodes[0].Reasons)
	w, _ := json.Marshal(want)
	if string(got) != string(w) {
		t.Fatalf("reasons %s, want %s", got, w)
	}
	// Without reasons (no context): none on the page.
	doc.Nodes[0].Reasons = nil
	data, err := pageData(doc)
	if err != nil || data.Nodes[0].Reasons != nil {
		t.Fatalf("no reasons: %v, %+v", err, data.Nodes[0].Reasons)
	}
	// Reasons that do not fit the groups are refused.
	doc.Nodes[0].Reasons = want[:1]
	if _, err := pageData(doc); err == nil || !strings.Contains(err.Error(), "reasons for 1 groups, not 2") {
		t.Fatalf("reasons for one group of two: %v", err)
	}
}

// The plan path: "review --plan" shows the reasons a dry run's plan stores
// per group (splitplan.Group.Reasons).
func TestFromDryRunReasons(t *testing.T) {
	const plan = `{"runId":"r1","splitter":"ncut","nodes":[{"id":"4:db:1","key":"a:1","ambiguity":1,"score":2,"groups":[` +
		`{"neighbors":["p:1","p:2"],"neighborIds":["4:db:2","4:db:3"],"reasons":[{"kind":"Venue","value":"ICDE","weight":2.25}]},` +
		`{"neighbors":["p:3"],"neighborIds":["4:db:4"]}]},` +
		`{"id":"4:db:9","key":"a:9","ambiguity":0.5,"score":1,"groups":[{"neighbors":["p:9"],"neighborIds":["4:db:10"]},{"neighbors":["p:8"],"neighborIds":["4:db:11"]}]}]}`
	dr, err := ReadDryRun("dry.json", []byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := FromDryRun(dr, nil, nil, 10)
	r := doc.Nodes[0].Reasons
	if len(r) != 2 || len(r[0]) != 1 || r[0][0] != (splitplan.Reason{Kind: "Venue", Value: "ICDE", Weight: 2.25}) || r[1] != nil {
		t.Fatalf("node a:1: reasons %+v", r)
	}
	if doc.Nodes[1].Reasons != nil {
		t.Fatalf("node a:9 (no reasons in the plan): %+v", doc.Nodes[1].Reasons)
	}
	if _, err := pageData(doc); err != nil {
		t.Fatal(err)
	}
}

// In the browser: each proposed group lists what its pieces share; an
// edited split shows none (they were the proposal's); the approved plan
// carries them on a split accepted as proposed, not on an edited one.
func TestReviewPageReasonsInBrowser(t *testing.T) {
	doc, _ := reasonsDoc(t)
	s := reviewtest.Open(t)
	s.Load(writePage(t, doc))
	reasons := func() []string {
		var out []string
		s.Eval(`Array.from(document.querySelectorAll('section[data-rank="1"] .group:not(.new)')).map(g => {
			const r = g.querySelector(".reasons"); return r ? r.textContent : ""; })`, &out)
		return out
	}
	got := reasons()
	if len(got) != 2 || got[0] != "one group by sharedVenue Intl. Conf. on Data Engineeringyear 2006" || got[1] != "one group by sharedKeyword k:1" {
		t.Fatalf("reasons shown %q", got)
	}
	var tip string
	s.Eval(`document.querySelector('section[data-rank="1"] .reason').title`, &tip)
	if tip != "Venue: Intl. Conf. on Data Engineering (weight 2.25)" {
		t.Errorf("tooltip %q", tip)
	}
	s.Decide(1, "accept")
	p, err := ParsePlan(s.Export())
	if err != nil {
		t.Fatal(err)
	}
	gs := p.Nodes[0].Groups
	if len(gs) != 2 || len(gs[0].Reasons) != 2 || gs[0].Reasons[0] != (splitplan.Reason{Kind: "Venue", Value: "Intl. Conf. on Data Engineering", Weight: 2.25}) ||
		gs[1].Reasons[0] != (splitplan.Reason{Kind: "Keyword", Value: "k:1", Weight: 1.5}) {
		t.Fatalf("approved groups %+v", gs)
	}
	// Edited: the proposal's reasons no longer describe the groups.
	s.MoveToNextGroup(1, doc.Nodes[0].Groups[0][0])
	if got := reasons(); len(got) != 2 || got[0] != "" || got[1] != "" {
		t.Fatalf("after an edit, reasons shown %q", got)
	}
	p, err = ParsePlan(s.Export()) // still accepted, now edited
	if err != nil || p.Nodes[0].Decision != DecisionEdit {
		t.Fatalf("%v %+v", err, p)
	}
	for _, g := range p.Nodes[0].Groups {
		if g.Reasons != nil {
			t.Fatalf("edited group with reasons %+v", g)
		}
	}
	if p.Nodes[0].Key != keys.String("a:1") {
		t.Fatalf("key %v", p.Nodes[0].Key)
	}
}
