package server

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// TestPreparedStatements runs statements with arguments through
// go-sql-driver/mysql, which prepares them (COM_STMT_PREPARE) and
// executes them with the values in the binary protocol: INSERTs, pull
// queries, a push query with a LIMIT, NULLs and quotes in values, and
// errors, whose connection stays usable.
func TestPreparedStatements(t *testing.T) {
	db := open(t, startServer(t))
	mustExec(t, db, "CREATE STREAM s (a BIGINT, b VARCHAR, c DOUBLE, d TIMESTAMP(3))")
	ts := time.Date(2026, 12, 2, 10, 30, 0, 500e6, time.UTC)
	for _, args := range [][]any{
		{1, "plain", 1.5, ts},
		{2, "it's a \\ 'quote' ? -- not a comment", -2.25, ts.Add(time.Second)},
		{3, nil, nil, nil},
	} {
		res, err := db.Exec("INSERT INTO s VALUES (?, ?, ?, ?)", args...)
		if err != nil {
			t.Fatalf("INSERT %v: %v", args, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Errorf("INSERT %v: %d rows affected", args, n)
		}
	}
	rows, err := db.Query("SELECT a, b, c, d FROM s WHERE a >= ? AND b <> ? ORDER BY a", 1, "nothing")
	if err != nil {
		t.Fatal(err)
	}
	got, err := scanAll(rows)
	rows.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"1", "plain", "1.5", "2026-12-02 10:30:00.500"},
		{"2", "it's a \\ 'quote' ? -- not a comment", "-2.25", "2026-12-02 10:30:01.500"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pull query: %q, want %q", got, want)
	}
	var n int64
	if err := db.QueryRow("SELECT COUNT(*) FROM s WHERE b IS NULL AND a = ?", 3).Scan(&n); err != nil || n != 1 {
		t.Errorf("count of NULLs: %d, %v", n, err)
	}
	// A push query, prepared, streams until its LIMIT.
	rows, err = db.Query("SELECT a FROM s WHERE a < ? EMIT CHANGES LIMIT 2", 3)
	if err != nil {
		t.Fatal(err)
	}
	got, err = scanAll(rows)
	rows.Close()
	if err != nil || len(got) != 2 {
		t.Errorf("push query: %q, %v", got, err)
	}
	// Errors come back as from a COM_QUERY, and the connection goes on.
	_, err = db.Exec("INSERT INTO nope VALUES (?)", 1)
	if me := mysqlError(t, err); me.Number != 1146 {
		t.Errorf("unknown stream: error %d %q", me.Number, me.Message)
	}
	_, err = db.Exec("SELECT ? FORM s", 1)
	if me := mysqlError(t, err); me.Number != 1064 {
		t.Errorf("syntax error: error %d %q", me.Number, me.Message)
	}
	_, err = db.Exec("SELECT 1; SELECT ?", 1)
	if err == nil || !strings.Contains(err.Error(), "one statement") {
		t.Errorf("two statements: %v", err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM s WHERE a > ?", 0).Scan(&n); err != nil || n != 3 {
		t.Errorf("after errors: %d, %v", n, err)
	}
}

func TestBindParams(t *testing.T) {
	vars := map[string]*querypb.BindVariable{
		"v1": sqltypes.Int64BindVariable(-7),
		"v2": sqltypes.StringBindVariable("a'b\\c\x00d"),
		"v3": sqltypes.NullBindVariable,
		"v4": sqltypes.Float64BindVariable(0.25),
		"v5": sqltypes.BytesBindVariable([]byte{0xff, 'x'}),
	}
	got, err := bindParams("SELECT ?, '?', ?, /* ? */ ?, ?, `?`, ?", vars)
	if err != nil {
		t.Fatal(err)
	}
	if want := "SELECT -7, '?', 'a''b\\\\c\\0d', /* ? */ NULL, 0.25, `?`, '\xffx'"; got != want {
		t.Errorf("bindParams = %q, want %q", got, want)
	}
	if _, err := bindParams("SELECT ?, ?", map[string]*querypb.BindVariable{"v1": sqltypes.Int64BindVariable(1)}); err == nil {
		t.Error("a parameter without a value was bound")
	}
}
