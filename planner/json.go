package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// JSON in the binder (docs/dialect-notes.md, "JSON"): JSON_VALUE's
// RETURNING type, and the conversions between JSON and other types.

// bindJSONValue binds JSON_VALUE(doc, path[, 'TYPE']), the front end's
// spelling of JSON_VALUE(doc, path RETURNING type): the call's type is
// the named one (VARCHAR without one).
func (b *Builder) bindJSONValue(x *ast.FuncCallExpr, c *exprCtx) (plan.Expr, error) {
	if len(x.Args) != 2 && len(x.Args) != 3 {
		return nil, b.errAt(x, "JSON_VALUE takes a document and a path, and RETURNING a type")
	}
	to := types.VarcharT
	if len(x.Args) == 3 {
		v, ok := x.Args[2].(*driver.ValueExpr)
		if !ok || v.Kind() != driver.KindString {
			return nil, b.errAt(x.Args[2], "JSON_VALUE's RETURNING names a type")
		}
		t, err := types.Parse(v.GetString())
		if err != nil {
			return nil, b.errAt(x.Args[2], "%v", err)
		}
		switch t.Kind {
		case types.Interval, types.JSON:
			return nil, b.errAt(x.Args[2], "JSON_VALUE cannot return %s (use JSON_EXTRACT for a JSON value)", t)
		}
		to = t
	}
	args := make([]plan.Expr, 2)
	for i := range args {
		a, err := b.bindExpr(x.Args[i], c)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	call, err := b.callBuiltin(x, "json_value", args, []ast.Node{x.Args[0], x.Args[1]})
	if err != nil {
		return nil, err
	}
	f := call.(*plan.Func)
	f.Typ = to
	f.Args = append(f.Args, &plan.Const{Val: types.StringDatum(to.String()), Typ: types.VarcharT})
	return f, nil
}

// castJSON converts e, of type from, to t when either is JSON and the
// conversion is not a plain plan.Cast (which takes text to JSON by
// checking and normalizing it, and JSON to VARCHAR as its text): numbers
// and booleans become their JSON text, dates and times JSON strings, and
// JSON becomes another type through its unquoted text (a JSON string
// "12" casts to 12, as in MySQL). It reports whether it handled it.
func (b *Builder) castJSON(n ast.Node, e plan.Expr, from, t types.T) (plan.Expr, bool, error) {
	switch {
	case from == t, from.Kind != types.JSON && t.Kind != types.JSON:
		return nil, false, nil
	case t.Kind == types.JSON:
		switch {
		case from.Kind == types.Varchar, from.Kind == types.Null:
			return nil, false, nil
		case from.IsNumeric():
			text, err := b.cast(n, e, types.VarcharT)
			if err != nil {
				return nil, true, err
			}
			return &plan.Cast{Arg: text, To: t, Pos: b.exprPos(n)}, true, nil
		case from.Kind == types.Boolean:
			// TRUE is JSON's true, as MySQL casts it.
			when := &plan.Const{Val: types.StringDatum("true"), Typ: types.JSONT}
			otherwise := &plan.Const{Val: types.StringDatum("false"), Typ: types.JSONT}
			none := &plan.Const{Val: types.NullDatum, Typ: types.JSONT}
			return &plan.Case{Whens: []plan.When{{Cond: e, Result: when}, {Cond: &plan.Not{Arg: e}, Result: otherwise}}, Else: none, Typ: types.JSONT}, true, nil
		}
		text, err := b.cast(n, e, types.VarcharT)
		if err != nil {
			return nil, true, err
		}
		return &plan.Func{Name: "json_quote", Args: []plan.Expr{text}, Typ: types.JSONT, Null: text.Nullable(), Pos: b.exprPos(n)}, true, nil
	case t.Kind == types.Varchar:
		return nil, false, nil // the JSON text itself
	case t.Kind == types.Interval:
		return nil, true, b.errAt(n, "cannot cast JSON to %s", t)
	}
	text := &plan.Func{Name: "json_unquote", Args: []plan.Expr{e}, Typ: types.VarcharT, Null: e.Nullable(), Pos: b.exprPos(n)}
	return &plan.Cast{Arg: text, To: t, Pos: b.exprPos(n)}, true, nil
}
