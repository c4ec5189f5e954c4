package dedup

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fondue-neo4j/fondue-neo4j/fondue/graph"
)

func TestParseName(t *testing.T) {
	for _, c := range []struct{ in, tokens, lower string }{
		{"José Abreu", "jose abreu", "joséabreu"},
		{"Øistein Andersen", "oistein andersen", "øisteinandersen"},
		{"J.-F. Bonastre", "j f bonastre", "jfbonastre"},
		{"Jan Hajič jr.", "jan hajic", "janhajičjr"},
		{"Thomas LUCAS", "thomas lucas", "thomaslucas"},
		{"Dara O'Brien", "dara obrien", "daraobrien"},
		{"  Olcay   Taner Yıldız ", "olcay taner yildiz", "olcaytaneryıldız"},
		{"Li", "li", "li"},
		{"", "", ""},
	} {
		nm := parseName(c.in)
		if got := strings.Join(nm.tokens, " "); got != c.tokens {
			t.Errorf("parseName(%q) tokens %q, want %q", c.in, got, c.tokens)
		}
		if nm.compact != strings.ReplaceAll(c.tokens, " ", "") {
			t.Errorf("parseName(%q) compact %q", c.in, nm.compact)
		}
		if nm.lower != c.lower {
			t.Errorf("parseName(%q) lower %q, want %q", c.in, nm.lower, c.lower)
		}
	}
}

func TestAlign(t *testing.T) {
	for _, c := range []struct {
		a, b                      string
		exact, nick, init, fa, fb int
		inOrder, conflict, lastEq bool
	}{
		{"Jeff A. Bilmes", "Jeffrey Bilmes", 1, 1, 0, 0, 0, true, false, true},
		{"Tom Dietterich", "Thomas G. Dietterich", 1, 1, 0, 0, 0, true, false, true},
		{"Paco Guzmán", "Francisco Guzmán", 1, 1, 0, 0, 0, true, false, true},
		{"J. Smith", "John Smith", 1, 0, 1, 0, 0, true, false, true},
		{"Céline Vaschalde", "Vaschalde Céline", 2, 0, 0, 0, 0, false, false, false},
		{"Anna Berg", "Maria Berg", 1, 0, 0, 1, 1, true, true, true},
		{"Aminul Islam", "Md. Aminul Islam", 2, 0, 0, 0, 1, true, false, true},
	} {
		al := align(parseName(c.a).tokens, parseName(c.b).tokens)
		if al.exact != c.exact || al.nick != c.nick || al.initial != c.init || al.freeA != c.fa || al.freeB != c.fb ||
			al.inOrder != c.inOrder || al.firstConflict != c.conflict || al.lastEqual != c.lastEq {
			t.Errorf("align(%q, %q) = %+v", c.a, c.b, al)
		}
	}
}

func TestJaroWinkler(t *testing.T) {
	// the textbook values (Winkler 1990)
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"martha", "marhta", 0.9611}, {"dwayne", "duane", 0.84}, {"dixon", "dicksonx", 0.8133},
		{"abc", "abc", 1}, {"abc", "xyz", 0},
	} {
		if got := jaroWinkler(c.a, c.b); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("jaroWinkler(%q, %q) = %.4f, want %.4f", c.a, c.b, got, c.want)
		}
	}
}

// candidatesOf runs the blocking alone on names without links.
func candidatesOf(t *testing.T, names []string, o Options) map[[2]string]bool {
	t.Helper()
	g, err := graph.NewGraph(len(names), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(Input{Graph: g, Names: names}, o.withDefaults())
	if err := e.prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	cs, err := e.candidates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]string]bool{}
	for _, c := range cs {
		a, b := unpair(c)
		got[[2]string{names[a], names[b]}] = true
	}
	return got
}

func TestBlocking(t *testing.T) {
	names := []string{"Céline Vaschalde", "Vaschalde Céline", "Paco Guzmán", "Francisco Guzman",
		"Jeff A. Bilmes", "J. Bilmes", "Jun-Wei Wang", "Junwei Wang", "Anna Berg", "Otto Lind"}
	got := candidatesOf(t, names, Options{})
	for _, want := range [][2]string{
		{"Céline Vaschalde", "Vaschalde Céline"}, // order swapped
		{"Paco Guzmán", "Francisco Guzman"},      // surname alone
		{"Jeff A. Bilmes", "J. Bilmes"},          // surname + initial
		{"Jun-Wei Wang", "Junwei Wang"},          // same letters
	} {
		if !got[want] {
			t.Errorf("no candidate %q", want)
		}
	}
	if got[[2]string{"Anna Berg", "Otto Lind"}] {
		t.Error("unrelated names are a candidate pair")
	}
}

func TestBlockingCap(t *testing.T) {
	// 10 "X Li" with distinct initials: the surname block of 10 is over a
	// cap of 4, the surname+initial blocks are of one: no pairs.
	var names []string
	for c := 'a'; c < 'k'; c++ {
		names = append(names, string(c)+"x Li")
	}
	if got := candidatesOf(t, names, Options{MaxBlock: 4}); len(got) != 0 {
		t.Errorf("cap 4: %d candidates, want 0", len(got))
	}
	if got := candidatesOf(t, names, Options{MaxBlock: 10}); len(got) != 45 {
		t.Errorf("cap 10: %d candidates, want 45", len(got))
	}
}

func TestVaryKeepsSurname(t *testing.T) {
	nm := parseName("Jeffrey Adam Bilmes")
	for s := uint64(0); s < 50; s++ {
		r := rngFor(s)
		v := vary(nm, &r)
		if len(v.tokens) == 0 || v.tokens[len(v.tokens)-1] != "bilmes" || v.compact != strings.Join(v.tokens, "") {
			t.Fatalf("vary: %+v", v)
		}
		if !slices.Contains([]string{"jeffrey", "j", "jeff"}, v.tokens[0]) {
			t.Fatalf("vary first token %q", v.tokens[0])
		}
	}
}
