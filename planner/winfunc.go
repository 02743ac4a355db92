package planner

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// winFuncs are the window functions that are neither aggregates nor
// ROW_NUMBER (which binds as a RowNumber node, for Top-N), by lower-case
// name.
var winFuncs = map[string]plan.WinFuncKind{
	"rank": plan.WinRank, "dense_rank": plan.WinDenseRank, "percent_rank": plan.WinPercentRank,
	"cume_dist": plan.WinCumeDist, "ntile": plan.WinNtile, "lag": plan.WinLag, "lead": plan.WinLead,
	"first_value": plan.WinFirstValue, "last_value": plan.WinLastValue, "nth_value": plan.WinNthValue,
}

// winFuncSigs are the signatures SHOW FUNCTIONS lists for winFuncs.
var winFuncSigs = map[plan.WinFuncKind]string{
	plan.WinRank:        "() OVER ([PARTITION BY ...] [ORDER BY ...]) → BIGINT",
	plan.WinDenseRank:   "() OVER ([PARTITION BY ...] [ORDER BY ...]) → BIGINT",
	plan.WinPercentRank: "() OVER ([PARTITION BY ...] [ORDER BY ...]) → DOUBLE",
	plan.WinCumeDist:    "() OVER ([PARTITION BY ...] [ORDER BY ...]) → DOUBLE",
	plan.WinNtile:       "(n BIGINT constant) OVER ([PARTITION BY ...] ORDER BY ...) → BIGINT",
	plan.WinLag:         "(x[, n BIGINT constant[, default]]) OVER ([PARTITION BY ...] ORDER BY ...) → the common type of x and default",
	plan.WinLead:        "(x[, n BIGINT constant[, default]]) OVER ([PARTITION BY ...] ORDER BY ...) → the common type of x and default",
	plan.WinFirstValue:  "(x) OVER ([PARTITION BY ...] ORDER BY ... [frame]) → the type of x",
	plan.WinLastValue:   "(x) OVER ([PARTITION BY ...] ORDER BY ... [frame]) → the type of x",
	plan.WinNthValue:    "(x, n BIGINT constant) OVER ([PARTITION BY ...] ORDER BY ... [frame]) → the type of x",
}

// usesFrame reports whether a window call reads its frame: the aggregates
// and the value functions do; the ranking and offset functions ignore any
// frame clause, as MySQL does.
func usesFrame(w *ast.WindowFuncExpr) bool {
	k := winFuncs[strings.ToLower(w.Name)]
	return k == 0 || k.UsesFrame()
}

// winFuncCall binds one window function call that is not an aggregate: its
// argument and default become columns below the OverAggregate, its
// constants are checked.
func (wb *windowBinder) winFuncCall(w *ast.WindowFuncExpr) (plan.WinFunc, error) {
	b := wb.b
	name := strings.ToUpper(w.Name)
	k := winFuncs[strings.ToLower(w.Name)]
	switch {
	case w.Distinct:
		return plan.WinFunc{}, b.errAt(w, "%s does not take DISTINCT", name)
	case w.IgnoreNull:
		return plan.WinFunc{}, b.unsupported(w, name+" ... IGNORE NULLS")
	case w.FromLast:
		return plan.WinFunc{}, b.unsupported(w, name+" ... FROM LAST")
	}
	f := plan.WinFunc{Kind: k, Typ: types.BigIntT}
	args := w.Args
	switch k {
	case plan.WinRank, plan.WinDenseRank, plan.WinPercentRank, plan.WinCumeDist:
		if len(args) != 0 {
			return f, b.errAt(w, "%s takes no argument", name)
		}
		if k == plan.WinPercentRank || k == plan.WinCumeDist {
			f.Typ = types.DoubleT
		}
		f.Text = name + "()"
		return f, nil
	case plan.WinNtile:
		if len(args) != 1 {
			return f, b.errAt(w, "NTILE takes one argument, the number of buckets")
		}
		if err := wb.needsOrder(w); err != nil {
			return f, err
		}
		n, err := b.windowConst(w, args[0], "NTILE's number of buckets must be a positive integer constant", 1)
		if err != nil {
			return f, err
		}
		f.N, f.Text = n, fmt.Sprintf("NTILE(%d)", n)
		return f, nil
	case plan.WinLag, plan.WinLead:
		if len(args) < 1 || len(args) > 3 {
			return f, b.errAt(w, "%s takes one to three arguments: a value, an offset and a default", name)
		}
		f.N = 1
		if len(args) > 1 {
			n, err := b.windowConst(w, args[1], name+"'s offset must be a non-negative integer constant", 0)
			if err != nil {
				return f, err
			}
			f.N = n
		}
	case plan.WinNthValue:
		if len(args) != 2 {
			return f, b.errAt(w, "NTH_VALUE takes two arguments: a value and a position")
		}
		n, err := b.windowConst(w, args[1], "NTH_VALUE's position must be a positive integer constant", 1)
		if err != nil {
			return f, err
		}
		f.N = n
	default:
		if len(args) != 1 {
			return f, b.errAt(w, "%s takes one argument", name)
		}
	}
	if err := wb.needsOrder(w); err != nil {
		return f, err
	}
	ctx := &exprCtx{sc: wb.sel.sc, agg: wb.sel.agg, clause: "a window function's argument"}
	arg, err := b.bindExpr(args[0], ctx)
	if err != nil {
		return f, err
	}
	f.Typ = arg.Type()
	text := arg.String()
	if (k == plan.WinLag || k == plan.WinLead) && len(args) == 3 {
		def, err := b.bindExpr(args[2], ctx)
		if err != nil {
			return f, err
		}
		if f.Typ, err = b.unionType(args[2], arg.Type(), def.Type()); err != nil {
			return f, err
		}
		if def, err = b.coerce(args[2], def, f.Typ); err != nil {
			return f, err
		}
		if arg, err = b.coerce(args[0], arg, f.Typ); err != nil {
			return f, err
		}
		f.Default = wb.column(def)
		text = fmt.Sprintf("%s, %d, %s", arg.String(), f.N, def.String())
	} else if k == plan.WinLag || k == plan.WinLead || k == plan.WinNthValue {
		text += fmt.Sprintf(", %d", f.N)
	}
	f.Arg = wb.column(arg)
	f.Text = name + "(" + text + ")"
	return f, nil
}

// needsOrder refuses a function whose result would depend on the order in
// which rows arrive without ORDER BY.
func (wb *windowBinder) needsOrder(w *ast.WindowFuncExpr) error {
	if w.Spec.OrderBy == nil {
		name := strings.ToUpper(w.Name)
		return wb.b.errAt(w, "%s() needs ORDER BY: without it the result depends on arrival order", name)
	}
	return nil
}

// windowConst evaluates a window function's integer constant argument of
// at least least (LAG's offset, NTILE's buckets, NTH_VALUE's position);
// anything else, a column included, fails with msg at the call.
func (b *Builder) windowConst(w *ast.WindowFuncExpr, e ast.ExprNode, msg string, least int64) (int64, error) {
	n, err := b.nonNegativeConst(e, "a window function", w, msg)
	if err != nil || n < least {
		return 0, b.errAt(w, "%s", msg)
	}
	return n, nil
}

// windowText returns a window call's text, which identifies it in the
// select list. TiDB restores no GROUPS frame, so such a call is restored
// with ROWS and marked.
func windowText(w *ast.WindowFuncExpr) string {
	if f := w.Spec.Frame; f != nil && f.Type == ast.Groups {
		c, fc := *w, *f
		fc.Type = ast.Rows
		c.Spec.Frame = &fc
		return "GROUPS " + restore(&c)
	}
	return restore(w)
}
