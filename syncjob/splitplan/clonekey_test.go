package splitplan

import (
	"slices"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/syncjob/keys"
)

func twoNodes(idProp string, k1, k2 keys.Key) *Plan {
	groups := func(n int) []Group { return make([]Group, n) }
	return &Plan{RunID: "r1", IDProperty: idProp, Nodes: []Node{{Key: k1, Groups: groups(3)}, {Key: k2, Groups: groups(2)}}}
}

func TestAssignCloneKeys(t *testing.T) {
	taken := func(ks ...keys.Key) func(keys.Key) bool {
		return func(k keys.Key) bool { return slices.Contains(ks, k) }
	}
	// String keys follow the scheme; a taken key gets -2, -3, ...
	p := twoNodes("name", keys.String("alice"), keys.String("bob"))
	if err := p.AssignCloneKeys("", false, 0, taken(keys.String("alice#2"), keys.String("alice#2-2"))); err != nil {
		t.Fatal(err)
	}
	want := []keys.Key{keys.String("alice#1"), keys.String("alice#2-3"), keys.String("bob#1")}
	if got := p.CloneKeys(); !slices.Equal(got, want) || p.CloneKey != DefaultCloneKey || !p.Nodes[0].Groups[0].CloneKey.IsZero() {
		t.Fatalf("clone keys %v (%q), want %v", got, p.CloneKey, want)
	}
	p = twoNodes("name", keys.String("a"), keys.String("b"))
	if err := p.AssignCloneKeys("{run}:{key}/{group}", false, 0, nil); err != nil || !slices.Equal(p.CloneKeys(), []keys.Key{keys.String("r1:a/1"), keys.String("r1:a/2"), keys.String("r1:b/1")}) {
		t.Fatalf("scheme with the run: %v %v", p.CloneKeys(), err)
	}
	// Integer keys take the integers after the largest, skipping taken ones.
	p = twoNodes("uid", keys.Int(7), keys.Int(9))
	if err := p.AssignCloneKeys("", true, 9, taken(keys.Int(11))); err != nil || !slices.Equal(p.CloneKeys(), []keys.Key{keys.Int(10), keys.Int(12), keys.Int(13)}) {
		t.Fatalf("integer clone keys: %v %v", p.CloneKeys(), err)
	}
	// No key property, or none: no keys.
	for _, c := range []struct{ idProp, scheme string }{{"", ""}, {"uid", NoCloneKey}} {
		p = twoNodes(c.idProp, keys.Int(1), keys.Int(2))
		if err := p.AssignCloneKeys(c.scheme, true, 2, nil); err != nil || len(p.CloneKeys()) != 0 || p.CloneKey != "" {
			t.Fatalf("%+v: %v %v", c, p.CloneKeys(), err)
		}
	}
	// A scheme without {group} would give two clones one key.
	if err := p.AssignCloneKeys("{key}-copy", false, 0, nil); err == nil {
		t.Fatal("a scheme without {group} was accepted")
	}
	// The keys survive the plan's storage (a resumed run makes the same).
	p = twoNodes("uid", keys.Int(1), keys.Int(2))
	_ = p.AssignCloneKeys("", true, 2, nil)
	data, _ := p.Marshal()
	q, err := Unmarshal(data)
	if err != nil || !slices.Equal(q.CloneKeys(), p.CloneKeys()) {
		t.Fatalf("stored clone keys %v, want %v (%v)", q.CloneKeys(), p.CloneKeys(), err)
	}
}
