package expr

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// matcher finds the first match of a compiled regular expression as
// regexp.FindStringSubmatchIndex does, but runs the regexp engine less. The
// pattern is analysed once for a required literal: a string every match
// contains (`channel_id=` in `(&|^)channel_id=([^&]*)`). A text without it
// cannot match, which strings.Index (vectorized) tells far faster than the
// engine, whose backtracker otherwise tries every start position. When the
// part of the pattern before the literal is bounded (at most before
// bytes), no match starts earlier than before bytes ahead of the literal's
// first occurrence, so the engine runs over that suffix only.
//
// Running over a suffix s[k:] must not change what the pattern sees. Only
// empty-width assertions look at the text before a position: `^` (begin
// text) would wrongly hold at k, so the suffix is matched by tail, a copy
// of the pattern in which begin-text assertions never hold (at k > 0 they
// do not in s either); `\b`, `\B` and multi-line `^` depend on the byte
// before k, so patterns that use them are always matched from the start.
// k is moved back to the start of a UTF-8 sequence, because the engine
// decodes the text rune by rune from where it starts.
type matcher struct {
	re *regexp.Regexp
	// lit is a literal every match contains; "" when none was found.
	lit string
	// before bounds the bytes of a match ahead of lit's occurrence in it;
	// -1 when unbounded.
	before int
	// tail matches suffixes (nil: always match the whole text).
	tail *regexp.Regexp
}

// newMatcher analyses re. Any analysis it cannot do leaves a matcher that
// runs re over the whole text, as regexp does.
func newMatcher(re *regexp.Regexp) *matcher {
	m := &matcher{re: re, before: -1}
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return m
	}
	lit, before, ok := requiredLiteral(tree)
	if !ok {
		return m
	}
	m.lit, m.before = lit, before
	if before < 0 {
		return m
	}
	switch assertions(tree) {
	case assertNone:
		m.tail = re
	case assertBeginText:
		tail, err := regexp.Compile(withoutBeginText(tree).String())
		if err == nil && tail.NumSubexp() == re.NumSubexp() {
			m.tail = tail
		}
	}
	return m
}

// submatchIndex returns what re.FindStringSubmatchIndex(s) returns.
func (m *matcher) submatchIndex(s string) []int {
	if m.lit == "" {
		return m.re.FindStringSubmatchIndex(s)
	}
	p := strings.Index(s, m.lit)
	if p < 0 {
		return nil
	}
	k := p - m.before
	if m.tail == nil || m.before < 0 || k <= 0 {
		return m.re.FindStringSubmatchIndex(s)
	}
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	if k == 0 {
		return m.re.FindStringSubmatchIndex(s)
	}
	loc := m.tail.FindStringSubmatchIndex(s[k:])
	for i, x := range loc {
		if x >= 0 {
			loc[i] = x + k
		}
	}
	return loc
}

// requiredLiteral returns a literal that every match of re contains and
// the most bytes of a match that can precede it (-1: unbounded). Among
// several it prefers one with a bounded prefix, then the longest. Literals
// matched case-insensitively, or holding U+FFFD (which also matches an
// invalid byte), or an invalid rune, do not count.
func requiredLiteral(re *syntax.Regexp) (lit string, before int, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return "", 0, false
		}
		// The longest run of runes that match only their own encoding.
		w, start := 0, 0
		for k := 0; k <= len(re.Rune); k++ {
			if k < len(re.Rune) && re.Rune[k] != utf8.RuneError && utf8.ValidRune(re.Rune[k]) {
				continue
			}
			if seg := string(re.Rune[start:k]); len(seg) > len(lit) {
				lit, before, ok = seg, w, true
			}
			for _, r := range re.Rune[start:min(k+1, len(re.Rune))] {
				w += runeWidth(r, false)
			}
			start = k + 1
		}
		return lit, before, ok
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		w := 0 // the most bytes the subexpressions so far match; -1: unbounded
		for _, sub := range re.Sub {
			if l, b, found := requiredLiteral(sub); found {
				if w < 0 || b < 0 {
					b = -1
				} else {
					b += w
				}
				if !ok || betterLiteral(l, b, lit, before) {
					lit, before, ok = l, b, true
				}
			}
			if sw := maxWidth(sub); w >= 0 && sw >= 0 {
				w += sw
			} else {
				w = -1
			}
		}
		return lit, before, ok
	}
	return "", 0, false
}

// betterLiteral reports whether literal l with prefix bound b is a better
// anchor than cur with bound cb: bounded first, then longer.
func betterLiteral(l string, b int, cur string, cb int) bool {
	if (b >= 0) != (cb >= 0) {
		return b >= 0
	}
	return len(l) > len(cur)
}

// maxWidth returns the most bytes of text re can match, or -1 when it is
// unbounded. A rune counts as utf8.UTFMax bytes where it could be wider
// than its own encoding (case folding, classes beyond ASCII).
func maxWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpLiteral:
		w := 0
		for _, r := range re.Rune {
			w += runeWidth(r, re.Flags&syntax.FoldCase != 0)
		}
		return w
	case syntax.OpCharClass:
		if len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] < utf8.RuneSelf {
			return 1
		}
		return utf8.UTFMax
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxWidth(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if maxWidth(re.Sub[0]) == 0 {
			return 0
		}
		return -1
	case syntax.OpRepeat:
		w := maxWidth(re.Sub[0])
		if w == 0 {
			return 0
		}
		if w < 0 || re.Max < 0 {
			return -1
		}
		return w * re.Max
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, sub := range re.Sub {
			w := maxWidth(sub)
			if w < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				total += w
			} else {
				total = max(total, w)
			}
		}
		return total
	}
	return -1
}

// runeWidth bounds the bytes of text a literal rune matches: its encoding,
// or utf8.UTFMax when case folding may match a wider rune or the rune is
// not valid.
func runeWidth(r rune, fold bool) int {
	if n := utf8.RuneLen(r); n > 0 && !fold {
		return n
	}
	return utf8.UTFMax
}

// Which empty-width assertions a pattern uses, for matching a suffix.
const (
	assertNone      = iota // none that looks behind a position
	assertBeginText        // `^` or `\A` (begin text) only
	assertContext          // `\b`, `\B` or multi-line `^`: needs the byte before
)

func assertions(re *syntax.Regexp) int {
	a := assertNone
	switch re.Op {
	case syntax.OpBeginText:
		a = assertBeginText
	case syntax.OpBeginLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return assertContext
	}
	for _, sub := range re.Sub {
		a = max(a, assertions(sub))
	}
	return a
}

// withoutBeginText returns a copy of re in which every begin-text
// assertion is replaced by a subexpression that never matches.
func withoutBeginText(re *syntax.Regexp) *syntax.Regexp {
	if re.Op == syntax.OpBeginText {
		return &syntax.Regexp{Op: syntax.OpNoMatch, Flags: re.Flags}
	}
	cp := *re
	if len(re.Sub) > 0 {
		cp.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, sub := range re.Sub {
			cp.Sub[i] = withoutBeginText(sub)
		}
		cp.Sub0 = [1]*syntax.Regexp{}
	}
	return &cp
}
