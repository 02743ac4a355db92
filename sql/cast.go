package sql

import (
	"strings"

	"github.com/eddysql/eddy/catalog/types"
)

// CastFunc is the function every CAST(expr AS type) becomes in the TiDB
// AST: __eddy_cast(expr, 'TYPE'), where TYPE is the target's canonical
// spelling (types.T.String(): BIGINT, VARCHAR, DECIMAL(10,2),
// TIMESTAMP(3), ...), so that any type eddy knows can be a target and the
// planner has one path for casts.
const CastFunc = "__eddy_cast"

// rewriteCast rewrites the CAST whose keyword is token j into a call of
// CastFunc. It returns the index of the AS before the type and of the
// closing ')'.
func (p *parser) rewriteCast(j, hi int) (as, closing int, err error) {
	open := j + 1
	as = -1
	closing, err = p.callClose(open, hi, "CAST", func(k int) error {
		if p.toks[k].is("AS") {
			as = k
		}
		return nil
	})
	if err != nil {
		return -1, -1, err
	}
	if as < 0 {
		return -1, -1, p.errAt(p.toks[closing], "expected AS <type> in CAST, found %s", describe(p.toks[closing]))
	}
	if as == open+1 {
		return -1, -1, p.errAt(p.toks[as], "expected an expression before AS in CAST")
	}
	t, err := p.typeBefore(as+1, closing, "the type in CAST")
	if err != nil {
		return -1, -1, err
	}
	cast := p.toks[j]
	p.edits = append(p.edits,
		edit{lo: cast.off, hi: cast.end, repl: CastFunc, anchor: cast.off},
		edit{lo: p.toks[as].off, hi: p.toks[closing-1].end, repl: ", '" + t.String() + "'", anchor: p.toks[as].off},
	)
	return as, closing, nil
}

// typeBefore parses the type that starts at token k and must end at the
// ')' at token closing (what names it for the error when it does not).
func (p *parser) typeBefore(k, closing int, what string) (types.T, error) {
	save := p.i
	p.i = k
	tn, err := p.parseType()
	end := p.i
	p.i = save
	if err != nil {
		return types.UnknownT, err
	}
	if end != closing {
		return types.UnknownT, p.errAt(p.toks[end], "expected ')' after %s, found %s", what, describe(p.toks[end]))
	}
	t, err := types.FromName(tn.Name, tn.Args)
	if err != nil {
		return types.UnknownT, p.errAt(p.toks[k], "%s", err.Error())
	}
	return t, nil
}

// callClose returns the index of the ')' that closes the call whose '('
// is token open (name is the call's, for the error when none does), and
// calls at with the index of every token inside it at its own depth.
func (p *parser) callClose(open, hi int, name string, at func(k int) error) (int, error) {
	depth := 0
	for k := open + 1; ; k++ {
		t := p.toks[k]
		switch {
		case k >= hi || t.kind == tEOF:
			return -1, p.errAt(p.toks[open], "missing ')' to close %s(", name)
		case t.isOp("("):
			depth++
		case t.isOp(")"):
			if depth == 0 {
				return k, nil
			}
			depth--
		case depth == 0:
			if err := at(k); err != nil {
				return -1, err
			}
		}
	}
}

// rewriteInterval makes the interval literal at token j (INTERVAL) one
// that MySQL reads: a plural unit (INTERVAL '10' SECONDS) becomes
// singular, Postgres' INTERVAL '10 seconds' becomes INTERVAL '10' SECOND,
// and MILLISECOND, which MySQL lacks, becomes MICROSECOND with the value
// times 1000. Other intervals are left to TiDB.
func (p *parser) rewriteInterval(j, hi int) {
	if j+1 >= hi {
		return
	}
	v := p.toks[j+1]
	if v.kind != tString && v.kind != tNumber {
		return
	}
	value := strings.TrimSpace(v.val)
	var unit token
	inString := false
	if j+2 < hi && p.toks[j+2].kind == tWord && isUnitWord(p.toks[j+2].text) {
		unit = p.toks[j+2]
	} else if f := strings.Fields(v.val); v.kind == tString && len(f) == 2 && isUnitWord(f[1]) {
		value = f[0]
		unit = token{kind: tWord, text: f[1]}
		inString = true
	} else {
		return
	}
	u := strings.ToUpper(unit.text)
	if !timeUnits[u] {
		u = strings.TrimSuffix(u, "S")
	}
	if u == "MILLISECOND" {
		if !isWholeNumber(value) {
			return
		}
		value += "000"
		u = "MICROSECOND"
	}
	if inString {
		// The unit was inside the string: rewrite the whole literal.
		p.edits = append(p.edits, edit{lo: v.off, hi: v.end, repl: quoteLike(v, value) + " " + u, anchor: v.off})
		return
	}
	if value != v.val {
		p.edits = append(p.edits, edit{lo: v.off, hi: v.end, repl: quoteLike(v, value), anchor: v.off})
	}
	if !strings.EqualFold(u, unit.text) {
		p.edits = append(p.edits, edit{lo: unit.off, hi: unit.end, repl: u, anchor: unit.off})
	}
}

// isUnitWord reports whether w is an interval unit, singular or plural,
// including MILLISECOND.
func isUnitWord(w string) bool {
	u := strings.ToUpper(w)
	return timeUnits[u] || timeUnits[strings.TrimSuffix(u, "S")] || u == "MILLISECOND" || u == "MILLISECONDS"
}

// isWholeNumber reports whether s is an optionally signed run of digits.
func isWholeNumber(s string) bool {
	s = strings.TrimPrefix(strings.TrimSpace(s), "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// quoteLike writes value as a literal of the same kind as t.
func quoteLike(t token, value string) string {
	if t.kind == tString {
		return "'" + strings.ReplaceAll(value, "'", "''") + "'"
	}
	return value
}

// ExtractFunc is the function EXTRACT(unit FROM expr) becomes when unit is
// one TiDB does not know (DOW, DOY, EPOCH, MILLISECOND, ...):
// __eddy_extract('UNIT', expr). EXTRACT with MySQL's units stays TiDB's.
const ExtractFunc = "__eddy_extract"

// extractUnits are the EXTRACT units eddy supports beyond MySQL's.
var extractUnits = map[string]bool{
	"DOW": true, "DAYOFWEEK": true, "DOY": true, "DAYOFYEAR": true,
	"EPOCH": true, "MILLISECOND": true, "ISODOW": true,
}

// rewriteExtract rewrites EXTRACT(unit FROM ...) at token j into a call of
// ExtractFunc when unit is one of extractUnits, and reports whether it did.
func (p *parser) rewriteExtract(j, hi int) bool {
	if j+3 >= hi || !p.toks[j+1].isOp("(") {
		return false
	}
	unit, from := p.toks[j+2], p.toks[j+3]
	name := strings.ToUpper(unit.text)
	if unit.kind != tWord || !extractUnits[name] || !from.is("FROM") {
		return false
	}
	kw := p.toks[j]
	p.edits = append(p.edits,
		edit{lo: kw.off, hi: kw.end, repl: ExtractFunc, anchor: kw.off},
		edit{lo: unit.off, hi: from.end, repl: "'" + name + "',", anchor: unit.off},
	)
	return true
}
