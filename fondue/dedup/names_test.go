package dedup

import (
	"context"
	"math"
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

func TestVary(t *testing.T) {
	nm := parseName("Jeffrey Adam Bilmes")
	seen := map[string]bool{}
	for s := uint64(0); s < 200; s++ {
		r := rngFor(s)
		v := vary(nm, &r)
		if v.compact != strings.Join(v.tokens, "") {
			t.Fatalf("vary: %+v", v)
		}
		seen[strings.Join(v.tokens, " ")] = true
	}
	// every way of varying this name, and nothing else (the added middle
	// initial is any letter)
	for _, want := range []string{"jeffrey adam bilmes", "j adam bilmes", "jeffrey bilmes",
		"j a bilmes", "jeffrey adam", "jeff adam bilmes"} {
		if !seen[want] {
			t.Errorf("vary never gave %q", want)
		}
		delete(seen, want)
	}
	for v := range seen {
		tk := strings.Fields(v)
		if len(tk) != 4 || tk[0] != "jeffrey" || tk[1] != "adam" || len(tk[2]) != 1 || tk[3] != "bilmes" {
			t.Errorf("vary gave %q", v)
		}
	}
}

func TestNameText(t *testing.T) {
	names := []string{"Thomas LUCAS", "Thomas Lucas", "Paco Guzmán", "Paco Guzman", "J.-F. Bonastre", "J-F. Bonastre",
		"Jeff A. Bilmes", "Jeffrey Bilmes", "J. Smith", "John Smith", "Céline Vaschalde", "Vaschalde Céline"}
	g, err := graph.NewGraph(len(names), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(Input{Graph: g, Names: names}, Options{}.withDefaults())
	if err := e.prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"same name up to case", "same name after folding accents",
		"same name up to case, punctuation or spacing", "short form or nickname", "initials agree",
		"same names in another order"} {
		a, b := 2*i, 2*i+1
		if got := e.nameText(a, b, &e.names[a], &e.names[b]); !strings.HasPrefix(got, want) {
			t.Errorf("%q / %q: %q, want it to start with %q", names[a], names[b], got, want)
		}
	}
}
