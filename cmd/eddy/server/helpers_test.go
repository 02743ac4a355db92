package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/eddysql/eddy/exec/engine"
)

// startServer starts a server on a free loopback port over a new engine
// in a temporary data directory; both are closed when t ends.
func startServer(t testing.TB) *Server {
	t.Helper()
	return startServerWith(t, nil)
}

// startServerWith is startServer with a Config that edit changes (nil:
// none) before Listen.
func startServerWith(t testing.TB, edit func(*Config)) *Server {
	t.Helper()
	eng, err := engine.Open(context.Background(), engine.Config{DataDir: t.TempDir(), FileRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Addr: "127.0.0.1:0", Engine: eng, Version: "test"}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := Listen(cfg)
	if err != nil {
		eng.Close()
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() {
		srv.Close()
		if err := eng.Close(); err != nil {
			t.Errorf("closing the engine: %v", err)
		}
	})
	return srv
}

// open returns a database handle on srv (go-sql-driver/mysql), closed when
// t ends.
func open(t *testing.T, srv *Server) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// dbConn returns one connection of db, closed when t ends.
func dbConn(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// execer is a *sql.DB or a *sql.Conn.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// mustExec runs statements, failing t on an error, and returns the
// rows the last affected.
func mustExec(t *testing.T, db execer, stmts ...string) int64 {
	t.Helper()
	var n int64
	for _, s := range stmts {
		res, err := db.ExecContext(context.Background(), s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		n, _ = res.RowsAffected()
	}
	return n
}

// query returns every row of a query as strings ("NULL" for NULL),
// failing t on an error.
func query(t *testing.T, db execer, q string) [][]string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	out, err := scanAll(rows)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// scanAll reads every row of rows as strings.
func scanAll(rows *sql.Rows) ([][]string, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		row, err := scanRow(rows, len(cols))
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// scanRow reads the current row of rows, of n columns, as strings, a NULL
// as "NULL".
func scanRow(rows *sql.Rows, n int) ([]string, error) {
	vals := make([]sql.NullString, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	row := make([]string, n)
	for i, v := range vals {
		row[i] = "NULL"
		if v.Valid {
			row[i] = v.String
		}
	}
	return row, nil
}

// mysqlError returns err's MySQL error, failing t if it is not one.
func mysqlError(t *testing.T, err error) *mysql.MySQLError {
	t.Helper()
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("not a MySQL error: %v (%T)", err, err)
	}
	return me
}

// waitFor polls cond until it holds, failing t after 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// openDSN returns a database handle for a DSN, closed when t ends.
func openDSN(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
