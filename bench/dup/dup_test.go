package dup

import (
	"math"
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Thomas LUCAS":           "thomaslucas",
		"Thomas Lucas":           "thomaslucas",
		"Paco Guzmán":            "pacoguzman",
		"Jean-Luc  Gauvain":      "jeanlucgauvain",
		"Søren Ł. Æsir":          "sorenlaesir",
		"Abdelmajid Ben hamadou": "abdelmajidbenhamadou",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := BlockKey("Jeff A. Bilmes"), "bilmes j"; got != want {
		t.Errorf("BlockKey = %q, want %q", got, want)
	}
	if got := BlockKey("..."); got != "" {
		t.Errorf("BlockKey of no letter = %q", got)
	}
}

// The textbook values of Jaro-Winkler (Winkler 1990's examples).
func TestJaroWinkler(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"MARTHA", "MARHTA", 0.961}, {"DWAYNE", "DUANE", 0.840}, {"DIXON", "DICKSONX", 0.813},
		{"abc", "abc", 1}, {"abc", "xyz", 0}, {"", "", 1}, {"a", "", 0},
	} {
		if got := JaroWinkler(c.a, c.b); !near(got, c.want) {
			t.Errorf("JaroWinkler(%q, %q) = %.4f, want %.3f", c.a, c.b, got, c.want)
		}
	}
}

// Four authors (0..3) and three papers (4..6): 0 and 1 ("J. Smith",
// "John Smith") share co-author 3 through different papers; 2 ("J.
// SMITH.") folds like 0.
func TestBaselines(t *testing.T) {
	g, err := graph.NewGraph(7, [][2]int{{0, 4}, {3, 4}, {1, 5}, {3, 5}, {2, 6}})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"J. Smith", "John Smith", "J. SMITH.", "Ann Lee", "", "", ""}
	b := Baselines(g, names, []int{0, 1, 2, 3})
	if want := []Pair{{0, 2, 1}}; !slices.Equal(b[BaselineFold], want) {
		t.Errorf("fold = %v, want %v", b[BaselineFold], want)
	}
	// Block "smith j": pairs (0,1), (0,2), (1,2); "lee a" has one node.
	if len(b[BaselineJW]) != 3 || len(b[BaselineMean]) != 3 {
		t.Fatalf("blocked pairs: %v", b[BaselineJW])
	}
	jw01 := JaroWinkler("j smith", "john smith")
	if p := b[BaselineJW][0]; p.A != 0 || p.B != 1 || !near(p.Score, jw01) || b[BaselineJW][1].Score != 1 {
		t.Errorf("jaro-winkler = %v, want (0,1) %.3f then (0,2) 1", b[BaselineJW], jw01)
	}
	// Co-authors: 0 {3}, 1 {3}, 2 {}: only (0,1) has a Jaccard above 0.
	if want := []Pair{{0, 1, 1}}; !slices.Equal(b[BaselineJaccard], want) {
		t.Errorf("jaccard = %v, want %v", b[BaselineJaccard], want)
	}
	if p := b[BaselineMean][0]; !near(p.Score, (jw01+1)/2) || b[BaselineMean][2].Score != JaroWinkler("john smith", "j smith")/2 {
		t.Errorf("mean = %v", b[BaselineMean])
	}
}

// A hand-made truth: persons 0 (nodes 0, 1, 2: dev) and 1 (nodes 3, 4:
// test), singles 5 and 6, node 7 left out. Truth pairs: dev (0,1)
// surface, (0,2), (1,2) variant; test (3,4) variant.
func testACL() *ACL {
	return &ACL{
		Class:  []string{HalfDev, HalfDev, HalfDev, HalfTest, HalfTest, classSingle, classSingle, classExclude},
		Person: []int{0, 0, 0, 1, 1, -1, -1, -1},
		Kind:   map[[2]int]string{{0, 1}: "surface", {0, 2}: "variant", {1, 2}: "variant", {3, 4}: "variant"},
		Truth: map[string]map[string]int{
			HalfDev:  {"": 3, "surface": 1, "variant": 2},
			HalfTest: {"": 1, "variant": 1},
		},
	}
}

func TestInHalf(t *testing.T) {
	d := testACL()
	for _, c := range []struct {
		a, b        int
		h           string
		in, isTruth bool
	}{
		{0, 1, HalfDev, true, true}, {0, 1, HalfTest, false, false},
		{0, 5, HalfDev, true, false}, {0, 5, HalfTest, false, false}, // a single's pair: the other node's half
		{5, 6, HalfDev, true, false}, {5, 6, HalfTest, true, false}, // two singles: both halves
		{0, 3, HalfDev, false, false}, {0, 3, HalfTest, false, false}, // dev with test: neither
		{0, 7, HalfDev, false, false}, {5, 7, HalfTest, false, false}, // left out
	} {
		if in, truth := d.InHalf(c.a, c.b, c.h); in != c.in || truth != c.isTruth {
			t.Errorf("InHalf(%d, %d, %s) = %v, %v; want %v, %v", c.a, c.b, c.h, in, truth, c.in, c.isTruth)
		}
	}
}

// Dev ranking: (0,1) .9 surface, (0,5) .8, (0,2) .7 variant, (5,6) .6,
// (0,3) .95 and (0,7) 1 not in dev.
//
//	AP = (1/1 + 2/3) / 3
//	variant AP: without (0,1): (0,5) .8, (0,2) .7 hit at 2: (1/2) / 2
//	R@P.9: only the first cut, 1 of 3
//	cluster F1: .9 {0,1} P 1 R 1/3 F1 .5; .8 {0,1,5} 3 pairs, 1 right,
//	F1 1/3; .7 {0,1,2,5} 6 pairs, 3 right, P .5 R 1 F1 2/3; .6 adds 6:
//	10 pairs, 3 right, F1 .6/1.3. Best 2/3 at .7.
func TestEvaluate(t *testing.T) {
	d := testACL()
	pairs := []Pair{{0, 1, .9}, {0, 5, .8}, {2, 0, .7}, {5, 6, .6}, {0, 3, .95}, {0, 7, 1}}
	r := d.Evaluate(pairs, HalfDev)
	if r.Ranked != 4 || r.Reached != 2 || r.Truth != 3 || r.Variants != 2 {
		t.Errorf("counts = %+v", r)
	}
	if !near(r.P100, 2.0/4) || !near(r.AP, (1+2.0/3)/3) || !near(r.VariantAP, 0.25) || !near(r.RAtP90, 1.0/3) {
		t.Errorf("P@100 %v AP %v variant AP %v R@P.9 %v", r.P100, r.AP, r.VariantAP, r.RAtP90)
	}
	if !near(r.Cluster.F1, 2.0/3) || r.Cluster.Threshold != .7 || r.Cluster.Pairs != 6 {
		t.Errorf("cluster = %+v, want F1 2/3 at .7", r.Cluster)
	}
	// Test: only (5,6) and no truth pair retrieved.
	r = d.Evaluate(pairs, HalfTest)
	if r.Ranked != 1 || r.AP != 0 || r.Cluster.F1 != 0 {
		t.Errorf("test half = %+v", r)
	}
}
