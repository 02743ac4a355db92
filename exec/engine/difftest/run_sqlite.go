package difftest

import (
	"bytes"
	"context"
	dbsql "database/sql"
	"fmt"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// helperRows is how many integers the helper table __n holds (0 to
// helperRows-1): HOP and CUMULATE join it to enumerate the windows of a
// row, so it bounds size/slide and max/step.
const helperRows = 1024

// SQLiteResult is the result of one view in SQLite.
type SQLiteResult struct {
	View    string
	SQL     string   // the query SQLite ran
	Columns []string // SQLite's column names
	Values  [][]any
}

// OpenSQLite returns a new in-memory SQLite database holding the data: a
// table per source (all rows of a stream; the latest row per key of a
// table), plus, for hand-written queries, <stream>_rounds (a stream's rows
// with the _round that inserted them), <table>_versions (a table's rows
// current at the end of each _round that changed them), and __n(i), the
// integers from 0. Temporal values are INTEGER epoch milliseconds. LIKE is
// case-sensitive, as in eddy.
func OpenSQLite(ctx context.Context, d *Data) (*dbsql.DB, error) {
	db, err := dbsql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	if err := fill(ctx, db, d); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// images holds each Data's loaded database, serialized, so that the many
// databases of one data (one per corpus entry) are loaded once and copied.
var images sync.Map // *Data → []byte

// serializer is the modernc.org/sqlite connection's image interface
// (sqlite3_serialize and sqlite3_deserialize).
type serializer interface {
	Serialize() ([]byte, error)
	Deserialize([]byte) error
}

// fill gives db the data: a copy of the image of d's first database, or,
// for the first, its load, which it then keeps as the image.
func fill(ctx context.Context, db *dbsql.DB, d *Data) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if img, ok := images.Load(d); ok {
		err = conn.Raw(func(dc any) error {
			// Deserialize takes the buffer over: hand it a copy.
			return dc.(serializer).Deserialize(bytes.Clone(img.([]byte)))
		})
	} else {
		if err = load(ctx, conn, d); err == nil {
			err = conn.Raw(func(dc any) error {
				img, err := dc.(serializer).Serialize()
				if err == nil {
					images.Store(d, img)
				}
				return err
			})
		}
	}
	if err != nil {
		return err
	}
	// A connection's setting, not the database's.
	_, err = conn.ExecContext(ctx, "PRAGMA case_sensitive_like = ON")
	return err
}

// load creates and fills OpenSQLite's tables in one transaction.
func load(ctx context.Context, db *dbsql.Conn, d *Data) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmts := []string{"CREATE TABLE __n (i INTEGER PRIMARY KEY)"}
	for _, s := range d.Sources {
		stmts = append(stmts, s.SQLiteDDL(s.Name))
		if s.Table {
			stmts = append(stmts, s.SQLiteDDL(s.Name+"_versions", "_round INTEGER"))
		} else {
			stmts = append(stmts, s.SQLiteDDL(s.Name+"_rounds", "_round INTEGER"))
		}
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	for i := range helperRows {
		if _, err := tx.ExecContext(ctx, "INSERT INTO __n VALUES (?)", i); err != nil {
			return err
		}
	}
	for _, s := range d.Sources {
		if err := insertRows(ctx, tx, s.Name, d.Final(s.Name), nil); err != nil {
			return err
		}
		var rows []Row
		var rounds []int
		name := s.Name + "_rounds"
		if s.Table {
			rows, rounds = d.AsOfRounds(s.Name)
			name = s.Name + "_versions"
		} else {
			rows, rounds = d.History(s.Name)
		}
		if err := insertRows(ctx, tx, name, rows, rounds); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// insertRows inserts rows into a SQLite table, each followed by its round
// when rounds is not nil.
func insertRows(ctx context.Context, tx *dbsql.Tx, table string, rows []Row, rounds []int) error {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows[0])
	if rounds != nil {
		n++
	}
	stmt, err := tx.PrepareContext(ctx, fmt.Sprintf("INSERT INTO %s VALUES (%s)", table, strings.TrimSuffix(strings.Repeat("?, ", n), ", ")))
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, row := range rows {
		args := make([]any, 0, n)
		for _, v := range row {
			args = append(args, v.SQLite())
		}
		if rounds != nil {
			args = append(args, rounds[i])
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("loading %s: %w", table, err)
		}
	}
	return nil
}

// RunSQLite runs the entry's statements in db, in order (a view's query
// may read what the statements before it created): views and derived
// streams become SQLite views, streams tables, continuous inserts INSERT
// ... SELECT, each query hand-written in the entry or translated from
// eddy's. It returns the rows of each materialized view. An entry with DML
// first rebuilds the tables of d in db by replaying their rows round by
// round with the entry's statements in between (see replayTables): db
// must then be the entry's own.
func RunSQLite(ctx context.Context, db *dbsql.DB, d *Data, e *Entry) ([]*SQLiteResult, error) {
	columns := func(rel string) ([]string, error) { return TableColumns(ctx, db, rel) }
	if len(e.DML) > 0 {
		if err := replayTables(ctx, db, d, e, columns); err != nil {
			return nil, err
		}
	}
	var out []*SQLiteResult
	for _, st := range e.Stmts {
		q := st.SQLite
		if q == "" {
			var err error
			if st.Kind == KindStream {
				q, err = streamColumns(st.Query)
			} else {
				q, err = Translate(st.Query, columns)
			}
			if err != nil {
				return nil, fmt.Errorf("translating %s: %w", st.Name, err)
			}
		}
		var ddl string
		switch st.Kind {
		case KindView, KindDerived:
			ddl = "CREATE VIEW " + st.Name + " AS " + q
		case KindStream:
			ddl = "CREATE TABLE " + st.Name + " (" + q + ")"
		case KindInsert:
			ddl = "INSERT INTO " + st.Name + " " + q
		}
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			return nil, fmt.Errorf("%s: %w\nSQLite:\n%s", st.Name, err, ddl)
		}
		if st.Kind != KindView {
			continue
		}
		res, err := Query(ctx, db, "SELECT * FROM "+st.Name)
		if err != nil {
			return nil, fmt.Errorf("view %s: %w\nSQLite query:\n%s", st.Name, err, q)
		}
		res.View, res.SQL = st.Name, q
		out = append(out, res)
	}
	return out, nil
}

// streamColumns translates the column list of CREATE STREAM into SQLite
// column definitions, leaving out its WATERMARK clause.
func streamColumns(list string) (string, error) {
	toks, err := lex(list)
	if err != nil {
		return "", err
	}
	var defs []string
	for _, def := range splitTop(toks) {
		def = trim(def)
		if len(def) == 0 || def[0].kind != tIdent {
			return "", fmt.Errorf("cannot read the column %q", text(def))
		}
		if def[0].is("WATERMARK") {
			continue
		}
		defs = append(defs, def[0].text+" "+sqliteType(strings.TrimSpace(text(def[1:]))))
	}
	return strings.Join(defs, ", "), nil
}

// Query runs a SQLite query with its arguments and reads every row.
func Query(ctx context.Context, db *dbsql.DB, q string, args ...any) (*SQLiteResult, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	res := &SQLiteResult{Columns: cols}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		res.Values = append(res.Values, vals)
	}
	return res, rows.Err()
}

// TableColumns returns the column names of a SQLite table or view: what
// Translate asks of the tables a query reads.
func TableColumns(ctx context.Context, db *dbsql.DB, rel string) ([]string, error) {
	res, err := Query(ctx, db, "SELECT name FROM pragma_table_info('"+strings.ReplaceAll(rel, "'", "''")+"')")
	if err != nil {
		return nil, err
	}
	if len(res.Values) == 0 {
		return nil, fmt.Errorf("no table or view %s in SQLite", rel)
	}
	var out []string
	for _, v := range res.Values {
		out = append(out, fmt.Sprint(v[0]))
	}
	return out, nil
}

// replayTables empties the tables of d in db and fills them again round by
// round, as eddy sees them: each round's rows replace the rows of their
// keys, then the entry's DML for the round runs, translated.
func replayTables(ctx context.Context, db *dbsql.DB, d *Data, e *Entry, columns ColumnsFunc) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range d.Sources {
		if s.Table {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+s.Name); err != nil {
				return err
			}
		}
	}
	for i, rd := range d.Rounds {
		for _, b := range rd.Tables {
			s := d.Source(b.Source)
			var where []string
			for _, k := range s.Key {
				where = append(where, k+" = ?")
			}
			del := "DELETE FROM " + s.Name + " WHERE " + strings.Join(where, " AND ")
			for _, row := range b.Rows {
				var args []any
				for _, k := range s.Key {
					args = append(args, row[s.col(k)].SQLite())
				}
				if _, err := tx.ExecContext(ctx, del, args...); err != nil {
					return err
				}
				if err := insertRows(ctx, tx, s.Name, []Row{row}, nil); err != nil {
					return err
				}
			}
		}
		for _, m := range e.DML {
			if m.Round != i {
				continue
			}
			q, err := Translate(m.Text, columns)
			if err != nil {
				return fmt.Errorf("translating %s: %w", m.Text, err)
			}
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("round %d: %s: %w", i, q, err)
			}
		}
	}
	return tx.Commit()
}
