package sql

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// parser parses one statement: eddy's own syntax by recursive descent over
// tokens, and the parts that are MySQL (queries, expressions) by handing
// TiDB a rewritten copy of the text in which everything else is blanked.
type parser struct {
	sc    *script
	src   *Source
	toks  []token
	i     int
	edits []edit // rewrites inside the part TiDB sees
	job   *tidbJob
	tvfs  int // window functions seen, for placeholder names

	tableToks []int // indexes of the tokens where a table name may start
	fullJoins []int // indexes of the FULL of FULL [OUTER] JOIN
}

// tidbJob is the part of a statement that TiDB parses: the script text
// [lo, hi), optionally preceded and followed by text eddy writes (prefix
// replaces the statement's text before lo; suffix its text after hi), and
// what to do with TiDB's result.
type tidbJob struct {
	lo, hi         int
	prefix, suffix string
	fill           func(stmts []ast.StmtNode) error
}

// parseIn parses the statement in sc.text[lo:hi]. It recovers from any
// panic (TiDB's parser is a large generated state machine) and reports it
// as a ParseError at the statement's start.
func parseIn(sc *script, lo, hi int) (stmt Stmt, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmt, err = nil, sc.errAt(firstTokenOffset(sc.text, lo, hi), "internal parser error: %v", r)
		}
	}()
	lx := lex(sc.text, lo, hi)
	if lx.errMsg != "" {
		return nil, sc.errAt(lx.errOff, "%s", lx.errMsg)
	}
	toks := lx.toks
	if err := checkIdentLengths(sc, toks); err != nil {
		return nil, err
	}
	for j, t := range toks {
		if t.isOp(";") {
			if toks[j+1].kind != tEOF {
				return nil, sc.errAt(toks[j+1].off, "unexpected %s after ';': one statement expected", describe(toks[j+1]))
			}
			toks = append(toks[:j:j], token{kind: tEOF, off: t.off, end: t.off})
			break
		}
	}
	if toks[0].kind == tEOF {
		return nil, sc.errAt(toks[0].off, "empty statement")
	}
	src := &Source{sc: sc, lo: toks[0].off, hi: toks[len(toks)-2].end}
	for _, t := range toks {
		if t.isName() {
			src.names = append(src.names, t)
		}
	}
	p := &parser{sc: sc, src: src, toks: toks}
	stmt, err = p.parseStmt(true)
	if err != nil {
		return nil, err
	}
	if !p.at(tEOF) {
		return nil, p.errf("expected end of statement, found %s", describe(p.peek()))
	}
	if p.job != nil {
		if err := p.runJob(lx.comments); err != nil {
			return nil, err
		}
	}
	return stmt, nil
}

// checkIdentLengths refuses the first name token (a bare word or a quoted
// identifier, wherever it stands: object, column, alias or option name)
// longer than MaxIdentLen characters.
func checkIdentLengths(sc *script, toks []token) error {
	for _, t := range toks {
		// A name of at most MaxIdentLen characters has at most 4 bytes
		// per character: count only the longer ones.
		if t.isName() && len(t.val) > MaxIdentLen {
			if n := utf8.RuneCountInString(t.val); n > MaxIdentLen {
				return sc.errAt(t.off, "identifier is too long: %d characters (at most %d)", n, MaxIdentLen)
			}
		}
	}
	return nil
}

// firstTokenOffset returns the offset of the first non-space byte of
// text[lo:hi], or lo.
func firstTokenOffset(text string, lo, hi int) int {
	for i := lo; i < hi; i++ {
		if !isSpace(text[i]) {
			return i
		}
	}
	return lo
}

// peek returns the current token.
func (p *parser) peek() token { return p.toks[p.i] }

// peekAt returns the token n places after the current one (or EOF).
func (p *parser) peekAt(n int) token {
	if p.i+n >= len(p.toks) {
		return p.toks[len(p.toks)-1]
	}
	return p.toks[p.i+n]
}

// next consumes and returns the current token; EOF is never consumed.
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// at reports whether the current token is of kind k.
func (p *parser) at(k tokKind) bool { return p.peek().kind == k }

// accept consumes the current token if it is the word w.
func (p *parser) accept(w string) bool {
	if p.peek().is(w) {
		p.i++
		return true
	}
	return false
}

// acceptOp consumes the current token if it is the operator op.
func (p *parser) acceptOp(op string) bool {
	if p.peek().isOp(op) {
		p.i++
		return true
	}
	return false
}

// expect consumes the word w or fails with "expected W <context>".
func (p *parser) expect(w, context string) error {
	if p.accept(w) {
		return nil
	}
	return p.errf("expected %s %s, found %s", w, context, describe(p.peek()))
}

// expectOp consumes the operator op or fails with "expected 'op' <context>".
func (p *parser) expectOp(op, context string) error {
	if p.acceptOp(op) {
		return nil
	}
	return p.errf("expected '%s' %s, found %s", op, context, describe(p.peek()))
}

// errf returns a ParseError at the current token.
func (p *parser) errf(format string, args ...any) error {
	return p.sc.errAt(p.peek().off, format, args...)
}

// errAt returns a ParseError at token t.
func (p *parser) errAt(t token, format string, args ...any) error {
	return p.sc.errAt(t.off, format, args...)
}

// pos returns the script position of token t.
func (p *parser) pos(t token) Pos { return p.sc.pos(t.off) }

// reservedNames are words that are never taken as a name, so that a
// missing name is reported where it is missing.
var reservedNames = map[string]bool{
	"AS": true, "FROM": true, "SELECT": true, "WHERE": true, "WITH": true,
	"VALUES": true, "INTO": true, "EMIT": true, "IF": true,
}

// ident parses a name: a bare word or a `quoted` identifier. what names
// the thing expected, for the error message.
func (p *parser) ident(what string) (Ident, error) {
	t := p.peek()
	switch {
	case t.kind == tQuoted:
		if t.val == "" {
			return Ident{}, p.errf("%s must not be empty", what)
		}
		p.i++
		return Ident{Name: t.val, Pos: p.pos(t), Quoted: true}, nil
	case t.kind == tWord && !reservedNames[strings.ToUpper(t.text)]:
		p.i++
		return Ident{Name: t.text, Pos: p.pos(t)}, nil
	}
	return Ident{}, p.errf("expected %s, found %s", what, describe(t))
}

// ifNotExists parses an optional IF NOT EXISTS.
func (p *parser) ifNotExists() (bool, error) {
	if !p.accept("IF") {
		return false, nil
	}
	if err := p.expect("NOT", "after IF"); err != nil {
		return false, err
	}
	return true, p.expect("EXISTS", "after IF NOT")
}

// ifExists parses an optional IF EXISTS.
func (p *parser) ifExists() (bool, error) {
	if !p.accept("IF") {
		return false, nil
	}
	return true, p.expect("EXISTS", "after IF")
}

// setJob records the part of the statement TiDB parses. A statement has at
// most one such part.
func (p *parser) setJob(j *tidbJob) {
	if p.job != nil {
		panic(fmt.Sprintf("sql: second TiDB job in one statement at offset %d", j.lo))
	}
	p.job = j
}
