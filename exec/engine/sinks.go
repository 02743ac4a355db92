package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
)

// createSink runs CREATE SINK k FROM v WITH (...) and CREATE SINK k AS
// SELECT ... WITH (...): a continuous query writing its changes to a
// connector. It returns once the sink has opened its output, or failed to
// (opening never waits: a FIFO with no reader fails the sink at once), so
// that SHOW SINKS lists a sink that cannot open as failed right away.
func (s *Session) createSink(ctx context.Context, st *sql.CreateSink) (*Result, error) {
	src := st.Source()
	if r, err := s.exists("CREATE SINK", st.Name, st.IfNotExists, src); r != nil || err != nil {
		return r, err
	}
	obj, q, qsrc, err := s.sinkObject(st)
	if err != nil {
		return nil, err
	}
	if err := s.createContinuous(obj, q, qsrc, st.Start); err != nil {
		if se := (*shedWindowError)(nil); errors.As(err, &se) {
			return nil, shedErrorAt(err, st.With, src)
		}
		if st.From != nil {
			var be *planner.BindError
			if asBind(err, &be) {
				be.Pos, be.Line = st.From.Pos, st.Source().Line(st.From.Pos)
			}
		}
		return nil, err
	}
	s.eng.mu.Lock()
	rq := s.eng.queries[lower(obj.Name)]
	s.eng.mu.Unlock()
	if rq != nil && rq.job != nil {
		if err := rq.job.WaitOpened(ctx); err != nil {
			return nil, err
		}
	}
	return ok("CREATE SINK"), nil
}

// sinkObject is the catalog object of a CREATE SINK statement (not yet
// stored), with the query it runs and that query's source text.
func (s *Session) sinkObject(st *sql.CreateSink) (*catalog.Object, *sql.Query, *sql.Source, error) {
	src := st.Source()
	ttl, with, err := s.stateTTLOption(st.With, src)
	if err != nil {
		return nil, nil, nil, err
	}
	shed, with, err := shedOptions(with, src)
	if err != nil {
		return nil, nil, nil, err
	}
	opts := map[string]string{}
	var connPos sql.Pos
	for _, o := range with {
		opts[o.Key] = o.Value
		if o.Key == "connector" {
			connPos = o.ValuePos
		}
	}
	at := st.Name.Pos
	if connPos.Line > 0 {
		at = connPos
	}
	conn, err := s.eng.conns.Sink(opts["connector"])
	if err == nil {
		if _, ok := conn.(insertSink); ok {
			return nil, nil, nil, bindErr(connPos, src, "write to a stream with INSERT INTO ... SELECT")
		}
		_, err = conn.Check(opts, s.eng.connEnv())
	}
	if err != nil {
		return nil, nil, nil, bindErr(optionPos(with, err, at), src, "%v", err)
	}
	q := st.Query
	text := ""
	if st.From != nil {
		text = "SELECT * FROM `" + strings.ReplaceAll(st.From.Name, "`", "``") + "`"
		stmt, err := sql.ParseOne(text, sql.Pos{Line: 1, Col: 1})
		if err != nil {
			return nil, nil, nil, err
		}
		q = stmt.(*sql.Select).Query
		src = stmt.Source()
	} else {
		text = q.Text
	}
	obj := &catalog.Object{Name: st.Name.Name, Kind: catalog.Sink, Query: text, Options: opts, StateTTLMs: ttl, Shed: shed}
	return obj, q, src, nil
}

// insertSelect starts a continuous INSERT INTO t [(cols)] SELECT ...: a
// query appending its rows to the stream t, kept in the catalog as a sink
// named insert_into_<t>_<n> (SHOW SINKS lists it, DROP SINK stops it).
func (s *Session) insertSelect(target *catalog.Object, st *sql.Insert) (*Result, error) {
	obj, err := s.insertObject(target, st)
	if err != nil {
		return nil, err
	}
	name := obj.Name
	if err := s.createContinuous(obj, st.Query, st.Source(), st.Start); err != nil {
		return nil, err
	}
	r := ok("INSERT")
	r.Notices = []string{fmt.Sprintf("the rows of the query are appended to %s continuously by sink %s (DROP SINK %s stops it)", target.Name, name, name)}
	return r, nil
}

// insertObject is the catalog object (a sink, not yet stored) that runs a
// continuous INSERT INTO target SELECT ...; an insert whose rows would
// feed its own query is refused.
func (s *Session) insertObject(target *catalog.Object, st *sql.Insert) (*catalog.Object, error) {
	e := s.eng
	name := ""
	for n := 1; ; n++ {
		name = fmt.Sprintf("insert_into_%s_%d", strings.ToLower(target.Name), n)
		if _, taken := e.cat.Get(name); !taken {
			break
		}
	}
	if e.reads(st.Query, target.Name) {
		return nil, bindErr(st.Query.Pos, st.Source(), "INSERT INTO %s SELECT ... reads %s itself: its rows would feed it forever", target.Name, target.Name)
	}
	var cols []string
	for _, c := range st.Columns {
		cols = append(cols, c.Name)
	}
	obj := &catalog.Object{Name: name, Kind: catalog.Sink, Query: st.Query.Text, DependsOn: []string{target.Name},
		Options: insertObjectOptions(target.Name, cols), StateTTLMs: s.stateTTL}
	obj.Columns = target.Columns
	return obj, nil
}

func asBind(err error, target **planner.BindError) bool { return errors.As(err, target) }

// reads reports whether q reads name, directly or through the objects it
// reads and the continuous inserts that feed them.
func (e *Engine) reads(q *sql.Query, name string) bool {
	b := e.newBuilder(nil, sql.Pos{})
	bound, err := b.BuildQuery(q, continuous)
	if err != nil {
		return false // the real planning reports the error
	}
	seen := map[string]bool{}
	var visit func(n string) bool
	visit = func(n string) bool {
		if strings.EqualFold(n, name) {
			return true
		}
		if seen[lower(n)] {
			return false
		}
		seen[lower(n)] = true
		obj, ok := e.cat.Get(n)
		if !ok {
			return false
		}
		for _, d := range obj.DependsOn {
			if visit(d) {
				return true
			}
		}
		// Rows reach n also through the continuous inserts into it.
		for _, sk := range e.cat.List(catalog.Sink) {
			target, ok := e.insertTarget(sk)
			if !ok || !strings.EqualFold(target, n) {
				continue
			}
			for _, d := range sk.DependsOn {
				if !strings.EqualFold(d, target) && visit(d) {
					return true
				}
			}
		}
		return false
	}
	for _, d := range bound.Deps {
		if visit(d) {
			return true
		}
	}
	return false
}
