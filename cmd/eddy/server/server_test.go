package server

import (
	"reflect"
	"strings"
	"testing"
)

// TestStatements runs DDL, INSERT, a pull query with typed columns and
// NULLs, EXPLAIN and SHOW STREAMS through go-sql-driver/mysql.
func TestStatements(t *testing.T) {
	db := open(t, startServer(t))
	mustExec(t, db, `CREATE STREAM s (a BIGINT, i INT, b VARCHAR, c DOUBLE, d DECIMAL(10,2),
		t TIMESTAMP(3), day DATE, f BOOLEAN)`)
	n := mustExec(t, db, `INSERT INTO s VALUES
		(1, 10, 'x', 1.5, 2.25, '2024-01-01 00:00:01.500', '2024-01-01', true),
		(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`)
	if n != 2 {
		t.Errorf("INSERT affected %d rows, want 2", n)
	}
	rows, err := db.Query("SELECT * FROM s ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ct := range cts {
		got = append(got, ct.Name()+" "+ct.DatabaseTypeName())
	}
	want := []string{"a BIGINT", "i INT", "b VARCHAR", "c DOUBLE", "d DECIMAL", "t DATETIME", "day DATE", "f TINYINT"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("column types:\n got %v\nwant %v", got, want)
	}
	if p, s, ok := cts[4].DecimalSize(); !ok || p != 10 || s != 2 {
		t.Errorf("DECIMAL size %d,%d (%v), want 10,2", p, s, ok)
	}
	vals, err := scanAll(rows)
	rows.Close()
	if err != nil {
		t.Fatal(err)
	}
	wantVals := [][]string{
		{"1", "10", "x", "1.5", "2.25", "2024-01-01 00:00:01.500", "2024-01-01", "1"},
		{"2", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"},
	}
	if !reflect.DeepEqual(vals, wantVals) {
		t.Errorf("rows:\n got %v\nwant %v", vals, wantVals)
	}

	var a int64
	var c float64
	var f bool
	if err := db.QueryRow("SELECT a, c, f FROM s WHERE a = 1").Scan(&a, &c, &f); err != nil || a != 1 || c != 1.5 || !f {
		t.Errorf("typed scan: %d %v %v, %v", a, c, f, err)
	}

	explain := query(t, db, "EXPLAIN SELECT b, COUNT(*) FROM s GROUP BY b")
	var text []string
	for _, r := range explain {
		text = append(text, r[0])
	}
	if plan := strings.Join(text, "\n"); !strings.Contains(plan, "HashAggregate") || !strings.Contains(plan, "Source s") {
		t.Errorf("EXPLAIN:\n%s", plan)
	}
	streams := query(t, db, "SHOW STREAMS")
	if len(streams) != 1 || streams[0][0] != "s" {
		t.Errorf("SHOW STREAMS: %v", streams)
	}
	// A DECIMAL without digits after the point has no point: MySQL's
	// length is the digits and a sign, which drivers read the precision
	// from.
	rows, err = db.Query("SELECT CAST(a AS DECIMAL(12,0)) AS d0 FROM s")
	if err != nil {
		t.Fatal(err)
	}
	if cts, err = rows.ColumnTypes(); err != nil {
		t.Fatal(err)
	}
	if p, s, ok := cts[0].DecimalSize(); !ok || p != 12 || s != 0 {
		t.Errorf("DECIMAL(12,0) size %d,%d (%v), want 12,0", p, s, ok)
	}
	rows.Close()
	mustExec(t, db, "CREATE MATERIALIZED VIEW v AS SELECT COUNT(*) AS n FROM s", "FLUSH")
	if got := query(t, db, "SELECT n FROM v"); !reflect.DeepEqual(got, [][]string{{"2"}}) {
		t.Errorf("view: %v", got)
	}
}

// TestMultiStatements checks that one COM_QUERY with several statements
// answers each (multiStatements=true in the DSN), and that the first
// failing one ends them with its error, its position in the whole text.
func TestMultiStatements(t *testing.T) {
	srv := startServer(t)
	db := open(t, srv)
	multi := openDSN(t, "root@tcp("+srv.Addr()+")/?multiStatements=true")
	mustExec(t, multi, "CREATE STREAM s (a BIGINT); INSERT INTO s VALUES (1), (2); INSERT INTO s VALUES (3)")
	if got := query(t, db, "SELECT COUNT(*) FROM s"); !reflect.DeepEqual(got, [][]string{{"3"}}) {
		t.Fatalf("count: %v", got)
	}
	_, err := multi.Exec("INSERT INTO s VALUES (4);\nSELEC 1;\nINSERT INTO s VALUES (5)")
	me := mysqlError(t, err)
	if me.Number != 1064 || !strings.Contains(me.Message, "at 2:1") {
		t.Errorf("error %d %q, want 1064 at 2:1", me.Number, me.Message)
	}
	if got := query(t, db, "SELECT COUNT(*) FROM s"); !reflect.DeepEqual(got, [][]string{{"4"}}) {
		t.Errorf("after the error, count %v: want the statement before it run and the one after not", got)
	}
}

// TestErrors checks the MySQL error codes of eddy's errors, and that the
// message keeps eddy's line:column.
func TestErrors(t *testing.T) {
	db := open(t, startServer(t))
	mustExec(t, db, "CREATE STREAM s (a BIGINT)")
	for _, tc := range []struct {
		stmt   string
		code   uint16
		inText string
	}{
		{"SELECT a FORM s", 1064, "syntax error at 1:15: unexpected \"s\""},
		{"SELECT\n  a FROM nope", 1146, "unknown stream, table or view 'nope' at 2:10"},
		{"DROP STREAM nope", 1146, "at 1:13"},
		{"CREATE STREAM s (b BIGINT)", 1050, "stream 's' already exists at 1:15"},
		{"SELECT prize FROM s", 1105, "unknown column 'prize' at 1:8"},
		{"SET nonsense = 1", 1105, "unknown setting 'nonsense'"},
		{"USE other", 1049, "Unknown database 'other'"},
		{"KILL QUERY 99999", 1094, "Unknown thread id"},
	} {
		_, err := db.Exec(tc.stmt)
		me := mysqlError(t, err)
		if me.Number != tc.code || !strings.Contains(me.Message, tc.inText) {
			t.Errorf("%s: error %d %q, want %d containing %q", tc.stmt, me.Number, me.Message, tc.code, tc.inText)
		}
	}
	// A parse error's message shows the line and a caret under the column.
	_, err := db.Exec("SELECT a FORM s")
	if msg := mysqlError(t, err).Message; !strings.HasSuffix(msg, "SELECT a FORM s\n              ^") {
		t.Errorf("no snippet in %q", msg)
	}
	// The connection stays usable after errors.
	if got := query(t, db, "SELECT COUNT(*) FROM s"); !reflect.DeepEqual(got, [][]string{{"0"}}) {
		t.Errorf("count: %v", got)
	}
}

// TestSetIsPerSession checks that SET changes only its own connection's
// session: a second connection plans with the engine's parallelism.
func TestSetIsPerSession(t *testing.T) {
	db := open(t, startServer(t))
	a, b := dbConn(t, db), dbConn(t, db)
	mustExec(t, a, "CREATE STREAM s (k VARCHAR)", "SET parallelism = 3")
	plan := func(c execer) string {
		var lines []string
		for _, r := range query(t, c, "EXPLAIN SELECT k, COUNT(*) FROM s GROUP BY k") {
			lines = append(lines, r[0])
		}
		return strings.Join(lines, "\n")
	}
	if p := plan(a); !strings.Contains(p, "HashAggregate") || !strings.Contains(p, "parallelism=3") {
		t.Errorf("the session that SET parallelism = 3 plans:\n%s", p)
	}
	if p := plan(b); strings.Contains(p, "parallelism=3") {
		t.Errorf("another session plans with the first one's setting:\n%s", p)
	}
}

// TestClientQueries checks the queries stock clients send on their own.
func TestClientQueries(t *testing.T) {
	srv := startServer(t)
	db := open(t, srv)
	c := dbConn(t, db)
	for _, tc := range []struct {
		q    string
		want [][]string
	}{
		{"select @@version_comment limit 1", [][]string{{"eddy test, a streaming SQL engine"}}},
		{"SELECT DATABASE()", [][]string{{"NULL"}}},
		{"SHOW DATABASES", [][]string{{"eddy"}}},
		{"SELECT @@max_allowed_packet", [][]string{{"16777217"}}},
	} {
		if got := query(t, c, tc.q); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.q, got, tc.want)
		}
	}
	mustExec(t, c, "SET NAMES utf8mb4", "SET autocommit = 1", "USE eddy")
	if got := query(t, c, "SELECT DATABASE()"); !reflect.DeepEqual(got, [][]string{{"eddy"}}) {
		t.Errorf("DATABASE() after USE: %v", got)
	}
	// A DSN with a database and a charset: COM_INIT_DB and SET NAMES.
	withDB := openDSN(t, "root@tcp("+srv.Addr()+")/eddy?charset=utf8mb4")
	if got := query(t, withDB, "SHOW DATABASES"); !reflect.DeepEqual(got, [][]string{{"eddy"}}) {
		t.Errorf("SHOW DATABASES with a database in the DSN: %v", got)
	}
	// An engine notice is a warning, read with SHOW WARNINGS.
	mustExec(t, c, "DROP STREAM IF EXISTS nope")
	w := query(t, c, "SHOW WARNINGS")
	if len(w) != 1 || w[0][0] != "Warning" || !strings.Contains(w[0][2], "'nope' does not exist") {
		t.Errorf("SHOW WARNINGS: %v", w)
	}
}
