package sql

import (
	"fmt"
	"strings"

	tidbparser "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// queryOpts says where a query appears.
type queryOpts struct {
	changes  bool // EMIT CHANGES is allowed: the query is a SELECT statement
	sinkWith bool // a WITH ( at depth 0 ends the query: CREATE SINK's options
}

// parseQuery parses a query from the current token to the end of the
// statement (or to CREATE SINK's trailing WITH). Eddy's clauses (EMIT,
// window functions) are found here and rewritten; TiDB parses the rest.
func (p *parser) parseQuery(o queryOpts) (*Query, error) {
	start := p.i
	j := start
	for p.toks[j].isOp("(") {
		j++
	}
	if t := p.toks[j]; !t.is("SELECT") && !t.is("WITH") {
		return nil, p.errAt(p.toks[start], "expected a query (SELECT ...), found %s", describe(p.toks[start]))
	}
	end := p.queryEnd(start, o.sinkWith)
	q := &Query{Pos: p.pos(p.toks[start])}
	if err := p.scanRegion(start, end, q, o.changes); err != nil {
		return nil, err
	}
	lo, hi := p.toks[start].off, p.toks[end-1].end
	q.Text = p.sc.text[lo:hi]
	p.setJob(&tidbJob{lo: lo, hi: hi, fill: func(stmts []ast.StmtNode) error {
		if len(stmts) == 1 {
			switch s := stmts[0].(type) {
			case *ast.SelectStmt:
				if s.SelectIntoOpt != nil {
					return p.errAt(p.toks[start], "not supported: SELECT ... INTO")
				}
				q.Select = s
			case *ast.SetOprStmt:
				q.Select = s
			}
			if q.Select != nil {
				p.placeTables(q)
				p.placePositions(q)
				p.setDerivedColumns(q)
				p.restoreFieldTexts(q)
				scaledCalls(q)
				return p.markFullJoins(q)
			}
		}
		return p.errAt(p.toks[start], "expected a query")
	}})
	p.i = end
	return q, nil
}

// derivedColumns recognizes the column list of a derived table, `(...) [AS]
// t(a, b)`, starting at token j (after the closing parenthesis): TiDB does
// not parse it, so it is blanked and recorded in q.DerivedColumns, and
// setDerivedColumns puts it on the TableSource after the parse. It returns
// the index after the list.
func (p *parser) derivedColumns(j, hi int, q *Query) (int, bool) {
	if j < hi && p.toks[j].is("AS") {
		j++
	}
	if j+2 >= hi || !p.toks[j].isName() || isReserved(p.toks[j]) || !p.toks[j+1].isOp("(") {
		return 0, false
	}
	alias := p.toks[j]
	open := j + 1
	var names []Ident
	k := open + 1
	for ; k < hi; k += 2 {
		if !p.toks[k].isName() {
			return 0, false
		}
		names = append(names, Ident{Name: p.toks[k].val, Pos: p.sc.pos(p.toks[k].off), Quoted: p.toks[k].kind == tQuoted})
		if p.toks[k+1].isOp(")") {
			break
		}
		if !p.toks[k+1].isOp(",") {
			return 0, false
		}
	}
	if k >= hi {
		return 0, false
	}
	closing := k + 1
	p.edits = append(p.edits, edit{lo: p.toks[open].off, hi: p.toks[closing].end, blank: true})
	q.DerivedColumns = append(q.DerivedColumns, DerivedColumns{Alias: alias.val, Names: names})
	return closing + 1, true
}

// tidbReserved holds TiDB's reserved words (upper case): unquoted, they are
// never an alias, so `(...) WHERE (x)` is no derived column list.
var tidbReserved = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range tidbparser.Keywords {
		if k.Reserved {
			m[k.Word] = true
		}
	}
	return m
}()

// isReserved reports whether t is a bare word TiDB reserves.
func isReserved(t token) bool {
	return t.kind == tWord && tidbReserved[strings.ToUpper(t.text)]
}

// queryEnd returns the index of the token after the query that starts at
// start: the end of the statement, or with sinkWith the WITH of a
// `WITH (` at depth 0 (a CTE's WITH is followed by a name, not '(').
func (p *parser) queryEnd(start int, sinkWith bool) int {
	return p.scanTo(start, func(j, depth int) bool {
		return sinkWith && depth == 0 && j > start && p.toks[j].is("WITH") && p.toks[j+1].isOp("(")
	})
}

// scanTo returns the index of the first token from start on at which stop,
// given the token's index and the depth of the parentheses around it,
// reports true, or the index of the end of the input.
func (p *parser) scanTo(start int, stop func(j, depth int) bool) int {
	depth := 0
	for j := start; ; j++ {
		t := p.toks[j]
		if t.kind == tEOF || stop(j, depth) {
			return j
		}
		switch {
		case t.isOp("("):
			depth++
		case t.isOp(")"):
			depth--
		}
	}
}

// fromEnders are the keywords that end a FROM clause at their depth.
var fromEnders = map[string]bool{
	"SELECT": true, "WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true,
	"LIMIT": true, "WINDOW": true, "UNION": true, "EXCEPT": true, "INTERSECT": true,
	"QUALIFY": true,
}

// scanRegion walks the tokens [lo, hi) that TiDB will parse and records
// the rewrites they need: CAST targets, interval units, and (when q is not
// nil, in a query) window functions in FROM and EMIT clauses. changes says
// whether EMIT CHANGES is allowed.
func (p *parser) scanRegion(lo, hi int, q *Query, changes bool) error {
	depth := 0
	inFrom := []bool{false}     // inFrom[d]: depth d is in a FROM clause
	tableParen := []bool{false} // tableParen[d]: the parenthesis opening depth d is a FROM item
	// query[d]: depth d holds a SELECT, so a FROM there starts a FROM
	// clause; in a function's parentheses it is part of the call
	// (EXTRACT(unit FROM x), TRIM(c FROM x), SUBSTRING(x FROM n)).
	query := []bool{false}
	skip := map[int]int{} // token index → index to resume at
	for j := lo; j < hi; j++ {
		if to, ok := skip[j]; ok {
			j = to - 1
			continue
		}
		t := p.toks[j]
		var prev token
		if j > lo {
			prev = p.toks[j-1]
		}
		next := p.toks[min(j+1, len(p.toks)-1)]
		if q != nil && t.isName() && inFrom[depth] && isTableStart(prev) && !(t.kind == tWord && notTables[strings.ToUpper(t.text)]) {
			p.tableToks = append(p.tableToks, j)
		}
		if t.kind == tNumber && countDigits(t.text) > maxDigits {
			return p.errAt(t, "a number may have at most %d digits", maxDigits)
		}
		switch {
		case t.isOp("("):
			table := inFrom[depth] && isTableStart(prev)
			depth++
			if depth == len(inFrom) {
				inFrom = append(inFrom, false)
				tableParen = append(tableParen, false)
				query = append(query, false)
			}
			inFrom[depth], tableParen[depth], query[depth] = table, table, false
		case t.isOp(")"):
			if depth > 0 {
				if q != nil && tableParen[depth] {
					if n, ok := p.derivedColumns(j+1, hi, q); ok {
						skip[j+1] = n
					}
				}
				depth--
			}
		case t.kind != tWord || prev.isOp("."):
			// Only bare, unqualified words are keywords.
		case t.is("FROM") && query[depth] || t.is("JOIN"):
			inFrom[depth] = true
		case fromEnders[strings.ToUpper(t.text)]:
			inFrom[depth] = false
			query[depth] = query[depth] || t.is("SELECT")
		case q != nil && inFrom[depth] && t.is("FULL") && (next.is("JOIN") || next.is("OUTER") && p.toks[j+2].is("JOIN")):
			// TiDB has no FULL JOIN: it parses a LEFT JOIN, which
			// markFullJoins finds again after the parse.
			p.fullJoins = append(p.fullJoins, j)
			p.edits = append(p.edits, edit{lo: t.off, hi: t.end, repl: "LEFT", anchor: t.off})
		case q != nil && t.is("EMIT") && (next.is("CHANGES") || next.is("ON")):
			n, err := p.emitClause(j, hi, depth, q, changes)
			if err != nil {
				return err
			}
			j = n - 1
		case q != nil && t.is("TABLE") && next.isOp("(") && inFrom[depth] && isTableStart(prev) &&
			windowKinds[strings.ToUpper(p.toks[j+2].text)] != 0 && p.toks[j+2].kind == tWord && p.toks[j+3].isOp("("):
			// Flink's FROM TABLE(TUMBLE(...)): the wrapper goes with the call.
			n, err := p.parseTVF(j+2, hi, q)
			if err != nil {
				return err
			}
			if !p.toks[n].isOp(")") || n >= hi {
				return p.errAt(p.toks[n], "expected ')' to close TABLE(, found %s", describe(p.toks[n]))
			}
			e := &p.edits[len(p.edits)-1]
			e.lo, e.hi = t.off, p.toks[n].end
			j = n
		case windowKinds[strings.ToUpper(t.text)] != 0 && next.isOp("("):
			if q == nil || !inFrom[depth] || !isTableStart(prev) {
				return p.errAt(t, "%s is a window table function: it belongs in FROM", strings.ToUpper(t.text))
			}
			n, err := p.parseTVF(j, hi, q)
			if err != nil {
				return err
			}
			j = n - 1
		case t.is("CAST") && next.isOp("("):
			as, closing, err := p.rewriteCast(j, hi)
			if err != nil {
				return err
			}
			skip[as] = closing
		case t.is("JSON_VALUE") && next.isOp("("):
			ret, closing, err := p.rewriteJSONValue(j, hi)
			if err != nil {
				return err
			}
			if ret >= 0 {
				skip[ret] = closing
			}
		case t.is("INTERVAL"):
			p.rewriteInterval(j, hi)
		case ScaledAggregates[strings.ToLower(t.text)] && next.isOp("("):
			p.scaledCountStar(j)
		case t.is("EXTRACT") && next.isOp("("):
			if p.rewriteExtract(j, hi) {
				// Resume past the unit and FROM, after the parenthesis
				// (which must still open a depth of its own).
				skip[j+2] = j + 4
			}
		}
	}
	return nil
}

// emitClause handles EMIT CHANGES or EMIT ON WINDOW CLOSE at token j: it
// sets the query's flag and blanks the clause for TiDB. It returns the
// index after the clause.
func (p *parser) emitClause(j, hi, depth int, q *Query, changes bool) (int, error) {
	t := p.toks[j]
	if depth > 0 {
		return 0, p.errAt(t, "EMIT must come at the end of the outermost query")
	}
	var n int
	var what string
	if p.toks[j+1].is("CHANGES") {
		what = "EMIT CHANGES"
		if !changes {
			return 0, p.errAt(t, "EMIT CHANGES is only for a SELECT statement (a push query)")
		}
		if q.EmitChanges {
			return 0, p.errAt(t, "EMIT CHANGES is given twice")
		}
		q.EmitChanges = true
		n = j + 2
	} else {
		what = "EMIT ON WINDOW CLOSE"
		if !p.toks[j+2].is("WINDOW") || !p.toks[j+3].is("CLOSE") {
			bad := p.toks[j+2]
			if bad.is("WINDOW") {
				bad = p.toks[j+3]
			}
			return 0, p.errAt(bad, "expected WINDOW CLOSE after EMIT ON, found %s", describe(bad))
		}
		if q.EmitOnWindowClose {
			return 0, p.errAt(t, "EMIT ON WINDOW CLOSE is given twice")
		}
		q.EmitOnWindowClose = true
		n = j + 4
	}
	if nt := p.toks[n]; n < hi && !nt.is("LIMIT") && !nt.is("ORDER") && !nt.is("EMIT") {
		return 0, p.errAt(nt, "only ORDER BY and LIMIT may follow %s, found %s", what, describe(nt))
	}
	p.edits = append(p.edits, edit{lo: t.off, hi: p.toks[n-1].end, blank: true})
	return n, nil
}

// maxDigits is the most digits a numeric literal may have: MySQL's
// largest DECIMAL precision (and within what TiDB's literal decimals hold).
const maxDigits = 65

// countDigits counts the decimal digits of a number's text.
func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			n++
		}
	}
	return n
}

// notTables are the words that may follow FROM but are no table's name.
var notTables = map[string]bool{"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true, "LATERAL": true}

// isTableStart reports whether a table name may follow token t in FROM.
func isTableStart(t token) bool {
	return t.is("FROM") || t.is("JOIN") || t.isOp(",") || t.isOp("(")
}

// placeholder returns the table name that stands for the n-th window
// function of a statement.
func placeholder(n int) string { return fmt.Sprintf("%s%d", TVFPrefix, n) }
