package connector

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fondue-neo4j/fondue-neo4j/cypher"
	"github.com/fondue-neo4j/fondue-neo4j/syncjob"
)

// A pull reads each node's kind (its labels, sorted and joined by ":")
// and its evidence properties: numbers as numbers, a property with any
// text as text (its numbers written as text), lists as their elements;
// absent values are NaN or "". Property names are escaped (a backtick, a
// brace), never spliced; values are never part of a statement. A Cypher
// projection returns the properties as columns of their names, and is
// told which are missing; a bad name is refused before anything is read.
func TestPullEvidence(t *testing.T) {
	reset(t)
	weird := "we`ird})"
	w, _ := cypher.Escape(weird)
	run(t, "CREATE (a:Author:Person {uid: 1, name: 'Smith'}), (b:Author {uid: 2, name: 'Jones'}), "+
		"(p:Paper {uid: 10, title: 'Graph cuts', year: 2001, "+w+": 'x'}), (q:Paper {uid: 11, title: ['spectral', 'graphs'], year: 1999.5, "+w+": 3}), "+
		"(r:Paper {uid: 12, "+w+": $inject}), "+
		"(a)-[:WROTE]->(p), (a)-[:WROTE]->(q), (b)-[:WROTE]->(q), (b)-[:WROTE]->(r)", map[string]any{"inject": "'}) DETACH DELETE n //"})
	c, _ := open(t)
	native := syncjob.PullOptions{NodeLabels: []string{"Author", "Paper"}, RelationshipTypes: []string{"WROTE"}, IDProperty: "uid",
		WriteNodeLabels: []string{"Author"}, EvidenceProperties: []string{"year", "title", weird}}
	custom := syncjob.PullOptions{IDProperty: "uid", WriteNodeLabels: []string{"Author"}, EvidenceProperties: native.EvidenceProperties,
		NodeQuery:         "MATCH (n) WHERE n:Author OR n:Paper RETURN elementId(n) AS id, n.uid AS key, labels(n) AS labels, n.year AS year, n.title AS title, n.`we``ird})` AS `we``ird})`",
		RelationshipQuery: "MATCH (a)-[r:WROTE]->(b) RETURN elementId(a) AS source, elementId(b) AS target, elementId(r) AS relationship"}
	for _, o := range []syncjob.PullOptions{native, custom} {
		sg, err := c.Pull(ctxT(t, time.Minute), o)
		if err != nil {
			t.Fatal(err)
		}
		cx := sg.Context
		if cx == nil || cx.Check(sg.Graph.NumNodes()) != nil || len(cx.Properties) != 3 {
			t.Fatalf("%v: context %+v", o.Custom(), cx)
		}
		kind := func(uid string) string {
			i, _ := sg.Graph.Index(uid)
			return cx.Kinds[cx.Kind[i]]
		}
		if kind("1") != "Author:Person" || kind("2") != "Author" || kind("11") != "Paper" {
			t.Errorf("%v: kinds %q %v", o.Custom(), cx.Kinds, cx.Kind)
		}
		year, title, w := cx.Properties[0], cx.Properties[1], cx.Properties[2]
		at := func(uid string) int { i, _ := sg.Graph.Index(uid); return i }
		if !year.Numeric || year.Number[at("10")] != 2001 || year.Number[at("11")] != 1999.5 || !math.IsNaN(year.Number[at("12")]) || !math.IsNaN(year.Number[at("1")]) {
			t.Errorf("%v: year %+v", o.Custom(), year)
		}
		if title.Numeric || title.Text[at("10")] != "Graph cuts" || title.Text[at("11")] != "spectral graphs" || title.Text[at("2")] != "" {
			t.Errorf("%v: title %+v", o.Custom(), title)
		}
		if w.Name != weird || w.Numeric || w.Text[at("10")] != "x" || w.Text[at("11")] != "3" || w.Text[at("12")] != "'}) DETACH DELETE n //" {
			t.Errorf("%v: %s %+v", o.Custom(), weird, w)
		}
		if want := int64(len("Graph cutsspectral graphs") + len("x3'}) DETACH DELETE n //")); sg.Stats.EvidenceTextBytes != want {
			t.Errorf("%v: text bytes %d, want %d", o.Custom(), sg.Stats.EvidenceTextBytes, want)
		}
	}
	if n := run(t, "MATCH (n) RETURN count(n)", nil)[0].Values[0].(int64); n != 5 {
		t.Fatalf("%d nodes after the pulls, want 5", n)
	}
	// Without evidence properties: the kinds alone.
	o := native
	o.EvidenceProperties = nil
	if sg, err := c.Pull(ctxT(t, time.Minute), o); err != nil || sg.Context == nil || len(sg.Context.Kinds) != 3 || sg.Context.Properties != nil || sg.Stats.EvidenceTextBytes != 0 {
		t.Errorf("no evidence properties: %v %+v", err, sg.Context)
	}
	// A missing column, a bad name, a name given twice.
	bad := custom
	bad.NodeQuery = "MATCH (n) WHERE n:Author OR n:Paper RETURN elementId(n) AS id, n.uid AS key, labels(n) AS labels, n.year AS year"
	if _, err := c.Pull(ctxT(t, time.Minute), bad); !errors.Is(err, syncjob.ErrInvalid) || !strings.Contains(err.Error(), "title") || !strings.Contains(err.Error(), "evidence properties: a column of each") {
		t.Errorf("missing evidence columns: %v", err)
	}
	for _, props := range [][]string{{"title", "bad\nname"}, {"title", "year", "title"}} {
		o := native
		o.EvidenceProperties = props
		if _, err := c.Pull(ctxT(t, time.Minute), o); !errors.Is(err, syncjob.ErrInvalid) || !strings.HasPrefix(err.Error(), "PullOptions.EvidenceProperties: ") {
			t.Errorf("%q: %v", props, err)
		}
	}
}
