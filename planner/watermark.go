package planner

import (
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// BindWatermark checks `WATERMARK FOR col AS expr` over a stream's columns
// and returns the watermark's delay: expr must be col itself (delay 0) or
// col minus a constant day-time interval. The column must be a TIMESTAMP.
func (b *Builder) BindWatermark(cols []catalog.Column, wm *sql.Watermark) (int64, error) {
	sc := &scope{}
	col := -1
	for i, c := range cols {
		id := b.md.AddColumn(c.Name, "", c.Type, c.Nullable)
		sc.cols = append(sc.cols, scopeCol{name: c.Name, id: id})
		if strings.EqualFold(c.Name, wm.Column.Name) {
			col = i
		}
	}
	if col < 0 {
		e := b.errAtPos(wm.Column.Pos, "unknown column '%s' in WATERMARK", wm.Column.Name)
		if s := sc.suggest(wm.Column.Name); s != "" {
			e.Hint = "did you mean '" + s + "'?"
		}
		return 0, e
	}
	if cols[col].Type.Kind != types.Timestamp {
		return 0, b.errAtPos(wm.Column.Pos, "the event-time column '%s' must be a TIMESTAMP, not %s", cols[col].Name, cols[col].Type)
	}
	e, err := b.bindExpr(wm.Expr, &exprCtx{sc: sc, clause: "WATERMARK"})
	if err != nil {
		return 0, err
	}
	want := sc.cols[col].id
	isCol := func(x plan.Expr) bool {
		r, ok := x.(*plan.ColRef)
		return ok && r.ID == want
	}
	switch x := e.(type) {
	case *plan.ColRef:
		if isCol(x) {
			return 0, nil
		}
	case *plan.Binary:
		if c, ok := x.R.(*plan.Const); ok && x.Op == plan.OpSub && isCol(x.L) && c.Typ.Kind == types.Interval && !c.Val.Null {
			if c.Val.I < 0 {
				return 0, b.errAt(wm.Expr, "a watermark delay cannot be negative")
			}
			return c.Val.I, nil
		}
	}
	return 0, b.errAt(wm.Expr, "WATERMARK FOR %s must be %s or %s - INTERVAL <constant>", cols[col].Name, cols[col].Name, cols[col].Name)
}
