package expr_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// gen draws random expressions over the schema's columns. The binder's own
// typing rules (planner.Builder's Coerce, Compare, Arith, Call, ...) type
// them, so that they have exactly the shapes the binder gives the kernels:
// operands cast to their common type, DECIMAL sums one digit wider, DATE ±
// INTERVAL a DATE only for whole days, and so on.
type gen struct {
	r *rand.Rand
	b *planner.Builder
}

func newGen(r *rand.Rand) *gen { return &gen{r: r, b: planner.NewBuilder(nil, nil, sql.Pos{})} }

// bound returns e, or nil when the binder refused it (the caller draws
// again).
func bound(e plan.Expr, err error) plan.Expr {
	if err != nil {
		return nil
	}
	return e
}

// coerce converts e to t as the binder does; ok is false when it cannot.
func (g *gen) coerce(e plan.Expr, t types.T) (plan.Expr, bool) {
	c, err := g.b.Coerce(e, t)
	return c, err == nil
}

// target is one kind of expression the test covers: a built-in function,
// an operator, a predicate or the casts from one type. make returns nil
// when a draw does not bind (the caller draws again).
type target struct {
	name string
	make func(g *gen, depth int) plan.Expr
}

// targets returns every target: one per built-in function of plan's
// registry that can run (so a new function is covered without touching
// this test), then the operators, predicates and casts.
func targets() []target {
	targetsOnce.Do(func() { targetList = allTargets() })
	return targetList
}

var (
	targetsOnce sync.Once
	targetList  []target
)

func allTargets() []target {
	var ts []target
	for _, b := range plan.Builtins() {
		if notSupported(b) {
			continue
		}
		name := b.Name
		ts = append(ts, target{"func " + name, func(g *gen, depth int) plan.Expr { return g.call(name, depth) }})
	}
	ts = append(ts, target{"negation", (*gen).neg})
	for _, op := range []plan.BinOp{plan.OpAdd, plan.OpSub, plan.OpMul, plan.OpDiv, plan.OpIntDiv, plan.OpMod} {
		ts = append(ts, target{"arithmetic " + op.String(), func(g *gen, depth int) plan.Expr { return g.arith(op, depth) }})
	}
	for _, op := range []plan.BinOp{plan.OpAdd, plan.OpSub} {
		ts = append(ts, target{"date arithmetic " + op.String(), func(g *gen, depth int) plan.Expr { return g.timeArith(op, depth) }})
	}
	ts = append(ts, target{"BIGINT * INTERVAL", (*gen).intervalTimes})
	for _, op := range []plan.BinOp{plan.OpEq, plan.OpNe, plan.OpLt, plan.OpLe, plan.OpGt, plan.OpGe, plan.OpNullSafeEq} {
		ts = append(ts, target{"comparison " + op.String(), func(g *gen, depth int) plan.Expr { return g.compare(op, depth) }})
	}
	ts = append(ts,
		target{"AND", func(g *gen, depth int) plan.Expr { return g.logic(true, depth) }},
		target{"OR", func(g *gen, depth int) plan.Expr { return g.logic(false, depth) }},
		target{"NOT", (*gen).not}, target{"IS NULL", (*gen).isNull}, target{"IN", (*gen).in},
		target{"LIKE", (*gen).like}, target{"CASE", (*gen).caseWhen},
		target{"implicit VARCHAR to DOUBLE", (*gen).lenient})
	for _, from := range castSources {
		ts = append(ts, target{"CAST from " + from.String(), func(g *gen, depth int) plan.Expr { return g.cast(from, depth) }})
	}
	return ts
}

// notSupported reports whether a builtin never binds (NOW() and the other
// non-deterministic functions): its rule refuses every call as not
// supported.
func notSupported(b *plan.Builtin) bool {
	_, _, _, err := b.Resolve(nil, nil)
	if !errors.Is(err, plan.ErrNotSupported) {
		return false
	}
	for _, t := range argTypes {
		if _, _, _, err := b.Resolve([]types.T{t}, []bool{true}); !errors.Is(err, plan.ErrNotSupported) && err == nil {
			return false
		}
	}
	return true
}

// checkEveryBuiltinHasAGenerator fails for a function of the registry the
// generator cannot call: one whose argument types it never draws, or that
// needs an argument of a special form (a constant unit) it does not know.
func checkEveryBuiltinHasAGenerator(t *testing.T) {
	for _, b := range plan.Builtins() {
		if notSupported(b) {
			continue
		}
		g := newGen(rand.New(rand.NewPCG(1, 2)))
		ok := false
		for range 500 {
			if g.call(b.Name, 1) != nil {
				ok = true
				break
			}
		}
		if !ok {
			t.Errorf("the kernel fuzz test cannot generate a call of %s: give its arguments' types to argTypes, or a generator to specialArg", strings.ToUpper(b.Name))
		}
	}
}

// argTypes are the types drawn for function arguments and operands.
var argTypes = []types.T{types.BoolT, types.BigIntT, types.IntT, types.DoubleT, types.DecimalT(10, 2),
	types.DecimalT(38, 10), types.DecimalT(19, 0), types.VarcharT, types.DateT, types.TimestampT(0),
	types.TimestampT(3), types.IntervalT, types.NullT}

// castSources and castTargets are the types casts go from and to.
var (
	castSources = []types.T{types.NullT, types.BoolT, types.BigIntT, types.IntT, types.DoubleT, types.DecimalT(10, 2),
		types.DecimalT(38, 10), types.DecimalT(19, 0), types.VarcharT, types.DateT, types.TimestampT(0),
		types.TimestampT(3), types.IntervalT}
	castTargets = []types.T{types.BoolT, {Kind: types.TinyInt}, {Kind: types.SmallInt}, types.IntT, types.BigIntT,
		types.DoubleT, types.DecimalT(10, 2), types.DecimalT(38, 10), types.DecimalT(19, 0), types.DecimalT(4, 4),
		types.DecimalT(38, 0), types.VarcharT, types.DateT, types.TimestampT(0), types.TimestampT(1), types.TimestampT(3)}
)

// leaf is a column, a constant or a typed NULL of type t.
func (g *gen) leaf(t types.T) plan.Expr {
	if t.Kind == types.Null {
		return &plan.Const{Val: types.NullDatum, Typ: types.NullT}
	}
	var cols []int
	for o, ct := range schema {
		if ct == t {
			cols = append(cols, o)
		}
	}
	switch p := g.r.IntN(20); {
	case p < 9 && len(cols) > 0:
		o := pick(g.r, cols)
		return &plan.InputRef{Ord: o, Name: "c" + itoa(o), Typ: t, Null: true}
	case p < 17:
		return &plan.Const{Val: valueOf(g.r, t, g.r.IntN(3) == 0), Typ: t}
	}
	return &plan.Const{Val: types.NullDatum, Typ: t}
}

// of returns an expression of type t (or of a type the binder treats as
// t): a leaf, or a nested expression converted to t.
func (g *gen) of(t types.T, depth int) plan.Expr {
	if depth > 0 && g.r.IntN(5) < 2 && t.Kind != types.Null {
		ts := targets()
		for range 4 {
			tg := ts[g.r.IntN(len(ts))]
			if b, ok := plan.LookupBuiltin(strings.TrimPrefix(tg.name, "func ")); ok && b.Volatile {
				continue // its value is the clock's or random: checked alone
			}
			if e := tg.make(g, depth-1); e != nil {
				if c, ok := g.coerce(e, t); ok {
					return c
				}
			}
		}
	}
	return g.leaf(t)
}

// any returns an expression of a random type.
func (g *gen) any(depth int) plan.Expr { return g.of(pick(g.r, argTypes), depth) }

// call draws a call of the built-in function name.
func (g *gen) call(name string, depth int) plan.Expr {
	b, _ := plan.LookupBuiltin(name)
	hi := b.MaxArgs
	if hi < 0 {
		hi = b.MinArgs + 3
	}
	for range 20 {
		n := b.MinArgs + g.r.IntN(hi-b.MinArgs+1)
		args := make([]plan.Expr, n)
		for k := range args {
			if a := g.specialArg(name, k, depth); a != nil {
				args[k] = a
			} else {
				args[k] = g.any(depth)
			}
		}
		if e := bound(g.b.Call(name, args...)); e != nil {
			return e
		}
	}
	return nil
}

// specialArg returns an argument of the form a function needs (EXTRACT's
// unit and TRIM's direction are constants the binder writes) or, for
// patterns and formats, usually a meaningful one; nil for a random one.
func (g *gen) specialArg(name string, k, depth int) plan.Expr {
	str := func(s string) plan.Expr { return &plan.Const{Val: types.StringDatum(s), Typ: types.VarcharT} }
	switch {
	case name == "extract" && k == 0:
		u := pick(g.r, extractUnits)
		switch g.r.IntN(3) {
		case 0:
			u = strings.ToLower(u)
		case 1:
			u = " " + u + " "
		}
		return str(u)
	case name == "timestampdiff" && k == 0:
		return str(pick(g.r, []string{"MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"}))
	case name == "add_months" && k == 1 && g.r.IntN(2) == 0:
		return &plan.Const{Val: types.IntDatum(g.r.Int64N(60) - 30), Typ: types.BigIntT}
	case name == "trim" && k == 2:
		return str(pick(g.r, []string{"BOTH", "LEADING", "TRAILING", "both", "Leading"}))
	case (name == "date_format" || name == "to_char") && k == 1 && g.r.IntN(3) > 0:
		return str(g.format(name == "to_char"))
	case name == "regexp_extract" && k == 1 && g.r.IntN(3) > 0:
		return str(pick(g.r, regexps))
	case (name == "regexp_extract" || name == "split_part" || name == "substring" || name == "substr" ||
		name == "left" || name == "right" || name == "locate" || name == "position") && k == 2 && g.r.IntN(2) == 0:
		return &plan.Const{Val: types.IntDatum(g.r.Int64N(9) - 3), Typ: types.BigIntT}
	case (name == "lpad" || name == "rpad") && k == 1 && g.r.IntN(2) == 0:
		return &plan.Const{Val: types.IntDatum(g.r.Int64N(12) - 2), Typ: types.BigIntT}
	case name == "count_char" && k == 1 && g.r.IntN(2) == 0:
		return str(pick(g.r, []string{"a", "é", "", "ab", "%"}))
	}
	return nil
}

var extractUnits = []string{"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "DAYOFWEEK", "DOW", "DAYOFYEAR", "DOY",
	"HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND", "EPOCH"}

var regexps = []string{"a", "(a)(b)?", "[a-z]+", "^ab", "x|y", "(&|^)k=([^&]*)", "(é+)", `\d+`, `\bb`, "(?i)AB",
	"a*", "", "(", "[", `(\w+)\s(\w+)`, ".", "z$", "(x)?y"}

// format draws a DATE_FORMAT (MySQL) or TO_CHAR (PostgreSQL) format.
func (g *gen) format(pg bool) string {
	parts := []string{"%Y", "%y", "%m", "%c", "%d", "%e", "%D", "%H", "%k", "%h", "%I", "%l", "%i", "%s", "%S", "%f",
		"%p", "%M", "%b", "%W", "%a", "%w", "%j", "%T", "%r", "%%", "%x", "%", "-", ":", " ", "at", "é"}
	if pg {
		parts = []string{"YYYY", "yyyy", "MM", "DD", "DDD", "HH24", "HH12", "HH", "MI", "SS", "MS", "AM", "pm", "Am",
			"MONTH", "Month", "month", "MON", "Mon", "mon", "DAY", "Day", "day", "DY", "Dy", "dy", `"quoted MM"`, `"open`,
			"-", ":", " ", "x", "D", "M", "é"}
	}
	var b strings.Builder
	for range 1 + g.r.IntN(6) {
		b.WriteString(pick(g.r, parts))
	}
	return b.String()
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
