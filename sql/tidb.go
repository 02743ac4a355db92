package sql

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	tidbparser "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"

	// The test driver gives literal values a concrete representation.
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// sqlMode is MySQL's default mode plus PIPES_AS_CONCAT, so that `a || b`
// concatenates as in standard SQL, Flink and RisingWave (MySQL's reading
// of || as OR is deprecated).
var sqlMode = func() mysql.SQLMode {
	m, err := mysql.GetSQLMode(mysql.DefaultSQLMode)
	if err != nil {
		panic(err)
	}
	return m | mysql.ModePipesAsConcat
}()

// parsers reuses TiDB parsers, which are costly to make. A parser goes
// back to the pool only after putParser has cleared it.
var parsers = sync.Pool{New: func() any {
	p := tidbparser.New()
	p.SetSQLMode(sqlMode)
	return p
}}

// putParser clears p and returns it to the pool. TiDB's parser keeps its
// symbol stack between parses, and a reduction by an empty rule sets the
// text position of the expression left in that stack slot, which may
// belong to a tree an earlier parse returned and another goroutine is
// reading (a data race, and a wrong position in that tree). Reset clears
// the stack; it also restores the default mode, so the mode is set again.
func putParser(p *tidbparser.Parser) {
	p.Reset()
	p.SetSQLMode(sqlMode)
	parsers.Put(p)
}

// panicError is a panic inside TiDB's parser, returned as an error.
type panicError struct{ v any }

func (e panicError) Error() string { return fmt.Sprintf("internal parser error: %v", e.v) }

// tidbParse parses text with TiDB. A panic inside TiDB's parser is
// returned as a panicError (and the parser is not reused).
func tidbParse(text string) (stmts []ast.StmtNode, err error) {
	p := parsers.Get().(*tidbparser.Parser)
	defer func() {
		if r := recover(); r != nil {
			stmts, err = nil, panicError{r}
			return
		}
		putParser(p)
	}()
	stmts, _, err = p.ParseSQL(text)
	// The parser reuses its result slice on its next parse, which may run
	// on another goroutine once p is back in the pool: copy it out.
	return slices.Clone(stmts), err
}

// runJob builds the text TiDB parses, parses it and fills the statement.
func (p *parser) runJob(comments []span) error {
	j := p.job
	src := p.src
	edits := make([]edit, 0, len(p.edits)+len(comments)+2)
	if j.prefix != "" {
		edits = append(edits, edit{lo: src.lo, hi: j.lo, repl: j.prefix, anchor: j.lo})
	}
	edits = append(edits, edit{lo: src.lo, hi: j.lo, blank: true})
	if j.suffix != "" {
		edits = append(edits, edit{lo: j.hi, hi: src.hi, repl: j.suffix, anchor: j.hi})
	}
	edits = append(edits, edit{lo: j.hi, hi: src.hi, blank: true})
	edits = append(edits, p.edits...)
	for _, c := range comments {
		edits = append(edits, edit{lo: c.lo, hi: c.hi, blank: true})
	}
	src.buildTiDB(edits)
	stmts, err := tidbParse(src.tidb)
	if err != nil {
		return p.tidbError(err)
	}
	return j.fill(stmts)
}

// unsupported reports a statement eddy does not run. When TiDB accepts the
// statement (it is MySQL, say UPDATE or CREATE INDEX) the error says "not
// supported: UPDATE"; otherwise orErr, or TiDB's syntax error when orErr
// is nil.
func (p *parser) unsupported(orErr error) error {
	edits := []edit{}
	for _, t := range lex(p.sc.text, p.src.lo, p.src.hi).comments {
		edits = append(edits, edit{lo: t.lo, hi: t.hi, blank: true})
	}
	p.src.buildTiDB(edits)
	_, err := tidbParse(p.src.tidb)
	if err != nil {
		if orErr != nil {
			return orErr
		}
		if _, ok := err.(panicError); ok {
			return p.errAt(p.toks[0], "unexpected %s", describe(p.toks[0]))
		}
		return p.tidbError(err)
	}
	words := []string{strings.ToUpper(p.toks[0].text)}
	switch words[0] {
	case "CREATE", "DROP", "ALTER", "SHOW", "FLUSH", "RENAME", "LOAD", "LOCK", "GRANT", "REVOKE":
		if t := p.toks[1]; t.kind == tWord {
			words = append(words, strings.ToUpper(t.text))
		}
	}
	what := strings.Join(words, " ")
	hint := ""
	switch what {
	case "CREATE VIEW":
		hint = " (use CREATE MATERIALIZED VIEW)"
	case "DROP VIEW":
		hint = " (use DROP MATERIALIZED VIEW)"
	}
	return p.errAt(p.toks[0], "not supported: %s%s", what, hint)
}
