package difftest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
)

// ColumnsFunc returns the column names of a relation SQLite holds (a
// source's table or a view created earlier), for the translations that
// must list them.
type ColumnsFunc func(relation string) ([]string, error)

// Translate rewrites query, written in eddy's dialect, into a SQLite query
// over the tables the harness loads, where every temporal value is an
// INTEGER of epoch milliseconds. It translates what differs and that the
// corpus uses:
//
//   - TIMESTAMP '...' and DATE '...' literals become milliseconds, and
//     INTERVAL literals their length in milliseconds, so that time
//     arithmetic and comparisons are integer arithmetic;
//   - `/` (always DOUBLE in eddy) multiplies by 1.0 first, DIV becomes
//     SQLite's integer `/` (the corpus uses DIV on integers only), `<=>`
//     becomes IS, and `&&` AND (`||` concatenates in both: eddy parses
//     with PIPES_AS_CONCAT);
//   - functions: see funcRewriteFor (time functions through strftime over
//     whole seconds, CONCAT as `||`, CAST with MySQL's rounding, ...);
//   - the window table functions TUMBLE, HOP, CUMULATE and SESSION become
//     subqueries that add window_start and window_end (see translate_tvf.go);
//   - UNION, INTERSECT and EXCEPT DISTINCT lose their DISTINCT, which
//     SQLite does not take;
//   - EMIT ON WINDOW CLOSE is dropped (it changes when rows appear, not
//     the final result).
//
// A function the translator does not know is passed through unchanged, so
// that SQLite's own (COUNT, SUM, ROW_NUMBER, COALESCE, ...) work; one that
// eddy has but SQLite lacks and that cannot be translated faithfully
// (REVERSE, SPLIT_PART, REGEXP_EXTRACT, APPROX_COUNT_DISTINCT) is an error,
// and the corpus entry must carry its SQLite query.
func Translate(query string, columns ColumnsFunc) (string, error) {
	toks, err := lex(query)
	if err != nil {
		return "", err
	}
	tr := &translator{columns: columns}
	return tr.seq(toks)
}

// translator holds what a translation needs besides the query.
type translator struct {
	columns ColumnsFunc
}

// seq translates a sequence of tokens.
func (tr *translator) seq(toks []token) (string, error) {
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.kind {
		case tQuoted:
			b.WriteString(`"` + strings.ReplaceAll(t.text[1:len(t.text)-1], `"`, `""`) + `"`)
			continue
		case tOp:
			b.WriteString(opRewrites(t.text))
			continue
		case tIdent:
		default:
			b.WriteString(t.text)
			continue
		}
		j := next(toks, i+1)
		if j < len(toks) && toks[j].is("(") && !operatorWords[strings.ToUpper(t.text)] {
			end, err := closing(toks, j)
			if err != nil {
				return "", err
			}
			s, err := tr.call(t.text, toks[j+1:end], toks[end+1:])
			if err != nil {
				return "", fmt.Errorf("%s: %w", strings.ToUpper(t.text), err)
			}
			b.WriteString(s)
			i = end
			continue
		}
		switch strings.ToUpper(t.text) {
		case "INTERVAL":
			ms, n, err := interval(toks, i)
			if err != nil {
				return "", err
			}
			b.WriteString("(" + strconv.FormatInt(ms, 10) + ")")
			i = n - 1
		case "TIMESTAMP", "DATE":
			if j < len(toks) && toks[j].kind == tString {
				ms, err := types.ParseTimestamp(toks[j].str())
				if err != nil {
					return "", err
				}
				b.WriteString(strconv.FormatInt(ms, 10))
				i = j
				continue
			}
			b.WriteString(t.text)
		case "UNION", "INTERSECT", "EXCEPT":
			// SQLite spells the DISTINCT of a set operation by leaving it out.
			b.WriteString(t.text)
			if j < len(toks) && toks[j].is("DISTINCT") {
				i = j
			}
		case "DIV":
			b.WriteString("/")
		case "EMIT":
			// EMIT ON WINDOW CLOSE: the three words after EMIT go too.
			for k := 0; k < 3; k++ {
				i = next(toks, i+1)
			}
		default:
			b.WriteString(t.text)
		}
	}
	return b.String(), nil
}

// operatorWords are the words the translator rewrites that a '(' may
// follow without making them function calls.
var operatorWords = map[string]bool{"DIV": true, "INTERVAL": true, "EMIT": true}

// opRewrites translates an operator.
func opRewrites(op string) string {
	switch op {
	case "/":
		return "*1.0/"
	case "<=>":
		return " IS "
	case "&&":
		return " AND "
	}
	return op
}

// call translates name(args) followed by rest (the tokens after the call
// up to the end of the enclosing sequence).
func (tr *translator) call(name string, args, rest []token) (string, error) {
	lname := strings.ToLower(name)
	if w, ok := windowRewriteFor(lname); ok {
		s, err := w(tr, splitTop(args), rest)
		if err == nil && !hasAlias(rest) {
			// Columns stay qualified by the table's name, as in eddy.
			s += " AS " + text(trim(splitTop(args)[0]))
		}
		return s, err
	}
	if f, ok := funcRewriteFor(lname); ok {
		return f(tr, splitTop(args))
	}
	if why, ok := untranslatable[lname]; ok {
		return "", fmt.Errorf("cannot be translated to SQLite (%s): give the entry a `-- sqlite` query", why)
	}
	inner, err := tr.seq(args)
	if err != nil {
		return "", err
	}
	return name + "(" + inner + ")", nil
}

// clauseWords are the words that can follow a table in FROM without
// being its alias.
var clauseWords = map[string]bool{
	"WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true, "LIMIT": true, "JOIN": true,
	"INNER": true, "LEFT": true, "RIGHT": true, "FULL": true, "CROSS": true, "NATURAL": true,
	"ON": true, "USING": true, "UNION": true, "INTERSECT": true, "EXCEPT": true, "EMIT": true, "WINDOW": true,
}

// hasAlias reports whether the tokens after a table in FROM start with its
// alias.
func hasAlias(rest []token) bool {
	i := next(rest, 0)
	if i >= len(rest) {
		return false
	}
	t := rest[i]
	return t.is("AS") || t.kind == tQuoted || t.kind == tIdent && !clauseWords[strings.ToUpper(t.text)]
}

// untranslatable names eddy functions that SQLite lacks and that have no
// faithful translation, with why.
var untranslatable = map[string]string{
	"reverse":               "no REVERSE",
	"split_part":            "no SPLIT_PART",
	"regexp_extract":        "no regular expressions",
	"approx_count_distinct": "an estimate, not an exact count",
	"to_char":               "PostgreSQL patterns",
}

// args translates every argument of a call.
func (tr *translator) args(args [][]token) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		s, err := tr.seq(trim(a))
		if err != nil {
			return nil, err
		}
		out[i] = "(" + s + ")"
	}
	return out, nil
}

// interval parses INTERVAL n UNIT or INTERVAL 'n' UNIT starting at toks[i]
// and returns its length in milliseconds and the index after it.
func interval(toks []token, i int) (ms int64, end int, err error) {
	j := next(toks, i+1)
	neg := false
	if j < len(toks) && toks[j].is("-") {
		neg, j = true, next(toks, j+1)
	}
	if j >= len(toks) || (toks[j].kind != tNumber && toks[j].kind != tString) {
		return 0, 0, fmt.Errorf("INTERVAL needs a constant length")
	}
	lit := toks[j].text
	if toks[j].kind == tString {
		lit = toks[j].str()
	}
	n, err := strconv.ParseInt(strings.TrimSpace(lit), 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("INTERVAL length %q is not an integer", lit)
	}
	k := next(toks, j+1)
	if k >= len(toks) || toks[k].kind != tIdent {
		return 0, 0, fmt.Errorf("INTERVAL needs a unit")
	}
	unit, ok := types.IntervalUnitMs(strings.ToUpper(toks[k].text))
	if !ok {
		return 0, 0, fmt.Errorf("INTERVAL unit %s has no fixed length", toks[k].text)
	}
	if neg {
		n = -n
	}
	return n * unit, k + 1, nil
}

// intervalArg returns the length of an argument that must be an INTERVAL
// literal.
func intervalArg(arg []token) (int64, error) {
	arg = trim(arg)
	if len(arg) == 0 || !arg[0].is("INTERVAL") {
		return 0, fmt.Errorf("expected an INTERVAL literal, got %q", text(arg))
	}
	ms, end, err := interval(arg, 0)
	if err == nil && next(arg, end) != len(arg) {
		err = fmt.Errorf("unexpected %q after the INTERVAL", text(arg[end:]))
	}
	return ms, err
}

// floorMod returns SQLite text for x mod m rounded toward negative
// infinity (SQLite's % keeps the dividend's sign), for m > 0.
func floorMod(x string, m int64) string {
	return fmt.Sprintf("((((%s) %% %d) + %d) %% %d)", x, m, m, m)
}

// floorTo returns SQLite text for x rounded down to a multiple of m.
func floorTo(x string, m int64) string {
	return fmt.Sprintf("((%s) - %s)", x, floorMod(x, m))
}

// seconds returns SQLite text for the whole seconds since the epoch of a
// millisecond value, rounded down (for strftime's 'unixepoch').
func seconds(ms string) string {
	return "(" + floorTo(ms, 1000) + " / 1000)"
}
