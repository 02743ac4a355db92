package sql

import (
	"math"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
)

// TVFPrefix starts the placeholder table names that stand for window
// functions in the TiDB AST: __eddy_tvf_1, __eddy_tvf_2, ... (see
// Query.TVF).
const TVFPrefix = "__eddy_tvf_"

// windowKinds maps the window function names to their kinds.
var windowKinds = map[string]WindowKind{
	"TUMBLE": Tumble, "HOP": Hop, "CUMULATE": Cumulate, "SESSION": Session,
}

// tvfSig describes the arguments of a window function.
type tvfSig struct {
	intervals []string // the roles of the interval arguments
	usage     string   // the arity error message
}

var tvfSigs = map[WindowKind]tvfSig{
	Tumble:   {[]string{"size"}, "TUMBLE takes 3 arguments: a table, a time column and a size"},
	Hop:      {[]string{"slide", "size"}, "HOP takes 4 arguments: a table, a time column, a slide and a size"},
	Cumulate: {[]string{"step", "maximum size"}, "CUMULATE takes 4 arguments: a table, a time column, a step and a maximum size"},
	Session:  {[]string{"gap"}, "SESSION takes 3 arguments: a table, a time column and a gap"},
}

// WindowFunction is a window table function of FROM, for SHOW FUNCTIONS.
type WindowFunction struct {
	Name      string // TUMBLE
	Signature string // TUMBLE(table, time_column, size INTERVAL) → ...
}

// WindowFunctions returns the window table functions FROM accepts, in
// the order of their kinds, with the arguments the parser takes.
func WindowFunctions() []WindowFunction {
	var out []WindowFunction
	for k := Tumble; k <= Session; k++ {
		args := []string{"table", "time_column"}
		for _, role := range tvfSigs[k].intervals {
			args = append(args, strings.ReplaceAll(role, " ", "_")+" INTERVAL")
		}
		out = append(out, WindowFunction{Name: k.String(),
			Signature: k.String() + "(" + strings.Join(args, ", ") + ") → the table's columns, window_start, window_end"})
	}
	return out
}

// parseTVF parses the window function call whose name is token j,
//
//	TUMBLE(bid, date_time, INTERVAL '10' SECOND)
//	TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' MINUTES)
//
// adds it to q and replaces the call by its placeholder table name. It
// returns the index after the call's ')'.
func (p *parser) parseTVF(j, hi int, q *Query) (int, error) {
	name := p.toks[j]
	kind := windowKinds[strings.ToUpper(name.text)]
	open := j + 1
	var args [][2]int // token index ranges
	depth, argStart, k := 0, open+1, open+1
	for ; ; k++ {
		t := p.toks[k]
		if k >= hi || t.kind == tEOF {
			return 0, p.errAt(p.toks[open], "missing ')' after the arguments of %s", kind)
		}
		if t.isOp("(") {
			depth++
		} else if t.isOp(")") {
			if depth == 0 {
				args = append(args, [2]int{argStart, k})
				break
			}
			depth--
		} else if t.isOp(",") && depth == 0 {
			args = append(args, [2]int{argStart, k})
			argStart = k + 1
		}
	}
	closing := k
	if len(args) == 1 && args[0][0] == args[0][1] {
		args = nil
	}
	sig := tvfSigs[kind]
	if len(args) != 2+len(sig.intervals) {
		return 0, p.errAt(name, "%s", sig.usage)
	}
	w := &WindowTVF{Kind: kind, Pos: p.pos(name)}
	var err error
	if w.Table, err = p.tvfName(args[0], "TABLE", "a table name as the first argument of "+kind.String()); err != nil {
		return 0, err
	}
	if w.TimeCol, err = p.tvfName(args[1], "DESCRIPTOR", "a time column as the second argument of "+kind.String()); err != nil {
		return 0, err
	}
	for i, role := range sig.intervals {
		a := args[2+i]
		iv, err := p.parseInterval(a[0], a[1], "the "+role+" of "+kind.String())
		if err != nil {
			return 0, err
		}
		w.Args = append(w.Args, iv)
	}
	if kind == Cumulate && w.Args[1].Ms%w.Args[0].Ms != 0 {
		return 0, p.sc.errAt(p.sc.offset(w.Args[1].Pos), "the maximum size of CUMULATE must be a multiple of its step")
	}
	p.tvfs++
	w.Placeholder = placeholder(p.tvfs)
	q.TVFs = append(q.TVFs, w)
	p.edits = append(p.edits, edit{lo: name.off, hi: p.toks[closing].end, repl: w.Placeholder, anchor: name.off})
	return closing + 1, nil
}

// tvfName parses the table or time column argument [lo, hi) of a window
// function: a name, or Flink's `TABLE name` / `DESCRIPTOR(name)` (keyword).
func (p *parser) tvfName(a [2]int, keyword, want string) (Ident, error) {
	lo, hi := a[0], a[1]
	toks := p.toks[lo:hi]
	bad := p.toks[lo]
	switch {
	case len(toks) == 1 && toks[0].isName():
		return p.nameOf(toks[0]), nil
	case keyword == "TABLE" && len(toks) == 2 && toks[0].is("TABLE") && toks[1].isName():
		return p.nameOf(toks[1]), nil
	case keyword == "DESCRIPTOR" && len(toks) == 4 && toks[0].is("DESCRIPTOR") && toks[1].isOp("(") && toks[2].isName() && toks[3].isOp(")"):
		return p.nameOf(toks[2]), nil
	case len(toks) > 1 && toks[0].isName() && !toks[0].is(keyword):
		bad = toks[1]
	}
	return Ident{}, p.errAt(bad, "expected %s, found %s", want, describe(bad))
}

// nameOf makes an Ident of a name token.
func (p *parser) nameOf(t token) Ident {
	return Ident{Name: t.val, Pos: p.pos(t), Quoted: t.kind == tQuoted}
}

// parseInterval parses the interval literal in tokens [lo, hi):
// INTERVAL '10' SECOND, INTERVAL 10 SECONDS or INTERVAL '10 seconds'. The
// value must be a positive whole number and the unit of fixed length.
func (p *parser) parseInterval(lo, hi int, what string) (Interval, error) {
	t := p.toks[lo]
	if lo == hi || !t.is("INTERVAL") {
		return Interval{}, p.errAt(t, "expected an interval such as INTERVAL '10' SECOND as %s, found %s", what, describe(t))
	}
	if lo+1 >= hi {
		return Interval{}, p.errAt(p.toks[lo+1], "expected a number after INTERVAL, found %s", describe(p.toks[lo+1]))
	}
	v := p.toks[lo+1]
	var value string
	switch v.kind {
	case tString:
		value = strings.TrimSpace(v.val)
	case tNumber:
		value = v.text
	default:
		if v.isOp("-") {
			return Interval{}, p.errAt(v, "an interval must be positive")
		}
		return Interval{}, p.errAt(v, "expected a number after INTERVAL, found %s", describe(v))
	}
	unitTok, next := v, lo+2
	var unit string
	if next < hi && p.toks[next].kind == tWord {
		unitTok = p.toks[next]
		unit = unitTok.text
		next++
	} else if f := strings.Fields(value); v.kind == tString && len(f) == 2 {
		value, unit = f[0], f[1]
	} else {
		u := p.toks[next]
		return Interval{}, p.errAt(u, "expected a unit (SECOND, MINUTE, HOUR, ...) after INTERVAL %s, found %s", shown(v.text), describe(u))
	}
	if next < hi {
		return Interval{}, p.errAt(p.toks[next], "unexpected %s after the interval", describe(p.toks[next]))
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		if strings.HasPrefix(value, "-") {
			return Interval{}, p.errAt(v, "an interval must be positive")
		}
		return Interval{}, p.errAt(v, "an interval must be a whole number of its unit, found %s", describe(v))
	}
	if n <= 0 {
		return Interval{}, p.errAt(v, "an interval must be positive")
	}
	ms, ok := types.IntervalUnitMs(unit)
	if !ok {
		u := strings.TrimSuffix(strings.ToUpper(unit), "S")
		if timeUnits[u] {
			return Interval{}, p.errAt(unitTok, "not supported yet: %s intervals in window functions (use MILLISECOND, SECOND, MINUTE, HOUR, DAY or WEEK)", u)
		}
		return Interval{}, p.errAt(unitTok, "unknown interval unit %s", shown(unit))
	}
	if n > math.MaxInt64/ms {
		return Interval{}, p.errAt(v, "interval is too large")
	}
	last := p.toks[hi-1]
	return Interval{Ms: n * ms, Text: p.sc.text[t.off:last.end], Pos: p.pos(t)}, nil
}

// timeUnits are MySQL's interval units (singular).
var timeUnits = map[string]bool{
	"MICROSECOND": true, "SECOND": true, "MINUTE": true, "HOUR": true, "DAY": true,
	"WEEK": true, "MONTH": true, "QUARTER": true, "YEAR": true,
	"SECOND_MICROSECOND": true, "MINUTE_MICROSECOND": true, "MINUTE_SECOND": true,
	"HOUR_MICROSECOND": true, "HOUR_SECOND": true, "HOUR_MINUTE": true,
	"DAY_MICROSECOND": true, "DAY_SECOND": true, "DAY_MINUTE": true, "DAY_HOUR": true,
	"YEAR_MONTH": true,
}
