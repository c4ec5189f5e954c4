package cypher

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Names that would break a statement if they were not escaped.
var weird = []string{
	"We`ird})",
	"x`}) DETACH DELETE n //",
	"Per son",
	"ünïcødé 🎉",
	`a\b'"$x`,
	"``",
}

// full sets every identifier, with awkward names.
func full() Vars {
	return Vars{
		NodeLabels:         []string{"Person", weird[0]},
		ExcludeLabels:      []string{"FondueLock", "FondueRun"},
		RelationshipTypes:  []string{"KNOWS", weird[1]},
		ExcludeTypes:       []string{"FONDUE_DUPLICATE", weird[2]},
		IDProperty:         weird[2],
		WriteProperty:      "ambiguity",
		ScoreProperty:      weird[3],
		EntitiesProperty:   weird[1],
		RunProperty:        "fondue_run",
		EmbeddingProperty:  weird[4],
		DisplayProperties:  []string{weird[3], "title"},
		EvidenceProperties: []string{"year", weird[3]},
		Label:              weird[0],
		Property:           weird[4],
		ConstraintName:     weird[5],
		Labels:             []string{"Person", weird[0], "FondueSplit"},
		SkipProperties:     []string{"uid", weird[1]},
		Type:               weird[1],
		Properties:         []string{"ambiguity", weird[3]},
	}
}

// examples returns, per statement, the variants the connector renders.
func examples() map[string][]Vars {
	ex := map[string][]Vars{}
	for _, n := range Names() {
		ex[n] = []Vars{full()}
	}
	for _, n := range []string{"pull_nodes", "pull_relationships"} {
		for _, labels := range [][]string{nil, {"Person"}, {"Person", weird[0], "Other"}} {
			for _, key := range []string{"", "uid"} {
				for _, types := range [][]string{nil, {"KNOWS"}} {
					for _, emb := range []string{"", "fondue_embedding"} {
						v := full()
						v.NodeLabels, v.IDProperty, v.RelationshipTypes, v.EmbeddingProperty = labels, key, types, emb
						v.DisplayProperties = nil
						if emb != "" {
							v.DisplayProperties = []string{"name"}
						}
						ex[n] = append(ex[n], v)
					}
				}
			}
		}
	}
	for _, key := range []string{"", "uid"} {
		for _, labels := range [][]string{nil, {"Person"}} {
			for _, props := range [][]string{{"ambiguity"}, {"ambiguity", "s", "r", "fondue_embedding"}} {
				v := full()
				v.IDProperty, v.NodeLabels, v.Properties = key, labels, props
				ex["write_batch"] = append(ex["write_batch"], v)
			}
		}
	}
	for _, labels := range [][]string{nil, {"Person"}, {"Person", weird[0]}} {
		for _, key := range []string{"", "uid"} {
			v := full()
			v.NodeLabels, v.IDProperty = labels, key
			ex["nodes_find"] = append(ex["nodes_find"], v)
		}
	}
	v := full()
	v.SkipProperties, v.Labels = nil, nil
	ex["nodes_create"] = append(ex["nodes_create"], v)
	return ex
}

func renderAll(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, vs := range examples() {
		for k, v := range vs {
			q, err := Render(name, v)
			if err != nil {
				t.Fatalf("%s #%d: %v", name, k, err)
			}
			out[fmt.Sprintf("%s#%d", name, k)] = q
		}
	}
	return out
}

func TestEveryStatementRenders(t *testing.T) {
	names := Names()
	if len(names) < 15 {
		t.Fatalf("only %d statements: %v", len(names), names)
	}
	for key, q := range renderAll(t) {
		if strings.Contains(q, "{{") || strings.Contains(q, "<no value>") || strings.HasPrefix(q, "//") {
			t.Errorf("%s: unrendered template or comment:\n%s", key, q)
		}
		// Element ids only: id() is deprecated in Neo4j 5.
		if strings.Contains(strings.ReplaceAll(q, "elementId(", ""), "id(") {
			t.Errorf("%s uses id():\n%s", key, q)
		}
	}
}

func TestStatements(t *testing.T) {
	v := Vars{Label: "FondueSplit", Property: "fondue_split_key", ConstraintName: "fondue_split_key"}
	q, err := Render("constraint_unique", v)
	if w := "CREATE CONSTRAINT `fondue_split_key` IF NOT EXISTS FOR (n:`FondueSplit`) REQUIRE n.`fondue_split_key` IS UNIQUE"; err != nil || q != w {
		t.Errorf("constraint: %q, %v; want %q", q, err, w)
	}
	// The nodes come in records of $chunk nodes, each column a list.
	const chunked = "WITH collect(n) AS nodes\nUNWIND range(0, size(nodes) - 1, $chunk) AS i\nWITH nodes[i..i + $chunk] AS chunk\n"
	q, err = Render("pull_nodes", Vars{NodeLabels: []string{"We`ird})"}, IDProperty: "uid"})
	if err != nil || q != "MATCH (n:`We``ird})`)\n"+chunked+"RETURN [n IN chunk | elementId(n)] AS id, [n IN chunk | labels(n)] AS labels, [n IN chunk | n.`uid`] AS key" {
		t.Errorf("pull_nodes one label: %q %v", q, err)
	}
	q, err = Render("pull_nodes", Vars{ExcludeLabels: []string{"FondueLock"}})
	if err != nil || q != "MATCH (n)\nWHERE NOT n:`FondueLock`\n"+chunked+"RETURN [n IN chunk | elementId(n)] AS id, [n IN chunk | labels(n)] AS labels" {
		t.Errorf("pull_nodes all: %q %v", q, err)
	}
	// The display name is the first of the display properties a node has.
	q, err = Render("pull_nodes", Vars{NodeLabels: []string{"Person"}, DisplayProperties: []string{"name"}})
	if err != nil || q != "MATCH (n:`Person`)\n"+chunked+"RETURN [n IN chunk | elementId(n)] AS id, [n IN chunk | labels(n)] AS labels, [n IN chunk | n.`name`] AS display" {
		t.Errorf("pull_nodes one display property: %q %v", q, err)
	}
	q, err = Render("pull_nodes", Vars{NodeLabels: []string{"Person"}, DisplayProperties: []string{"name", "ti`tle"}})
	if err != nil || q != "MATCH (n:`Person`)\n"+chunked+"RETURN [n IN chunk | elementId(n)] AS id, [n IN chunk | labels(n)] AS labels, [n IN chunk | coalesce(n.`name`, n.`ti``tle`)] AS display" {
		t.Errorf("pull_nodes two display properties: %q %v", q, err)
	}
	// No types: any type but the excluded ones (fondue-neo4j's duplicates).
	q, err = Render("pull_outside", Vars{NodeLabels: []string{"Person"}, ExcludeTypes: []string{"FONDUE_DUP", "a`b"}, ExcludeLabels: []string{"FondueLock"}})
	if err != nil || !strings.HasPrefix(q, "MATCH (s)-[r:!`FONDUE_DUP`&!`a``b`]-(t)\n") {
		t.Errorf("pull_outside excluded types: %q %v", q, err)
	}
	q, err = Render("pull_outside", Vars{NodeLabels: []string{"Person"}, RelationshipTypes: []string{"KNOWS"}, ExcludeTypes: []string{"FONDUE_DUP"}, ExcludeLabels: []string{"FondueLock"}})
	if err != nil || !strings.HasPrefix(q, "MATCH (s)-[r:`KNOWS`]-(t)\n") {
		t.Errorf("pull_outside types: %q %v", q, err)
	}
	q, err = Render("rels_of", Vars{Properties: []string{"name", "ti`tle"}})
	if err != nil || !strings.HasSuffix(q, "labels(o) AS otherLabels, o{.`name`, .`ti``tle`} AS otherProps") {
		t.Errorf("rels_of two properties: %q %v", q, err)
	}
	// The evidence properties: a list of their values per node, escaped.
	q, err = Render("pull_nodes", Vars{NodeLabels: []string{"Paper"}, EvidenceProperties: []string{"year", "ti`tle"}})
	if err != nil || q != "MATCH (n:`Paper`)\n"+chunked+"RETURN [n IN chunk | elementId(n)] AS id, [n IN chunk | labels(n)] AS labels, [n IN chunk | [n.`year`, n.`ti``tle`]] AS evidence" {
		t.Errorf("pull_nodes evidence properties: %q %v", q, err)
	}
	if _, err := Render("pull_nodes", Vars{EvidenceProperties: []string{"year", "bad\nname"}}); err == nil || !strings.Contains(err.Error(), "control character") {
		t.Errorf("a bad evidence property: %v", err)
	}
	if _, err := Render("pull_nodes", Vars{DisplayProperties: []string{"name", "bad\nname"}}); err == nil || !strings.Contains(err.Error(), "control character") {
		t.Errorf("a bad display property: %v", err)
	}
	q, err = Render("pull_relationships", Vars{NodeLabels: []string{"A", "B"}, RelationshipTypes: []string{"T", "U"}})
	if err != nil || q != "MATCH (s)\nWHERE (s:`A` OR s:`B`) AND CASE WHEN $in IS NOT NULL THEN right(elementId(s), 1) IN $in\n    ELSE $notIn IS NULL OR NOT coalesce(right(elementId(s), 1) IN $notIn, false) END\n"+
		"WITH collect(s) AS sources\nUNWIND range(0, size(sources) - 1, $chunk) AS i\nWITH sources[i..i + $chunk] AS chunk\n"+
		"RETURN [s IN chunk | elementId(s)] AS source,\n  [s IN chunk | [(s)-[:`T`|`U`]->(t) WHERE (t:`A` OR t:`B`) | elementId(t)]] AS targets" {
		t.Errorf("pull_relationships: %q %v", q, err)
	}
}

func TestEscapeAndCheckName(t *testing.T) {
	for in, want := range map[string]string{
		"Person":   "`Person`",
		"We`ird})": "`We``ird})`",
		"``":       "``````",
		"a b":      "`a b`",
	} {
		got, err := Escape(in)
		if err != nil || got != want {
			t.Errorf("Escape(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a\x00b", "new\nline", string([]byte{0xff, 0xfe}), strings.Repeat("x", MaxNameBytes+1)} {
		if _, err := Escape(bad); err == nil {
			t.Errorf("Escape(%q) accepted", bad)
		}
	}
	_, err := Render("pull_nodes", Vars{NodeLabels: []string{"ok", "bad\x00"}})
	var ne *NameError
	if !errors.As(err, &ne) || ne.Name != "bad\x00" || !strings.Contains(err.Error(), "control character") {
		t.Errorf("bad label: %v", err)
	}
	if _, err := Render("write_batch", Vars{Properties: []string{""}}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("missing write property: %v", err)
	}
}

func TestCheckVersion(t *testing.T) {
	for _, v := range []string{"5.26.0", "5.26.19", "5.27.0-aura", "2025.01.0", "2026.01.4", "2026.3.1"} {
		if err := CheckVersion(v); err != nil {
			t.Errorf("CheckVersion(%q): %v", v, err)
		}
	}
	for _, v := range []string{"", "x", "3.1.1", "4.4.30", "5.25.1", "5.1.0", "1.0"} {
		if err := CheckVersion(v); err == nil {
			t.Errorf("CheckVersion(%q) accepted", v)
		}
	}
	if err := CheckVersion("4.4.30"); err == nil || !strings.Contains(err.Error(), "use Neo4j 5.26 or a calendar release") {
		t.Errorf("CheckVersion(4.4.30): %v", err)
	}
}

func TestNamesSorted(t *testing.T) {
	n := Names()
	if !slices.IsSorted(n) || !slices.Contains(n, "write_batch") || !slices.Contains(n, "constraint_unique") {
		t.Fatal(n)
	}
	if _, err := Render("nope", Vars{}); err == nil {
		t.Fatal("unknown statement rendered")
	}
}
