package expr

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMatcherAnalysis checks which literal and prefix bound a few patterns
// get, and whether they may be matched over a suffix.
func TestMatcherAnalysis(t *testing.T) {
	for _, c := range []struct {
		pattern string
		lit     string
		before  int
		tail    bool
	}{
		{`(&|^)channel_id=([^&]*)`, "channel_id=", 1, true},
		{`abc`, "abc", 0, true},
		{`x+yz`, "x", 0, true},
		{`[a-z]+yz`, "yz", -1, false},
		{`[0-9]{2}-abc`, "-abc", 2, true},
		{`é.abc`, "abc", 6, true},
		{`(?i)abc`, "", -1, false},
		{`a|b`, "", -1, false},
		{`\bfoo`, "foo", 0, false},
		{`(?m)^foo`, "foo", 0, false},
		{`(foo)+bar`, "foo", 0, true},
		{`x{2,3}long_literal`, "long_literal", 3, true},
		{`\x{FFFD}abc`, "abc", 3, true},
		{`ab\x{FFFD}cde`, "cde", 5, true},
		{`ab?c`, "a", 0, true},
	} {
		m := newMatcher(regexp.MustCompile(c.pattern))
		if m.lit != c.lit || m.lit != "" && m.before != c.before || (m.tail != nil) != c.tail {
			t.Errorf("%s: lit %q before %d tail %v, want %q %d %v", c.pattern, m.lit, m.before, m.tail != nil, c.lit, c.before, c.tail)
		}
	}
}

// TestMatcherRandom compares the matcher with the regexp package over
// random patterns and texts, including multi-byte and invalid UTF-8, so
// that every fast path (no literal: NULL; a suffix; the whole text) is
// checked against the general one.
func TestMatcherRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	atoms := []string{"a", "b", "&", "=", "é", "ab", "a=", "\\x{FFFD}", ".", "[ab]", "[^&]", "[a-zé]", "\\w", "^", "$",
		"\\b", "\\B", "(?m:^)", "(?i:ab)", "\\A", "\\z", "(?s:.)", "x"}
	var pattern func(depth int) string
	pattern = func(depth int) string {
		var b strings.Builder
		for k := 1 + rng.IntN(4); k > 0; k-- {
			var p string
			if depth < 2 && rng.IntN(4) == 0 {
				p = "(" + pattern(depth+1) + ")"
				if rng.IntN(3) == 0 {
					p = "(" + pattern(depth+1) + "|" + pattern(depth+1) + ")"
				}
			} else {
				p = atoms[rng.IntN(len(atoms))]
			}
			if strings.HasSuffix(p, "^") || strings.HasSuffix(p, "$") || strings.HasPrefix(p, "\\") && len(p) == 2 && p != "\\w" {
				b.WriteString(p) // an assertion takes no quantifier
				continue
			}
			switch rng.IntN(8) {
			case 0:
				p += "?"
			case 1:
				p += "*"
			case 2:
				p += "+"
			case 3:
				p += "{1,3}"
			case 4:
				p += "{2}"
			}
			b.WriteString(p)
		}
		return b.String()
	}
	pieces := []string{"a", "b", "&", "=", "é", "x", "\n", " ", "\xff", "\xa9", "\xc3", "ab=", "&a=", "é&"}
	text := func() string {
		var b strings.Builder
		for k := rng.IntN(24); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	fast, tried := 0, 0
	for range 3000 {
		src := pattern(0)
		re, err := regexp.Compile(src)
		if err != nil {
			continue
		}
		m := newMatcher(re)
		for range 60 {
			s := text()
			if rng.IntN(3) == 0 && m.lit != "" {
				// Make the required literal occur, often late in the text.
				s = text() + m.lit + text()
			}
			want := re.FindStringSubmatchIndex(s)
			got := m.submatchIndex(s)
			tried++
			if m.tail != nil {
				fast++
			}
			if !slices.Equal(got, want) {
				t.Fatalf("pattern %q (lit %q, before %d) over %q: got %v, want %v", src, m.lit, m.before, s, got, want)
			}
		}
	}
	if fast < tried/10 {
		t.Errorf("only %d of %d matches took the suffix path: the test no longer exercises it", fast, tried)
	}
}

// TestMatcherNexmarkURLs checks q21's pattern over URLs shaped like the
// generator's, with and without a channel_id parameter.
func TestMatcherNexmarkURLs(t *testing.T) {
	re := regexp.MustCompile(`(&|^)channel_id=([^&]*)`)
	m := newMatcher(re)
	for _, s := range []string{
		"https://www.nexmark.com/abc_d/efg/hij/item.htm?query=1&channel_id=1234",
		"https://www.nexmark.com/abc_d/efg/hij/item.htm?query=1",
		"channel_id=7&x=1",
		"xchannel_id=7&channel_id=8",
		"a&channel_id=&b",
		"",
		"channel_id=",
		"é&channel_id=é",
	} {
		if got, want := m.submatchIndex(s), re.FindStringSubmatchIndex(s); !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", s, got, want)
		}
	}
}

// BenchmarkRegexpExtractURL measures q21's REGEXP_EXTRACT over URLs like
// the generator's (half without a channel_id), through the matcher and
// through the regexp package alone.
func BenchmarkRegexpExtractURL(b *testing.B) {
	re := regexp.MustCompile(`(&|^)channel_id=([^&]*)`)
	urls := []string{
		"https://www.nexmark.com/hxw_e/qbz_f/pdu_x/item.htm?query=1&channel_id=1476395008",
		"https://www.nexmark.com/jkl_m/nop_q/rst_u/item.htm?query=1",
	}
	b.Run("matcher", func(b *testing.B) {
		m := newMatcher(re)
		for i := 0; b.Loop(); i++ {
			m.submatchIndex(urls[i&1])
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			re.FindStringSubmatchIndex(urls[i&1])
		}
	})
}
