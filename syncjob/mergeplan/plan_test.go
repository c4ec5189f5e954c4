package mergeplan

import (
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

func pair(keep, merge int64, score float64, d string) Pair {
	return Pair{Keep: keys.Int(keep), Merge: keys.Int(merge), Score: score, Decision: d}
}

// A plan reads back as written; bad plans are refused with the pair named.
func TestParse(t *testing.T) {
	p := New("m1", "2026-01-01T00:00:00.000Z")
	p.IDProperty = "uid"
	p.Pairs = []Pair{pair(1, 2, .9, DecisionAccept), {Keep: keys.String("a"), Merge: keys.String("b"), Decision: DecisionUndecided}}
	data, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !IsMerge(data) || IsMerge([]byte(`{"runId":"x","nodes":[]}`)) {
		t.Fatal("IsMerge")
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pairs[0].Keep != keys.Int(1) || got.Pairs[1].Merge != keys.String("b") || got.RunID != "m1" {
		t.Fatalf("read back %+v", got)
	}
	for _, c := range []struct {
		pairs []Pair
		want  string
	}{
		{[]Pair{pair(1, 1, 0, DecisionAccept)}, "pair 1: node 1 is merged into itself"},
		{[]Pair{pair(1, 2, 0, "yes")}, `pair 1 (1, 2): decision "yes"`},
		{[]Pair{pair(1, 2, 0, DecisionAccept), pair(2, 1, 0, DecisionReject)}, "pair 2, 1 appears twice"},
	} {
		p.Pairs = c.pairs
		data, _ := p.Marshal()
		if _, err := Parse(data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.pairs, err, c.want)
		}
	}
}

// Chains make one group; the survivor is the keep that is never merged;
// undecided and rejected pairs are left out.
func TestGroups(t *testing.T) {
	p := New("m", "")
	p.Pairs = []Pair{
		pair(2, 3, .5, DecisionAccept), // chain 1~2, 2~3: survivor 1
		pair(1, 2, .9, DecisionAccept),
		pair(7, 8, .8, DecisionReject),
		pair(5, 6, .7, DecisionAccept),
		pair(4, 6, .6, DecisionAccept), // 5~6, 4~6: survivor 5 (best pair's keep, never merged)
		pair(9, 10, .1, DecisionUndecided),
	}
	gs := p.Groups()
	if len(gs) != 2 {
		t.Fatalf("%d groups: %+v", len(gs), gs)
	}
	text := func(g Group) string {
		s := g.Keep.Key.Text() + "<"
		for _, n := range g.Merge {
			s += n.Key.Text() + ","
		}
		return s
	}
	if text(gs[0]) != "1<2,3," || text(gs[1]) != "5<6,4," {
		t.Fatalf("groups %s, %s; want 1<2,3, and 5<6,4,", text(gs[0]), text(gs[1]))
	}
	ds := p.Decisions()
	if len(ds) != 1 || ds[0].Kind != DecisionNotMerged || ds[0].Fingerprint != PairFingerprint(keys.Int(8), keys.Int(7)) {
		t.Fatalf("decisions %+v", ds)
	}
	if err := p.Decide(map[[2]string]string{{"10", "9"}: DecisionAccept}, "now"); err != nil || p.Pairs[5].Decision != DecisionAccept {
		t.Fatalf("decide: %v", err)
	}
	if err := p.Decide(map[[2]string]string{{"1", "9"}: DecisionAccept}, "now"); err == nil || !strings.Contains(err.Error(), "pair 1,9 is not in the merge plan") {
		t.Fatalf("decide a pair not in the plan: %v", err)
	}
}
