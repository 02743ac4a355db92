package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/eddysql/eddy/planner/plan"
)

// likeKind is the shape of a LIKE pattern; common shapes get a fast path.
type likeKind uint8

const (
	likeExact    likeKind = iota // 'abc'
	likePrefix                   // 'abc%'
	likeSuffix                   // '%abc'
	likeContains                 // '%abc%'
	likeAny                      // '%'
	likeGeneral                  // anything else
)

// likeTok is one element of a general pattern.
type likeTok struct {
	kind byte // 'l' literal byte, '_' one character, '%' any run
	b    byte
}

// likePattern is a compiled LIKE pattern. Matching is bytewise and
// case-sensitive (binary collation); _ matches one UTF-8 character.
type likePattern struct {
	kind likeKind
	lit  string
	toks []likeTok
}

// compileLike parses a pattern with escape character esc.
func compileLike(pat string, esc byte) *likePattern {
	var toks []likeTok
	for i := 0; i < len(pat); i++ {
		ch := pat[i]
		switch {
		case ch == esc && i+1 < len(pat):
			i++
			toks = append(toks, likeTok{kind: 'l', b: pat[i]})
		case ch == '%':
			if len(toks) == 0 || toks[len(toks)-1].kind != '%' {
				toks = append(toks, likeTok{kind: '%'})
			}
		case ch == '_':
			toks = append(toks, likeTok{kind: '_'})
		default:
			toks = append(toks, likeTok{kind: 'l', b: ch})
		}
	}
	p := &likePattern{kind: likeGeneral, toks: toks}
	// Classify: literals with at most a leading and a trailing %.
	lo, hi := 0, len(toks)
	lead := lo < hi && toks[lo].kind == '%'
	if lead {
		lo++
	}
	trail := hi > lo && toks[hi-1].kind == '%'
	if trail {
		hi--
	}
	var lit []byte
	for _, t := range toks[lo:hi] {
		if t.kind != 'l' {
			return p
		}
		lit = append(lit, t.b)
	}
	p.lit = string(lit)
	switch {
	case lead && len(toks) == 1:
		p.kind = likeAny
	case lead && trail:
		p.kind = likeContains
	case lead:
		p.kind = likeSuffix
	case trail:
		p.kind = likePrefix
	default:
		p.kind = likeExact
	}
	return p
}

// match reports whether s matches the pattern.
func (p *likePattern) match(s string) bool {
	switch p.kind {
	case likeExact:
		return s == p.lit
	case likePrefix:
		return strings.HasPrefix(s, p.lit)
	case likeSuffix:
		return strings.HasSuffix(s, p.lit)
	case likeContains:
		return strings.Contains(s, p.lit)
	case likeAny:
		return true
	}
	return matchToks(p.toks, s)
}

// matchToks is the general matcher: greedy, backtracking to the last % on a
// mismatch, which is linear for patterns with one % and O(len(s) *
// len(toks)) at worst. A % extends by whole characters.
func matchToks(toks []likeTok, s string) bool {
	ti, si := 0, 0
	starT, starS := -1, 0
	for si < len(s) {
		if ti < len(toks) {
			switch t := toks[ti]; t.kind {
			case '%':
				starT, starS = ti, si
				ti++
				continue
			case '_':
				_, w := utf8.DecodeRuneInString(s[si:])
				si += w
				ti++
				continue
			default:
				if s[si] == t.b {
					si++
					ti++
					continue
				}
			}
		}
		if starT < 0 {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		ti, si = starT+1, starS
	}
	for ti < len(toks) && toks[ti].kind == '%' {
		ti++
	}
	return ti == len(toks)
}

// buildLike compiles [NOT] LIKE. A constant pattern is compiled once; a
// pattern that varies per row is compiled when it changes.
func (c *compiler) buildLike(e *plan.Like) (node, error) {
	arg, pat, err := c.compilePair(e.Arg, e.Pattern)
	if err != nil {
		return nil, err
	}
	esc := e.Escape
	if esc == 0 {
		esc = '\\'
	}
	var fixed *likePattern
	if k, ok := pat.(*constNode); ok && !k.val.Null {
		fixed = compileLike(k.val.S, esc)
	}
	var last *likePattern
	lastSrc := ""
	neg := e.Negated
	return newFn(func(in []*vector, n int, out *result) error {
		r, s, pv := out.bools(n), in[0], in[1]
		p := fixed
		for i := range r {
			if fixed == nil {
				if src := pv.str(i); last == nil || src != lastSrc {
					last, lastSrc = compileLike(src, esc), strings.Clone(src)
				}
				p = last
			}
			r[i] = p.match(s.str(i)) != neg
		}
		return nil
	}, true, arg, pat), nil
}
