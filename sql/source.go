package sql

import (
	"sort"
	"strings"
)

// script is the text a statement was cut from, with an index of its line
// starts so that offsets turn into line and column cheaply. base is the
// script position of text[0]: the start of a whole script for Parse, or of
// one statement for ParseOne.
type script struct {
	text   string
	base   Pos
	starts []int // offsets in text where a line begins; starts[0] == 0
}

func newScript(text string, base Pos) *script {
	if base.Line < 1 {
		base.Line = 1
	}
	if base.Col < 1 {
		base.Col = 1
	}
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &script{text: text, base: base, starts: starts}
}

// pos returns the script position of text offset k (clamped to the text).
func (s *script) pos(k int) Pos {
	k = max(0, min(k, len(s.text)))
	line := sort.SearchInts(s.starts, k+1) - 1
	col := k - s.starts[line] + 1
	if line == 0 {
		col += s.base.Col - 1
	}
	return Pos{Offset: s.base.Offset + k, Line: s.base.Line + line, Col: col}
}

// offset returns the text offset of script position p (clamped).
func (s *script) offset(p Pos) int {
	return max(0, min(p.Offset-s.base.Offset, len(s.text)))
}

// line returns the source line containing text offset k, without its line
// end. When the text starts in the middle of a script line, the first line
// is indented by spaces so that columns still line up.
func (s *script) line(k int) string {
	k = max(0, min(k, len(s.text)))
	i := sort.SearchInts(s.starts, k+1) - 1
	lo, hi := s.starts[i], len(s.text)
	if i+1 < len(s.starts) {
		hi = s.starts[i+1] - 1
	}
	l := strings.TrimSuffix(s.text[lo:hi], "\r")
	if i == 0 && s.base.Col > 1 {
		l = strings.Repeat(" ", s.base.Col-1) + l
	}
	return l
}

// segment maps a range of the text handed to TiDB back to the script. An
// exact segment was copied (or blanked) byte for byte from script offset
// orig; any other segment is text eddy wrote, and all of it maps to orig.
type segment struct {
	lo, hi  int // in the TiDB text
	orig    int // script text offset
	origEnd int // for text eddy wrote: the end of the script text it replaced
	exact   bool
}

// Source is the original text of one statement and the map from offsets in
// the text handed to TiDB back to positions in the script. Every statement
// has one; statements nested in EXPLAIN share their parent's.
type Source struct {
	sc     *script
	lo, hi int // the statement's text: sc.text[lo:hi]
	tidb   string
	segs   []segment
	names  []token // the statement's bare words and quoted identifiers
}

// Text returns the statement's original text, from its first token to its
// last (without the terminating ';').
func (s *Source) Text() string { return s.sc.text[s.lo:s.hi] }

// Start returns the script position of the statement's first token, where
// Text begins.
func (s *Source) Start() Pos { return s.sc.pos(s.lo) }

// TiDBText returns the text handed to TiDB: the statement with eddy's own
// syntax blanked and CAST and window function calls rewritten. It is empty
// when the statement needed no TiDB parse.
func (s *Source) TiDBText() string { return s.tidb }

// Pos returns the script position of an offset in the text TiDB parsed,
// such as ast.Node.OriginTextPosition() of an expression node.
func (s *Source) Pos(offset int) Pos {
	return s.sc.pos(s.origOffset(offset))
}

// origOffset maps a TiDB text offset to a script text offset.
func (s *Source) origOffset(offset int) int {
	if len(s.segs) == 0 {
		return s.lo + max(0, offset)
	}
	i := sort.Search(len(s.segs), func(i int) bool { return s.segs[i].hi > offset })
	if i == len(s.segs) {
		last := s.segs[len(s.segs)-1]
		if last.exact {
			return last.orig + (last.hi - last.lo)
		}
		return last.orig
	}
	g := s.segs[i]
	if offset < g.lo {
		return g.orig
	}
	if g.exact {
		return g.orig + offset - g.lo
	}
	return g.orig
}

// origEnd maps the end (exclusive) of a range of the TiDB text to the end
// of the script text it came from.
func (s *Source) origEnd(end int) int {
	if end <= 0 || len(s.segs) == 0 {
		return s.origOffset(end)
	}
	i := sort.Search(len(s.segs), func(i int) bool { return s.segs[i].hi >= end })
	if i == len(s.segs) {
		return s.origOffset(end)
	}
	g := s.segs[i]
	if g.exact {
		return g.orig + end - g.lo
	}
	return g.origEnd
}

// IdentPos returns the position of the first identifier token equal to name
// (case-insensitively; backquotes stripped) at or after from. It finds the
// position of TiDB nodes that carry no offset, such as table names.
func (s *Source) IdentPos(name string, from Pos) (Pos, bool) {
	k := s.sc.offset(from)
	i := sort.Search(len(s.names), func(i int) bool { return s.names[i].off >= k })
	for ; i < len(s.names); i++ {
		if strings.EqualFold(s.names[i].val, name) {
			return s.sc.pos(s.names[i].off), true
		}
	}
	return Pos{}, false
}

// Line returns the full source line containing p, for carets.
func (s *Source) Line(p Pos) string { return s.sc.line(s.sc.offset(p)) }

// edit replaces script text [lo, hi) in the text handed to TiDB. A blank
// edit replaces every byte but newlines by a space. Otherwise repl is
// written and mapped to anchor, and the rest of the span (when repl is
// shorter) is blanked.
type edit struct {
	lo, hi int
	repl   string
	anchor int
	blank  bool
}

// buildTiDB makes the text handed to TiDB from the statement text with the
// edits applied, and records how it maps back. Edits that start inside an
// earlier replacement are dropped (a comment inside a rewritten window
// function call); overlapping blanks merge.
func (s *Source) buildTiDB(edits []edit) {
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].lo != edits[j].lo {
			return edits[i].lo < edits[j].lo
		}
		return edits[i].hi > edits[j].hi
	})
	text := s.sc.text
	var b strings.Builder
	b.Grow(s.hi - s.lo)
	s.segs = s.segs[:0]
	add := func(str string, orig, origEnd int, exact bool) {
		if str == "" {
			return
		}
		lo := b.Len()
		b.WriteString(str)
		s.segs = append(s.segs, segment{lo: lo, hi: b.Len(), orig: orig, origEnd: origEnd, exact: exact})
	}
	cur := s.lo
	for _, e := range edits {
		lo, hi := max(e.lo, s.lo), min(e.hi, s.hi)
		if hi <= cur || lo >= hi {
			continue
		}
		if lo < cur {
			if !e.blank {
				continue
			}
			lo = cur
		}
		add(text[cur:lo], cur, 0, true)
		if e.blank {
			add(blank(text[lo:hi]), lo, 0, true)
		} else {
			add(e.repl, e.anchor, hi, false)
			if rest := lo + len(e.repl); rest < hi {
				add(blank(text[rest:hi]), rest, 0, true)
			}
		}
		cur = hi
	}
	add(text[cur:s.hi], cur, 0, true)
	s.tidb = b.String()
}

// blank returns s with every byte but newlines replaced by a space.
func blank(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}
