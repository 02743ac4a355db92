package difftest

import (
	"context"
	dbsql "database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// translationCases pair an eddy expression with the value eddy (MySQL)
// gives it, as testdata/slt documents; the translation must make SQLite
// give the same. Times are epoch milliseconds, booleans 0/1.
var translationCases = []struct{ eddy, want string }{
	// Division and remainders.
	{"7 / 2", "3.5"}, {"-9 / 4", "-2.25"}, {"1 / 0", "NULL"}, {"7 DIV 2", "3"}, {"-7 DIV 2", "-3"},
	{"1 DIV 0", "NULL"}, {"(10 + 4) DIV (3 - 1)", "7"}, {"-7 % 3", "-1"}, {"7 % -3", "1"},
	{"MOD(10, 3)", "1"}, {"MOD(-10, 3)", "-1"}, {"MOD(10.5, 3)", "1.5"}, {"MOD(5, 0)", "NULL"},
	{"NULL <=> NULL", "1"}, {"1 <=> NULL", "0"}, {"'a' || 'b' || 1", "ab1"}, {"'a' || NULL", "NULL"}, {"1 = 1 && 1 = 2", "0"},
	// Strings.
	{"CONCAT('a', \"b\", 'c''s')", "abc's"}, {`"it's ""q"""`, `it's "q"`}, {"CONCAT('x', 1)", "x1"}, {"CONCAT('a', NULL)", "NULL"},
	{"LENGTH('héllo')", "6"}, {"CHAR_LENGTH('héllo')", "5"}, {"UCASE('abc')", "ABC"},
	{"SUBSTRING('Quadratically', 5)", "ratically"}, {"SUBSTRING('Quadratically', 5, 6)", "ratica"},
	{"SUBSTRING('Sakila', -3)", "ila"}, {"SUBSTRING('Sakila', -5, 3)", "aki"}, {"SUBSTR('abc', 2)", "bc"},
	{"SUBSTRING('abc', 0)", ""}, {"SUBSTRING('abc', 2, 0)", ""}, {"SUBSTRING('abc', 5)", ""},
	{"SUBSTRING('abc', 2, -1)", ""}, {"SUBSTRING('abc', -5)", ""}, {"SUBSTRING(NULL, 1)", "NULL"},
	{"LEFT('foobarbar', 5)", "fooba"}, {"RIGHT('foobarbar', 4)", "rbar"}, {"LEFT('héllo', 2)", "hé"},
	{"LEFT('abc', 10)", "abc"}, {"RIGHT('abc', 0)", ""}, {"RIGHT('abc', 10)", "abc"}, {"LEFT('abc', -1)", ""},
	{"LPAD('hi', 4, '??')", "??hi"}, {"LPAD('hi', 1, '??')", "h"}, {"RPAD('hi', 5, 'ab')", "hiaba"},
	{"LPAD('5', 3, '0')", "005"}, {"RPAD('é', 3, 'ü')", "éüü"}, {"LPAD('hi', -1, 'x')", "NULL"},
	{"LOCATE('bar', 'foobarbar')", "4"}, {"LOCATE('xbar', 'foobar')", "0"}, {"LOCATE('bar', 'foobarbar', 5)", "7"},
	{"LOCATE('l', 'héllo')", "3"}, {"LOCATE('a', 'abc', 0)", "0"}, {"LOCATE('a', NULL, 0)", "NULL"},
	{"INSTR('foobarbar', 'bar')", "4"}, {"POSITION('bar' IN 'foobarbar')", "4"},
	{"TRIM(BOTH 'x' FROM 'xxabcxx')", "abc"}, {"TRIM(LEADING 'x' FROM 'xxabcxx')", "abcxx"},
	{"TRIM(TRAILING 'x' FROM 'xxabcxx')", "xxabc"}, {"TRIM('  a b  ')", "a b"}, {"TRIM(LEADING FROM '  a  ')", "a  "},
	{"'abc' LIKE 'ABC'", "0"}, {"'abc' LIKE 'a_c'", "1"},
	// Conditionals and numbers.
	{"IF(1 > 2, 'a', 'b')", "b"}, {"GREATEST(1, 5, 3)", "5"}, {"LEAST(1, 5, 3)", "1"}, {"GREATEST(1, NULL, 3)", "NULL"},
	{"CEILING(-2.7)", "-2"}, {"POW(2, 10)", "1024"},
	{"CAST(3.7 AS BIGINT)", "4"}, {"CAST(-3.5 AS BIGINT)", "-4"}, {"CAST(2.7e0 AS BIGINT)", "3"},
	{"CAST('42' AS BIGINT)", "42"}, {"CAST(1 AS DOUBLE)", "1"}, {"CAST(3.14159 AS DECIMAL(10,2))", "3.14"},
	{"CAST(7 AS VARCHAR)", "7"}, {"CAST(5 AS BOOLEAN)", "1"},
	// Times: literals, intervals and functions, also before the epoch.
	{"TIMESTAMP '2024-03-15 13:45:30.250'", "1710510330250"}, {"DATE '1970-01-02'", "86400000"},
	{"TIMESTAMP '1970-01-01 00:00:00' + INTERVAL 1 DAY", "86400000"}, {"INTERVAL '90' MINUTE", "5400000"},
	{"DATE_ADD(TIMESTAMP '1970-01-01 00:00:00', INTERVAL 2 HOUR)", "7200000"}, {"DATE_SUB(DATE '1970-01-02', INTERVAL 30 SECOND)", "86370000"},
	{"EXTRACT(YEAR FROM TIMESTAMP '2024-03-15 13:45:30.250')", "2024"},
	{"EXTRACT(QUARTER FROM TIMESTAMP '2024-03-15 13:45:30.250')", "1"},
	{"EXTRACT(MONTH FROM TIMESTAMP '2024-03-15 13:45:30.250')", "3"},
	{"EXTRACT(DAY FROM TIMESTAMP '2024-03-15 13:45:30.250')", "15"},
	{"EXTRACT(HOUR FROM TIMESTAMP '2024-03-15 13:45:30.250')", "13"},
	{"EXTRACT(MINUTE FROM TIMESTAMP '2024-03-15 13:45:30.250')", "45"},
	{"EXTRACT(SECOND FROM TIMESTAMP '2024-03-15 13:45:30.250')", "30"},
	{"EXTRACT(MILLISECOND FROM TIMESTAMP '2024-03-15 13:45:30.250')", "30250"},
	{"EXTRACT(DOW FROM TIMESTAMP '2024-03-15 13:45:30.250')", "6"},
	{"EXTRACT(DOY FROM DATE '2024-12-31')", "366"},
	{"EXTRACT(EPOCH FROM TIMESTAMP '2024-03-15 13:45:30')", "1710510330"},
	{"EXTRACT(SECOND FROM TIMESTAMP '1969-12-31 23:59:58.500')", "58"},
	{"EXTRACT(EPOCH FROM TIMESTAMP '1969-12-31 23:59:58.500')", "-2"},
	{"EXTRACT(MILLISECOND FROM TIMESTAMP '1969-12-31 23:59:58.500')", "58500"},
	{"DATE(TIMESTAMP '1969-12-31 23:59:58.500')", "-86400000"}, {"CAST(TIMESTAMP '2024-03-15 13:45:30' AS DATE)", "1710460800000"},
	{"UNIX_TIMESTAMP(TIMESTAMP '1970-01-02 00:00:00')", "86400"}, {"FROM_UNIXTIME(1234567890)", "1234567890000"},
	{"DATE_FORMAT(TIMESTAMP '2024-03-15 13:45:30.250', '%Y-%m-%d %H:%i:%s')", "2024-03-15 13:45:30"},
	{"DATE_FORMAT(TIMESTAMP '2024-03-15 13:45:30.250', '%j|%T|100%%')", "075|13:45:30|100%"},
	{"DATE_FORMAT(TIMESTAMP '2024-03-05 04:05:06', '%e.%k h')", "5.4 h"},
	{"DATE_FORMAT(NULL, '%Y')", "NULL"}, {"DATE_FORMAT(DATE '2024-12-31', '%d.%m.%Y')", "31.12.2024"},
}

// TestTranslateValues checks each translated expression's value in SQLite.
func TestTranslateValues(t *testing.T) {
	db := testDB(t)
	for _, c := range translationCases {
		q, err := Translate("SELECT "+c.eddy, nil)
		if err != nil {
			t.Errorf("%s: %v", c.eddy, err)
			continue
		}
		var v any
		if err := db.QueryRow(q).Scan(&v); err != nil {
			t.Errorf("%s: %s: %v", c.eddy, q, err)
			continue
		}
		if got := sqliteText(v); got != c.want {
			t.Errorf("%s = %s, want %s\n  SQLite: %s", c.eddy, got, c.want, q)
		}
	}
}

// TestTranslateErrors checks that what cannot be translated faithfully is
// refused rather than translated wrongly.
func TestTranslateErrors(t *testing.T) {
	for _, q := range []string{
		"SELECT REVERSE(s) FROM ev",
		"SELECT APPROX_COUNT_DISTINCT(k) FROM ev",
		"SELECT DATE_FORMAT(ts, '%W') FROM ev",
		"SELECT TRIM(BOTH 'xy' FROM s) FROM ev",
		"SELECT CAST(x AS JSON) FROM ev",
		"SELECT EXTRACT(WEEK FROM ts) FROM ev",
		"SELECT k FROM TUMBLE(ev, ts, 10) GROUP BY k",
		"SELECT COUNT(*) FROM SESSION(ev, ts, INTERVAL '1' SECOND)",
		"SELECT ts + INTERVAL 1 MONTH FROM ev",
		"SELECT 'unterminated",
	} {
		if out, err := Translate(q, nil); err == nil {
			t.Errorf("%s: translated to %s, want an error", q, out)
		}
	}
}

// TestTranslateKeepsText checks that strings, comments and quoted names
// are not rewritten.
func TestTranslateKeepsText(t *testing.T) {
	got, err := Translate("SELECT 'a / b DIV c', `odd name` /* 1 / 2 */ FROM t -- x / y\nWHERE a/b > 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "SELECT 'a / b DIV c', \"odd name\"   FROM t  \nWHERE a*1.0/b > 1"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// testDB returns an empty SQLite database configured as OpenSQLite does.
func testDB(t *testing.T) *dbsql.DB {
	t.Helper()
	db, err := OpenSQLite(context.Background(), &Data{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// sqliteText renders a SQLite value for a test: integral REALs as integers.
func sqliteText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

// rowsText runs a query and renders its rows, one line each, values
// separated by spaces.
func rowsText(t *testing.T, db *dbsql.DB, q string) string {
	t.Helper()
	res, err := Query(context.Background(), db, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var lines []string
	for _, r := range res.Values {
		vals := make([]string, len(r))
		for i, v := range r {
			vals[i] = sqliteText(v)
		}
		lines = append(lines, strings.Join(vals, " "))
	}
	return strings.Join(lines, "\n")
}
