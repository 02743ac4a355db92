package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
)

func bindErr(p sql.Pos, src *sql.Source, format string, args ...any) *planner.BindError {
	e := &planner.BindError{Pos: p, Msg: fmt.Sprintf(format, args...)}
	if src != nil {
		e.Line = src.Line(p)
	}
	return e
}

// columns resolves column definitions to catalog columns.
func columns(defs []sql.ColumnDef, src *sql.Source, pk map[string]bool) ([]catalog.Column, error) {
	seen := map[string]bool{}
	var out []catalog.Column
	for _, d := range defs {
		if seen[lower(d.Name.Name)] {
			return nil, bindErr(d.Name.Pos, src, "column '%s' is defined twice", d.Name.Name)
		}
		seen[lower(d.Name.Name)] = true
		t, err := types.FromName(d.Type.Name, d.Type.Args)
		if err != nil {
			return nil, bindErr(d.Type.Pos, src, "%v", err)
		}
		if t.Kind == types.Interval {
			return nil, bindErr(d.Type.Pos, src, "a column cannot be an INTERVAL")
		}
		out = append(out, catalog.Column{Name: d.Name.Name, Type: t, Nullable: !d.NotNull && !d.PrimaryKey && !pk[lower(d.Name.Name)], Path: d.Path})
	}
	return out, nil
}

// streamOptions are the WITH options of every stream, whatever feeds it.
var streamOptions = map[string]bool{"idle_timeout": true, "late_rows_to": true,
	optDedupKey: true, optDedupWindow: true, optDedupFPR: true}

// connectorOptions returns opts without the options of every stream: what
// the connector itself validates.
func connectorOptions(opts map[string]string) map[string]string {
	out := make(map[string]string, len(opts))
	for k, v := range opts {
		if !streamOptions[k] {
			out[k] = v
		}
	}
	return out
}

// defaultIdleTimeout is how long a source split may go without data before
// it stops holding back watermarks (SQL.md: a WITH option, default 5 s).
const defaultIdleTimeout = 5 * time.Second

// parseIdleTimeout reads idle_timeout: '5s', '500ms', '2 seconds', '1m', or
// a number of milliseconds (connector.ParseDuration); 0 means a split is
// never idle.
func parseIdleTimeout(v string) (time.Duration, error) {
	d, err := connector.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("idle_timeout: %w", err)
	}
	return d, nil
}

// idleTimeout returns a stream's idle timeout.
func idleTimeout(obj *catalog.Object) time.Duration {
	if v, ok := obj.Options["idle_timeout"]; ok {
		if d, err := parseIdleTimeout(v); err == nil {
			return d
		}
	}
	return defaultIdleTimeout
}

// options turns WITH options into a map and validates them: the options of
// every stream, and the connector's own. It returns the columns too: cols,
// or when none are declared those the connector provides (nexmark's).
func (s *Session) options(opts []sql.Option, cols []catalog.Column, pk []string, src *sql.Source, start sql.Pos) (map[string]string, []catalog.Column, error) {
	m := map[string]string{}
	var conn *sql.Option
	var others []string
	for i, o := range opts {
		m[o.Key] = o.Value
		switch {
		case o.Key == "connector":
			conn = &opts[i]
		case o.Key == "idle_timeout":
			if _, err := parseIdleTimeout(o.Value); err != nil {
				return nil, nil, bindErr(o.ValuePos, src, "%v", err)
			}
		case !streamOptions[o.Key]:
			others = append(others, o.Key)
		}
	}
	if len(m) == 0 {
		return nil, cols, nil
	}
	if conn == nil {
		if len(others) > 0 {
			sort.Strings(others)
			return nil, nil, bindErr(opts[0].KeyPos, src, "WITH needs a 'connector' option for %s; a stream without a connector is fed by INSERT", strings.Join(others, ", "))
		}
		return m, cols, nil
	}
	c, err := s.eng.conns.Source(conn.Value)
	if err != nil {
		var ns *connector.NotSupportedError
		if errors.As(err, &ns) {
			return nil, nil, &planner.NotSupportedError{Feature: ns.Feature(), Pos: conn.ValuePos, Line: src.Line(conn.ValuePos)}
		}
		return nil, nil, bindErr(conn.ValuePos, src, "%v", err)
	}
	m["connector"] = c.Name()
	spec := connector.Spec{Options: connectorOptions(m), Columns: cols, PrimaryKey: pk}
	if err := c.Check(spec, s.eng.connEnv()); err != nil {
		return nil, nil, bindErr(optionPos(opts, err, conn.ValuePos), src, "%v", err)
	}
	if len(cols) == 0 {
		cols = c.Columns(spec.Options)
	}
	return m, cols, nil
}

// optionPos is where the option a connector's error names is written (at
// when the error names none).
func optionPos(opts []sql.Option, err error, at sql.Pos) sql.Pos {
	name, ok := connector.ErrorOption(err)
	if !ok {
		return at
	}
	for _, o := range opts {
		if strings.EqualFold(o.Key, name) {
			return o.ValuePos
		}
	}
	return at
}

// lateTarget checks late_rows_to: an INSERT-fed stream with the same column
// types, which the new stream then depends on.
func (s *Session) lateTarget(name string, cols []catalog.Column, opts []sql.Option, src *sql.Source) (string, error) {
	var at sql.Pos
	for _, o := range opts {
		if o.Key == "late_rows_to" {
			at = o.ValuePos
		}
	}
	if n := utf8.RuneCountInString(name); n > sql.MaxIdentLen {
		return "", bindErr(at, src, "late_rows_to: a stream name has at most %d characters, found one of %d", sql.MaxIdentLen, n)
	}
	target, ok := s.eng.cat.Get(name)
	switch {
	case !ok:
		return "", bindErr(at, src, "late_rows_to: unknown stream '%s' (create it first, with the same columns)", name)
	case target.Kind != catalog.Stream || !target.IsSource() || target.Connector() != "":
		return "", bindErr(at, src, "late_rows_to: '%s' must be a stream fed by INSERT", target.Name)
	case len(target.Columns) != len(cols):
		return "", bindErr(at, src, "late_rows_to: '%s' has %d columns, this stream %d", target.Name, len(target.Columns), len(cols))
	}
	for i, c := range cols {
		if target.Columns[i].Type != c.Type {
			return "", bindErr(at, src, "late_rows_to: column %d of '%s' is %s, here %s", i+1, target.Name, target.Columns[i].Type, c.Type)
		}
	}
	return target.Name, nil
}

// exists handles CREATE of a name already taken: an error, or with IF NOT
// EXISTS a result with a notice.
func (s *Session) exists(tag string, name sql.Ident, ifNotExists bool, src *sql.Source) (*Result, error) {
	obj, found := s.eng.cat.Get(name.Name)
	if !found {
		return nil, nil
	}
	if ifNotExists {
		r := ok(tag)
		r.Notices = append(r.Notices, fmt.Sprintf("%s '%s' already exists, skipping", obj.Kind, obj.Name))
		return r, nil
	}
	e := bindErr(name.Pos, src, "%s '%s' already exists", obj.Kind, obj.Name)
	e.Cause = &catalog.Error{Code: catalog.ErrExists, Name: obj.Name, Msg: e.Msg}
	return nil, e
}

func (s *Session) createStream(st *sql.CreateStream) (*Result, error) {
	src := st.Source()
	if r, err := s.exists("CREATE STREAM", st.Name, st.IfNotExists, src); r != nil || err != nil {
		return r, err
	}
	if st.Query != nil {
		obj, err := s.derivedObject(st)
		if err != nil {
			return nil, err
		}
		if err := s.createContinuous(obj, st.Query, src, st.Start); err != nil {
			return nil, err
		}
		return ok("CREATE STREAM"), nil
	}
	cols, err := columns(st.Columns, src, nil)
	if err != nil {
		return nil, err
	}
	for _, d := range st.Columns {
		if d.PrimaryKey {
			return nil, bindErr(d.Name.Pos, src, "a stream has no primary key: use CREATE TABLE for a changelog keyed by '%s'", d.Name.Name)
		}
	}
	opts, cols, err := s.options(st.With, cols, nil, src, st.Start)
	if err != nil {
		return nil, err
	}
	if err := s.checkPaths(st.Columns, opts, src); err != nil {
		return nil, err
	}
	obj := &catalog.Object{Name: st.Name.Name, Kind: catalog.Stream, Columns: cols, Options: opts}
	if obj.Dedup, err = dedupOf(st.With, cols, src); err != nil {
		return nil, err
	}
	if st.Watermark != nil {
		delay, err := s.eng.newBuilder(src, st.Start).BindWatermark(cols, st.Watermark)
		if err != nil {
			return nil, err
		}
		col := cols[obj.ColumnIndex(st.Watermark.Column.Name)].Name
		obj.Watermark = &catalog.Watermark{Column: col, DelayMs: delay, Text: col}
		if delay > 0 {
			obj.Watermark.Text = col + " - " + types.FormatInterval(delay)
		}
	}
	if late, ok := opts["late_rows_to"]; ok {
		if obj.Watermark == nil {
			return nil, bindErr(st.Name.Pos, src, "late_rows_to needs a WATERMARK: without event time no row is late")
		}
		target, err := s.lateTarget(late, cols, st.With, src)
		if err != nil {
			return nil, err
		}
		obj.Options["late_rows_to"] = target
		obj.DependsOn = append(obj.DependsOn, target)
	}
	if _, ok := opts["idle_timeout"]; ok && obj.Watermark == nil {
		return nil, bindErr(st.Name.Pos, src, "idle_timeout needs a WATERMARK: a stream without event time has no watermark to hold back")
	}
	if err := s.eng.cat.Create(obj); err != nil {
		return nil, err
	}
	return ok("CREATE STREAM"), nil
}

func (s *Session) createTable(st *sql.CreateTable) (*Result, error) {
	src := st.Source()
	if r, err := s.exists("CREATE TABLE", st.Name, st.IfNotExists, src); r != nil || err != nil {
		return r, err
	}
	if st.Watermark != nil {
		return nil, &planner.NotSupportedError{Feature: "WATERMARK", Pos: st.Watermark.Pos, Line: src.Line(st.Watermark.Pos)}
	}
	pk := map[string]bool{}
	for _, k := range st.PrimaryKey {
		pk[lower(k.Name)] = true
	}
	cols, err := columns(st.Columns, src, pk)
	if err != nil {
		return nil, err
	}
	obj := &catalog.Object{Name: st.Name.Name, Kind: catalog.Table, Columns: cols, LogOps: true}
	for _, k := range st.PrimaryKey {
		i := obj.ColumnIndex(k.Name)
		if i < 0 {
			return nil, bindErr(k.Pos, src, "primary key column '%s' is not a column of '%s'", k.Name, st.Name.Name)
		}
		obj.PrimaryKey = append(obj.PrimaryKey, i)
	}
	if err := refuseDedup(st.With, src); err != nil {
		return nil, err
	}
	if obj.Options, _, err = s.options(st.With, cols, primaryKeyNames(obj), src, st.Start); err != nil {
		return nil, err
	}
	if err := s.checkPaths(st.Columns, obj.Options, src); err != nil {
		return nil, err
	}
	if err := s.eng.cat.Create(obj); err != nil {
		return nil, err
	}
	return ok("CREATE TABLE"), nil
}

func (s *Session) createView(ctx context.Context, st *sql.CreateView) (*Result, error) {
	src := st.Source()
	if st.OrReplace {
		if old, found := s.eng.cat.Get(st.Name.Name); found {
			return s.replaceView(old, st)
		}
	}
	if r, err := s.exists("CREATE MATERIALIZED VIEW", st.Name, st.IfNotExists, src); r != nil || err != nil {
		return r, err
	}
	if st.Query.EmitChanges {
		return nil, bindErr(st.Query.Pos, src, "EMIT CHANGES belongs to push queries, not to a materialized view")
	}
	obj, err := s.viewObject(st)
	if err != nil {
		return nil, err
	}
	if err := s.createContinuous(obj, st.Query, src, st.Start); err != nil {
		return nil, shedErrorAt(err, st.With, src)
	}
	return ok("CREATE MATERIALIZED VIEW"), nil
}

// replaceView runs CREATE OR REPLACE MATERIALIZED VIEW over the existing
// object old: a view nothing depends on. The new query is planned first,
// so that a definition that does not plan leaves the old view running;
// then the old view is dropped (its rows and state with it) and the new
// one created, which computes its rows from its inputs.
func (s *Session) replaceView(old *catalog.Object, st *sql.CreateView) (*Result, error) {
	src := st.Source()
	if old.Kind != catalog.View {
		return nil, bindErr(st.Name.Pos, src, "'%s' is a %s, not a materialized view: CREATE OR REPLACE cannot replace it", old.Name, old.Kind)
	}
	// Not while a rescale replaces a query's job.
	s.eng.moves.RLock()
	defer s.eng.moves.RUnlock()
	if deps := s.eng.cat.Dependents(old.Name); len(deps) > 0 {
		verb := "depends"
		if len(deps) > 1 {
			verb = "depend"
		}
		return nil, bindErr(st.Name.Pos, src, "cannot replace materialized view '%s': %s %s on it (drop them first, or DROP MATERIALIZED VIEW %s CASCADE)",
			old.Name, strings.Join(deps, ", "), verb, sql.QuoteIdent(old.Name))
	}
	if st.Query.EmitChanges {
		return nil, bindErr(st.Query.Pos, src, "EMIT CHANGES belongs to push queries, not to a materialized view")
	}
	obj, err := s.viewObject(st)
	if err != nil {
		return nil, err
	}
	check := *obj
	cq, err := s.eng.planContinuous(&check, st.Query, src, st.Start, s.settings())
	if err != nil {
		return nil, shedErrorAt(err, st.With, src)
	}
	for _, d := range cq.bound.Deps {
		if strings.EqualFold(d, old.Name) {
			return nil, bindErr(st.Query.Pos, src, "the new query of materialized view '%s' reads '%s' itself", old.Name, old.Name)
		}
	}
	if err := s.eng.dropObject(old.Name, catalog.View); err != nil {
		return nil, err
	}
	if err := s.createContinuous(obj, st.Query, src, st.Start); err != nil {
		return nil, fmt.Errorf("materialized view '%s' was dropped, but its new query did not start: %w", old.Name, shedErrorAt(err, st.With, src))
	}
	r := ok("CREATE MATERIALIZED VIEW")
	r.Notices = []string{fmt.Sprintf("materialized view '%s' replaced", old.Name)}
	return r, nil
}

// createContinuous plans obj's query, gives obj the query's columns and
// dependencies, stores it and starts its query.
func (s *Session) createContinuous(obj *catalog.Object, q *sql.Query, src *sql.Source, start sql.Pos) error {
	cq, err := s.eng.planContinuous(obj, q, src, start, s.settings())
	if err != nil {
		return err
	}
	obj.DependsOn = append(obj.DependsOn, cq.bound.Deps...)
	obj.Settings = s.querySettings()
	if obj.Kind == catalog.View {
		obj.PrimaryKey = resultKey(cq.logical)
	}
	if obj.Columns == nil {
		seen := map[string]bool{}
		for i, name := range cq.names() {
			if seen[lower(name)] {
				return bindErr(q.Pos, src, "the %s would have two columns named '%s': give them distinct aliases", obj.Kind, name)
			}
			seen[lower(name)] = true
			obj.Columns = append(obj.Columns, catalog.Column{Name: name, Type: cq.types()[i], Nullable: cq.bound.Md.Column(cq.bound.Cols[i]).Nullable})
		}
	}
	if err := s.eng.cat.Create(obj); err != nil {
		return err
	}
	started := false
	defer func() {
		// Never leave an object in the catalog whose query did not start,
		// even when starting it panicked: a restart would try it again.
		if !started {
			s.eng.cat.Drop(obj.Name, obj.Kind)
		}
	}()
	if err := s.eng.startQuery(obj, cq, false, s.checkpointInterval()); err != nil {
		return err
	}
	started = true
	return nil
}

func (s *Session) drop(st *sql.Drop) (*Result, error) {
	kind := map[sql.ObjectKind]catalog.Kind{sql.ObjStream: catalog.Stream, sql.ObjTable: catalog.Table,
		sql.ObjView: catalog.View, sql.ObjSink: catalog.Sink}[st.Kind]
	tag := "DROP " + st.Kind.String()
	// Not while a rescale replaces a query's job.
	s.eng.moves.RLock()
	defer s.eng.moves.RUnlock()
	var notices []string
	if st.Cascade {
		if o, found := s.eng.cat.Get(st.Name.Name); found && o.Kind == kind {
			for _, d := range s.eng.dependentsInOrder(o.Name) {
				if err := s.eng.dropObject(d.Name, d.Kind); err != nil {
					return nil, fmt.Errorf("dropping %s '%s', which depends on %s '%s': %w", d.Kind, d.Name, o.Kind, o.Name, err)
				}
				notices = append(notices, fmt.Sprintf("dropped %s '%s'", d.Kind, d.Name))
			}
		}
	}
	if err := s.eng.dropObject(st.Name.Name, kind); err != nil {
		if catalog.IsCode(err, catalog.ErrNotFound) && st.IfExists {
			r := ok(tag)
			r.Notices = []string{fmt.Sprintf("%s '%s' does not exist, skipping", kind, st.Name.Name)}
			return r, nil
		}
		var ce *catalog.Error
		if !errors.As(err, &ce) {
			return nil, err
		}
		e := bindErr(st.Name.Pos, st.Source(), "%v", err)
		e.Cause = err
		return nil, e
	}
	r := ok(tag)
	r.Notices = notices
	return r, nil
}

// dependentsInOrder returns the objects that depend on the object named
// name, directly or through others, each before every object it depends
// on: the order in which DROP ... CASCADE drops them.
func (e *Engine) dependentsInOrder(name string) []*catalog.Object {
	var out []*catalog.Object
	seen := map[string]bool{lower(name): true}
	var visit func(n string)
	visit = func(n string) {
		for _, d := range e.cat.Dependents(n) {
			if seen[lower(d)] {
				continue
			}
			seen[lower(d)] = true
			visit(d)
			if o, ok := e.cat.Get(d); ok {
				out = append(out, o)
			}
		}
	}
	visit(name)
	return out
}

// dropObject removes the object named name of kind k from the catalog and
// stops its query, deleting its query state, log and records. It fails
// with a *catalog.Error when the catalog refuses (unknown, another kind,
// dependents).
func (e *Engine) dropObject(name string, kind catalog.Kind) error {
	obj, err := e.cat.Drop(name, kind)
	if err != nil {
		return err
	}
	e.mu.Lock()
	q := e.queries[lower(obj.Name)]
	delete(e.queries, lower(obj.Name))
	delete(e.broken, lower(obj.Name))
	delete(e.mustRebuild, lower(obj.Name))
	detach := false
	if q != nil && q.mv != nil {
		// A view that queries read in place of their own sub-plans runs
		// on for them (share.go).
		for _, r := range e.queries {
			if r.plan != nil && readsObject(r.plan, map[uint64]bool{obj.ID: true}) {
				detach = true
				e.detached[obj.ID] = q
				break
			}
		}
	}
	e.mu.Unlock()
	if q != nil && !detach {
		q.stop()
		endSubscribers(q)
	}
	// The views only this query read in place of its own sub-plans go
	// with it.
	e.releaseDetached()
	if obj.Query != "" && !detach {
		if err := e.dropQueryState(obj); err != nil {
			return err
		}
	}
	if obj.Kind == catalog.Stream && obj.Query != "" {
		if err := e.dropDerivedKeys(obj.ID); err != nil {
			return fmt.Errorf("dropping %s: %w", obj.Name, err)
		}
	}
	if (obj.Kind == catalog.Stream || obj.Kind == catalog.Table) && obj.Connector() == "" {
		// An INSERT-fed or derived stream's rows go with it.
		if err := e.db.Log().Drop(obj.ID); err != nil {
			return fmt.Errorf("dropping the log of %s: %w", obj.Name, err)
		}
	}
	if _, ok := e.insertTarget(obj); ok {
		if err := e.db.KV().Delete(insertKey(obj.ID)); err != nil {
			return fmt.Errorf("dropping %s: %w", obj.Name, err)
		}
	}
	if obj.Watermark != nil {
		if err := e.db.KV().Delete(lateKey(obj.ID)); err != nil {
			return fmt.Errorf("dropping %s: %w", obj.Name, err)
		}
	}
	return nil
}

// checkPaths refuses columns declared WITH (path = ...) unless the
// source's connector reads JSON paths under opts (connector.PathReader).
func (s *Session) checkPaths(defs []sql.ColumnDef, opts map[string]string, src *sql.Source) error {
	for _, d := range defs {
		if d.Path == "" {
			continue
		}
		if name, ok := opts["connector"]; ok {
			if c, err := s.eng.conns.Source(name); err == nil {
				if pr, ok := c.(connector.PathReader); ok && pr.ReadsPaths(connectorOptions(opts)) {
					continue
				}
			}
		}
		return bindErr(d.PathPos, src, "column '%s': a path needs a source that reads JSON messages (connector = 'file' with format = 'json'); this one does not", d.Name.Name)
	}
	return nil
}
