package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Query is one benchmark query, written for each engine. Both engines
// materialize its result under the name v and then compute Check over v;
// the values must agree.
type Query struct {
	// Name names the query on the command line and in the table.
	Name string
	// Eddy is the SELECT behind eddy's materialized view v, over the
	// stream bids and the table auctions of eddyDDL.
	Eddy string
	// DuckDB is the SELECT DuckDB materializes with CREATE TABLE v AS,
	// over the views bids and auctions of duckDBViews (read_json calls,
	// so the query reads the files).
	DuckDB string
	// Check is the select list both engines compute over v: COUNT(*)
	// first, then sums that catch a wrong row the count alone would not.
	Check string
}

// Queries are the four benchmark queries, in the order they run.
var Queries = []Query{
	{
		Name:   "filter",
		Eddy:   "SELECT * FROM bids WHERE price > 100",
		DuckDB: "SELECT * FROM bids WHERE price > 100",
		Check:  "COUNT(*), SUM(price), SUM(bidder)",
	},
	{
		Name: "tumble",
		Eddy: "SELECT window_start, window_end, COUNT(*) AS n " +
			"FROM TUMBLE(bids, date_time, INTERVAL '10' SECOND) GROUP BY window_start, window_end",
		// time_bucket's default origin (2000-01-03) lies a whole number
		// of days after the Unix epoch, so its 10-second buckets are
		// eddy's windows, which start at multiples of 10 s since 1970.
		DuckDB: "SELECT time_bucket(INTERVAL '10 seconds', date_time) AS window_start, " +
			"time_bucket(INTERVAL '10 seconds', date_time) + INTERVAL '10 seconds' AS window_end, COUNT(*) AS n " +
			"FROM bids GROUP BY ALL",
		Check: "COUNT(*), SUM(n), MAX(n), MIN(n)",
	},
	{
		Name: "join",
		Eddy: "SELECT b.auction, b.bidder, b.price, a.item_name, a.category " +
			"FROM bids AS b JOIN auctions AS a ON b.auction = a.id",
		DuckDB: "SELECT b.auction, b.bidder, b.price, a.item_name, a.category " +
			"FROM bids AS b JOIN auctions AS a ON b.auction = a.id",
		Check: "COUNT(*), SUM(price), SUM(category)",
	},
	{
		Name:   "topn",
		Eddy:   "SELECT auction, bidder, price FROM bids ORDER BY price DESC LIMIT 10",
		DuckDB: "SELECT auction, bidder, price FROM bids ORDER BY price DESC LIMIT 10",
		// Ties on price may pick different bids, so the check leaves
		// out the other columns.
		Check: "COUNT(*), SUM(price), MIN(price)",
	},
}

// SelectQueries returns the queries named in the comma-separated list
// names, in Queries' order; "" or "all" selects every query.
func SelectQueries(names string) ([]Query, error) {
	if names == "" || names == "all" {
		return Queries, nil
	}
	want := map[string]bool{}
	for n := range strings.SplitSeq(names, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []Query
	for _, q := range Queries {
		if want[q.Name] {
			out = append(out, q)
			delete(want, q.Name)
		}
	}
	if len(want) > 0 {
		unknown := slices.Sorted(maps.Keys(want))
		return nil, fmt.Errorf("unknown queries %s (have filter, tumble, join, topn)", strings.Join(unknown, ", "))
	}
	return out, nil
}

// eddyDDL declares the bids stream and the auctions table over the
// generated files, relative to eddy's file root. The watermark lets the
// tumbling window use event time; bids arrive in order, so none is late.
// on_error = 'fail' turns a row eddy could not read into an error instead
// of a silently skipped row.
const eddyDDL = `CREATE STREAM bids (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP(3), extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'file', path = 'bids.jsonl', format = 'json', on_error = 'fail');
CREATE TABLE auctions (
  id BIGINT, item_name VARCHAR, category BIGINT, seller BIGINT, reserve BIGINT,
  PRIMARY KEY (id)
) WITH (connector = 'file', path = 'auctions.jsonl', format = 'json', on_error = 'fail');
`

// checkTag starts the row of eddy's check query, so the row is found in
// the output whatever else is printed.
const checkTag = "peers-check"

// eddyScript is the whole script eddy runs for q: the DDL, the view, a
// FLUSH that returns once the file has been read to its end and every row
// is in the view, and the check over the view.
func eddyScript(q Query) string {
	return fmt.Sprintf("%sCREATE MATERIALIZED VIEW v AS %s;\nFLUSH;\nSELECT '%s' AS tag, %s FROM v;\n",
		eddyDDL, q.Eddy, checkTag, q.Check)
}

// duckDBViews declares bids and auctions as views over read_json, with
// the columns and types given (as eddy is given them) so DuckDB spends no
// time sampling the file to detect them. A view is expanded into every
// query that names it, so each query reads the file itself.
func duckDBViews(ds Dataset) []string {
	return []string{
		fmt.Sprintf(`CREATE VIEW bids AS SELECT * FROM read_json(%s, format = 'newline_delimited',
  columns = {auction: 'BIGINT', bidder: 'BIGINT', price: 'BIGINT', channel: 'VARCHAR', url: 'VARCHAR',
             date_time: 'TIMESTAMP', extra: 'VARCHAR'})`, sqlString(ds.Bids)),
		fmt.Sprintf(`CREATE VIEW auctions AS SELECT * FROM read_json(%s, format = 'newline_delimited',
  columns = {id: 'BIGINT', item_name: 'VARCHAR', category: 'BIGINT', seller: 'BIGINT', reserve: 'BIGINT'})`,
			sqlString(ds.Auctions)),
	}
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
