package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
)

// planContinuous plans the query behind a continuous object. A derived
// stream, an append-only sink and a continuous insert must only append:
// their windowed aggregations emit each window once, when it closes, and a
// query that still updates its rows is refused.
func (e *Engine) planContinuous(obj *catalog.Object, q *sql.Query, src *sql.Source, start sql.Pos, ps planSettings) (*compiledQuery, error) {
	ps.stateTTL = time.Duration(obj.StateTTLMs) * time.Millisecond
	if e.member != nil {
		// A cluster cuts the plan at its exchanges, and moves no join
		// between distributions at run time (cluster.go).
		ps.parallelism, ps.adaptiveJoin, ps.noShare = clusterPlanParallelism, adaptiveOff, true
	}
	ps.adaptiveJoins = ps.adaptiveJoin != adaptiveOff
	b := e.newBuilder(src, start)
	var bound *planner.Query
	var err error
	what := ""
	into, insert := e.insertTarget(obj)
	switch {
	case obj.Kind == catalog.View:
		bound, err = b.BuildQuery(q, continuous)
	case obj.Kind == catalog.Stream:
		what = "a derived stream (CREATE STREAM ... AS)"
		bound, err = b.BuildQuery(q, continuous)
	case insert:
		target, ok := e.cat.Get(into)
		if !ok {
			return nil, fmt.Errorf("the target stream '%s' no longer exists", into)
		}
		ins := &sql.Insert{Table: sql.Ident{Name: target.Name, Pos: start}, Query: q}
		if cols := obj.Options["columns"]; cols != "" {
			for _, c := range strings.Split(cols, ",") {
				ins.Columns = append(ins.Columns, sql.Ident{Name: c, Pos: start})
			}
		}
		what = "INSERT INTO ... SELECT"
		bound, err = b.BuildInsertQuery(target, ins)
		ps.parallelism = 1 // its replay after a restart must produce its rows in the same order
	default:
		conn, cerr := e.conns.Sink(obj.Connector())
		if cerr != nil {
			return nil, cerr
		}
		traits, cerr := conn.Check(obj.Options, e.connEnv())
		if cerr != nil {
			return nil, cerr
		}
		if traits.AppendOnly {
			what = "an append-only sink"
		}
		ps.parallelRoot = traits.Discards && e.member == nil
		bound, err = b.BuildQuery(q, continuous)
	}
	if err != nil {
		return nil, err
	}
	if what != "" && !bound.Root.Props().AppendOnly {
		// Windowed aggregations can append: each window once, when it closes.
		if werr := b.EmitOnWindowClose(bound.Root); werr == nil && bound.Root.Props().AppendOnly {
			bound.EmitOnWindowClose = true
		} else {
			return nil, &planner.BindError{Pos: q.Pos, Msg: fmt.Sprintf(
				"%s needs a query that only appends rows, but this one updates or deletes them (use a materialized view)", what),
				Line: src.Line(q.Pos)}
		}
	}
	own := bound.Root
	var reuses []viewReuse
	if obj.Kind == catalog.View && e.member == nil && ps.shareViews != "off" && ps.stateTTL == 0 && obj.Shed == nil {
		shared := *bound
		if shared.Root, reuses = e.shareViews(obj, bound.Md, bound.Root); len(reuses) > 0 {
			bound = &shared
		}
	}
	cq, err := e.optimize(bound, ps)
	if err != nil {
		return nil, err
	}
	cq.own, cq.reuses = own, reuses
	if err := checkShed(obj, cq); err != nil {
		return nil, err
	}
	return cq, nil
}
