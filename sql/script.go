package sql

import "strings"

// Parse parses a whole script; it fails at the first bad statement, and
// then also returns the statements before it. Positions are relative to
// text, starting at line 1, column 1.
func Parse(text string) ([]Stmt, error) {
	sc := newScript(text, Pos{Line: 1, Col: 1})
	pieces, rest := splitScript(sc)
	stmts := make([]Stmt, 0, len(pieces)+1)
	for _, pc := range pieces {
		lo := pc.Start.Offset
		s, err := parseIn(sc, lo, lo+len(pc.Text))
		if err != nil {
			return stmts, err
		}
		stmts = append(stmts, s)
	}
	if rest != "" {
		s, err := parseIn(sc, len(text)-len(rest), len(text))
		if err != nil {
			return stmts, err
		}
		stmts = append(stmts, s)
	}
	return stmts, nil
}

// ParseOne parses one statement (a trailing ';' is allowed). start is where
// text begins in the script, so every Pos is script-relative; the zero Pos
// means the start of a script.
func ParseOne(text string, start Pos) (Stmt, error) {
	sc := newScript(text, start)
	return parseIn(sc, 0, len(text))
}

// Piece is one complete statement of a script: its text from its first
// token through its terminating ';', and the script position where it
// starts.
type Piece struct {
	Text  string
	Start Pos
}

// Split cuts text into the complete statements ended by ';' and returns
// them with the incomplete remainder. Semicolons inside '...', "..." and
// `...` (with their escapes) and inside -- and # line comments and /* */
// comments do not end a statement ("--" starts a comment even without a
// space after it, as in standard SQL). Empty statements (";;") are skipped,
// and comments and whitespace between statements belong to no piece.
//
// rest is a suffix of text that starts at the first token of the
// unfinished statement (so its offset is len(text)-len(rest)); it is ""
// when only whitespace and comments follow the last ';'. A shell keeps
// reading lines while rest is not empty; a script runner parses each piece
// with ParseOne (so statements before a bad one still run) and then a
// non-empty rest as a last statement without its ';'.
func Split(text string) (pieces []Piece, rest string) {
	sc := newScript(text, Pos{Line: 1, Col: 1})
	return splitScript(sc)
}

// splitScript is Split over a script, returning the pieces' spans too.
func splitScript(sc *script) (pieces []Piece, rest string) {
	text := sc.text
	start := -1 // offset of the current statement's first token
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case isSpace(c):
			i++
			continue
		case c == '#' || (c == '-' && i+1 < len(text) && text[i+1] == '-'):
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := indexFrom(text, "*/", i+2)
			if end < 0 {
				if start < 0 {
					// An unterminated comment after the last statement
					// is not a statement yet, but the input is unfinished.
					return pieces, text[i:]
				}
				return pieces, text[start:]
			}
			i = end + 2
			continue
		}
		if start < 0 {
			start = i
		}
		switch {
		case c == '\'' || c == '"' || c == '`':
			end, _, ok := scanQuoted(text, i, len(text))
			if !ok {
				return pieces, text[start:]
			}
			i = end
		case c == ';':
			if i > start {
				pieces = append(pieces, Piece{Text: text[start : i+1], Start: sc.pos(start)})
			}
			start = -1
			i++
		default:
			i++
		}
	}
	if start < 0 {
		return pieces, ""
	}
	return pieces, text[start:]
}

// indexFrom is strings.Index(s[from:], sub) as an offset in s, or -1.
func indexFrom(s, sub string, from int) int {
	if i := strings.Index(s[from:], sub); i >= 0 {
		return from + i
	}
	return -1
}
