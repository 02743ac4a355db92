package sql

import "strings"

// tokKind is the lexical class of a token.
type tokKind uint8

const (
	tEOF    tokKind = iota // end of the statement
	tWord                  // a bare word: a keyword or an identifier
	tQuoted                // a `backquoted` identifier
	tString                // a 'single' or "double" quoted string
	tNumber                // 12, 1.5, .5, 1e3, 0x1F
	tOp                    // punctuation and operators
)

// token is one lexical token. off and end are byte offsets in the text
// the lexer was given; val is the unquoted value of strings and quoted
// identifiers and the text itself otherwise.
type token struct {
	kind tokKind
	off  int
	end  int
	text string
	val  string
}

// is reports whether t is the bare word w (w upper case).
func (t token) is(w string) bool {
	return t.kind == tWord && strings.EqualFold(t.text, w)
}

// isOp reports whether t is the operator or punctuation op.
func (t token) isOp(op string) bool {
	return t.kind == tOp && t.text == op
}

// isName reports whether t can be a name: a bare word or a quoted identifier.
func (t token) isName() bool {
	return t.kind == tWord || t.kind == tQuoted
}

// span is a half-open byte range [lo, hi).
type span struct{ lo, hi int }

// lexResult is the outcome of scanning a text: its tokens (without
// comments, ending with a tEOF token at the end of the text), the comment
// spans, and the first lexical error (an unterminated string, quoted
// identifier or comment), whose offset is errOff.
type lexResult struct {
	toks     []token
	comments []span
	errMsg   string
	errOff   int
}

// lex scans text[lo:hi] by MySQL's lexical rules, with two differences that
// users of other streaming systems expect: "--" always starts a comment
// (MySQL wants a space after it), and /*! ... */ and /*+ ... */ are plain
// comments. Offsets are relative to text. It stops at the first error.
func lex(text string, lo, hi int) lexResult {
	var r lexResult
	i := lo
	for {
		for i < hi && isSpace(text[i]) {
			i++
		}
		if i >= hi {
			break
		}
		c := text[i]
		start := i
		switch {
		case c == '#' || (c == '-' && i+1 < hi && text[i+1] == '-'):
			for i < hi && text[i] != '\n' {
				i++
			}
			r.comments = append(r.comments, span{start, i})
			continue
		case c == '/' && i+1 < hi && text[i+1] == '*':
			end := strings.Index(text[i+2:hi], "*/")
			if end < 0 {
				r.errMsg, r.errOff = "unterminated comment", start
				r.toks = append(r.toks, token{kind: tEOF, off: hi, end: hi})
				return r
			}
			i += 2 + end + 2
			r.comments = append(r.comments, span{start, i})
			continue
		case c == '\'' || c == '"' || c == '`':
			end, val, ok := scanQuoted(text, i, hi)
			if !ok {
				what := "string"
				if c == '`' {
					what = "quoted identifier"
				}
				r.errMsg, r.errOff = "unterminated "+what, start
				r.toks = append(r.toks, token{kind: tEOF, off: hi, end: hi})
				return r
			}
			kind := tString
			if c == '`' {
				kind = tQuoted
			}
			r.toks = append(r.toks, token{kind: kind, off: start, end: end, text: text[start:end], val: val})
			i = end
			continue
		case isDigit(c) && isWordRun(text, i, hi):
			for i < hi && isIdentChar(text[i]) {
				i++
			}
			r.toks = append(r.toks, token{kind: tWord, off: start, end: i, text: text[start:i], val: text[start:i]})
			continue
		case isDigit(c) || (c == '.' && i+1 < hi && isDigit(text[i+1])):
			i = scanNumber(text, i, hi)
			r.toks = append(r.toks, token{kind: tNumber, off: start, end: i, text: text[start:i], val: text[start:i]})
			continue
		case isIdentStart(c):
			for i < hi && isIdentChar(text[i]) {
				i++
			}
			r.toks = append(r.toks, token{kind: tWord, off: start, end: i, text: text[start:i], val: text[start:i]})
			continue
		}
		i += opLen(text[i:hi])
		r.toks = append(r.toks, token{kind: tOp, off: start, end: i, text: text[start:i], val: text[start:i]})
	}
	r.toks = append(r.toks, token{kind: tEOF, off: hi, end: hi})
	return r
}

// scanQuoted scans the quoted string or identifier starting at text[i] and
// returns the offset after its closing quote and its unquoted value. A
// doubled quote stands for itself; in strings a backslash escapes the next
// byte (MySQL's default), and \n, \t, \r, \0, \b, \Z are decoded.
func scanQuoted(text string, i, hi int) (end int, val string, ok bool) {
	q := text[i]
	var b strings.Builder
	for j := i + 1; j < hi; j++ {
		c := text[j]
		switch {
		case c == q:
			if j+1 < hi && text[j+1] == q {
				b.WriteByte(q)
				j++
				continue
			}
			return j + 1, b.String(), true
		case c == '\\' && q != '`':
			if j+1 >= hi {
				return 0, "", false
			}
			j++
			b.WriteString(unescape(text[j]))
		default:
			b.WriteByte(c)
		}
	}
	return 0, "", false
}

// unescape decodes the byte after a backslash in a MySQL string.
func unescape(c byte) string {
	switch c {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case '0':
		return "\x00"
	case 'b':
		return "\b"
	case 'Z':
		return "\x1a"
	}
	return string(c)
}

// isWordRun reports whether the run of identifier characters at text[i],
// which starts with a digit, is an identifier: MySQL reads 1a and 0A as
// names, while 12, 1e3, 1e+3, 0x1F and 0b01 are numbers.
func isWordRun(text string, i, hi int) bool {
	j := i
	for j < hi && isIdentChar(text[j]) {
		j++
	}
	run := text[i:j]
	k := 0
	for k < len(run) && isDigit(run[k]) {
		k++
	}
	switch {
	case k == len(run):
		return false
	case (run[k] == 'e' || run[k] == 'E') && (k+1 == len(run) && j < hi && (text[j] == '+' || text[j] == '-') || k+1 < len(run) && allDigits(run[k+1:])):
		return false
	case run == "0x" || run == "0X" || run == "0b" || run == "0B":
		return true
	case strings.HasPrefix(run, "0x") || strings.HasPrefix(run, "0X"):
		return !allHex(run[2:])
	case strings.HasPrefix(run, "0b") || strings.HasPrefix(run, "0B"):
		return strings.Trim(run[2:], "01") != ""
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) && !('a' <= c && c <= 'f') && !('A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// scanNumber scans a numeric literal starting at text[i]: digits with an
// optional fraction and exponent, or a 0x/0b literal.
func scanNumber(text string, i, hi int) int {
	if text[i] == '0' && i+2 < hi && (text[i+1] == 'x' || text[i+1] == 'X' || text[i+1] == 'b' || text[i+1] == 'B') {
		j := i + 2
		for j < hi && isIdentChar(text[j]) {
			j++
		}
		return j
	}
	for i < hi && isDigit(text[i]) {
		i++
	}
	if i < hi && text[i] == '.' {
		i++
		for i < hi && isDigit(text[i]) {
			i++
		}
	}
	if i < hi && (text[i] == 'e' || text[i] == 'E') {
		j := i + 1
		if j < hi && (text[j] == '+' || text[j] == '-') {
			j++
		}
		if j < hi && isDigit(text[j]) {
			for j < hi && isDigit(text[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

// multiOps are the operators longer than one byte, longest first.
var multiOps = []string{"<=>", "->>", "<=", ">=", "<>", "!=", "||", "&&", "<<", ">>", ":=", "->", "=>", "::"}

// opLen returns the length of the operator at the start of s.
func opLen(s string) int {
	for _, op := range multiOps {
		if strings.HasPrefix(s, op) {
			return len(op)
		}
	}
	return 1
}

// isSpace reports whether c separates tokens. Like TiDB's lexer, it takes
// the bytes 0x85 and 0xA0 (NEL and NBSP in Latin-1) for spaces too, where
// a token could start.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == 0x85 || c == 0xA0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdentStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '$' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }
