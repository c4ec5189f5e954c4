package cypherlint

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	shared     *Linter
	sharedErr  error
	sharedOnce sync.Once
)

// linter installs (once per machine) and returns the linter; it fails the
// test, never skips, if that is impossible.
func linter(t *testing.T) *Linter {
	t.Helper()
	sharedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		shared, sharedErr = New(ctx, Options{Logf: t.Logf})
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

func lint(t *testing.T, queries map[string]string) map[string][]Diagnostic {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := linter(t).Lint(ctx, queries)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Queries of the kind the Cypher 5 dialect of the connector produces.
var validCypher5 = map[string]string{
	"set by elementId":  "MATCH (n:`Person`) WHERE elementId(n) = $id SET n.`ambiguity` = $v",
	"constraint":        "CREATE CONSTRAINT x IF NOT EXISTS FOR (n:L) REQUIRE n.k IS UNIQUE",
	"unwind batch":      "UNWIND $rows AS row MATCH (n:Entity {uid: row.uid}) SET n.ambiguity = row.score, n.fondueRun = $run",
	"pull subgraph":     "MATCH (s:Entity)-[r]->(t:Entity) WHERE s.uid > $after RETURN s.uid AS uid, elementId(s) AS sid, type(r) AS type, elementId(t) AS tid, properties(r) AS props ORDER BY uid LIMIT $k",
	"emoji in literal":  "MATCH (n:`Tag 🎉`) WHERE n.name = '✓🎉' RETURN n",
	"merge marker":      "MATCH (n:Entity {uid: $uid})\nMERGE (m:FondueSplit {splitKey: $splitKey})\nON CREATE SET m += $props, m.uid = $newUid, m.splitAt = datetime()\nSET m:$(labels(n))",
	"dynamic rel type":  "MATCH (n:Entity {uid: $uid}), (m:FondueSplit {splitKey: $splitKey}) UNWIND $out AS mv MATCH (n)-[r]->(o) WHERE elementId(r) = mv.rid AND type(r) = mv.type CREATE (m)-[r2:$(type(r))]->(o) SET r2 = properties(r) DELETE r",
	"scoped subquery":   "MATCH (n:Entity) CALL (n) { SET n.seen = true } IN TRANSACTIONS OF 1000 ROWS",
	"escaped names":     "MATCH (n:`Weird ``Label`)-[:`REL TYPE`]->(m) RETURN n.`odd key` AS k",
	"components":        "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition",
	"two statements":    "RETURN 1 AS a;\nRETURN $x AS b",
	"parameter in list": "MATCH (n) WHERE n.uid IN $uids RETURN count(n) AS c",
}

func TestValidCypher5Passes(t *testing.T) {
	res := lint(t, validCypher5)
	for name, q := range validCypher5 {
		ds, ok := res[name]
		if !ok {
			t.Errorf("%s: no result", name)
			continue
		}
		for _, d := range ds {
			if d.IsError() {
				t.Errorf("%s: %v\n  in %s", name, d, q)
			} else {
				t.Logf("%s: %v", name, d)
			}
		}
	}
	// A disconnected MATCH is valid, with a performance warning.
	ds := res["dynamic rel type"]
	if len(ds) != 1 || ds[0].Kind != KindWarning || ds[0].Severity != Warning || !strings.Contains(ds[0].Message, "cartesian product") {
		t.Errorf("dynamic rel type: %v, want one cartesian product warning", ds)
	}
}

func TestSemanticErrorInValidSyntax(t *testing.T) {
	// ORDER BY sees the projected s (a string), not the node.
	q := "MATCH (s:Entity) RETURN elementId(s) AS s ORDER BY s.uid"
	ds := lint(t, map[string]string{"q": q})["q"]
	if len(ds) != 1 || ds[0].Kind != KindSemantic || !ds[0].IsError() || !strings.Contains(ds[0].Message, "Type mismatch") {
		t.Fatalf("got %v, want one semantic type mismatch error", ds)
	}
}

func TestSyntaxErrorWithPosition(t *testing.T) {
	res := lint(t, map[string]string{"broken": "MATCH (n RETURN n"})
	ds := res["broken"]
	if len(ds) != 1 {
		t.Fatalf("diagnostics %v, want one", ds)
	}
	d := ds[0]
	if !d.IsError() || d.Kind != KindSyntax || d.Severity != Error {
		t.Errorf("got %v, want a syntax error", d)
	}
	if d.Line != 1 || d.Column != 10 || d.Offset != 9 || d.EndOffset != 15 {
		t.Errorf("position: line %d column %d offsets [%d,%d), want line 1 column 10 offsets [9,15) (at RETURN)", d.Line, d.Column, d.Offset, d.EndOffset)
	}
	if !strings.Contains(d.Message, "Invalid input 'RETURN'") {
		t.Errorf("message %q", d.Message)
	}
	if got := Errors(res); len(got["broken"]) != 1 {
		t.Errorf("Errors() = %v", got)
	}
}

func TestErrorsAndWarningsAreDistinguished(t *testing.T) {
	queries := map[string]string{
		"undefined variable": "MATCH (n) RETURN m",
		"deprecated id()":    "MATCH (n) WHERE id(n) = $id RETURN n",
		"unscoped subquery":  "CALL { MATCH (n) RETURN n } RETURN n",
		"3.1 constraint":     "CREATE CONSTRAINT ON (n:L) ASSERT n.k IS UNIQUE",
		"clean":              "RETURN 1 AS x",
	}
	res := lint(t, queries)
	want := map[string]struct {
		kind string
		sev  Severity
	}{
		"undefined variable": {KindSemantic, Error},
		"deprecated id()":    {KindDeprecation, Warning},
		"unscoped subquery":  {KindDeprecation, Warning},
		"3.1 constraint":     {KindSyntax, Error},
	}
	for name, w := range want {
		ds := res[name]
		if len(ds) != 1 || ds[0].Kind != w.kind || ds[0].Severity != w.sev {
			t.Errorf("%s: %v, want one %s %s", name, ds, w.sev, w.kind)
		}
	}
	if len(res["clean"]) != 0 {
		t.Errorf("clean: %v", res["clean"])
	}
	errs := Errors(res)
	if len(errs) != 2 || errs["undefined variable"] == nil || errs["3.1 constraint"] == nil {
		t.Errorf("Errors() = %v, want the undefined variable and the 3.1 constraint only", errs)
	}
}

func TestPositionsAcrossLinesAndUnicode(t *testing.T) {
	q := "RETURN '🎉é' AS x,\n  ("
	res := lint(t, map[string]string{"q": q})
	ds := res["q"]
	if len(ds) != 1 {
		t.Fatalf("diagnostics %v, want one", ds)
	}
	d := ds[0]
	// The parser reports the end of input, right after "(".
	if d.Line != 2 || d.Column != 4 || d.Offset != len(q) {
		t.Errorf("got line %d column %d offset %d, want line 2 column 4 offset %d", d.Line, d.Column, d.Offset, len(q))
	}
	// Emoji (outside the BMP) used to make the analysis report nothing.
	q2 := "RETURN '🎉' AS a, m"
	d2 := lint(t, map[string]string{"q": q2})["q"]
	if len(d2) != 1 || q2[d2[0].Offset:d2[0].EndOffset] != "m" || d2[0].Column != 18 {
		t.Fatalf("offsets after a 4-byte character: %v", d2)
	}
}

func TestManyQueriesInOneProcess(t *testing.T) {
	queries := map[string]string{}
	for i := 0; i < 100; i++ {
		queries[fmt.Sprintf("ok%03d", i)] = fmt.Sprintf("UNWIND $rows AS row MATCH (n:`L%d` {uid: row.uid}) SET n.`p%d` = row.v", i, i)
	}
	queries["bad"] = "MATCH (n) RETURN n ORDER"
	start := time.Now()
	res := lint(t, queries)
	t.Logf("linted %d queries in %s", len(queries), time.Since(start).Round(time.Millisecond))
	if len(res) != len(queries) {
		t.Fatalf("%d results for %d queries", len(res), len(queries))
	}
	errs := Errors(res)
	if len(errs) != 1 || errs["bad"] == nil {
		t.Fatalf("Errors() = %v, want only \"bad\"", errs)
	}
	if empty := lint(t, nil); len(empty) != 0 {
		t.Fatalf("no queries gave %v", empty)
	}
}

func TestPositionHelpers(t *testing.T) {
	s := "a🎉b\ncé"
	// UTF-16 units: a=0, 🎉=1..2, b=3, \n=4, c=5, é=6
	for units, want := range map[int]int{0: 0, 1: 1, 3: 5, 4: 6, 5: 7, 6: 8, 7: len(s), 100: len(s)} {
		if got := utf16ToByte(s, units); got != want {
			t.Errorf("utf16ToByte(%d) = %d, want %d", units, got, want)
		}
	}
	if l, c := position(s, 8); l != 2 || c != 2 {
		t.Errorf("position of é = %d:%d, want 2:2", l, c)
	}
	if l, c := position(s, 5); l != 1 || c != 3 {
		t.Errorf("position of b = %d:%d, want 1:3", l, c)
	}
}
