package edgelist

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// parseIntKeyRef is the definition parseIntBytes implements.
func parseIntKeyRef(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strconv.FormatInt(v, 10) != s {
		return 0, false
	}
	return v, true
}

func TestParseIntBytesMatchesStrconv(t *testing.T) {
	cases := []string{"", "-", "+", "0", "-0", "00", "01", "-01", "+1", "1", "-1", "7", "10", "1a", "a1", " 1", "1 ",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"9999999999999999999", "18446744073709551615", "18446744073709551616", "99999999999999999999", "-99999999999999999999",
		"1e3", "1.0", "0x10", "１"}
	rng := rand.New(rand.NewPCG(1001, 1))
	const alphabet = "0123456789-+0a9"
	for range 200000 {
		b := make([]byte, rng.IntN(22))
		for k := range b {
			b[k] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b), strconv.FormatInt(int64(rng.Uint64()), 10))
	}
	for _, s := range cases {
		v, ok := parseIntBytes([]byte(s))
		wv, wok := parseIntKeyRef(s)
		if v != wv || ok != wok {
			t.Fatalf("parseIntBytes(%q) = %d, %v; want %d, %v", s, v, ok, wv, wok)
		}
	}
}

func FuzzParseIntBytes(f *testing.F) {
	f.Add("-9223372036854775808")
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parseIntBytes([]byte(s))
		wv, wok := parseIntKeyRef(s)
		if v != wv || ok != wok {
			t.Fatalf("parseIntBytes(%q) = %d, %v; want %d, %v", s, v, ok, wv, wok)
		}
	})
}
