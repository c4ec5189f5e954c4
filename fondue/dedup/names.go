package dedup

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// name is a person-like name string folded for comparison: case, accents
// and punctuation removed, split into tokens, suffixes (Jr., III) dropped.
type name struct {
	tokens  []string // folded tokens in the order written
	compact string   // tokens joined without spaces: equal = same name up to case, accents, punctuation, spacing
	lower   string   // lower-cased, accents kept, punctuation removed: tells accents from case
}

// special letters that NFD does not decompose into a base letter.
var foldSpecial = map[rune]string{
	'ø': "o", 'Ø': "o", 'ł': "l", 'Ł': "l", 'ß': "ss", 'æ': "ae", 'Æ': "ae",
	'œ': "oe", 'Œ': "oe", 'đ': "d", 'Đ': "d", 'ı': "i", 'þ': "th", 'ð': "d",
}

var suffixes = map[string]bool{"jr": true, "sr": true, "ii": true, "iii": true, "iv": true}

// parseName folds s into a name.
func parseName(s string) name {
	var b, lo strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			lo.WriteRune(r)
		case foldSpecial[r] != "":
			b.WriteString(foldSpecial[r])
			lo.WriteRune(unicode.ToLower(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
			lo.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’':
			// O'Brien = OBrien: an apostrophe joins
		default:
			b.WriteByte(' ')
			lo.WriteByte(' ')
		}
	}
	toks := strings.Fields(b.String())
	if len(toks) > 2 && suffixes[toks[len(toks)-1]] {
		toks = toks[:len(toks)-1]
	}
	return name{
		tokens:  toks,
		compact: strings.Join(toks, ""),
		lower:   strings.Join(strings.Fields(norm.NFC.String(lo.String())), ""),
	}
}

// nicknames pairs a short form with a full first name (folded); both
// directions are used. Small and general, not fitted to a data set.
var nicknames = func() map[[2]string]bool {
	pairs := []string{
		"jeff jeffrey", "jeff geoffrey", "geoff geoffrey", "tom thomas", "bill william", "will william",
		"bob robert", "rob robert", "bert robert", "dick richard", "rick richard", "jim james", "jimmy james",
		"mike michael", "dave david", "dan daniel", "danny daniel", "chris christopher", "chris christian",
		"alex alexander", "alex alexandra", "sasha alexander", "andy andrew", "drew andrew", "tony anthony",
		"tony antonio", "joe joseph", "ed edward", "ted edward", "ted theodore", "steve stephen", "steve steven",
		"ben benjamin", "sam samuel", "nick nicholas", "nico nicolas", "matt matthew", "pat patrick",
		"pat patricia", "kate katherine", "kate catherine", "katie katherine", "kathy katherine",
		"liz elizabeth", "beth elizabeth", "betty elizabeth", "jenny jennifer", "jen jennifer", "sue susan",
		"peggy margaret", "meg margaret", "maggie margaret", "paco francisco", "pancho francisco",
		"pepe jose", "nacho ignacio", "fred frederick", "fred frederic", "greg gregory", "larry lawrence",
		"ken kenneth", "don donald", "ron ronald", "tim timothy", "phil philip", "phil phillip",
		"walt walter", "vicky victoria", "pete peter", "charlie charles", "chuck charles", "hank henry",
		"harry henry", "jack john", "johnny john", "jon jonathan", "nate nathan", "nate nathaniel",
		"doug douglas", "jerry gerald", "gerry gerald", "manny manuel", "quique enrique", "lupe guadalupe",
		"kostas konstantinos", "dimitris dimitrios", "yannis ioannis", "giannis ioannis", "misha mikhail",
		"dima dmitry", "kolya nikolai", "vanya ivan", "lena elena", "tanya tatiana", "katya ekaterina",
		"abby abigail", "gabe gabriel", "max maximilian", "sandy alexandra", "sandy sandra",
		"becky rebecca", "vince vincent", "stan stanley", "ray raymond", "len leonard", "leo leonardo",
	}
	m := map[[2]string]bool{}
	for _, p := range pairs {
		a, b, _ := strings.Cut(p, " ")
		m[[2]string{a, b}], m[[2]string{b, a}] = true, true
	}
	return m
}()

// tokenMatch says how two folded tokens relate.
type tokenMatch int

const (
	matchNone    tokenMatch = iota
	matchInitial            // one is a single letter, the other starts with it
	matchNear               // one letter apart (4+ letters): spelling, transliteration
	matchNick               // nickname table or a prefix of 3+ letters
	matchExact
)

func matchTokens(a, b string) tokenMatch {
	switch {
	case a == b:
		return matchExact
	case len(a) == 1 || len(b) == 1:
		if a[0] == b[0] {
			return matchInitial
		}
		return matchNone
	case nicknames[[2]string{a, b}]:
		return matchNick
	case len(a) >= 3 && len(b) >= 3 && (strings.HasPrefix(a, b) || strings.HasPrefix(b, a)):
		return matchNick
	case len(a) >= 4 && len(b) >= 4 && oneEdit(a, b):
		return matchNear
	}
	return matchNone
}

// oneEdit: a and b differ by one inserted, deleted or replaced byte.
func oneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		return a[i+1:] == b[i+1:]
	}
	return a[i:] == b[i+1:]
}

// alignment is how the tokens of two names pair up.
type alignment struct {
	exact, nick, near int // matched token pairs by kind
	initial           int
	freeA, freeB      int  // unmatched tokens of 2+ letters (conflicts or extra names)
	initA, initB      int  // unmatched single letters
	inOrder           bool // matched tokens appear in the same order
	firstConflict     bool // first tokens both 2+ letters and unmatched, surnames equal
	lastEqual         bool
}

// align pairs the tokens of a and b greedily, exact matches first.
func align(a, b []string) alignment {
	var al alignment
	usedB := make([]bool, len(b))
	matchA := make([]int, len(a))
	for i := range matchA {
		matchA[i] = -1
	}
	for _, want := range []tokenMatch{matchExact, matchNick, matchNear, matchInitial} {
		for i, ta := range a {
			if matchA[i] >= 0 {
				continue
			}
			for j, tb := range b {
				if !usedB[j] && matchTokens(ta, tb) == want {
					matchA[i], usedB[j] = j, true
					switch want {
					case matchExact:
						al.exact++
					case matchNick:
						al.nick++
					case matchNear:
						al.near++
					default:
						al.initial++
					}
					break
				}
			}
		}
	}
	al.inOrder = true
	last := -1
	for i, j := range matchA {
		if j < 0 {
			if len(a[i]) > 1 {
				al.freeA++
			} else {
				al.initA++
			}
			continue
		}
		if j < last {
			al.inOrder = false
		}
		last = j
	}
	for j, u := range usedB {
		if !u {
			if len(b[j]) > 1 {
				al.freeB++
			} else {
				al.initB++
			}
		}
	}
	if len(a) > 0 && len(b) > 0 {
		al.lastEqual = a[len(a)-1] == b[len(b)-1]
		al.firstConflict = al.lastEqual && len(a) > 1 && len(b) > 1 && matchA[0] < 0 && !usedB[0] &&
			len(a[0]) > 1 && len(b[0]) > 1
	}
	return al
}

// jaroWinkler is the Jaro-Winkler similarity of two strings (bytes).
func jaroWinkler(a, b string) float64 {
	if a == b {
		return 1
	}
	la, lb := len(a), len(b)
	if la == 0 || lb == 0 {
		return 0
	}
	win := max(la, lb)/2 - 1
	win = max(win, 0)
	ma := make([]bool, la)
	mb := make([]bool, lb)
	m := 0
	for i := 0; i < la; i++ {
		lo, hi := max(0, i-win), min(lb, i+win+1)
		for j := lo; j < hi; j++ {
			if !mb[j] && a[i] == b[j] {
				ma[i], mb[j] = true, true
				m++
				break
			}
		}
	}
	if m == 0 {
		return 0
	}
	t, j := 0, 0
	for i := 0; i < la; i++ {
		if ma[i] {
			for !mb[j] {
				j++
			}
			if a[i] != b[j] {
				t++
			}
			j++
		}
	}
	fm := float64(m)
	jaro := (fm/float64(la) + fm/float64(lb) + (fm-float64(t)/2)/fm) / 3
	p := 0
	for p < min(4, la, lb) && a[p] == b[p] {
		p++
	}
	return jaro + float64(p)*0.1*(1-jaro)
}
