package crashtest

import (
	"fmt"
	"strings"
)

// nexmarkEvents is the size of the bounded Nexmark sources, generated at
// nexmarkRate events a second: a run reads them over its rounds.
const (
	nexmarkEvents = 200_000
	nexmarkRate   = 25_000
)

// setup creates the workload's streams, views and sink.
var setup = fmt.Sprintf(`
CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP(3),
  WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND)
  WITH (connector = 'nexmark', table = 'bid', events = '%[1]d', rate = '%[2]d');
CREATE STREAM auction (id BIGINT, seller BIGINT, category BIGINT, date_time TIMESTAMP(3),
  WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND)
  WITH (connector = 'nexmark', table = 'auction', events = '%[1]d', rate = '%[2]d');
CREATE STREAM clicks (k BIGINT, v BIGINT);
CREATE STREAM feed (k BIGINT, tag VARCHAR)
  WITH (connector = 'file', path = 'lines.csv', format = 'csv', header = 'true', follow = 'true');

CREATE MATERIALIZED VIEW bid_stats AS
  SELECT auction, COUNT(*) AS n, SUM(price) AS total, MAX(price) AS hi FROM bid GROUP BY auction;
CREATE MATERIALIZED VIEW click_stats AS
  SELECT k, COUNT(*) AS n, SUM(v) AS total, MIN(v) AS lo FROM clicks GROUP BY k;
CREATE MATERIALIZED VIEW line_stats AS SELECT tag, COUNT(*) AS n, SUM(k) AS ks FROM feed GROUP BY tag;
CREATE MATERIALIZED VIEW per_second AS
  SELECT window_start, COUNT(*) AS n, MAX(price) AS hi
  FROM TUMBLE(bid, date_time, INTERVAL '1' SECOND) GROUP BY window_start EMIT ON WINDOW CLOSE;
CREATE MATERIALIZED VIEW early_bids AS
  SELECT a.category, COUNT(*) AS n, SUM(b.price) AS total
  FROM auction a JOIN bid b ON a.id = b.auction
    AND b.date_time BETWEEN a.date_time AND a.date_time + INTERVAL '1' SECOND
  GROUP BY a.category;
CREATE MATERIALIZED VIEW click_lines AS
  SELECT c.k, l.tag, COUNT(*) AS n, SUM(c.v) AS total FROM clicks c JOIN feed l ON c.k = l.k GROUP BY c.k, l.tag;
CREATE MATERIALIZED VIEW top_bids AS
  SELECT auction, price, bidder FROM (
    SELECT auction, price, bidder, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC, bidder) AS rn FROM bid) t
  WHERE rn <= 2;
SET parallelism = 1;
CREATE SINK big_bids AS SELECT auction, bidder, price, date_time FROM bid WHERE price > 90000000
  WITH (connector = 'file', path = 'big_bids.csv', header = 'true');
`, nexmarkEvents, nexmarkRate)

// views are the workload's views, each with the ORDER BY that lists it
// in one order.
var views = []struct{ name, order string }{
	{"bid_stats", "auction"},
	{"click_stats", "k"},
	{"line_stats", "tag"},
	{"per_second", "window_start"},
	{"early_bids", "category"},
	{"click_lines", "k, tag"},
	{"top_bids", "auction, price, bidder"},
}

// sinkFile is the file sink's output, under the file root.
const sinkFile = "big_bids.csv"

// final flushes every query (the Nexmark sources to their end) and lists
// every view.
func final() string {
	var b strings.Builder
	b.WriteString("FLUSH;\n")
	for _, v := range views {
		fmt.Fprintf(&b, "SELECT * FROM %s ORDER BY %s;\n", v.name, v.order)
	}
	return b.String()
}

// inserts returns round r's INSERT into clicks: rows that insert new keys
// and add to old ones.
func inserts(r int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO clicks VALUES ")
	for i := range 40 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d)", (r*7+i*3)%61, r*100+i)
	}
	b.WriteString(";")
	return b.String()
}

// lines returns round r's lines appended to lines.csv.
func lines(r int) string {
	var b strings.Builder
	for i := range 25 {
		fmt.Fprintf(&b, "%d,tag%d\n", (r*11+i)%61, (r+i)%5)
	}
	return b.String()
}
