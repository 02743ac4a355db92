package engine

import (
	"context"
	"errors"
	"strconv"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
)

// alter runs ALTER MATERIALIZED VIEW | SINK | STREAM name SET (options):
// SET (parallelism = N) rescales the object's running query
// (Engine.Rescale), whose report comes back as a notice.
func (s *Session) alter(ctx context.Context, st *sql.Alter) (*Result, error) {
	src := st.Source()
	kind := map[sql.ObjectKind]catalog.Kind{sql.ObjStream: catalog.Stream, sql.ObjView: catalog.View, sql.ObjSink: catalog.Sink}[st.Kind]
	obj, found := s.eng.cat.Get(st.Name.Name)
	switch {
	case !found:
		e := bindErr(st.Name.Pos, src, "unknown %s '%s'", kind, st.Name.Name)
		e.Cause = &catalog.Error{Code: catalog.ErrNotFound, Name: st.Name.Name, Msg: e.Msg}
		return nil, e
	case obj.Kind != kind:
		e := bindErr(st.Name.Pos, src, "'%s' is a %s, not a %s", obj.Name, obj.Kind, kind)
		e.Cause = &catalog.Error{Code: catalog.ErrWrongKind, Name: obj.Name, Msg: e.Msg}
		return nil, e
	case obj.Query == "":
		return nil, bindErr(st.Name.Pos, src, "stream '%s' runs no query to alter: only a derived stream (CREATE STREAM ... AS SELECT) does", obj.Name)
	}
	parallelism := 0
	var at sql.Pos
	for _, o := range st.Set {
		switch o.Key {
		case "parallelism":
			n, err := strconv.Atoi(o.Value)
			if err != nil || n < 1 || n > maxParallelism {
				return nil, bindErr(o.ValuePos, src, "parallelism must be an integer from 1 to %d, got '%s'", maxParallelism, o.Value)
			}
			parallelism, at = n, o.ValuePos
		default:
			return nil, bindErr(o.KeyPos, src, "unknown option '%s' of ALTER %s ... SET: it sets parallelism", o.Key, st.Kind)
		}
	}
	rep, err := s.eng.Rescale(ctx, obj.Name, parallelism)
	if err != nil {
		var re *RescaleError
		if !errors.As(err, &re) {
			return nil, err
		}
		switch re.Code {
		case RescaleNotSupported:
			return nil, &planner.NotSupportedError{Feature: re.Msg, Pos: at, Line: src.Line(at)}
		case RescaleBadParallelism:
			return nil, bindErr(at, src, "%s", re.Msg)
		}
		e := bindErr(st.Name.Pos, src, "%s", re.Msg)
		e.Cause = re
		return nil, e
	}
	res := ok("ALTER " + st.Kind.String())
	if rep.From == rep.To {
		// Nothing moved, so the engine's notices say nothing of it.
		res.Notices = append(res.Notices, rep.String())
	}
	return res, nil
}
