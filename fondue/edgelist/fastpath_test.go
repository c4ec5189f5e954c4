package edgelist

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// readBoth reads text with the integer-line fast path on and off.
func readBoth(text string) (got, want string) {
	describe := func(fast bool) string {
		g, st, err := read(strings.NewReader(text), "x.edges", HeaderAuto, !fast)
		if err != nil {
			return fmt.Sprintf("stats %+v error %v", st, err)
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "stats %+v loops %d dups %d intkeys %v\n", st, g.SelfLoops(), g.Duplicates(), g.IntKeys())
		for i := 0; i < g.NumNodes(); i++ {
			fmt.Fprintf(&sb, "%q %v\n", g.Key(i), g.Neighbors(i))
		}
		return sb.String()
	}
	return describe(true), describe(false)
}

// TestFastIntLinesMatchGeneralPath checks that the fast path for lines of
// two integers changes nothing: the same graph, stats and first error, on
// random files mixing such lines with every other kind of line (headers,
// comments, weights, padded or non-canonical ids, string ids, bad lines).
func TestFastIntLinesMatchGeneralPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1001, 4))
	id := func() string { return fmt.Sprint(rng.IntN(60) - 5) }
	kinds := []func() string{
		func() string { return id() + " " + id() },
		func() string { return id() + "\t" + id() },
		func() string { return id() + ", ," + id() },
		func() string { return id() + "  " + id() + "\r" },
		func() string { return id() + " " + id() + " " },
		func() string { return " " + id() + " " + id() },
		func() string { return id() + " " + id() + " 0.5" },
		func() string { return id() + " " + id() + " w" },
		func() string { return "0" + id() + " " + id() },
		func() string { return "-0 " + id() },
		func() string { return id() + " 9223372036854775808" },
		func() string { return id() + " -9223372036854775808" },
		func() string { return "a" + id() + " " + id() },
		func() string { return "# " + id() },
		func() string { return "" },
		func() string { return id() },
		func() string { return id() + " " + id() + " 1 2" },
		func() string { return "\"" + id() + "\" " + id() },
		func() string { return id() + "-" + id() + " " + id() },
		func() string { return id() + " \x01" },
		func() string { return "source target" },
	}
	for trial := 0; trial < 3000; trial++ {
		var lines []string
		n := 1 + rng.IntN(40)
		common := rng.IntN(6) // how often the other kinds appear: 0 = never
		for range n {
			k := 0
			if common > 0 && rng.IntN(common+2) == 0 {
				k = rng.IntN(len(kinds))
			} else if rng.IntN(3) == 0 {
				k = rng.IntN(4)
			}
			lines = append(lines, kinds[k]())
		}
		text := strings.Join(lines, "\n")
		if rng.IntN(2) == 0 {
			text += "\n"
		}
		got, want := readBoth(text)
		if got != want {
			t.Fatalf("trial %d: file\n%s\nfast path:\n%s\ngeneral path:\n%s", trial, text, got, want)
		}
	}
}

// TestFastIntLinesEdgeCases checks the lines the fast path must leave to
// the general one.
func TestFastIntLinesEdgeCases(t *testing.T) {
	for _, line := range []string{"1 2", "1\t2", "1,2", "1,,2", "-1 -2", "1 2 ", " 1 2", "1 2\r", "01 2", "1 02", "-0 1", "1 -", "- 1",
		"1 2 3", "1", "", "1 2-", "1-2 3", "9223372036854775807 1", "9223372036854775808 1", "1\v2"} {
		u, v, ok := intPairLine([]byte(line))
		f := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' })
		var wu, wv int64
		wok := len(f) == 2 && !strings.ContainsAny(line[:1], " \t,") && !strings.ContainsAny(line[len(line)-1:], " \t,\r")
		if wok {
			var ok1, ok2 bool
			wu, ok1 = parseIntKeyRef(f[0])
			wv, ok2 = parseIntKeyRef(f[1])
			wok = ok1 && ok2
		}
		if !wok {
			wu, wv = 0, 0
		}
		if u != wu || v != wv || ok != wok {
			t.Errorf("intPairLine(%q) = %d, %d, %v; want %d, %d, %v", line, u, v, ok, wu, wv, wok)
		}
	}
}
