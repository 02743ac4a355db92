package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/sql"
)

// showCreate is SHOW CREATE [kind] name: one row, the object's name and
// the statement that recreates it (createStatement).
func (s *Session) showCreate(st *sql.ShowCreate) (*Result, error) {
	o, err := s.lookupObject(st.Name, st.Kind, st.Source())
	if err != nil {
		return nil, err
	}
	stmt := s.eng.createStatement(o)
	return rowsResult("SHOW", textColumns("name", "create_statement"), [][]types.Datum{textRow(o.Name, stmt)}), nil
}

// lookupObject finds the object name names, which must be of kind when
// kind is not 0; the error of an unknown name, or of one of another kind,
// points at the name.
func (s *Session) lookupObject(name sql.Ident, kind sql.ObjectKind, src *sql.Source) (*catalog.Object, error) {
	o, ok := s.eng.cat.Get(name.Name)
	if !ok {
		what := "stream, table, materialized view or sink"
		if kind != 0 {
			what = strings.ToLower(kind.String())
		}
		e := bindErr(name.Pos, src, "unknown %s '%s'", what, name.Name)
		e.Cause = &catalog.Error{Code: catalog.ErrNotFound, Name: name.Name, Msg: e.Msg}
		return nil, e
	}
	if want := catalogKind(kind); kind != 0 && o.Kind != want {
		e := bindErr(name.Pos, src, "'%s' is a %s, not a %s", o.Name, o.Kind, want)
		e.Hint = fmt.Sprintf("use SHOW CREATE %s %s", strings.ToUpper(o.Kind.String()), sql.QuoteIdent(o.Name))
		return nil, e
	}
	return o, nil
}

// catalogKind is the catalog kind of an object kind of the SQL front end.
func catalogKind(k sql.ObjectKind) catalog.Kind {
	return map[sql.ObjectKind]catalog.Kind{sql.ObjStream: catalog.Stream, sql.ObjTable: catalog.Table,
		sql.ObjView: catalog.View, sql.ObjSink: catalog.Sink}[k]
}

// createStatement returns the statement that creates an object like o, in
// a normal form: keywords in upper case, names quoted where they need it,
// a defining query with its comments removed and its white space made
// single spaces (sql.NormalizeSpace), WITH options with the connector
// first and the others sorted. Run on an engine that has the objects o
// depends on, it creates an object with the same columns, keys,
// watermark, options, query and state TTL. The session settings a query
// was planned with (SET parallelism, ...) are not part of it; nor is the
// state TTL of a continuous INSERT, which only SET state_ttl sets.
func (e *Engine) createStatement(o *catalog.Object) string {
	var b strings.Builder
	name := sql.QuoteIdent(o.Name)
	switch {
	case o.Kind == catalog.Table:
		b.WriteString("CREATE TABLE " + name + " (")
		writeColumnDefs(&b, o)
		if len(o.PrimaryKey) > 0 {
			b.WriteString(", PRIMARY KEY (")
			for i, k := range o.PrimaryKey {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(sql.QuoteIdent(o.Columns[k].Name))
			}
			b.WriteString(")")
		}
		b.WriteString(")")
		writeWith(&b, o.Options, 0)
	case o.Kind == catalog.Stream && o.Query == "":
		b.WriteString("CREATE STREAM " + name + " (")
		writeColumnDefs(&b, o)
		if w := o.Watermark; w != nil {
			col := sql.QuoteIdent(w.Column)
			b.WriteString(", WATERMARK FOR " + col + " AS " + col)
			if w.DelayMs > 0 {
				b.WriteString(" - " + types.FormatInterval(w.DelayMs))
			}
		}
		b.WriteString(")")
		writeWith(&b, o.Options, 0)
	case o.Kind == catalog.Stream:
		b.WriteString("CREATE STREAM " + name)
		writeWith(&b, nil, o.StateTTLMs)
		b.WriteString(" AS " + sql.NormalizeSpace(o.Query))
	case o.Kind == catalog.View:
		b.WriteString("CREATE MATERIALIZED VIEW " + name)
		writeWith(&b, nil, o.StateTTLMs, shedWith(o)...)
		b.WriteString(" AS " + sql.NormalizeSpace(o.Query))
	default:
		if target, ok := e.insertTarget(o); ok {
			b.WriteString("INSERT INTO " + sql.QuoteIdent(target))
			if cols := o.Options["columns"]; cols != "" {
				parts := strings.Split(cols, ",")
				for i, c := range parts {
					parts[i] = sql.QuoteIdent(c)
				}
				b.WriteString(" (" + strings.Join(parts, ", ") + ")")
			}
			b.WriteString(" " + sql.NormalizeSpace(o.Query))
			break
		}
		b.WriteString("CREATE SINK " + name)
		if from, ok := sinkFrom(o.Query); ok {
			b.WriteString(" FROM " + sql.QuoteIdent(from))
		} else {
			b.WriteString(" AS " + sql.NormalizeSpace(o.Query))
		}
		writeWith(&b, o.Options, o.StateTTLMs, shedWith(o)...)
	}
	return b.String()
}

// sinkFrom returns the name a sink created FROM name reads: its query is
// the one sinkObject writes for that form.
func sinkFrom(query string) (string, bool) {
	const pre, post = "SELECT * FROM `", "`"
	if !strings.HasPrefix(query, pre) || !strings.HasSuffix(query, post) || len(query) < len(pre)+len(post)+1 {
		return "", false
	}
	quoted := query[len(pre) : len(query)-len(post)]
	if strings.Contains(strings.ReplaceAll(quoted, "``", ""), "`") {
		return "", false
	}
	return strings.ReplaceAll(quoted, "``", "`"), true
}

// writeColumnDefs writes the column definitions of a source stream or
// table: a column that cannot be NULL is NOT NULL, unless it is part of
// the primary key, which implies it.
func writeColumnDefs(b *strings.Builder, o *catalog.Object) {
	key := map[int]bool{}
	for _, k := range o.PrimaryKey {
		key[k] = true
	}
	for i, c := range o.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sql.QuoteIdent(c.Name) + " " + c.Type.String())
		if !c.Nullable && !key[i] {
			b.WriteString(" NOT NULL")
		}
		if c.Path != "" {
			b.WriteString(" WITH (path = " + sql.QuoteString(c.Path) + ")")
		}
	}
}

// writeWith writes ` WITH (...)`: the options, connector first and then by
// name, and state_ttl when ttlMs is not 0; nothing when there are none.
func writeWith(b *strings.Builder, opts map[string]string, ttlMs int64, extra ...string) {
	var parts []string
	if c, ok := opts["connector"]; ok {
		parts = append(parts, "connector = "+sql.QuoteString(c))
	}
	for _, kv := range (&catalog.Object{Options: opts}).SortedOptions() {
		if kv[0] != "connector" {
			parts = append(parts, sql.QuoteOptionKey(kv[0])+" = "+sql.QuoteString(kv[1]))
		}
	}
	if ttlMs != 0 {
		parts = append(parts, optStateTTL+" = "+sql.QuoteString(formatMs(ttlMs)))
	}
	parts = append(parts, extra...)
	if len(parts) > 0 {
		b.WriteString(" WITH (" + strings.Join(parts, ", ") + ")")
	}
}

// formatMs renders a duration in milliseconds in the largest unit that
// holds it whole, as duration options read it: '1h', '90s', '1500ms'.
func formatMs(ms int64) string {
	for _, u := range []struct {
		d    time.Duration
		unit string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := time.Duration(ms) * time.Millisecond; n%u.d == 0 {
			return fmt.Sprintf("%d%s", n/u.d, u.unit)
		}
	}
	return fmt.Sprintf("%dms", ms)
}
