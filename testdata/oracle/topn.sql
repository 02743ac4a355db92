-- Top-N and de-duplication with ROW_NUMBER() (SQL.md, "Aggregates and
-- patterns"). Order keys are unique (date_time is unique among bids, id
-- among ev rows, and ties are broken explicitly), so the result is
-- defined whatever order rows arrive in.

-- entry: topn_per_auction
-- needs: topn
-- The three highest bids per auction, with their rank.
CREATE MATERIALIZED VIEW v AS
  SELECT auction, price, bidder, date_time, rn FROM (
    SELECT auction, price, bidder, date_time,
           ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC, date_time) AS rn
    FROM bid) AS t
  WHERE rn <= 3;

-- entry: topn_over_aggregate
-- needs: topn
-- The five bidders with the largest totals: totals change with every bid,
-- so bidders enter and leave the top.
CREATE MATERIALIZED VIEW v AS
  SELECT bidder, total, rn FROM (
    SELECT bidder, total, ROW_NUMBER() OVER (ORDER BY total DESC, bidder) AS rn
    FROM (SELECT bidder, SUM(price) AS total FROM bid GROUP BY bidder) AS s) AS t
  WHERE rn <= 5;

-- entry: topn_over_table
-- needs: topn
-- The two richest active people per state, from a table that changes.
CREATE MATERIALIZED VIEW v AS
  SELECT state, id, credit FROM (
    SELECT state, id, credit, ROW_NUMBER() OVER (PARTITION BY state ORDER BY credit DESC, id) AS rn
    FROM person WHERE active) AS t
  WHERE rn <= 2;

-- entry: topn_order_by_limit
-- needs: topn
-- ORDER BY ... LIMIT in a view is a global Top-N.
CREATE MATERIALIZED VIEW v AS
  SELECT auction, bidder, price, date_time FROM bid ORDER BY price DESC, date_time LIMIT 5;

-- entry: dedup_first_bid
-- needs: dedup
-- Each bidder's first bid by event time; bids arrive slightly out of
-- order, so a later-arriving earlier bid replaces the first one seen.
CREATE MATERIALIZED VIEW v AS
  SELECT bidder, auction, price, date_time FROM (
    SELECT bidder, auction, price, date_time,
           ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY date_time) AS rn
    FROM bid) AS t
  WHERE rn = 1;

-- entry: dedup_last_per_key
-- needs: dedup
-- The latest ev row per key (NULL is a key of its own).
CREATE MATERIALIZED VIEW v AS
  SELECT k, id, g, s FROM (
    SELECT k, id, g, s, ROW_NUMBER() OVER (PARTITION BY k ORDER BY id DESC) AS rn FROM ev) AS t
  WHERE rn = 1;
