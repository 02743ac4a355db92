package planner

import (
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// windowInfo remembers a window table function's columns for the
// aggregation above it.
type windowInfo struct {
	kind       plan.WindowKind
	start, end plan.ColumnID
	timeCol    plan.ColumnID
	size       int64 // TUMBLE/HOP size, CUMULATE max size, SESSION gap
	slide      int64
	pos        sql.Pos // where the function is called
}

// buildTVF binds a window table function in FROM: TUMBLE, HOP and CUMULATE
// become a Window node adding window_start and window_end; SESSION adds the
// two columns to the scope only, since a session is known only once its
// rows are aggregated (buildAggregate turns the aggregation into a
// SessionAggregate).
func (b *Builder) buildTVF(tvf *sql.WindowTVF, alias string) (plan.Node, *scope, error) {
	var in plan.Node
	var inSc *scope
	var err error
	if cte, ok := b.ctes[strings.ToLower(tvf.Table.Name)]; ok {
		// A window over a common table expression.
		in, inSc, err = b.buildDerived(cte.Query.Query, tvf.Table.Name, cte.ColNameList)
	} else {
		in, inSc, err = b.buildScanNamed(tvf.Table.Name, tvf.Table.Pos)
	}
	if err != nil {
		return nil, nil, err
	}
	if alias == "" || strings.HasPrefix(strings.ToLower(alias), sql.TVFPrefix) {
		alias = tvf.Table.Name
	}
	col, ambiguous, found := inSc.lookup("", tvf.TimeCol.Name)
	if !found || ambiguous {
		e := b.errAtPos(tvf.TimeCol.Pos, "unknown column '%s' in %s", tvf.TimeCol.Name, tvf.Kind)
		if s := inSc.suggest(tvf.TimeCol.Name); s != "" {
			e.Hint = "did you mean '" + s + "'?"
		}
		return nil, nil, e
	}
	tt := b.md.Column(col.id).Type
	if tt.Kind != types.Timestamp {
		return nil, nil, b.errAtPos(tvf.TimeCol.Pos, "%s needs a TIMESTAMP time column; '%s' is %s", tvf.Kind, tvf.TimeCol.Name, tt)
	}
	w := &windowInfo{timeCol: col.id, pos: tvf.Pos}
	switch tvf.Kind {
	case sql.Tumble:
		w.kind, w.size = plan.Tumble, tvf.Args[0].Ms
	case sql.Hop:
		w.kind, w.slide, w.size = plan.Hop, tvf.Args[0].Ms, tvf.Args[1].Ms
		if w.slide > w.size {
			return nil, nil, b.errAtPos(tvf.Args[0].Pos, "HOP's slide (%s) must not exceed its size (%s): rows between windows would belong to none", tvf.Args[0].Text, tvf.Args[1].Text)
		}
	case sql.Cumulate:
		w.kind, w.slide, w.size = plan.Cumulate, tvf.Args[0].Ms, tvf.Args[1].Ms
	case sql.Session:
		w.kind, w.size = plan.Session, tvf.Args[0].Ms
	}
	for _, a := range tvf.Args {
		if a.Ms <= 0 {
			return nil, nil, b.errAtPos(a.Pos, "%s needs positive intervals", tvf.Kind)
		}
	}
	w.start = b.md.AddColumn("window_start", alias, tt, false)
	w.end = b.md.AddColumn("window_end", alias, tt, false)
	sc := &scope{}
	for _, c := range inSc.cols {
		c.table = alias
		b.md.Column(c.id).Table = alias // references display alias.name
		sc.cols = append(sc.cols, c)
	}
	virtual := w.kind == plan.Session
	sc.cols = append(sc.cols,
		scopeCol{table: alias, name: "window_start", id: w.start, virtual: virtual},
		scopeCol{table: alias, name: "window_end", id: w.end, virtual: virtual})
	if b.windows == nil {
		b.windows = map[plan.ColumnID]*windowInfo{}
	}
	b.windows[w.start], b.windows[w.end] = w, w
	if virtual {
		return in, sc, nil
	}
	return &plan.Window{Input: in, Kind: w.kind, TimeCol: w.timeCol, Size: w.size, Slide: w.slide, Start: w.start, End: w.end}, sc, nil
}

// aliasWindow makes dst, a copy of column src under another name (window_start
// AS starttime), a window column too when src is one: an aggregate grouped
// by dst, here or above a derived table, then closes with the window.
// SESSION columns are not aliased: a session exists only inside the
// aggregation that makes it.
func (b *Builder) aliasWindow(src, dst plan.ColumnID) {
	w := b.windowOf(src)
	if w == nil || w.kind == plan.Session || src == dst {
		return
	}
	c := *w
	switch src {
	case w.start:
		c.start = dst
	case w.end:
		c.end = dst
	default:
		return
	}
	b.windows[dst] = &c
}

// windowOf returns the window whose window_start or window_end is id.
func (b *Builder) windowOf(id plan.ColumnID) *windowInfo {
	return b.windows[id]
}

// unaggregatedSession returns the SESSION window of a scope, if it has one:
// such a scope may only be read through an aggregation.
func (b *Builder) unaggregatedSession(sc *scope) *windowInfo {
	for _, col := range sc.cols {
		if col.virtual {
			return b.windowOf(col.id)
		}
	}
	return nil
}
